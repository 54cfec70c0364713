"""How well the analyzer tells compression from corruption, on pairs it was not written from.

Run ``python benchmarks/accuracy.py [--split test|dev|all] [--mode fast|accurate|both]
[--data DIR] [--corpus DIR] [--summedits-limit N] [--json OUT] [--misses]``.

Three sources, each printed as a table:

1. **refgraph corpus** (``benchmarks/corpus/{dev,test}.jsonl``, see its README): per code,
   precision and recall of the codes ``refgraph.analyze`` reports against the expected codes;
   the **false-flag rate** is the share of safe rewrites (expected ``[]``) whose verdict is
   ``reject``; "exact" is the share of pairs whose reported code set equals the expected one.
   Rules are tuned on ``dev`` only; ``test`` (the default) is the honest estimate.
2. **SummEdits** (``<data>/summedits``, third-party, not copied): before = ``original_summary``,
   after = the edited ``summary``. Rows whose summary equals the original are left out (they
   are trivially consistent). Per edit type, the detection rate on inconsistent rows (a
   blocking finding with a fitting code, see ``FITTING``) and the false-flag rate on consistent
   rows; balanced accuracy for the negation edits (positives: rows tagged
   ``negation_insertion_removal`` must carry RG301; negatives: consistent rows must not) and
   over all rows (positives blocked, negatives passed). Published for scale, on all of
   SummEdits: SummaC-Conv 57.1, GPT-4 82.1, humans 90.9 balanced accuracy.
3. **quantulum3-derived pairs** (``<data>/quantulum3-tests/quantities.json``): for each gold
   quantity with a unit, three pairs made mechanically from its sentence: the unit dropped
   ("30 seconds" -> "30": RG201 expected), the number changed tenfold (RG202 expected), and
   the same quantity re-expressed in a smaller unit where a conversion is known ("2 km" ->
   "2000 m") or otherwise the sentence lightly reworded (nothing expected).

``--misses`` prints the pairs a split gets wrong (refused for ``test``, so tuning stays on dev).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import refgraph
from refgraph.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
PAIR_CODES = [r.code for r in RULES if not r.lint and not r.guard]
FITTING: dict[str, frozenset[str]] = {
    "negation_insertion_removal": frozenset({"RG301"}),
    "antonym_swap": frozenset({"RG301", "RG304", "RG202", "RG104"}),
    "entity_modification": frozenset({"RG104", "RG103", "RG202", "RG201", "RG101"}),
    "hallucinated_fact_insertion": frozenset({"RG104", "RG202"}),
}
CONVERSIONS = {  # gold unit -> (smaller unit as written, factor)
    "second": ("ms", 1000), "kilometre": ("m", 1000), "metre": ("cm", 100),
    "kilogram": ("g", 1000), "litre": ("mL", 1000), "hour": ("minutes", 60),
    "minute": ("seconds", 60), "gigabyte": ("MB", 1000), "kilowatt": ("W", 1000),
}
_NUM = re.compile(r"\d+(?:[.,]\d+)*")


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
    """The split's pairs from ``<split>.jsonl``, or, where the file was not generated yet, from
    the folder's ``build.py`` (the corpus JSON is derived from its scenarios, not tracked)."""
    names = ["dev", "test"] if split == "all" else [split]
    built: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = []
    for name in names:
        path = folder / f"{name}.jsonl"
        if path.exists():
            rows += [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        elif (folder / "build.py").exists():
            if built is None:
                built = corpus_builder(folder).build()
            rows += [json.loads(json.dumps(p)) for p in built[name]]
    return rows


def run_corpus(rows: list[dict[str, Any]], mode: str, misses: bool) -> dict[str, Any]:
    az = refgraph.Analyzer(mode)  # type: ignore[arg-type]
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    safe = safe_flagged = exact = 0
    t0 = time.perf_counter()
    for row in rows:
        span = tuple(row["declared_span"]) if row.get("declared_span") else None
        rep = az.analyze(row["before"], row["after"], intent=row["intent"],
                         declared_span=span)  # type: ignore[arg-type]
        got, want = set(rep.codes), set(row["expected"])
        for c in got & want:
            tp[c] += 1
        for c in got - want:
            fp[c] += 1
        for c in want - got:
            fn[c] += 1
        exact += got == want
        if not want:
            safe += 1
            safe_flagged += rep.verdict == "reject"
        if misses and got != want:
            print(f"--- {row['id']} expected {sorted(want)} got {sorted(got)}: {row['note']}")
            for f in rep.findings:
                print(f"    {f.code} {f.message[:160]}")
    secs = time.perf_counter() - t0
    per_code = {}
    for c in PAIR_CODES:
        p = tp[c] / (tp[c] + fp[c]) if tp[c] + fp[c] else float("nan")
        r = tp[c] / (tp[c] + fn[c]) if tp[c] + fn[c] else float("nan")
        per_code[c] = {"precision": p, "recall": r, "support": tp[c] + fn[c], "fp": fp[c]}
    return {"pairs": len(rows), "safe": safe,
            "false_flag_rate": safe_flagged / safe if safe else float("nan"),
            "exact": exact / len(rows) if rows else float("nan"), "per_code": per_code,
            "seconds": secs}


def load_summedits(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("summedits_*.json")):
        for row in json.loads(path.read_text("utf-8")):
            if row["summary"].strip() == row["original_summary"].strip():
                continue
            rows.append(row)
    return rows


def _sample(rows: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    if not limit or len(rows) <= limit:
        return rows
    # Deterministic, spread over domains: the rows whose id hashes lowest.
    return sorted(rows, key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())[:limit]


def run_summedits(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    az = refgraph.Analyzer(mode)  # type: ignore[arg-type]
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # detected, total
    cons = cons_flagged = cons_rg301 = 0
    neg_pos = neg_hit = 0
    pos = pos_hit = 0
    for row in rows:
        rep = az.analyze(row["original_summary"], row["summary"], intent="rewrite")
        blocking = {f.code for f in rep.findings if f.severity == "error"}
        if row["label"] == 1:
            cons += 1
            cons_flagged += bool(blocking)
            cons_rg301 += "RG301" in blocking
            continue
        pos += 1
        pos_hit += bool(blocking)
        for t in row.get("edit_types") or []:
            by_type[t][1] += 1
            by_type[t][0] += bool(blocking & FITTING.get(t, frozenset()))
        if "negation_insertion_removal" in (row.get("edit_types") or []):
            neg_pos += 1
            neg_hit += "RG301" in blocking
    tnr = 1 - cons_flagged / cons if cons else float("nan")
    tnr_neg = 1 - cons_rg301 / cons if cons else float("nan")
    return {
        "rows": len(rows), "consistent": cons, "inconsistent": pos,
        "false_flag_rate": cons_flagged / cons if cons else float("nan"),
        "by_type": {t: {"detected": d / n if n else float("nan"), "rows": n}
                    for t, (d, n) in sorted(by_type.items())},
        "negation_balanced_accuracy": ((neg_hit / neg_pos if neg_pos else 0) + tnr_neg) / 2,
        "overall_balanced_accuracy": ((pos_hit / pos if pos else 0) + tnr) / 2,
    }


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


def run_quantulum(pairs: list[tuple[str, str, str]], mode: str) -> dict[str, Any]:
    az = refgraph.Analyzer(mode)  # type: ignore[arg-type]
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for before, after, code in pairs:
        codes = set(az.analyze(before, after).codes)
        total[code or "same"] += 1
        if code:
            hit[code] += code in codes
        else:
            hit["same"] += not (codes & {"RG201", "RG202"})
    return {k: {"rate": hit[k] / total[k], "pairs": total[k]} for k in sorted(total)}


def _fmt(x: float) -> str:
    return "  -  " if x != x else f"{x:.3f}"


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("test", "dev", "all"), default="test")
    ap.add_argument("--mode", choices=("fast", "accurate", "both"), default="both")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--corpus", default=str(ROOT / "benchmarks" / "corpus"))
    ap.add_argument("--summedits-limit", type=int, default=None,
                    help="analyze at most N SummEdits rows (a deterministic sample)")
    ap.add_argument("--skip", action="append", default=[],
                    choices=("corpus", "summedits", "quantulum3"))
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--misses", action="store_true", help="print corpus misses (dev/all only)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if args.misses and args.split == "test":
        ap.error("--misses looks at the held-back test split; use --split dev")
    modes = ["fast", "accurate"] if args.mode == "both" else [args.mode]
    data = Path(args.data)
    results: dict[str, Any] = {}
    for mode in modes:
        res: dict[str, Any] = {}
        if "corpus" not in args.skip:
            rows = load_corpus(Path(args.corpus), args.split)
            if rows:
                res["corpus"] = run_corpus(rows, mode, args.misses)
            else:
                print(f"corpus: no rows in {args.corpus} (skipped)")
        if "summedits" not in args.skip and (data / "summedits").is_dir():
            res["summedits"] = run_summedits(
                _sample(load_summedits(data / "summedits"), args.summedits_limit), mode)
        q = data / "quantulum3-tests" / "quantities.json"
        if "quantulum3" not in args.skip and q.exists():
            res["quantulum3"] = run_quantulum(quantulum_pairs(q), mode)
        results[mode] = res
    _print(results, args.split)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), "utf-8")
    return 0


