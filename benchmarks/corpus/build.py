"""Build refgraph's labelled evaluation corpus: ``dev.jsonl`` and ``test.jsonl``.

The corpus is made of hand-written *scenarios* (``scenarios/*.txt``). A scenario is one agent
context (``before``) cut into blocks, a faithful rewrite of each block (the safe ``after``), and a
list of *mutations*: one-clause edits of the safe ``after``, each labelled with the single finding
code it introduces. From one scenario the script emits

* the safe pair (``expected == []``) and any hand-written safe alternatives;
* one corrupted pair per mutation (the safe rewrite with that one clause changed);
* a span-local safe pair: ``declared_span`` covers one block, only that block is rewritten;
* an ``RG405`` pair: the same declared span, but a second block outside it is rewritten too;
* an ``RG404`` pair: intent ``prune``, yet the model kept everything and added a recap.

Long pairs (over 2,000 words) splice several scenarios of one split and domain together with
repetitive status chatter that the rewrite prunes; one safe long pair and one with a mutation of
a component buried in it per group.

Every scenario is assigned to one split in its header, so dev and test hold different hand-written
texts, not different fillers of one template. The only randomness (choice of blocks, chatter,
recap layout) comes from :class:`random.Random` seeded by the scenario's slug: the output is
byte-for-byte reproducible.

Source format (``scenarios/*.txt``)::

    ### slug
    domain: sre-ops
    style: prose
    intent: summarize
    split: dev
    note: what the safe rewrite does
    === before
    first block
    ~~
    second block
    === after
    rewrite of the first block
    ~~
    (an empty block: the block was pruned)
    === alt summarize | what this other safe rewrite does
    a whole alternative safe after
    @@@ RG202 | what changed
    - old text in the safe after
    + new text (``\\n`` is a newline; a bare ``+`` deletes)

Optional header keys: ``order: 2 0 1`` (order of the after blocks), ``spans: no`` (no span /
RG405 / RG404 variants), ``long: no`` (not spliced into long pairs; used by scenarios added after
the long pairs were fixed, so those stay byte-identical).

Run ``python benchmarks/corpus/build.py`` to write both files (they are generated, not tracked:
over 3 MB of JSON that the scenarios determine) and print the count tables. ``SHA256SUMS``
(tracked) records the hash of each split; ``--check`` exits 1 if the scenarios no longer build
to those hashes, and ``--record`` updates them after an intended change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "scenarios"
OUT = {"dev": HERE / "dev.jsonl", "test": HERE / "test.jsonl"}
SUMS = HERE / "SHA256SUMS"

CODES = (
    "RG101", "RG102", "RG103", "RG104", "RG201", "RG202", "RG301", "RG302", "RG303", "RG304",
    "RG404", "RG405", "RG501", "RG502",
)
DOMAINS = ("coding-agent", "sre-ops", "data-pipeline", "support", "billing", "lab-notes", "travel")
STYLES = ("prose", "markdown", "bullets", "logs-json", "chat-turns")
INTENTS = ("rewrite", "summarize", "prune")
SPLITS = ("dev", "test")
LONG_WORDS = 2000

Pair = dict[str, object]


class CorpusError(ValueError):
    """A scenario file is malformed or a mutation does not apply."""


@dataclass
class Mutation:
    code: str
    note: str
    edits: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Alt:
    intent: str
    note: str
    text: str


@dataclass
class Scenario:
    slug: str
    domain: str
    style: str
    intent: str
    split: str
    note: str
    before_blocks: list[str]
    after_blocks: list[str]
    order: list[int]
    spans: bool
    alts: list[Alt]
    mutations: list[Mutation]
    long: bool = True

    @property
    def before(self) -> str:
        return "\n\n".join(self.before_blocks)

    @property
    def after(self) -> str:
        return "\n\n".join(self.after_blocks[i] for i in self.order if self.after_blocks[i])


def _unescape(text: str) -> str:
    return text.replace("\\n", "\n")


def _blocks(lines: list[str]) -> list[str]:
    out: list[list[str]] = [[]]
    for line in lines:
        if line.strip() == "~~":
            out.append([])
        else:
            out[-1].append(line)
    return ["\n".join(b).strip("\n") for b in out]


def parse(path: Path) -> list[Scenario]:
    """Scenarios of one source file, in file order."""
    scenarios: list[Scenario] = []
    chunks = path.read_text(encoding="utf-8").split("\n### ")
    for chunk in chunks:
        chunk = chunk.removeprefix("### ")
        if not chunk.strip() or chunk.lstrip().startswith("#!"):
            continue
        scenarios.append(_parse_one(chunk, path))
    return scenarios


def _parse_one(chunk: str, path: Path) -> Scenario:
    lines = chunk.split("\n")
    slug = lines[0].strip()
    head: dict[str, str] = {}
    i = 1
    while i < len(lines) and not lines[i].startswith("=== "):
        if lines[i].strip():
            key, _, value = lines[i].partition(":")
            head[key.strip()] = value.strip()
        i += 1
    sections: list[tuple[str, list[str]]] = []
    for line in lines[i:]:
        if line.startswith(("=== ", "@@@ ")):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    before: list[str] = []
    after: list[str] = []
    alts: list[Alt] = []
    muts: list[Mutation] = []
    for title, body in sections:
        if title == "=== before":
            before = _blocks(body)
        elif title == "=== after":
            after = _blocks(body)
        elif title.startswith("=== alt "):
            intent, _, note = title.removeprefix("=== alt ").partition("|")
            alts.append(Alt(intent.strip(), note.strip(), "\n".join(body).strip("\n")))
        elif title.startswith("@@@ "):
            code, _, note = title.removeprefix("@@@ ").partition("|")
            mut = Mutation(code.strip(), note.strip())
            old: str | None = None
            for line in body:
                if line.startswith("- ") or line == "-":
                    old = _unescape(line[2:])
                elif line.startswith("+ ") or line == "+":
                    if old is None:
                        raise CorpusError(f"{path.name}:{slug}: '+' without '-' in {code}")
                    mut.edits.append((old, _unescape(line[2:])))
                    old = None
            muts.append(mut)
        else:
            raise CorpusError(f"{path.name}:{slug}: unknown section {title!r}")
    if len(before) != len(after):
        raise CorpusError(f"{path.name}:{slug}: {len(before)} before blocks, {len(after)} after")
    order = [int(x) for x in head.get("order", "").split()] or list(range(len(after)))
    return Scenario(
        slug=slug,
        domain=head["domain"],
        style=head["style"],
        intent=head["intent"],
        split=head["split"],
        note=head["note"],
        before_blocks=before,
        after_blocks=after,
        order=order,
        spans=head.get("spans", "yes") != "no",
        alts=alts,
        mutations=muts,
        long=head.get("long", "yes") != "no",
    )


def apply_edits(text: str, edits: list[tuple[str, str]], where: str) -> str:
    """Apply each (old, new) edit; ``old`` must occur exactly once in the current text."""
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            raise CorpusError(f"{where}: {old!r} occurs {n} times")
        if new == "":
            # Deleting a clause: swallow one adjacent separator so no double space is left.
            for sep in (" ", "\n"):
                if old + sep in text:
                    old += sep
                    break
        text = text.replace(old, new, 1)
    return text


def words(text: str) -> int:
    return len(text.split())


def _pair(
    pid: str, s: Scenario, intent: str, before: str, after: str, expected: list[str], note: str,
    span: tuple[int, int] | None = None, style: str | None = None,
) -> Pair:
    return {
        "id": pid,
        "domain": s.domain,
        "style": style or s.style,
        "intent": intent,
        "before": before,
        "after": after,
        "declared_span": list(span) if span else None,
        "expected": sorted(expected),
        "note": note,
        "split": s.split,
    }


def _rng(*parts: str) -> Random:
    return Random(int(hashlib.sha256("/".join(parts).encode()).hexdigest()[:16], 16))


def scenario_pairs(s: Scenario) -> list[Pair]:
    """All pairs one scenario yields (see the module docstring)."""
    base = f"{s.split}-{s.slug}"
    out = [_pair(f"{base}-safe", s, s.intent, s.before, s.after, [], s.note)]
    for k, alt in enumerate(s.alts, 1):
        out.append(_pair(f"{base}-safe-alt{k}", s, alt.intent, s.before, alt.text, [], alt.note))
    seen: Counter[str] = Counter()
    for m in s.mutations:
        seen[m.code] += 1
        suffix = m.code.lower() + ("" if seen[m.code] == 1 else chr(ord("a") + seen[m.code] - 1))
        after = apply_edits(s.after, m.edits, f"{s.slug} {m.code}")
        out.append(_pair(f"{base}-{suffix}", s, s.intent, s.before, after, [m.code], m.note))
    if s.spans:
        out.extend(_span_pairs(s, base))
        out.append(_prune_pair(s, base))
    return out


def _span_pairs(s: Scenario, base: str) -> list[Pair]:
    changed = [
        i for i, (b, a) in enumerate(zip(s.before_blocks, s.after_blocks, strict=True))
        if a and a != b
    ]
    if len(changed) < 2:
        raise CorpusError(f"{s.slug}: span variants need two rewritten blocks (or 'spans: no')")
    rng = _rng(s.slug, "span")
    inside = rng.choice(changed)
    outside = rng.choice([i for i in changed if i != inside])
    start = sum(len(b) + 2 for b in s.before_blocks[:inside])
    span = (start, start + len(s.before_blocks[inside]))
    local = list(s.before_blocks)
    local[inside] = s.after_blocks[inside]
    fan = list(local)
    fan[outside] = s.after_blocks[outside]
    intent = "rewrite" if s.intent == "prune" else s.intent
    return [
        _pair(f"{base}-span-safe", s, intent, s.before, "\n\n".join(local), [],
              f"only block {inside} (the declared span) is rewritten; the rest is byte-identical",
              span),
        _pair(f"{base}-rg405", s, intent, s.before, "\n\n".join(fan), ["RG405"],
              f"declared span is block {inside}, but block {outside} outside it was also "
              "rewritten (faithfully)", span),
    ]


RECAP_HEADS = (
    "Summary of the above:", "Recap (pruned view):", "Condensed:", "TL;DR so far:",
    "Key points kept:", "Short version:",
)


def _prune_pair(s: Scenario, base: str) -> Pair:
    rng = _rng(s.slug, "prune")
    head = rng.choice(RECAP_HEADS)
    layout = rng.randrange(3)
    if layout == 0:
        after = f"{s.before}\n\n{head}\n{s.after}"
        how = "kept every block and appended a recap"
    elif layout == 1:
        after = f"{head}\n{s.after}\n\nOriginal notes (kept for reference):\n\n{s.before}"
        how = "prepended a recap and kept the original below it"
    else:
        blocks = [
            f"{b}\n({s.after_blocks[i]})" if s.after_blocks[i] and s.after_blocks[i] != b else b
            for i, b in enumerate(s.before_blocks)
        ]
        after = "\n\n".join(blocks)
        how = "annotated each block with its condensed form instead of replacing it"
    if words(after) < words(s.before):
        raise CorpusError(f"{s.slug}: RG404 variant shrank")
    return _pair(f"{base}-rg404", s, "prune", s.before, after, ["RG404"],
                 f"intent prune, but the model {how}: the context grew")


# ----------------------------------------------------------------------------------------------
# Long pairs: several scenarios of one split and domain, with chatter the rewrite prunes.

CHATTER = {
    "chat-turns": (
        "assistant: Still working on it; nothing new since the last update.",
        "user: ok, keep going",
        "assistant: Waiting for the previous step to finish before I continue.",
        "user: any news?",
        "assistant: No change yet. I will report as soon as something moves.",
        "assistant: Checking again in a moment; the situation is the same as before.",
    ),
    "logs-json": (
        '{"level":"info","msg":"heartbeat","worker":"w-%d","status":"ok"}',
        '{"level":"debug","msg":"poll","queue":"default","pending":0}',
        '{"level":"info","msg":"heartbeat","worker":"w-%d","status":"ok"}',
        '{"level":"debug","msg":"lease renewed","holder":"w-%d"}',
    ),
    "text": (
        "Status check: no change since the previous check; still waiting.",
        "Re-read the notes above; nothing new to add at this point.",
        "Polled again. Same state as before, nothing to act on yet.",
        "Progress note: continuing with the plan as written; no new information.",
        "Checked the dashboard once more: unchanged.",
    ),
}


def _chatter(style: str, rng: Random, n: int) -> str:
    kind = style if style in ("chat-turns", "logs-json") else "text"
    lines = []
    for _ in range(n):
        line = rng.choice(CHATTER[kind])
        lines.append(line.replace("%d", str(rng.randrange(1, 9))) if "%d" in line else line)
    return "\n".join(lines)


def long_pairs(scenarios: list[Scenario]) -> list[Pair]:
    """Per split and domain (where at least three scenarios exist): one safe, one corrupted."""
    out: list[Pair] = []
    for split in SPLITS:
        for domain in DOMAINS:
            group = [s for s in scenarios if s.split == split and s.domain == domain and s.long]
            if len(group) < 3:
                continue
            rng = _rng(split, domain, "long")
            rng.shuffle(group)
            group = group[:4]
            style = group[0].style
            befores: list[str] = []
            afters: list[str] = []
            for k, s in enumerate(group):
                chatter = _chatter(style, rng, 34)
                befores += [s.before, chatter]
                afters += [s.after, f"[{34} repetitive status lines after part {k + 1} pruned: "
                           "no new information in them]"]
            before = "\n\n".join(befores)
            after = "\n\n".join(afters)
            while words(before) < LONG_WORDS + 100:
                before += "\n\n" + _chatter(style, rng, 12)
                after += "\n\n[12 more repetitive status lines pruned: no new information]"
            head = group[0]
            pid = f"{split}-long-{domain}"
            out.append(_pair(f"{pid}-safe", head, "prune", before, after, [],
                             "long session: repetitive status chatter pruned, every part "
                             "condensed faithfully", style=style))
            candidates = [m for s in group for m in s.mutations]
            rng.shuffle(candidates)
            for m in candidates:
                try:
                    bad = apply_edits(after, m.edits, "long")
                except CorpusError:
                    continue
                out.append(_pair(f"{pid}-{m.code.lower()}", head, "prune", before, bad,
                                 [m.code], f"long session, one buried change: {m.note}",
                                 style=style))
                break
    return out


# ----------------------------------------------------------------------------------------------


def load_scenarios() -> list[Scenario]:
    scenarios = [s for p in sorted(SOURCES.glob("*.txt")) for s in parse(p)]
    slugs = Counter(s.slug for s in scenarios)
    dup = [k for k, v in slugs.items() if v > 1]
    if dup:
        raise CorpusError(f"duplicate slugs: {dup}")
    for s in scenarios:
        for key, allowed in (("domain", DOMAINS), ("style", STYLES), ("intent", INTENTS),
                             ("split", SPLITS)):
            if getattr(s, key) not in allowed:
                raise CorpusError(f"{s.slug}: bad {key} {getattr(s, key)!r}")
        for m in s.mutations:
            if m.code not in CODES or not m.edits:
                raise CorpusError(f"{s.slug}: bad mutation {m.code!r}")
    return scenarios


def build() -> dict[str, list[Pair]]:
    """Pairs per split, in a stable order."""
    scenarios = load_scenarios()
    pairs = [p for s in scenarios for p in scenario_pairs(s)] + long_pairs(scenarios)
    for p in pairs:
        if p["intent"] == "prune" and "RG404" not in p["expected"]:  # type: ignore[operator]
            b, a = str(p["before"]), str(p["after"])
            if words(a) >= words(b):
                raise CorpusError(f"{p['id']}: prune that does not shrink, unlabelled")
    ids = Counter(str(p["id"]) for p in pairs)
    if max(ids.values()) > 1:
        raise CorpusError(f"duplicate ids: {[k for k, v in ids.items() if v > 1]}")
    return {sp: [p for p in pairs if p["split"] == sp] for sp in SPLITS}


def dump(pairs: list[Pair]) -> str:
    return "".join(json.dumps(p, ensure_ascii=False, sort_keys=False) + "\n" for p in pairs)


def tables(by_split: dict[str, list[Pair]]) -> str:
    """Markdown count tables: code x split, safe, domain, style, intent, long pairs."""
    def row(label: str, counts: list[int]) -> str:
        return f"| {label} | " + " | ".join(str(c) for c in counts) + f" | {sum(counts)} |"

    head = "| | dev | test | total |\n|---|---:|---:|---:|"
    out = ["Pairs per finding code (a pair with two codes counts under both):", "", head]
    for code in CODES:
        out.append(row(code, [sum(code in p["expected"] for p in by_split[sp])  # type: ignore[operator]
                              for sp in SPLITS]))
    out.append(row("safe (expected [])", [sum(not p["expected"] for p in by_split[sp])
                                          for sp in SPLITS]))
    out.append(row("**all pairs**", [len(by_split[sp]) for sp in SPLITS]))
    for key, values in (("domain", DOMAINS), ("style", STYLES), ("intent", INTENTS)):
        out += ["", f"Pairs per {key} (safe / corrupted):", "", head]
        for v in values:
            cells = []
            for sp in SPLITS:
                sel = [p for p in by_split[sp] if p[key] == v]
                cells.append(f"{sum(not p['expected'] for p in sel)} / "
                             f"{sum(bool(p['expected']) for p in sel)}")
            total = sum(1 for sp in SPLITS for p in by_split[sp] if p[key] == v)
            out.append(f"| {v} | {cells[0]} | {cells[1]} | {total} |")
    out += ["", f"Long pairs (before over {LONG_WORDS} words):", "", head]
    longs = [sum(words(str(p["before"])) > LONG_WORDS for p in by_split[sp]) for sp in SPLITS]
    out.append(row("long", longs))
    spans = [sum(p["declared_span"] is not None for p in by_split[sp]) for sp in SPLITS]
    out.append(row("with declared_span", spans))
    return "\n".join(out)


def digests(by_split: dict[str, list[Pair]]) -> dict[str, str]:
    """sha256 of each split's JSON lines, as ``SHA256SUMS`` records them."""
    return {sp: hashlib.sha256(dump(by_split[sp]).encode("utf-8")).hexdigest() for sp in SPLITS}


def recorded() -> dict[str, str]:
    """The hashes in ``SHA256SUMS`` (``<hex>  <split>.jsonl`` per line)."""
    out = {}
    for line in SUMS.read_text(encoding="utf-8").splitlines():
        digest, name = line.split()
        out[name.removesuffix(".jsonl")] = digest
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if the build differs from SHA256SUMS")
    parser.add_argument("--record", action="store_true",
                        help="also write SHA256SUMS (after an intended corpus change)")
    args = parser.parse_args(argv)
    by_split = build()
    got = digests(by_split)
    if args.check:
        stale = got != recorded()
        if stale:
            print("the scenarios no longer build to SHA256SUMS: rebuild with --record")
        print(tables(by_split))
        return 1 if stale else 0
    for sp, path in OUT.items():
        path.write_text(dump(by_split[sp]), encoding="utf-8")
    if args.record:
        SUMS.write_text("".join(f"{got[sp]}  {sp}.jsonl\n" for sp in SPLITS), encoding="utf-8")
    print(tables(by_split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
