"""Deterministic generator of stale-patch scenarios, with its own ground-truth oracle.

A scenario is the seed's failure (``../shared/seeds/002_4f9e01b3245df3de.txt``) in miniature: a
model is shown an agent context (the *base*), authors a patch against it, and before the patch is
applied the live buffer moves on (the *drift*): tool results are appended, a block is inserted
above the hunk, a copy of a context line or of the whole hunk region lands above it, a line next
to the hunk (or inside it) is edited, a prior rewrite is committed. The question every engine has
to answer is where the patch goes in the live buffer, or whether it must be refused.

Model (the guarded-apply contract, implemented here from its text, independently of refgraph):

* A text is a list of lines, ``text.split("\\n")``; the text is ``"\\n".join(lines)``. A text
  ending in a newline has a final empty line.
* An :class:`Edit` ``(start, end, lines)`` replaces lines ``[start, end)`` by ``lines``;
  ``start == end`` is a pure insertion before line ``start``. A patch is a list of edits on the
  base, sorted and separated by at least one untouched line. The drift is a list of edits, each in
  the coordinates of the buffer at the moment it was made (an append is an edit at the end).
* :func:`rebase` maps every patch edit through the drift: a drift edit ending at or before the
  patch edit's start (``e <= a``: this includes a pure insertion exactly at ``a``) shifts it by
  ``len(new) - (e - s)``; one starting at or after its end (``s >= b``) leaves it in place;
  anything else changed a line the patch edit removes or replaces, or inserted strictly inside
  them (for a pure insertion at ``a``: replaced a range strictly containing ``a``), and the
  scenario is a **conflict**. Otherwise the ground truth is the live text with the patch's edits
  applied at their mapped positions. A base that several revisions share means the latest of them.

The patch is also written as a unified diff with 3 lines of context (:func:`unified_diff`, our
own writer, so the diff says exactly what the edits say: difflib is free to pick another copy of
a duplicated line, which would change the ground truth).

Contexts (40-400 lines) hold the things that mislead text-matching patch engines: a system prompt
re-injected verbatim, tool outputs repeated verbatim (the same call re-run), blank lines, code
fences and braces. Patches prune, summarize or annotate; they prefer duplicated blocks.

    python benchmarks/stale_patches.py [--n 500] [--seed 0] [--conflicts 0.2] [--out F.jsonl]
                                       [--show I]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

CONTEXT = 3
"""Context lines around each hunk of the unified diffs."""

DIFF_PATH = "context.md"

# --------------------------------------------------------------------------------------------
# Edits, the oracle and the diff writer
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Edit:
    """Replace lines ``[start, end)`` by ``lines`` (``start == end``: insert before ``start``)."""

    start: int
    end: int
    lines: tuple[str, ...] = ()

    @property
    def delta(self) -> int:
        return len(self.lines) - (self.end - self.start)

    def to_list(self) -> list[Any]:
        return [self.start, self.end, list(self.lines)]

    @classmethod
    def from_list(cls, raw: Sequence[Any]) -> Edit:
        return cls(int(raw[0]), int(raw[1]), tuple(raw[2]))


@dataclass(frozen=True)
class DriftStep:
    """One recorded change of the live buffer after the base: ``buf.edit`` or ``buf.append``.

    For an append, ``edit`` is the insertion at the end and ``"\\n".join(edit.lines)`` is the
    text passed to ``append``.
    """

    kind: str
    edit: Edit
    append: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.edit.lines)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "edit": self.edit.to_list(), "append": self.append}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> DriftStep:
        return cls(raw["kind"], Edit.from_list(raw["edit"]), bool(raw["append"]))


def apply_edit(lines: Sequence[str], edit: Edit) -> list[str]:
    """``lines`` with one edit applied (checked: the range must lie inside ``lines``)."""
    if not 0 <= edit.start <= edit.end <= len(lines):
        raise ValueError(f"edit [{edit.start}, {edit.end}) outside {len(lines)} lines")
    return [*lines[:edit.start], *edit.lines, *lines[edit.end:]]


def apply_edits(lines: Sequence[str], edits: Sequence[Edit]) -> list[str]:
    """Apply edits that all refer to the same coordinates (sorted, non-overlapping)."""
    out = list(lines)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        out = apply_edit(out, edit)
    return out


def check_patch(edits: Sequence[Edit], n_lines: int) -> None:
    """Raise ``ValueError`` unless ``edits`` is a well-formed patch on ``n_lines`` lines."""
    prev_end = -1
    for e in edits:
        if not 0 <= e.start <= e.end <= n_lines:
            raise ValueError(f"patch edit [{e.start}, {e.end}) outside {n_lines} lines")
        if e.start == e.end and not e.lines:
            raise ValueError(f"empty patch edit at {e.start}")
        if e.start <= prev_end:
            raise ValueError("patch edits must be sorted and separated by an untouched line")
        prev_end = e.end


def map_through(spans: Sequence[tuple[int, int]], drift: Edit) -> list[tuple[int, int]] | None:
    """Patch spans ``[a, b)`` in the coordinates after ``drift``, or None on a conflict."""
    s, e, delta = drift.start, drift.end, drift.delta
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if e <= a:                      # before (also: a pure insertion exactly at a)
            out.append((a + delta, b + delta))
        elif s >= b:                    # at or after the end
            out.append((a, b))
        else:                           # overlaps [a, b), inside it, or strictly around a == b
            return None
    return out


def rebase(base: str, drift: Sequence[Edit], patch: Sequence[Edit]) -> str | None:
    """Ground truth: the live text (base + drift) with ``patch`` applied, or None on a conflict.

    ``patch`` refers to the base; each drift edit to the buffer as it was when the edit was made.
    When the base text recurs during the drift, the patch is taken to be against the latest
    revision with that text (so only the drift after it counts).
    """
    lines = base.split("\n")
    check_patch(patch, len(lines))
    history = [lines]
    for d in drift:
        history.append(apply_edit(history[-1], d))
    latest = max(i for i, h in enumerate(history) if h == lines)
    spans: list[tuple[int, int]] | None = [(p.start, p.end) for p in patch]
    for d in drift[latest:]:
        assert spans is not None
        spans = map_through(spans, d)
        if spans is None:
            return None
    assert spans is not None
    live = history[-1]
    out = list(live)
    for (a, b), p in sorted(zip(spans, patch, strict=True), key=lambda t: t[1].start,
                            reverse=True):
        out[a:b] = p.lines
    return "\n".join(out)


def file_lines(text: str) -> tuple[list[str], bool]:
    """The lines a diff tool sees, and whether the text ends with a newline."""
    lines = text.split("\n")
    if lines[-1] == "":
        return lines[:-1], True
    return lines, False


def _range(start: int, length: int) -> str:
    # difflib's format: ",1" omitted; an empty range names the line before it.
    if length == 1:
        return f"{start + 1}"
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def unified_diff(base: str, patch: Sequence[Edit], *, path: str = DIFF_PATH,
                 context: int = CONTEXT, header: Sequence[str] = ()) -> str:
    """The unified diff saying exactly ``patch`` on ``base`` (``context`` lines around hunks).

    Change runs closer than ``2 * context + 1`` lines share a hunk, as with GNU diff. A base with
    no final newline gets ``\\ No newline at end of file`` after its last line; patch edits may
    then not touch or insert after that line (the diff would have to rewrite it).
    ``header`` lines (``diff --git``, ``index``) go before ``---``.
    """
    flines, newline_at_end = file_lines(base)
    n = len(flines)
    check_patch(patch, n)
    if not newline_at_end and patch and patch[-1].end >= n:
        raise ValueError("with no final newline, the last line can only be context")
    groups: list[list[Edit]] = []
    for e in patch:
        if groups and e.start - groups[-1][-1].end <= 2 * context:
            groups[-1].append(e)
        else:
            groups.append([e])
    out = [*header, f"--- a/{path}", f"+++ b/{path}"]
    offset = 0
    for g in groups:
        lo = max(0, g[0].start - context)
        hi = min(n, g[-1].end + context)
        body: list[str] = []
        i = lo
        for e in g:
            body += [" " + line for line in flines[i:e.start]]
            body += ["-" + line for line in flines[e.start:e.end]]
            body += ["+" + line for line in e.lines]
            i = e.end
        body += [" " + line for line in flines[i:hi]]
        if not newline_at_end and hi == n:
            body.append("\\ No newline at end of file")
        old_len = hi - lo
        new_len = old_len + sum(e.delta for e in g)
        out.append(f"@@ -{_range(lo, old_len)} +{_range(lo + offset, new_len)} @@")
        out += body
        offset += sum(e.delta for e in g)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# Agent contexts
# --------------------------------------------------------------------------------------------

SERVICES = ("checkout-api", "billing-worker", "ingest-service", "auth-gateway", "search-indexer",
            "payments-api", "ledger-sync", "order-router", "geo-lookup", "session-cache")
TOOLS = ("run_tests", "grep", "read_file", "search_logs", "query_db", "ls", "kubectl_get")
DATASETS = ("orders", "events_raw", "invoices", "clickstream", "user_profiles", "shipments")
FILES = ("src/retry.py", "src/client.py", "config/prod.yaml", "tests/test_retry.py",
         "scripts/deploy.sh", "README.md", "src/billing/ledger.py")
RULES = (
    "- Do not call `deploy` before the integration tests pass.",
    "- The request timeout is {n} seconds.",
    "- Keep at most {k} retries per call; back off {m} ms between them.",
    "- Never delete rows from `{ds}` without a backup.",
    "- Ask the user before changing production settings.",
    "- Cite the tool-call id for every number you report.",
    "- Failover is not required unless the primary is unreachable for {k} minutes.",
    "- Do not edit files under `vendor/`.",
    "- Summaries must keep units and negative results.",
    "- The maintenance window is 02:00-04:00 UTC.",
)
QUESTIONS = (
    "user: why is {svc} returning 503s since this morning?",
    "user: can you check whether the nightly export for `{ds}` finished?",
    "user: please make the retry budget configurable.",
    "user: run the tests again and tell me what failed.",
    "user: what changed in {f} last week?",
    "user: ok, go ahead.",
    "user: no, keep the old timeout.",
)
PLANS = (
    "assistant: I'll look at the logs for {svc} first.",
    "assistant: The tests pass; next I'll check {f}.",
    "assistant: Nothing matched in `{ds}`: no rows for the last hour.",
    "assistant: Plan: reproduce, bisect, patch {f}, re-run the tests.",
    "assistant: The timeout is hit after {n} seconds on every retry.",
    "assistant: Done.",
    "assistant: Let me re-run that.",
)
NOTES = (
    "- note: {svc} p99 latency {n} ms at peak",
    "- note: `{ds}` has {k},{m:03d} rows",
    "- note: {f} defines MAX_RETRIES",
    "- todo: re-check {svc} after the deploy",
    "- note: no errors in the last {k} minutes",
)


EVENTS = ("health check passed", "retry 1/3", "timeout after 30 s", "connection reset",
          "health check passed")


def _fill(rng: Random, template: str) -> str:
    return template.format(svc=rng.choice(SERVICES), ds=rng.choice(DATASETS),
                           f=rng.choice(FILES), n=rng.choice((5, 10, 30, 60, 90)),
                           k=rng.randint(2, 9), m=rng.choice((100, 250, 500)))


def _tool_body(rng: Random, tool: str) -> list[str]:
    """A tool's output: low-entropy lines (fences, braces, status fields) on purpose."""
    form = rng.randrange(4)
    if form == 0:
        rows = [f'  "status": "{rng.choice(("ok", "ok", "error"))}",',
                f'  "rows": {rng.choice((0, 0, 1, 12, 250))},',
                f'  "table": "{rng.choice(DATASETS)}"']
        return ["```json", "{", *rows[:rng.randint(1, 3)], "}", "```"]
    if form == 1:
        svc = rng.choice(SERVICES)
        lines = [f"2026-11-12T10:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z "
                 f"{rng.choice(('INFO', 'INFO', 'WARN', 'ERROR'))} {svc}: {rng.choice(EVENTS)}"
                 for _ in range(rng.randint(2, 6))]
        return ["```", *lines, "```"]
    if form == 2:
        n = rng.choice((12, 42, 42, 108))
        failed = rng.choice((0, 0, 1, 2))
        return ["```", "===== test session starts =====", f"collected {n} items",
                *(f"tests/test_{rng.choice(('retry', 'client', 'ledger'))}.py "
                  f"{'.' * rng.randint(4, 12)}" for _ in range(rng.randint(1, 3))),
                f"===== {n - failed} passed, {failed} failed in "
                f"{rng.randint(1, 9)}.{rng.randint(0, 9)}s =====", "```"]
    return ["```", *sorted(rng.sample(FILES, rng.randint(2, 5))), "```"]


