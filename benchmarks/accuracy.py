"""How well the analyzer tells compression from corruption, on pairs it was not written from.

Run ``python benchmarks/accuracy.py [--sets corpus-test,batches,locomo,summedits,quantulum3]
[--mode fast|accurate|both] [--data DIR] [--threshold 0.6] [--json OUT] [--misses SET]
[--judge-sample FILE]``.

Every pair is analyzed once with ``min_confidence=0``; the figures are then computed at each
confidence threshold from the findings' own ``confidence``, so one run prints the default
threshold's table and the sweep that chose it.

Sets (each is skipped, and says so, when its data is absent):

* ``corpus-dev`` / ``corpus-test``: the labelled corpus (``benchmarks/corpus``, its README).
  Rules may be tuned on dev only.
* ``batches``: the fresh batches in ``benchmarks/batches`` (its README), each written blind and
  measured before any tuning on it; the README's accuracy table keeps each batch's first
  figures.
* ``locomo``: the 272 LoCoMo session -> gpt-3.5 summary pairs (``<data>/locomo``), each session
  written as a ``Date: ...`` line (the session's date, which the summaries state) and
  ``Speaker [dia_id]: text`` lines, ``intent="summarize"``. Unlabelled: the flag rate
  is the share of pairs rejected; precision comes from hand-judging a sample of findings
  (``--judge-sample FILE`` writes one, ``benchmarks/locomo_judging.md`` is the protocol).
* ``summedits``: before = ``original_summary``, after = the edited ``summary``; balanced
  accuracy on negation edits (positives must carry RG301) and over all edits.
* ``quantulum3``: pairs made from quantulum3's gold quantities (unit dropped -> RG201, number
  changed tenfold -> RG202, the same quantity re-expressed -> neither).

Measures per labelled set, at a threshold: **false alarms** (safe pairs whose verdict is
``reject``), **caught** (corrupted pairs rejected), **right code** (corrupted pairs whose
expected code is reported), and precision / recall per code (a code counts as reported when a
finding of it reaches the threshold).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import refgraph
from refgraph.analyze import DEFAULT_MIN_CONFIDENCE
from refgraph.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks" / "batches"))
import batches as batch_files  # noqa: E402  (the folder is not a package)

PAIR_CODES = [r.code for r in RULES if not r.lint and not r.guard]
THRESHOLDS = (0.0, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)
DEFAULT_SETS = "corpus-test,batches,locomo,summedits,quantulum3"
FITTING: dict[str, frozenset[str]] = {
    "negation_insertion_removal": frozenset({"RG301"}),
    "antonym_swap": frozenset({"RG301", "RG304", "RG202", "RG104"}),
    "entity_modification": frozenset({"RG104", "RG103", "RG105", "RG202", "RG201", "RG101"}),
    "hallucinated_fact_insertion": frozenset({"RG104", "RG202"}),
}
CONVERSIONS = {  # gold unit -> (smaller unit as written, factor)
    "second": ("ms", 1000), "kilometre": ("m", 1000), "metre": ("cm", 100),
    "kilogram": ("g", 1000), "litre": ("mL", 1000), "hour": ("minutes", 60),
    "minute": ("seconds", 60), "gigabyte": ("MB", 1000), "kilowatt": ("W", 1000),
}
_NUM = re.compile(r"\d+(?:[.,]\d+)*")
Found = list[tuple[str, str, float]]  # (code, severity, confidence) per finding


# --- loading ---------------------------------------------------------------------------------

def corpus_builder(folder: Path) -> ModuleType:
    """``<folder>/build.py`` loaded as a module (the corpus folder is not a package)."""
    spec = importlib.util.spec_from_file_location("corpus_build", folder / "build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def load_corpus(folder: Path, split: str) -> list[dict[str, Any]]:
    """The split's pairs from ``<split>.jsonl``, or built from the folder's ``build.py``."""
    path = folder / f"{split}.jsonl"
    if path.exists():
        return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    if (folder / "build.py").exists():
        return [json.loads(json.dumps(p)) for p in corpus_builder(folder).build()[split]]
    return []


def load_locomo(folder: Path) -> list[dict[str, Any]]:
    """One pair per LoCoMo session that has dialogue and a summary."""
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        conv = json.loads(path.read_text("utf-8"))
        sessions = conv.get("conversation", conv)
        summaries = conv.get("session_summary", conv)
        k = 1
        while f"session_{k}" in sessions or f"session_{k}_date_time" in sessions:
            turns = sessions.get(f"session_{k}") or []
            summary = summaries.get(f"session_{k}_summary")
            if turns and summary:
                # the summarizer saw the session's date: summaries date what they report
                date = sessions.get(f"session_{k}_date_time")
                lines = [f"Date: {date}"] if date else []
                lines += [f"{t['speaker']} [{t['dia_id']}]: {t['text']}" for t in turns]
                rows.append({"id": f"locomo-{path.stem}-s{k}", "before": "\n".join(lines),
                             "after": str(summary), "intent": "summarize"})
            k += 1
    return rows


def load_summedits(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("summedits_*.json")):
        for row in json.loads(path.read_text("utf-8")):
            if row["summary"].strip() == row["original_summary"].strip():
                continue
            rows.append(row)
    return rows


def quantulum_pairs(path: Path) -> list[tuple[str, str, str]]:
    """(before, after, expected code or "") pairs derived from quantulum3's gold quantities."""
    out: list[tuple[str, str, str]] = []
    for row in json.loads(path.read_text("utf-8")):
        text = row["req"]
        for q in row["res"]:
            unit, surface = q.get("unit", ""), q.get("surface", "")
            if not surface or unit in ("", "dimensionless") or surface not in text:
                continue
            m = _NUM.search(surface)
            if not m or not re.search(r"[^\W\d_]", surface[m.end():]):
                continue  # the unit is not written after the number ("$5"): skip
            number = m.group()
            at = text.index(surface)
            dropped = text[:at] + surface[:m.end()] + text[at + len(surface):]
            out.append((text, dropped, "RG201"))
            value = float(number.replace(",", ""))
            bigger = f"{value * 10:g}"
            out.append((text, text[:at] + surface[:m.start()] + bigger + surface[m.end():]
                        + text[at + len(surface):], "RG202"))
            if unit in CONVERSIONS:
                small, factor = CONVERSIONS[unit]
                same = f"{value * factor:g} {small}"
                out.append((text, text[:at] + same + text[at + len(surface):], ""))
            else:
                out.append((text, "As reported: " + text, ""))
    return out


