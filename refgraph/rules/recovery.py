"""Recoverability rules: RG501 unrecoverable-prune, RG502 pruned-negative-result.

Material that exists only in the context (a tool result, a user correction, a negative result)
cannot be checked again once it is summarized away, unless ``after`` keeps a handle to re-fetch
it, and a handle to a one-shot side effect does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from ..align import content_words, fold
from ..findings import Finding
from ..model import NodeKind
from ..resources import load_json, load_words
from .base import Example, Rule
from .common import coverage, has_phrase, lexicon, region_after
from .context import Context, Side
from .meaning import said_positively

_HTTP = re.compile(r"\b(GET|HEAD|POST|PUT|PATCH|DELETE)\s+(/[^\s\"'`,;()<>\]]*)")
_NUM = re.compile(r"\d+(?:[.,]\d+)*")
_CODE = re.compile(r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]*[A-Za-z0-9]")
# Handle kinds that name a source the text can be re-fetched from.
SOURCE_KINDS = frozenset({"tool_call", "path", "url", "store_key"})
_KEPT_WORDS = 0.9  # share of a source's content words that after must hold for nothing to be lost
_KEPT_FACTS = 0.5  # share of a one-shot result's facts that after must hold
_ECHO = 0.5  # share of a correction's new content that after must repeat
_REPEAT = 0.8  # a block with this share of its words in another before block is a repeat


@cache
def _lex(name: str) -> frozenset[str]:
    """A word list from ``models/lexicon/recovery.json``."""
    return frozenset(str(w) for w in load_json("lexicon", "recovery.json")[name])


def facts(text: str) -> frozenset[str]:
    """Checkable facts of ``text``: codes that carry digits (ids, keys, versions) and numbers
    of three or more digits or with decimals (amounts, counts, times), by value."""
    out: set[str] = set()
    for m in _CODE.finditer(text):
        out.add(m.group().lower())
    for m in _NUM.finditer(text):
        raw = m.group().replace(",", "")
        if len(raw.replace(".", "")) < 3 and "." not in raw:
            continue
        try:
            out.add(f"{float(raw):g}")
        except ValueError:  # "1.2.3": a version, already a code or kept as written
            out.add(raw)
    return frozenset(out)


def _block_ids(side: Side) -> list[str]:
    """Block ids in document order."""
    out: list[str] = []
    for u in side.units:
        if not out or out[-1] != u.block:
            out.append(u.block)
    return out


def _span_nodes(side: Side, bid: str) -> list[str]:
    out = []
    for _, v in side.G.out_edges(bid):
        out.append(v)
        if side.d(v)["kind"] == NodeKind.SENTENCE.value:
            out.extend(w for _, w in side.G.out_edges(v))
    return out


def _is_tool(side: Side, bid: str) -> bool:
    """True for a tool or observation turn, or a paragraph that reports a tool's output."""
    d = side.d(bid)
    return str(d.get("role", "")) in _lex("evidence_roles") or (
        d["block_kind"] == "paragraph"
        and has_phrase(str(d["text"]).lower()[:80], lexicon("result_markers")) is not None)


def _handles(side: Side, bid: str) -> dict[str, bool]:
    """Handle values of block ``bid``, each with whether it *cites a source*: a tool-call id, a
    handle in tool output (tool turn, JSON, log), in a heading, in parentheses or labelling a
    result ("call_7: ...", "GET /x -> 200")."""
    d = side.d(bid)
    text = str(d["text"])
    kind = d["block_kind"]
    raw = _is_tool(side, bid) or kind in ("heading", "log")
    out: dict[str, bool] = {}
    if "turn_id" in d:
        out[str(d["turn_id"])] = True
    for nid in _span_nodes(side, bid):
        h = side.d(nid)
        if h["kind"] != NodeKind.HANDLE.value or h["handle_kind"] not in SOURCE_KINDS:
            continue
        v = str(h["value"])
        s, e = h["start"] - d["start"], h["end"] - d["start"]
        if h["handle_kind"] == "tool_call":
            src = True
        elif re.match(r"::|:\d", text[e:e + 2]):
            src = False  # "tests/x.py::test_y", "app.py:214": where code is, not a source
        elif kind == "json":
            src = text[s - 1:s] == '"' and text[e:e + 1] == '"'  # a value of its own
        else:
            src = raw or _cited(text, s, e)
        out[v] = out.get(v, False) or src
    for m in _HTTP.finditer(text):  # "GET /status": a request line the extractor may miss
        if len(m.group(2)) > 1:
            out.setdefault(m.group(2), True)
    return out