@dataclass
class Block:
    """A block of the generated context: its lines and a key shared by verbatim repeats."""

    kind: str
    lines: list[str]
    key: str


@dataclass
class ContextMaker:
    """Makes the blocks of one agent context (its system prompt and tool outputs recur)."""

    rng: Random
    calls: int = 0
    prompt: list[str] = field(default_factory=list)
    pool: list[Block] = field(default_factory=list)

    def __post_init__(self) -> None:
        rules = self.rng.sample(RULES, self.rng.randint(4, 8))
        self.prompt = ["## System", f"You are an operations agent for {self.rng.choice(SERVICES)}.",
                       *(_fill(self.rng, r) for r in rules)]
        for i in range(self.rng.randint(2, 4)):
            tool = self.rng.choice(TOOLS)
            head = f"tool: {tool}" if self.rng.random() < 0.5 else f"tool[call_{i}]: {tool}"
            self.pool.append(Block("tool", [head, *_tool_body(self.rng, tool)], f"pool{i}"))

    def system(self) -> Block:
        return Block("system", list(self.prompt), "system")

    def tool(self) -> Block:
        """A tool result: a verbatim repeat from the pool half of the time."""
        if self.rng.random() < 0.5:
            b = self.rng.choice(self.pool)
            return Block(b.kind, list(b.lines), b.key)
        self.calls += 1
        tool = self.rng.choice(TOOLS)
        head = f"tool[call_{self.calls + 10}]: {tool}"
        return Block("tool", [head, *_tool_body(self.rng, tool)], f"call{self.calls}")

    def block(self) -> Block:
        r = self.rng.random()
        if r < 0.15:
            return Block("user", [_fill(self.rng, self.rng.choice(QUESTIONS))], "")
        if r < 0.3:
            lines = [_fill(self.rng, self.rng.choice(PLANS)) for _ in range(self.rng.randint(1, 2))]
            return Block("assistant", lines, "")
        if r < 0.4:
            lines = [_fill(self.rng, self.rng.choice(NOTES)) for _ in range(self.rng.randint(2, 4))]
            return Block("notes", lines, "")
        if r < 0.45:
            return self.system()
        return self.tool()