# --- running and scoring ---------------------------------------------------------------------

def run_pairs(rows: list[dict[str, Any]], az: refgraph.Analyzer) -> list[dict[str, Any]]:
    """Each row analyzed with every finding kept (min_confidence=0)."""
    out = []
    for row in rows:
        span = tuple(row["declared_span"]) if row.get("declared_span") else None
        rep = az.analyze(row["before"], row["after"], intent=row.get("intent", "rewrite"),
                         declared_span=span, min_confidence=0.0)  # type: ignore[arg-type]
        out.append({"id": row["id"], "expected": row.get("expected"),
                    "kind": row.get("kind", ""),
                    "found": [(f.code, f.severity, f.confidence) for f in rep.findings],
                    "messages": [f"{f.code} {f.confidence:.2f} {f.message}"
                                 for f in rep.findings]})
    return out


def _named(found: Found, t: float) -> set[str]:
    return {c for c, _, conf in found if conf >= t}


def _rejected(found: Found, t: float) -> bool:
    return any(sev == "error" and conf >= t for _, sev, conf in found)


def score(results: list[dict[str, Any]], t: float) -> dict[str, Any]:
    """False alarms, catches, right codes and per-code P/R at threshold ``t``."""
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    safe = alarms = bad = caught = right = 0
    for r in results:
        want = set(r["expected"])
        got = _named(r["found"], t)
        for c in got & want:
            tp[c] += 1
        for c in got - want:
            fp[c] += 1
        for c in want - got:
            fn[c] += 1
        if not want:
            safe += 1
            alarms += _rejected(r["found"], t)
        else:
            bad += 1
            caught += _rejected(r["found"], t)
            right += want <= got
    per_code = {}
    for c in PAIR_CODES:
        p = tp[c] / (tp[c] + fp[c]) if tp[c] + fp[c] else float("nan")
        rec = tp[c] / (tp[c] + fn[c]) if tp[c] + fn[c] else float("nan")
        per_code[c] = {"precision": p, "recall": rec, "support": tp[c] + fn[c], "fp": fp[c]}
    return {"pairs": len(results), "safe": safe, "corrupted": bad,
            "false_alarm_rate": alarms / safe if safe else float("nan"),
            "caught": caught / bad if bad else float("nan"),
            "right_code": right / bad if bad else float("nan"), "per_code": per_code}


def run_locomo(rows: list[dict[str, Any]], az: refgraph.Analyzer, t: float
               ) -> dict[str, Any]:
    """The share of pairs rejected per threshold and the findings per code at ``t``."""
    results = run_pairs(rows, az)
    by_t = {th: sum(_rejected(r["found"], th) for r in results) / len(results)
            for th in THRESHOLDS}
    counts = Counter(c for r in results for c, _, conf in r["found"] if conf >= t)
    return {"pairs": len(rows), "rejected": by_t, "findings": sum(counts.values()),
            "per_code": dict(counts)}