def _cited(text: str, s: int, e: int) -> bool:
    """True when ``text[s:e]`` stands in parentheses or labels what follows it."""
    line = text[text.rfind("\n", 0, s) + 1:s]
    return line.count("(") > line.count(")") or bool(re.match(r"[`'\"]?\s*(?:->|:)",
                                                              text[e:e + 4]))


def _one_shot(text: str) -> str | None:
    """The cue that marks ``text`` as the result of a one-shot side effect, or None: a
    mutating HTTP request anywhere, or a side-effect word on its first line (the call)."""
    for m in _HTTP.finditer(text):
        if m.group(1) in _lex("mutating_http_verbs"):
            return m.group(1)
    first = text.split("\n", 1)[0].lower()
    for w in sorted(_lex("one_shot_verbs"), key=len, reverse=True):
        if re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", first):
            return w
    return None


class UnrecoverablePrune(Rule):
    """Material that existed only in the context was removed and no handle can re-fetch it.

    ## What it detects
    Three shapes of the same loss, each judged against the whole of ``after``:

    * a source handle (a tool-call id, or a path, URL or store key cited in tool output, a
      heading or parentheses) is gone from ``after`` while the material it stands for (its
      block; for a heading, its section) was summarized, and no other handle of that material
      survives;
    * the result of a one-shot side effect (a POST, a hold, a created or issued record) keeps
      its handle but loses most of its facts (ids, amounts, expiry): re-running the call would
      repeat the side effect, not reproduce the result;
    * a correction (the user's or anyone's: "actually", "correction", "careful, ...") is
      dropped and ``after`` repeats too little of what it newly said.

    Repeats of material that stays, and status chatter that repeats itself, do not count.

    ## Why it matters
    A summary of a tool result is faithful when it is written and unfalsifiable afterwards: the
    only artifact that could show the summary wrong is the one that was pruned.
    """

    code = "RG501"
    name = "unrecoverable-prune"
    summary = "context-only material was removed and after keeps no handle to re-fetch it"
    hint = "Keep the handle (tool-call id, path, URL, store key) in the summary, or keep the text."
    example = Example("assistant: checking the audit table schema\n"
                      "tool[call_8]: columns id, timestamp, actor, action, ip_addr (5 columns)\n"
                      "assistant: the schema is known now",
                      "assistant: checking the audit table schema\n"
                      "assistant: the audit table has 5 columns", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a = ctx.before, ctx.after
        after_hashes = {d.get("hash") for _, d in a.G.nodes(data=True)
                        if d["kind"] == NodeKind.BLOCK.value}
        after_words = content_words(a.text)
        after_facts = facts(a.text)
        blocks = _block_ids(b)
        done: set[str] = set()
        for k, bid in enumerate(blocks):
            if bid in done or b.d(bid)["hash"] in after_hashes:
                continue
            material = self._material(b, blocks, k)
            text = "\n".join(str(b.d(x)["text"]) for x in material)
            handles: dict[str, bool] = {}
            for x in material + self._caller(b, blocks, k):
                for h, src in _handles(b, x).items():
                    handles[h] = handles.get(h, False) or src
            sources = sorted(h for h, src in _handles(b, bid).items() if src)
            kept = sorted(h for h in handles if re.search(
                r"(?<!\w)" + re.escape(h) + r"(?!\w)", a.text))
            if sources and not kept:
                if coverage(content_words(text), after_words) >= _KEPT_WORDS \
                        or self._repeat(b, blocks, k):
                    continue
                done.update(material)
                what = "tool result" if _is_tool(b, bid) else "source"
                yield self.finding(
                    f"the {what} behind {sources[0]!r} was summarized or removed and after "
                    f"keeps none of its handles ({', '.join(sorted(handles)[:3])})",
                    b.ev(b.d(bid)["start"], b.d(material[-1])["end"]))
                continue
            cue = _one_shot(text)
            if kept and cue is not None:
                need = facts(text) - {f.lower() for f in handles} \
                    - {f for h in handles for f in facts(h)}
                if len(need) >= 2 and coverage(need, after_facts) < _KEPT_FACTS:
                    done.update(material)
                    yield self.finding(
                        f"the result of a one-shot side effect ({cue}) lost "
                        f"{', '.join(sorted(need - after_facts)[:3])}; the handle {kept[0]!r} "
                        "kept in after cannot reproduce it without repeating the side effect",
                        b.ev(b.d(bid)["start"], b.d(material[-1])["end"]))
        yield from self._corrections(ctx, after_words)

    @staticmethod
    def _material(b: Side, blocks: list[str], k: int) -> list[str]:
        """Block ``k``, with the section under it when it is a heading."""
        out = [blocks[k]]
        if b.d(blocks[k])["block_kind"] == "heading":
            for x in blocks[k + 1:]:
                if b.d(x)["block_kind"] == "heading":
                    break
                out.append(x)
        return out

    @staticmethod
    def _caller(b: Side, blocks: list[str], k: int) -> list[str]:
        """Blocks of the same output as block ``k``: the call a tool turn answers, and the
        other lines of a run of JSON or log lines (no blank line between them)."""
        out = [blocks[k - 1]] if k > 0 and _is_tool(b, blocks[k]) else []
        if b.d(blocks[k])["block_kind"] in ("json", "log"):
            for step in (-1, 1):
                n = k
                while 0 <= n + step < len(blocks):
                    x, y = (blocks[n + step], blocks[n]) if step < 0 else (blocks[n],
                                                                          blocks[n + step])
                    gap = b.text[b.d(x)["end"]:b.d(y)["start"]]
                    if gap.count("\n") > 1 or b.d(blocks[n + step])["block_kind"] not in (
                            "json", "log"):
                        break
                    n += step
                    out.append(blocks[n])
        return out

    @staticmethod
    def _repeat(b: Side, blocks: list[str], k: int) -> bool:
        """True for a line of status chatter that repeats another before block."""
        words = content_words(str(b.d(blocks[k])["text"]))
        return bool(words) and any(
            coverage(words, content_words(str(b.d(x)["text"]))) >= _REPEAT
            for x in blocks[max(0, k - 8):k + 9] if x != blocks[k])

    def _corrections(self, ctx: Context, after_words: frozenset[str]) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        cues = _lex("correction_cues")
        for i in al.changed_before():
            u = b.units[i]
            cue = _opening_cue(u.text, cues)
            if cue is None:
                continue
            said = [k for k in range(i, min(i + 3, len(b.units))) if b.units[k].block == u.block]
            end = b.units[said[-1]].end
            earlier = _words_before(b, u.start) | content_words(cue)
            new = (content_words(b.text[u.start:end]) | _numbers(b.text[u.start:end])) - earlier
            if len(new) < 3 and not new & _numbers(b.text[u.start:end]):
                continue  # "actually no, let me check": nothing newly said to lose
            have = after_words | _numbers(a.text)
            if coverage(new, have) >= _ECHO:
                continue
            values = new & _numbers(b.text[u.start:end])
            if values and values <= have:
                continue  # every value the correction gave is still in after: it was echoed
            yield self.finding(
                f"the correction {u.text.strip()[:90]!r} was dropped: after repeats little of "
                f"what it said ({', '.join(sorted(new - have)[:3])} are gone)",
                b.ev(u.start, end))


def _opening_cue(text: str, cues: frozenset[str]) -> str | None:
    """The correction cue that opens ``text`` (after a speaker label), or None: "actually",
    "correction:" and "careful," correct something only at the head of what is said."""
    low = re.sub(r"^\s*(?:[\w .()-]{1,40}:\s+)?", "", text.lower(), count=1)
    head = " ".join(low.split()[:3])
    for c in sorted(cues, key=len, reverse=True):
        if head.startswith(c) or (not c.endswith((",", ":")) and head.startswith(c + " ")):
            return c
    for c in sorted(cues, key=len, reverse=True):
        if re.match(r"(?:\w+[,:]?\s+){0,1}" + re.escape(c), head):
            return c
    return None


def _numbers(text: str) -> frozenset[str]:
    """Every number of ``text`` as written ("3-31" -> 3, 31)."""
    return frozenset(m.group() for m in _NUM.finditer(text))


_CLAUSE = re.compile(r"[^;!?\n{}\"|]+?(?:[.](?=\s|$)|(?=[;!?\n{}\"|]|,? but\b)|$)")
_TOK = re.compile(r"[a-z0-9]+(?:[._'/-][a-z0-9]+)*|n't")


@dataclass(frozen=True, slots=True)
class NegativeResult:
    """A clause of a before unit that reports an observed absence."""

    unit: int
    start: int  # the clause, as offsets into the before text
    end: int
    cue: str
    focus: tuple[str, ...]  # folded content words the cue negates, nearest first


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOK.finditer(text.lower())]