def make_context(maker: ContextMaker, n_lines: int) -> tuple[str, list[tuple[int, int, Block]]]:
    """An agent context of about ``n_lines`` lines (blank line between blocks, final newline).

    Returns the text and each block's line range ``[start, end)``.
    """
    lines: list[str] = []
    spans: list[tuple[int, int, Block]] = []
    block = maker.system()
    while True:
        spans.append((len(lines), len(lines) + len(block.lines), block))
        lines += block.lines
        if len(lines) >= n_lines - 1:
            break
        lines.append("")
        block = maker.block()
    return "\n".join(lines) + "\n", spans


# --------------------------------------------------------------------------------------------
# Patches
# --------------------------------------------------------------------------------------------

PATCH_KINDS = ("delete", "replace", "insert")


def _new_lines(rng: Random, kind: str, old: Sequence[str]) -> tuple[str, ...]:
    if kind == "delete":
        return ()
    if kind == "insert":
        return tuple(_fill(rng, rng.choice(RULES + NOTES)).replace("- ", "- added: ", 1)
                     for _ in range(rng.randint(1, 3)))
    head = old[0] if old else ""
    summary = f"[summarized {len(old)} lines: {head[:40]}]"
    if rng.random() < 0.5:
        return (summary,)
    return (summary, _fill(rng, rng.choice(NOTES)))