def _context(text: str, start: int, end: int, lines: int = 2) -> str:
    """The lines around ``text[start:end]``: what a judge reads the quote in."""
    first = text.rfind("\n", 0, start)
    for _ in range(lines):
        if first <= 0:
            break
        first = text.rfind("\n", 0, first)
    last = end
    for _ in range(lines + 1):
        nxt = text.find("\n", last + 1)
        if nxt < 0:
            last = len(text)
            break
        last = nxt
    return text[max(first, 0):last].strip()


def write_judging_sample(rows: list[dict[str, Any]], analyzers: dict[str, refgraph.Analyzer],
                         t: float, path: Path, n: int = 60, floor: float = 0.5) -> int:
    """Every finding of either mode at confidence >= ``t`` (deduplicated across modes),
    topped up to ``n`` with a seeded random sample of the band ``[floor, t)`` when fewer are
    reported, each with the lines of the session its evidence cites. Returns how many."""
    by_key: dict[tuple[Any, ...], dict[str, Any]] = {}
    for m, az in analyzers.items():
        for row in rows:
            rep = az.analyze(row["before"], row["after"], intent="summarize",
                             min_confidence=floor)
            for f in rep.findings:
                ev = [e.to_dict() for e in f.evidence]
                key = (row["id"], f.code, tuple((e["side"], e["quote"]) for e in ev))
                item = by_key.setdefault(key, {
                    "pair": row["id"], "code": f.code, "severity": f.severity,
                    "confidence": f.confidence, "modes": [], "message": f.message,
                    "evidence": ev,
                    "session_context": [_context(row["before"], e["start"], e["end"])
                                        for e in ev if e["side"] == "before"],
                    "summary": row["after"], "verdict": None, "note": ""})
                item["modes"].append(m)
                item["confidence"] = max(item["confidence"], f.confidence)
    items = sorted(by_key.values(), key=lambda i: (i["pair"], i["code"], i["message"]))
    reported = [i for i in items if i["confidence"] >= t]
    band = [i for i in items if i["confidence"] < t]
    rng = random.Random(0)
    if len(reported) > n:
        chosen = rng.sample(reported, n)
    else:
        chosen = reported + rng.sample(band, min(len(band), n - len(reported)))
    for i in chosen:
        i["reported"] = i["confidence"] >= t
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in chosen),
                    "utf-8")
    return len(chosen)


def run_summedits(rows: list[dict[str, Any]], az: refgraph.Analyzer, t: float
                  ) -> dict[str, Any]:
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # detected, total
    cons = cons_flagged = cons_rg301 = 0
    neg_pos = neg_hit = 0
    pos = pos_hit = 0
    for row in rows:
        rep = az.analyze(row["original_summary"], row["summary"], intent="rewrite",
                         min_confidence=t)
        blocking = {f.code for f in rep.findings if f.severity == "error"}
        if row["label"] == 1:
            cons += 1
            cons_flagged += bool(blocking)
            cons_rg301 += "RG301" in blocking
            continue
        pos += 1
        pos_hit += bool(blocking)
        for kind in row.get("edit_types") or []:
            by_type[kind][1] += 1
            by_type[kind][0] += bool(blocking & FITTING.get(kind, frozenset()))
        if "negation_insertion_removal" in (row.get("edit_types") or []):
            neg_pos += 1
            neg_hit += "RG301" in blocking
    tnr = 1 - cons_flagged / cons if cons else float("nan")
    tnr_neg = 1 - cons_rg301 / cons if cons else float("nan")
    return {
        "rows": len(rows), "consistent": cons, "inconsistent": pos,
        "false_flag_rate": cons_flagged / cons if cons else float("nan"),
        "by_type": {k: {"detected": d / n if n else float("nan"), "rows": n}
                    for k, (d, n) in sorted(by_type.items())},
        "negation_balanced_accuracy": ((neg_hit / neg_pos if neg_pos else 0) + tnr_neg) / 2,
        "overall_balanced_accuracy": ((pos_hit / pos if pos else 0) + tnr) / 2,
    }


def run_quantulum(pairs: list[tuple[str, str, str]], az: refgraph.Analyzer, t: float
                  ) -> dict[str, Any]:
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for before, after, code in pairs:
        codes = set(az.analyze(before, after, min_confidence=t).codes)
        total[code or "same"] += 1
        if code:
            hit[code] += code in codes
        else:
            hit["same"] += not (codes & {"RG201", "RG202"})
    return {k: {"rate": hit[k] / total[k], "pairs": total[k]} for k in sorted(total)}