def negative_results(side: Side, i: int) -> list[NegativeResult]:
    """Clauses of unit ``i`` that report an observed absence ("no rows matched", "field X
    was absent", "status: skipped", "0 errors") rather than instruct, forbid or condition."""
    u = side.units[i]
    if u.text.rstrip().endswith("?"):
        return []
    pre, post = _lex("negative_pre"), _lex("negative_post")
    modals, stop = _lex("modals"), _lex("condition_cues")
    out: list[NegativeResult] = []
    for m in _CLAUSE.finditer(u.text):
        clause = m.group()
        low = clause.lower()
        if has_phrase(low, _lex("instruction_cues")):
            continue
        toks = _tokens(clause)
        words = [t for t, _, _ in toks]
        for k, (w, s, e) in enumerate(toks):
            two = " ".join(words[k:k + 2])
            is_pre = w in pre or two in pre
            is_post = w in post or two in post
            if not (is_pre or is_post):
                continue
            if any(x in stop for x in words[:k + 5]) or has_phrase(low[:s], stop):
                continue  # "not possible before 15:00", "unless": a condition, not a result
            if any(x in modals for x in words[:k + 3]):
                continue  # "should not", "nobody may", "cannot issue ... without": not results
            if w == "never" and not any(x in _lex("past_aux") for x in words[max(0, k - 2):k]):
                continue  # "never retried", "never to promote": a rule; "was never set": a result
            if w == "no" and clause[e:].strip()[:1] in (",", ".", "!", ";", ""):
                continue  # "no, that's all", "| nullable | no |": an interjection or a value
            if any(_error_word(x) for x in words[:k]):
                continue  # "FAILED x - gateway did not answer": the message of a failure
            if w == "not" and clause[:s].rstrip().endswith(","):
                continue  # "one charge, not three": a contrast, not an observed absence
            if w in ("0", "zero") and k + 1 < len(words) and not words[k + 1].isalpha():
                continue  # "0.5", "0 2": a number, not a count of nothing
            after = [fold(x) for x in words[k + 1:k + 6] if _content(x)]
            before = [fold(x) for x in reversed(words[max(0, k - 5):k]) if _content(x)]
            predicative = w in ("zero", "0", "none", "nil") and k > 0 \
                and words[k - 1] in _lex("predicative")
            if predicative:
                is_pre = False  # "stayed at zero throughout": a value of what came before
            attributive = is_post and bool(after) and k + 1 < len(words) \
                and _content(words[k + 1]) and not predicative
            focus = tuple(after if (is_pre or attributive) and after else before)
            if not focus:
                continue
            if focus[0] in {fold(x) for x in _lex("epistemic")}:
                continue  # "not confirmed", "nobody has verified": a hedge (RG304), not a result
            if focus[0] in {fold(x) for x in _lex("chatter_focus")}:
                continue  # "nothing else to report", "no updates": chatter, not a result
            focus += tuple(x for x in words[k + 1:] if x in post)  # "no folder is missing"
            out.append(NegativeResult(i, u.start + m.start(), u.start + m.end(), w, focus))
            break
    return out