def _patch_edit(rng: Random, kind: str, lines: Sequence[str],
                spans: Sequence[tuple[int, int, Block]]) -> Edit:
    """One patch edit, preferring blocks that occur more than once."""
    keys = Counter(b.key for _, _, b in spans if b.key)
    repeated = [s for s in spans if s[2].key and keys[s[2].key] > 1]
    start, end, _ = rng.choice(repeated if repeated and rng.random() < 0.75 else spans)
    if kind == "insert":
        at = rng.randint(start, end)
        return Edit(at, at, _new_lines(rng, kind, ()))
    if rng.random() < 0.4:          # the whole block (a prune), sometimes with its blank line
        a, b = start, end + (1 if rng.random() < 0.5 and end < len(lines) - 1 else 0)
    else:
        a = rng.randrange(start, end)
        b = min(end, a + rng.randint(1, 4))
    return Edit(a, b, _new_lines(rng, kind, lines[a:b]))


def make_patch(rng: Random, base: str, spans: Sequence[tuple[int, int, Block]]) -> list[Edit]:
    """1-3 sorted, separated patch edits on ``base`` (never touching its final empty line)."""
    lines = base.split("\n")
    want = rng.choice((1, 1, 2, 2, 3))
    edits: list[Edit] = []
    for _ in range(want * 8):
        if len(edits) == want:
            break
        e = _patch_edit(rng, rng.choice(PATCH_KINDS), lines, spans)
        if e.end > len(lines) - 1:
            continue
        cand = sorted([*edits, e])
        try:
            check_patch(cand, len(lines) - 1)
        except ValueError:
            continue
        edits = cand
    return edits


