"""Fresh evaluation batches: natural compactions written blind, measured before any tuning.

Each batch is one file ``benchmarks/batches/<name>.txt`` written by someone who had not read
refgraph's rules (see ``README.md`` here for the format and the label conventions). A scenario is
a context (``before``), a faithful compaction of it (the safe ``after``) and one-clause
corruptions of that compaction, each labelled with the one code it introduces.

A ``before`` may be a window of a SWE-agent trajectory in ``<data>/swe-agent-trajectories``
(``source: swe:<file>#<first>-<last>`` in the header, message indexes of the file's ``history``,
inclusive): the trajectory is third-party data, so the window is rendered from it at load time
instead of being copied into the repository. Such scenarios are skipped, and counted as skipped,
when the data is absent.

``python benchmarks/batches/batches.py show FILE FIRST LAST`` prints a rendered window;
``python benchmarks/batches/batches.py list [BATCH ...]`` prints the pairs of batches.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent.parent / "shared" / "data"
CODES = ("RG101", "RG102", "RG103", "RG104", "RG105", "RG201", "RG202", "RG301", "RG302",
         "RG303", "RG304", "RG501", "RG502")


class BatchError(ValueError):
    """A batch file that does not parse or whose edits do not apply."""


@dataclass
class Scenario:
    slug: str
    head: dict[str, str]
    before: str | None
    after: str
    mutations: list[tuple[str, str, list[tuple[str, str]]]] = field(default_factory=list)


def render_window(path: Path, first: int, last: int) -> str:
    """Messages ``first..last`` (inclusive) of a trajectory's ``history`` as chat turns.

    An assistant turn is its text plus its command in a fence (when the text does not already
    hold it); an observation is a ``tool`` turn, with the tool-call id where the file has one.
    The first user message (the task) is a ``user`` turn; system prompts are left out.
    """
    history = json.loads(path.read_text(encoding="utf-8"))["history"]
    if not 0 <= first <= last < len(history):
        raise BatchError(f"{path.name}: window {first}-{last} outside 0-{len(history) - 1}")
    turns: list[str] = []
    seen_task = any(m.get("role") == "user" for m in history[:first])
    for m in history[first:last + 1]:
        role = m.get("role", "")
        content = m.get("content", "")
        if isinstance(content, list):
            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        content = str(content).replace("\r\n", "\n").strip()
        if role == "system":
            continue
        if role == "assistant":
            action = str(m.get("action") or "").strip()
            body = content
            if action and action not in content:
                body = f"{content}\n```\n{action}\n```" if content else f"```\n{action}\n```"
            turns.append(f"assistant: {body}")
        elif role == "tool" or (role == "user" and seen_task):
            ids = m.get("tool_call_ids") or []
            label = f"tool[{ids[0]}]" if ids else "tool"
            turns.append(f"{label}: {content}")
        else:
            seen_task = True
            turns.append(f"user: {content}")
    return "\n\n".join(turns)


def _unescape(text: str) -> str:
    return text.replace("\\n", "\n")


def parse(path: Path) -> list[Scenario]:
    out: list[Scenario] = []
    for chunk in path.read_text(encoding="utf-8").split("\n### "):
        chunk = chunk.removeprefix("### ")
        if not chunk.strip() or chunk.lstrip().startswith("#!"):
            continue
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
        before: str | None = None
        after = ""
        muts: list[tuple[str, str, list[tuple[str, str]]]] = []
        for title, body in sections:
            text = "\n".join(body).strip("\n")
            if title == "=== before":
                before = text
            elif title == "=== after":
                after = text
            elif title.startswith("@@@ "):
                code, _, note = title.removeprefix("@@@ ").partition("|")
                code = code.strip()
                if code not in (*CODES, "SAFE"):
                    raise BatchError(f"{path.name}:{slug}: unknown code {code!r}")
                edits: list[tuple[str, str]] = []
                old: str | None = None
                for line in body:
                    if line.startswith("- ") or line == "-":
                        old = _unescape(line[2:])
                    elif line.startswith("+ ") or line == "+":
                        if old is None:
                            raise BatchError(f"{path.name}:{slug}: '+' without '-' in {code}")
                        edits.append((old, _unescape(line[2:])))
                        old = None
                muts.append((code, note.strip(), edits))
            else:
                raise BatchError(f"{path.name}:{slug}: unknown section {title!r}")
        if before is None and "source" not in head:
            raise BatchError(f"{path.name}:{slug}: no '=== before' and no 'source:'")
        if not after:
            raise BatchError(f"{path.name}:{slug}: no '=== after'")
        out.append(Scenario(slug, head, before, after, muts))
    return out


def apply_edits(text: str, edits: list[tuple[str, str]], where: str) -> str:
    """Apply each (old, new) edit; ``old`` must occur exactly once."""
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            raise BatchError(f"{where}: {old!r} occurs {n} times in the safe after")
        text = text.replace(old, new, 1)
    return text


def _before(s: Scenario, data: Path) -> str | None:
    if s.before is not None:
        return s.before
    src = s.head["source"].removeprefix("swe:")
    name, _, rng = src.partition("#")
    first, _, last = rng.partition("-")
    path = data / "swe-agent-trajectories" / name
    if not path.exists():
        return None
    return render_window(path, int(first), int(last))


def load(name: str, data: Path = DEFAULT_DATA) -> tuple[list[dict[str, Any]], int]:
    """The pairs of batch ``name`` and how many scenarios were skipped (data absent)."""
    path = HERE / f"{name}.txt"
    rows: list[dict[str, Any]] = []
    skipped = 0
    for s in parse(path):
        before = _before(s, data)
        if before is None:
            skipped += 1
            continue
        common = {"batch": name, "domain": s.head.get("domain", ""),
                  "style": s.head.get("style", ""), "intent": s.head.get("intent", "summarize"),
                  "before": before}
        rows.append({**common, "id": f"{name}-{s.slug}-safe", "after": s.after, "expected": [],
                     "kind": "natural", "note": s.head.get("note", "")})
        for k, (code, note, edits) in enumerate(s.mutations):
            after = apply_edits(s.after, edits, f"{name}:{s.slug}:{code}")
            safe = code == "SAFE"
            rows.append({**common, "id": f"{name}-{s.slug}-{code.lower()}-{k}", "after": after,
                         "expected": [] if safe else [code],
                         "kind": "matched-safe" if safe else "corrupted", "note": note})
    return rows, skipped


def batch_names() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.txt"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show", help="print a rendered trajectory window")
    show.add_argument("file")
    show.add_argument("first", type=int)
    show.add_argument("last", type=int)
    show.add_argument("--data", type=Path, default=DEFAULT_DATA)
    lst = sub.add_parser("list", help="check batches and print their pairs")
    lst.add_argument("names", nargs="*")
    lst.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args(argv)
    if args.cmd == "show":
        text = render_window(args.data / "swe-agent-trajectories" / args.file, args.first,
                             args.last)
        print(text)
        print(f"\n[{len(text)} characters, {len(text.split())} words]", file=sys.stderr)
        return 0
    for name in args.names or batch_names():
        rows, skipped = load(name, args.data)
        for r in rows:
            ratio = len(r["after"]) / max(1, len(r["before"]))
            print(f"{r['id']:60} {','.join(r['expected']) or 'safe':6} {ratio:.2f}")
        print(f"{name}: {len(rows)} pairs, {skipped} scenarios skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
