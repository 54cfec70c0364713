"""Recoverability rules: RG501 unrecoverable-prune, RG502 pruned-negative-result.

Material that exists only in the context (a tool result, a user correction, a negative result)
cannot be checked again once it is summarized away, unless ``after`` keeps a handle to re-fetch
it, and a handle to a one-shot side effect does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..align import UnitStatus
from ..findings import Finding
from ..model import NodeKind
from .base import Example, Rule
from .common import coverage, has_phrase, lexicon, region_after, region_words
from .context import Context, Side
from .meaning import negated_near, polarity_items

_HTTP_MUTATION = re.compile(r"\b(?:POST|PUT|PATCH|DELETE)\b")
_REPEAT = 0.9  # a block whose words another kept block holds (nearly) all of is a repeat
_ECHO = 0.6  # share of a correction's words that a later unit must repeat to count as its echo


def _blocks(side: Side) -> list[tuple[str, list[int]]]:
    """Blocks in order with the indices of their units."""
    out: list[tuple[str, list[int]]] = []
    for i, u in enumerate(side.units):
        if out and out[-1][0] == u.block:
            out[-1][1].append(i)
        else:
            out.append((u.block, [i]))
    return out


def _only_in_context(side: Side, bid: str) -> str | None:
    """Why block ``bid`` holds material that exists only in the context, or None."""
    d = side.d(bid)
    role = str(d.get("role", ""))
    if role in lexicon("evidence_roles"):
        return "tool result"
    if d["block_kind"] in ("json", "log"):
        return "tool output"
    low = d["text"].lower()
    if role in ("user", "human") and has_phrase(low, lexicon("correction")):
        return "user correction"
    if has_phrase(low[:80], lexicon("result_markers")):
        return "tool result"
    return None


def _handles(side: Side, bids: list[str]) -> set[str]:
    out: set[str] = set()
    for bid in bids:
        d = side.d(bid)
        if "turn_id" in d:
            out.add(str(d["turn_id"]))
        for _, v in side.G.out_edges(bid):
            out |= _node_handles(side, v)
    return out


def _node_handles(side: Side, nid: str) -> set[str]:
    out = set()
    d = side.d(nid)
    if d["kind"] == NodeKind.HANDLE.value:
        out.add(str(d["value"]))
    elif d["kind"] == NodeKind.SENTENCE.value:
        for _, v in side.G.out_edges(nid):
            if side.d(v)["kind"] == NodeKind.HANDLE.value:
                out.add(str(side.d(v)["value"]))
    return out


def _one_shot(text: str) -> bool:
    return bool(_HTTP_MUTATION.search(text)) or has_phrase(text.lower(),
                                                           lexicon("one_shot")) is not None


class UnrecoverablePrune(Rule):
    """Material that existed only in the context was removed and no handle can re-fetch it.

    ## What it detects
    A tool result (a ``tool:`` or ``observation:`` turn, JSON or log output, a paragraph that
    reports a tool's output) that ``after`` removes or summarizes, or a user correction that it
    drops without echoing, while ``after`` keeps no handle to the source: no path, URL, tool-call
    id or store key of that block or of the call that produced it. A handle whose source is a
    one-shot side effect (a POST, a mutation, a time-sensitive read) does not count.

    ## Why it matters
    A summary of a tool result is faithful when it is written and unfalsifiable afterwards: the
    only artifact that could show the summary wrong is the one that was pruned.
    """

    code = "RG501"
    name = "unrecoverable-prune"
    summary = "context-only material was removed and after keeps no handle to re-fetch it"
    hint = "Keep the handle (tool-call id, path, URL, store key) in the summary, or keep the text."
    example = Example("assistant: checking the audit table schema\n"
                      "tool: columns id, timestamp, actor, action, ip_addr (5 columns)\n"
                      "assistant: the schema is known now",
                      "assistant: checking the audit table schema\n"
                      "assistant: the audit table has 5 columns", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        after_hashes = {d.get("hash") for _, d in a.G.nodes(data=True)
                        if d["kind"] == NodeKind.BLOCK.value}
        kept_words = [frozenset().union(*(b.units[i].words for i in idx))
                      for bid, idx in _blocks(b) if b.d(bid)["hash"] in after_hashes]
        blocks = _blocks(b)
        group: list[tuple[str, str]] = []  # consecutive lost blocks: (block id, why)
        for k, (bid, idx) in enumerate(blocks):
            why = _only_in_context(b, bid)
            lost = why is not None and b.d(bid)["hash"] not in after_hashes and any(
                al.before_status[i] is not UnitStatus.KEPT for i in idx)
            if lost and self._redundant(b, idx, kept_words):
                lost = False  # a repeat of material after still holds verbatim
            if lost and why == "user correction":
                words = frozenset().union(*(b.units[i].words for i in idx))
                lost = coverage(words, region_words(a, sorted(
                    {j for i in idx for j in region_after(ctx, i)}))) < _ECHO
            if lost and why is not None:
                group.append((bid, why))
                continue
            yield from self._flush(ctx, group, blocks, k)
            group = []
        yield from self._flush(ctx, group, blocks, len(blocks))

    @staticmethod
    def _redundant(b: Side, idx: list[int], kept: list[frozenset[str]]) -> bool:
        words = frozenset().union(*(b.units[i].words for i in idx))
        return bool(words) and any(coverage(words, k) >= _REPEAT for k in kept)

    def _flush(self, ctx: Context, group: list[tuple[str, str]],
               blocks: list[tuple[str, list[int]]], k: int) -> Iterator[Finding]:
        if not group:
            return
        b, a = ctx.before, ctx.after
        bids = [g[0] for g in group]
        first = k - len(group)
        callers = [blocks[first - 1][0]] if first > 0 else []
        handles = _handles(b, bids + callers)
        source = " ".join(b.d(x)["text"] for x in bids + callers)
        kept = sorted(h for h in handles if h and h in a.text)
        if kept and not _one_shot(source):
            return
        start, end = b.d(bids[0])["start"], b.d(bids[-1])["end"]
        what = group[0][1]
        if kept:
            msg = (f"a {what} was pruned; the handle {kept[0]!r} kept in after points at a "
                   "one-shot side effect, so re-fetching will not reproduce it")
        elif handles:
            msg = (f"a {what} was pruned and after keeps none of its handles "
                   f"({', '.join(sorted(handles)[:3])})")
        else:
            msg = f"a {what} was pruned and nothing in after can re-fetch it"
        yield self.finding(msg, b.ev(start, end))


def negative_results(side: Side, i: int) -> list[str]:
    """Negation cues of unit ``i`` that report an observed absence rather than instruct."""
    u = side.units[i]
    low = u.text.lower()
    if has_phrase(low, lexicon("instruction_cues")) or low.rstrip().endswith("?"):
        return []
    out = []
    results = lexicon("result_words")
    for nid in side.of_kind(i, NodeKind.NEGATION):
        d = side.d(nid)
        if d["cue_kind"] == "affix":
            continue
        if d["cue"] == "no" and side.text[d["end"]:d["end"] + 1] in (",", ".", "!", ";"):
            continue  # "actually no, let me check": an interjection, not a result
        scope = side.text[d["scope_start"]:d["scope_end"]].lower()
        words = set(re.findall(r"[a-z']+", scope))
        if words & results or re.search(r"\b(?:0|zero)\b", scope):
            out.append(nid)
    return out


class PrunedNegativeResult(Rule):
    """A negative result was removed or blurred.

    ## What it detects
    A statement that something was observed *not* to be the case ("field X was absent", "no rows
    matched", "test Y did not run", "the flag was never set") that ``after`` drops or blurs
    into something without the negation, while no other unit in ``after`` keeps it.

    ## Why it matters
    Absence is unfalsifiable once the evidence is gone: nothing in the remaining context stops
    the agent from later assuming the field exists or the test ran.
    """

    code = "RG502"
    name = "pruned-negative-result"
    summary = "a negative result was removed or blurred"
    hint = "Keep negative results verbatim; they are cheap and cannot be re-derived."
    example = Example("Checked the export. The email column was absent in all 3 files. "
                      "The job then finished.",
                      "Checked the export. The job then finished.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        everywhere: list[frozenset[str]] | None = None
        for i in al.changed_before():
            negs = negative_results(b, i)
            if not negs:
                continue
            region = region_after(ctx, i)
            kept = [p for j in region for p in polarity_items(a, j)]
            words = region_words(a, region)
            for nid in negs:
                item = next((p for p in polarity_items(b, i) if p.node == nid), None)
                scope = item.scope if item is not None else b.units[i].words
                if any(p.scope & scope for p in kept):
                    continue
                if region and coverage(scope, words) >= 0.5:
                    continue  # content kept, negation gone: a polarity flip (RG301)
                if everywhere is None:
                    everywhere = [p.scope for j in range(len(a.units))
                                  for p in polarity_items(a, j)]
                if any(coverage(scope, s) >= 0.5 for s in everywhere if s) or (
                        item is not None and negated_near(a.text, item.focus)):
                    continue  # stated elsewhere in after
                yield self.finding(
                    f"the negative result {b.units[i].text.strip()[:90]!r} was "
                    f"{'blurred' if region else 'removed'}", b.ev_unit(i),
                    *([a.ev_unit(region[0])] if region else []))
                break