# --------------------------------------------------------------------------------------------
# Drift
# --------------------------------------------------------------------------------------------

MERGEABLE_DRIFT = ("append", "append-copy", "insert-above", "copy-line-above", "copy-block-above",
                   "edit-near", "insert-at-boundary", "rewrite-before", "rewrite-after")
CONFLICT_DRIFT = ("edit-inside", "insert-inside", "rewrite-overlap")


@dataclass
class DriftState:
    """The live lines while a drift is generated, and the patch spans mapped onto them."""

    rng: Random
    maker: ContextMaker
    lines: list[str]
    spans: list[tuple[int, int]]

    def pick(self) -> tuple[int, int]:
        return self.rng.choice(self.spans)

    def region(self, a: int, b: int) -> list[str]:
        """A patch span with its context lines, as the live buffer has them now."""
        return self.lines[max(0, a - CONTEXT):min(len(self.lines) - 1, b + CONTEXT)]

    def before(self, a: int) -> int:
        """A position at or above ``a`` that is not inside any patch span."""
        for _ in range(20):
            p = self.rng.randint(0, a)
            if all(not x < p < y for x, y in self.spans):
                return p
        return a


def _edited(rng: Random, line: str) -> str:
    return rng.choice((f"{line} [edited]", f"[updated] {line}", "[redacted]", f"{line} (retried)"))