def _error_word(word: str) -> bool:
    return any(word == m or (len(m) >= 5 and word.endswith(m)) for m in _lex("error_markers"))


def _content(word: str) -> bool:
    return word.isascii() and word not in _stop() and any(c.isalpha() for c in word) \
        and word not in _lex("negative_pre") and word not in _lex("negative_post") \
        and word not in _lex("focus_skip")


@cache
def _stop() -> frozenset[str]:
    return load_words("lexicon", "stopwords.txt")


def negation_kept(text: str, focus: tuple[str, ...]) -> bool:
    """True when ``text`` (one unit) negates the ``focus`` it names: a negation within four
    words before or two after a focus word ("no disputes", "disputes: none", "rows":0, "none
    missing"), and, for a focus of several words, a second one of them in the same text."""
    toks = _tokens(text)
    pre, post = _lex("negative_pre"), _lex("negative_post") | _lex("negative_verbs")
    negated = False
    named: set[str] = set()
    for k, (w, _, _) in enumerate(toks):
        for t in focus:
            hit = _same_word(w, (t,))
            if hit is None:
                continue
            named.add(t)
            left = [x for x, _, _ in toks[max(0, k - 4):k]]
            right = [x for x, _, _ in toks[k + 1:k + 3]]
            if hit == "affix" or any(x in pre or x in post or x.endswith("n't") for x in left) \
                    or any(x in post or x in pre for x in right):
                negated = True  # "unconfirmed" negates "confirmed" by itself
    if not negated and any(said_positively(text, t) for t in focus):
        return True  # "did not pass" -> "failed": the verb's own negative
    return negated and (len(named) >= 2 or len(set(focus)) == 1)