def _print(results: dict[str, Any], split: str) -> None:
    modes = list(results)
    first = results[modes[0]]
    if "corpus" in first:
        c0 = first["corpus"]
        print(f"\nrefgraph corpus, {split} split: {c0['pairs']} pairs, {c0['safe']} safe")
        print("| code | " + " | ".join(f"{m} P | {m} R" for m in modes) + " | support |")
        print("|---|" + "---|---|" * len(modes) + "---|")
        for code in PAIR_CODES:
            cells = []
            for m in modes:
                pc = results[m]["corpus"]["per_code"][code]
                cells += [_fmt(pc["precision"]), _fmt(pc["recall"])]
            print(f"| {code} | " + " | ".join(cells) + f" | {c0['per_code'][code]['support']} |")
        for key, label in (("false_flag_rate", "false-flag rate on safe rewrites"),
                           ("exact", "exact code set")):
            print(f"| {label} | " + " | ".join(f"{_fmt(results[m]['corpus'][key])} | "
                                                  for m in modes) + " |")
        print("| seconds | " + " | ".join(f"{results[m]['corpus']['seconds']:.1f} | "
                                          for m in modes) + " |")
    if "summedits" in first:
        s0 = first["summedits"]
        print(f"\nSummEdits: {s0['rows']} edited rows ({s0['consistent']} consistent, "
              f"{s0['inconsistent']} inconsistent)")
        print("| measure | " + " | ".join(modes) + " |")
        print("|---|" + "---|" * len(modes))
        for t in s0["by_type"]:
            print(f"| detected: {t} ({s0['by_type'][t]['rows']}) | " + " | ".join(
                _fmt(results[m]["summedits"]["by_type"][t]["detected"]) for m in modes) + " |")
        for key, label in (("false_flag_rate", "false flags on consistent"),
                           ("negation_balanced_accuracy", "balanced accuracy, negation"),
                           ("overall_balanced_accuracy", "balanced accuracy, all edits")):
            print(f"| {label} | " + " | ".join(_fmt(results[m]["summedits"][key])
                                                for m in modes) + " |")
    if "quantulum3" in first:
        q0 = first["quantulum3"]
        print("\nquantulum3-derived pairs")
        print("| pair kind | " + " | ".join(modes) + " | pairs |")
        print("|---|" + "---|" * len(modes) + "---|")
        names = {"RG201": "unit dropped -> RG201", "RG202": "number changed -> RG202",
                 "same": "same quantity -> no RG201/RG202"}
        for k in q0:
            print(f"| {names.get(k, k)} | " + " | ".join(
                _fmt(results[m]["quantulum3"][k]["rate"]) for m in modes)
                + f" | {q0[k]['pairs']} |")


if __name__ == "__main__":
    sys.exit(main())