def drift_step(st: DriftState, kind: str) -> DriftStep | None:
    """One drift edit of ``kind`` on the live lines (None when this buffer cannot have it)."""
    rng, n = st.rng, len(st.lines)
    if not st.spans and kind != "append":
        return None
    a, b = st.pick() if st.spans else (n, n)
    if kind == "append":
        block = st.maker.tool().lines
        return DriftStep(kind, Edit(n, n, (*block, "")), append=True)
    if kind == "append-copy":        # the same tool re-run: a copy of the patched region
        return DriftStep(kind, Edit(n, n, (*st.region(a, b), "")), append=True)
    if kind == "insert-above":       # a tool result inserted above (the seed's +6 shift)
        p = st.before(max(0, a - CONTEXT))
        return DriftStep(kind, Edit(p, p, (*st.maker.tool().lines, "")))
    if kind == "copy-line-above":
        pool = st.region(a, b)
        if not pool:
            return None
        p = rng.randint(max(0, a - CONTEXT), a)
        return DriftStep(kind, Edit(p, p, (rng.choice(pool),)))
    if kind == "copy-block-above":   # a re-injected copy of the hunk region right above it
        p = max(0, a - CONTEXT) if rng.random() < 0.6 else st.before(max(0, a - CONTEXT))
        return DriftStep(kind, Edit(p, p, tuple(st.region(a, b))))
    if kind == "edit-near":          # change a context line touching the patch span
        options = [x for x in (a - 1, b) if 0 <= x < n - 1]
        if not options:
            return None
        x = rng.choice(options)
        return DriftStep(kind, Edit(x, x + 1, (_edited(rng, st.lines[x]),)))
    if kind == "insert-at-boundary":
        p = rng.choice((a, b))
        return DriftStep(kind, Edit(p, p, (f"tool[call_{rng.randint(50, 99)}]: ok",)))
    if kind in ("rewrite-before", "rewrite-after"):
        if kind == "rewrite-before":
            lo = max((y for x, y in st.spans if y <= a and (x, y) != (a, b)), default=0)
            hi = a
        else:
            lo = b
            hi = min((x for x, y in st.spans if x >= b and (x, y) != (a, b)), default=n - 1)
        if hi - lo < 2:
            return None
        s = rng.randint(lo, hi - 2)
        e = rng.randint(s + 2, min(hi, s + 10))
        new = () if rng.random() < 0.3 else (f"[summarized {e - s} lines: {st.lines[s][:40]}]",)
        return DriftStep(kind, Edit(s, e, new))
    if kind == "edit-inside":
        if a == b:
            return None
        x = rng.randrange(a, b)
        return DriftStep(kind, Edit(x, x + 1, (_edited(rng, st.lines[x]),)))
    if kind == "insert-inside":
        if b - a < 2:
            return None
        p = rng.randint(a + 1, b - 1)
        return DriftStep(kind, Edit(p, p, (f"tool[call_{rng.randint(50, 99)}]: ok",)))
    if kind == "rewrite-overlap":
        if a == b:
            if a == 0:
                return None
            s, e = rng.randint(max(0, a - 4), a - 1), rng.randint(a + 1, min(n - 1, a + 4))
        else:
            s = rng.randint(max(0, a - 4), b - 1)
            e = rng.randint(max(s + 1, a + 1), min(n - 1, b + 4))
        if e <= s or e > n - 1:
            return None
        return DriftStep(kind, Edit(s, e, (f"[summarized {e - s} lines: {st.lines[s][:40]}]",)))
    raise ValueError(f"unknown drift kind {kind!r}")


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """A base text, the patch authored against it, the drift before apply, and the truth."""

    id: int
    base: str
    patch: tuple[Edit, ...]
    diff: str
    drift: tuple[DriftStep, ...]
    truth: str | None
    """The correct live text after the patch, or None: the patch conflicts and must be refused."""

    @property
    def conflict(self) -> bool:
        return self.truth is None

    @property
    def live(self) -> str:
        lines = self.base.split("\n")
        for d in self.drift:
            lines = apply_edit(lines, d.edit)
        return "\n".join(lines)

    @property
    def patched_base(self) -> str:
        """The base with the patch applied: what the model meant, with no drift."""
        return "\n".join(apply_edits(self.base.split("\n"), self.patch))

    @property
    def patch_kinds(self) -> tuple[str, ...]:
        return tuple("insert" if e.start == e.end else "delete" if not e.lines else "replace"
                     for e in self.patch)

    @property
    def drift_kinds(self) -> tuple[str, ...]:
        return tuple(d.kind for d in self.drift)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "base": self.base, "patch": [e.to_list() for e in self.patch],
                "diff": self.diff, "drift": [d.to_dict() for d in self.drift],
                "truth": self.truth}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Scenario:
        return cls(int(raw["id"]), raw["base"], tuple(Edit.from_list(e) for e in raw["patch"]),
                   raw["diff"], tuple(DriftStep.from_dict(d) for d in raw["drift"]),
                   raw["truth"])