def _sample(rows: list[dict[str, Any]], limit: int | None, key: str = "id"
            ) -> list[dict[str, Any]]:
    if not limit or len(rows) <= limit:
        return rows
    return sorted(rows, key=lambda r: hashlib.sha256(str(r[key]).encode()).hexdigest())[:limit]


# --- printing --------------------------------------------------------------------------------

def _fmt(x: float) -> str:
    return "  -  " if x != x else f"{x:.3f}"


SWEEP = (0.5, 0.6, 0.7, 0.8)  # thresholds of the per-code sweep (the full sweep is longer)


def _print_code_sweep(by_mode: dict[str, list[dict[str, Any]]]) -> None:
    """Precision / recall per code at each threshold of :data:`SWEEP`, per mode."""
    for m, results in by_mode.items():
        scores = {th: score(results, th)["per_code"] for th in SWEEP}
        print(f"\n| {m}: code | " + " | ".join(f"P/R at {th}" for th in SWEEP) + " |")
        print("|---|" + "---|" * len(SWEEP))
        for code in PAIR_CODES:
            if not any(scores[th][code]["support"] or scores[th][code]["fp"] for th in SWEEP):
                continue
            print(f"| {code} | " + " | ".join(
                f"{_fmt(scores[th][code]['precision'])} / {_fmt(scores[th][code]['recall'])}"
                for th in SWEEP) + " |")