def _has_cue(text: str, cue: str) -> bool:
    return any(w == cue for w, _, _ in _tokens(text))


def _same_word(word: str, focus: tuple[str, ...]) -> str | None:
    """"same" when ``word`` is one of the ``focus`` words (folded, or sharing a five-letter
    stem: "expiring"/"expires"), "affix" when it is one of them negated by a prefix
    ("unconfirmed", "non-empty"), else None."""
    f = fold(word)
    for t in focus:
        if f == t or (f.isalpha() and t.isalpha() and min(len(f), len(t)) >= 4
                      and (f.startswith(t[:5]) or t.startswith(f[:5]))):
            return "same"
        for prefix in ("un", "non-", "non", "in"):
            if word.startswith(prefix) and len(t) >= 4 and word[len(prefix):].startswith(t[:5]):
                return "affix"
    return None


class PrunedNegativeResult(Rule):
    """A negative result was removed or blurred.

    ## What it detects
    A clause that reports something observed *not* to be the case ("field X was absent", "no
    rows matched", "test Y did not run", "status: skipped", "0 errors") whose negated subject
    ``after`` no longer negates anywhere: the clause was dropped, or rewritten into something
    neutral ("the check ran"). Instructions ("do not ..."), modal statements ("nobody should
    ...") and conditions ("unless ...") are constraints, not results; a clause whose subject
    survives without its negation is a polarity flip (RG301), not a pruned result.

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
        seen: dict[str, int] = {}
        for u in b.units:
            key = " ".join(u.text.lower().split())
            seen[key] = seen.get(key, 0) + 1
        for i in al.changed_before():
            if seen[" ".join(b.units[i].text.lower().split())] > 1:
                continue  # status chatter the text repeats: no single result is lost with it
            for nr in negative_results(b, i):
                if b.lower.count(b.text[nr.start:nr.end].strip().lower()) > 1:
                    continue  # "no change since the last check", said again and again: chatter
                stems = [t[:4] for t in nr.focus if t]
                if any(negation_kept(u.text, nr.focus) for u in a.units
                       if any(st in u.text.lower() for st in stems)):
                    continue
                if re.search(r"\d\S*\s+not\s+\d", b.text[nr.start:nr.end]):
                    continue  # "at 05:50 not 06:20": a corrected value, not a negative result
                if _said_negatively(a, b.text[nr.start:nr.end]):
                    continue  # restated in other words ("stayed at zero" -> "0 under-replicated")
                region = region_after(ctx, i)
                if any(_has_cue(a.units[j].text, nr.cue) for j in region):
                    continue  # the rewrite still negates: what it negates is RG301's business
                if any(self._restated(a.units[j].words, nr.focus)
                       for j in (region or range(len(a.units)))):
                    continue  # the subject stays, its negation goes: a polarity flip (RG301)
                clause = b.text[nr.start:nr.end].strip()
                yield self.finding(
                    f"the negative result {clause[:90]!r} was "
                    f"{'blurred' if region else 'removed'}: after no longer says "
                    f"{nr.focus[0]!r} was not there", b.ev_unit(i),
                    *([a.ev_unit(region[0])] if region else []))
                break

    @staticmethod
    def _restated(words: frozenset[str], focus: tuple[str, ...]) -> bool:
        """True when ``words`` hold the negated word and, for a longer focus, one more."""
        hits = [t for t in focus if any(_same_word(w, (t,)) == "same" for w in words)]
        return bool(hits) and hits[0] == focus[0] and (len(hits) >= 2 or len(focus) == 1)


_NEGATIVE_TEXT = re.compile(r"\b(?:no|not|none|never|nothing|zero|0|without|n't|nil|absent|"
                            r"missing|unchanged|clean|empty)\b|n't\b", re.IGNORECASE)


def _said_negatively(a: Side, clause: str) -> bool:
    """Some unit of after holds most of the clause's words and still says no, none or zero."""
    words = content_words(clause)
    if len(words) < 2:
        return False
    return any(coverage(words, u.words) >= 0.5 and _NEGATIVE_TEXT.search(u.text)
               for u in a.units if u.words & words)


def _words_before(side: Side, pos: int) -> frozenset[str]:
    """Content words of every unit that ends before ``pos`` (unit words are cached already;
    building them from the prefix text would be quadratic and fill the cache)."""
    out: set[str] = set()
    for u in side.units:
        if u.end > pos:
            break
        out |= u.words
    return frozenset(out)