def make_drift(rng: Random, maker: ContextMaker, base: str, patch: Sequence[Edit], *,
               conflict: bool, steps: int | None = None) -> list[DriftStep]:
    """A drift for ``patch`` on ``base``: ``steps`` (default 1-3) mergeable edits, then, if
    ``conflict``, a conflicting one (possibly followed by an append). Steps that the buffer
    cannot have (no line inside an insertion, say) are tried again or left out."""
    st = DriftState(rng, maker, base.split("\n"), [(e.start, e.end) for e in patch])
    n_steps = rng.choice((1, 1, 2, 2, 3)) if steps is None else steps
    plan = [rng.choice(MERGEABLE_DRIFT) for _ in range(n_steps)]
    if conflict:
        plan = [*plan[:rng.randint(0, 2)], rng.choice(CONFLICT_DRIFT)]
        if rng.random() < 0.4:
            plan.append("append")
    out: list[DriftStep] = []
    for kind in plan:
        step = None
        for _ in range(6):
            step = drift_step(st, kind if st.spans else "append")
            if step is None:
                continue
            mapped = map_through(st.spans, step.edit) if st.spans else []
            if (mapped is None) == (kind in CONFLICT_DRIFT):
                break
            step = None
        if step is None:
            continue
        st.lines = apply_edit(st.lines, step.edit)
        mapped = map_through(st.spans, step.edit) if st.spans else []
        st.spans = mapped or []
        out.append(step)
    return out


def make_scenario(seed: int | str, index: int, *, conflict: bool) -> Scenario:
    """Scenario ``index`` of a run with ``seed``: a conflict if ``conflict``, else mergeable.

    Each scenario has its own random stream, so one can be regenerated alone.
    """
    rng = Random(f"stale-patches:{seed}:{index}")
    for _ in range(100):
        maker = ContextMaker(Random(rng.random()))
        base, spans = make_context(maker, rng.randint(40, 384))
        patch = make_patch(rng, base, spans)
        if not patch:
            continue
        drift = make_drift(rng, maker, base, patch, conflict=conflict)
        if not drift:
            continue
        truth = rebase(base, [d.edit for d in drift], patch)
        if (truth is None) != conflict:
            continue
        sc = Scenario(index, base, tuple(patch), unified_diff(base, patch), tuple(drift), truth)
        if sc.live == base or (truth is not None and truth == sc.live):
            continue
        return sc
    raise RuntimeError(f"no scenario for seed {seed!r}, index {index}")


def generate(n: int = 500, seed: int | str = 0, conflicts: float = 0.2) -> list[Scenario]:
    """``n`` scenarios, ``round(n * conflicts)`` of them conflicting, spread evenly."""
    k = round(n * conflicts)
    return [make_scenario(seed, i, conflict=(i + 1) * k // n != i * k // n) for i in range(n)]


def summary(scenarios: Sequence[Scenario]) -> dict[str, Any]:
    """Counts by class, patch kind and drift kind, and the size range of the bases."""
    sizes = [len(s.base.split("\n")) - 1 for s in scenarios]
    return {
        "scenarios": len(scenarios),
        "mergeable": sum(not s.conflict for s in scenarios),
        "conflict": sum(s.conflict for s in scenarios),
        "lines": [min(sizes, default=0), max(sizes, default=0)],
        "hunks": dict(sorted(Counter(len(s.patch) for s in scenarios).items())),
        "patch_kinds": dict(Counter(k for s in scenarios for k in s.patch_kinds)),
        "drift_kinds": dict(Counter(k for s in scenarios for k in s.drift_kinds)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--n", type=int, default=500, help="number of scenarios (default 500)")
    ap.add_argument("--seed", default="0", help="seed (default 0)")
    ap.add_argument("--conflicts", type=float, default=0.2,
                    help="share of conflicting scenarios (default 0.2)")
    ap.add_argument("--out", help="write the scenarios as JSON lines to this file")
    ap.add_argument("--show", type=int, help="print scenario I (base excerpt, diff, drift)")
    args = ap.parse_args(argv)
    scenarios = generate(args.n, args.seed, args.conflicts)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for s in scenarios:
                f.write(json.dumps(s.to_dict()) + "\n")
    if args.show is not None:
        s = scenarios[args.show]
        print(f"scenario {s.id}: {'conflict' if s.conflict else 'mergeable'}; "
            f"patch {', '.join(s.patch_kinds)}; drift {', '.join(s.drift_kinds)}")
        print(s.diff)
        for d in s.drift:
            e = d.edit
            print(f"drift {d.kind}: [{e.start}, {e.end}) <- {list(e.lines)[:4]}"
                f"{' ...' if len(e.lines) > 4 else ''}")
    print(json.dumps(summary(scenarios), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