def print_labelled(name: str, by_mode: dict[str, list[dict[str, Any]]], t: float,
                   misses: bool) -> dict[str, Any]:
    modes = list(by_mode)
    scored = {m: score(r, t) for m, r in by_mode.items()}
    s0 = scored[modes[0]]
    print(f"\n{name}: {s0['pairs']} pairs ({s0['safe']} safe, {s0['corrupted']} corrupted), "
          f"threshold {t}")
    print("| measure | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    for key, label in (("false_alarm_rate", "false alarms (safe pairs rejected)"),
                       ("caught", "corrupted pairs rejected"),
                       ("right_code", "corrupted pairs with the right code")):
        print(f"| {label} | " + " | ".join(_fmt(scored[m][key]) for m in modes) + " |")
    print("\n| code | " + " | ".join(f"{m} P | {m} R" for m in modes) + " | support |")
    print("|---|" + "---|---|" * len(modes) + "---|")
    for code in PAIR_CODES:
        if not any(scored[m]["per_code"][code]["support"] or scored[m]["per_code"][code]["fp"]
                   for m in modes):
            continue
        cells = []
        for m in modes:
            pc = scored[m]["per_code"][code]
            cells += [_fmt(pc["precision"]), _fmt(pc["recall"])]
        print(f"| {code} | " + " | ".join(cells) + f" | {s0['per_code'][code]['support']} |")
    _print_code_sweep(by_mode)
    print("\n| threshold | " + " | ".join(f"{m} false alarms | {m} right code" for m in modes)
          + " |")
    print("|---|" + "---|---|" * len(modes))
    for th in THRESHOLDS:
        cells = []
        for m in modes:
            sc = score(by_mode[m], th)
            cells += [_fmt(sc["false_alarm_rate"]), _fmt(sc["right_code"])]
        print(f"| {th} | " + " | ".join(cells) + " |")
    if misses:
        for m in modes:
            for r in by_mode[m]:
                got, want = _named(r["found"], t), set(r["expected"])
                bad = (not want and _rejected(r["found"], t)) or (want and not want <= got)
                if bad:
                    print(f"--- [{m}] {r['id']} expected {sorted(want)} got {sorted(got)}")
                    for msg in r["messages"]:
                        print(f"      {msg[:220]}")
    return {m: {"at_threshold": scored[m],
                "sweep": {str(th): score(by_mode[m], th) for th in THRESHOLDS}}
            for m in modes}


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=DEFAULT_SETS,
                    help="comma-separated: corpus-dev, corpus-test, batches, batch:NAME, "
                         "locomo, summedits, quantulum3")
    ap.add_argument("--mode", choices=("fast", "accurate", "both"), default="both")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--corpus", default=str(ROOT / "benchmarks" / "corpus"))
    ap.add_argument("--threshold", type=float, default=None,
                    help="confidence threshold (default: the analyzer's)")
    ap.add_argument("--summedits-limit", type=int, default=None)
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--misses", default="", help="comma-separated sets to print misses of "
                    "(never corpus-test)")
    ap.add_argument("--judge-sample", help="write a sample of LoCoMo findings to judge here")
    args = ap.parse_args(list(argv) if argv is not None else None)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    misses = {s.strip() for s in args.misses.split(",") if s.strip()}
    if "corpus-test" in misses:
        ap.error("--misses looks at the held-back test split; use corpus-dev")
    modes = ["fast", "accurate"] if args.mode == "both" else [args.mode]
    t = args.threshold if args.threshold is not None else DEFAULT_MIN_CONFIDENCE
    data = Path(args.data)
    analyzers = {m: refgraph.Analyzer(m) for m in modes}  # type: ignore[arg-type]
    out: dict[str, Any] = {"threshold": t}
    labelled: list[tuple[str, list[dict[str, Any]]]] = []
    for s in sets:
        if s.startswith("corpus-"):
            rows = load_corpus(Path(args.corpus), s.removeprefix("corpus-"))
            labelled.append((s, rows))
        elif s == "batches" or s.startswith("batch:"):
            names = batch_files.batch_names() if s == "batches" else [s.split(":", 1)[1]]
            for name in names:
                rows, skipped = batch_files.load(name, data)
                if skipped:
                    print(f"batch {name}: {skipped} scenarios skipped (no {data})")
                labelled.append((f"batch:{name}", rows))
    for name, rows in labelled:
        if not rows:
            print(f"{name}: no pairs (skipped)")
            continue
        t0 = time.perf_counter()
        by_mode = {m: run_pairs(rows, az) for m, az in analyzers.items()}
        out[name] = print_labelled(name, by_mode, t, name in misses or "all" in misses)
        print(f"({time.perf_counter() - t0:.1f} s)")
    if "locomo" in sets:
        rows = load_locomo(data / "locomo") if (data / "locomo").is_dir() else []
        if rows:
            res = {m: run_locomo(rows, az, t) for m, az in analyzers.items()}
            out["locomo"] = res
            if args.judge_sample:
                k = write_judging_sample(rows, analyzers, t, Path(args.judge_sample))
                print(f"LoCoMo: {k} findings to judge written to {args.judge_sample}")
            print(f"\nLoCoMo: {len(rows)} session -> summary pairs")
            print("| threshold | " + " | ".join(f"{m} rejected" for m in modes) + " |")
            print("|---|" + "---|" * len(modes))
            for th in THRESHOLDS:
                print(f"| {th} | " + " | ".join(_fmt(res[m]["rejected"][th]) for m in modes)
                      + " |")
            for m in modes:
                print(f"{m}: {res[m]['findings']} findings at {t}: {res[m]['per_code']}")
        else:
            print("locomo: no data (skipped)")
    if "summedits" in sets and (data / "summedits").is_dir():
        rows = _sample(load_summedits(data / "summedits"), args.summedits_limit)
        res = {m: run_summedits(rows, az, t) for m, az in analyzers.items()}
        out["summedits"] = res
        s0 = res[modes[0]]
        print(f"\nSummEdits: {s0['rows']} edited rows ({s0['consistent']} consistent, "
              f"{s0['inconsistent']} inconsistent)")
        print("| measure | " + " | ".join(modes) + " |")
        print("|---|" + "---|" * len(modes))
        for kind in s0["by_type"]:
            print(f"| detected: {kind} ({s0['by_type'][kind]['rows']}) | " + " | ".join(
                _fmt(res[m]["by_type"][kind]["detected"]) for m in modes) + " |")
        for key, label in (("false_flag_rate", "false flags on consistent"),
                           ("negation_balanced_accuracy", "balanced accuracy, negation"),
                           ("overall_balanced_accuracy", "balanced accuracy, all edits")):
            print(f"| {label} | " + " | ".join(_fmt(res[m][key]) for m in modes) + " |")
    q = data / "quantulum3-tests" / "quantities.json"
    if "quantulum3" in sets and q.exists():
        pairs = quantulum_pairs(q)
        res = {m: run_quantulum(pairs, az, t) for m, az in analyzers.items()}
        out["quantulum3"] = res
        print("\nquantulum3-derived pairs")
        print("| pair kind | " + " | ".join(modes) + " | pairs |")
        print("|---|" + "---|" * len(modes) + "---|")
        names = {"RG201": "unit dropped -> RG201", "RG202": "number changed -> RG202",
                 "same": "same quantity -> no RG201/RG202"}
        first = res[modes[0]]
        for k in first:
            print(f"| {names.get(k, k)} | " + " | ".join(_fmt(res[m][k]["rate"]) for m in modes)
                  + f" | {first[k]['pairs']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
