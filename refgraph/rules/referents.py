"""Referent rules: RG101 orphaned-reference, RG102 dangling-deictic, RG103 merged-entity,
RG104 unsupported-referent. Each asks whether what ``after`` points at still exists in it."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from ..align import content_words
from ..findings import Finding
from ..model import EdgeKind, NodeKind, RefKind, referent_id
from ..resources import load_words
from .base import Example, Rule
from .common import close, coverage, lexicon
from .context import Context, Side
from .quantities import quantity_diffs

_DEFINES = EdgeKind.DEFINES.value
_MEASURES = EdgeKind.MEASURES.value
_USES = EdgeKind.USES.value
_REFERS = EdgeKind.REFERS_TO.value
# "those were type I specimens": a bare demonstrative is a pronoun, too weak to block on.
_BARE_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
# Deictics whose antecedent is found by position ("the above", "as noted", "the former"):
# they resolve to *something* after any prune, so the before antecedent must itself survive.
_POSITIONAL = frozenset({"above", "previous", "discourse", "former-latter"})


def _definitions(side: Side, rid: str) -> list[str]:
    """Occurrences that bind referent ``rid``: defining identifiers and measuring quantities."""
    if rid not in side.G:
        return []
    return [u for u, _, k in side.G.in_edges(rid, keys=True) if k in (_DEFINES, _MEASURES)]


def _uses(side: Side, rid: str) -> list[str]:
    if rid not in side.G:
        return []
    return sorted((u for u, _, k in side.G.in_edges(rid, keys=True) if k == _USES),
                  key=lambda n: side.G.nodes[n]["start"])


class OrphanedReference(Rule):
    """An identifier is still used in ``after`` but every span that defined it is gone.

    ## What it detects
    A name that ``before`` bound (``MAX_RETRIES=3``, "let N be the batch size", ``timeout: 30 s``)
    whose binding occurrences were all removed, while a use survives ("retry up to MAX_RETRIES
    times").

    ## Why it matters
    The surviving use now refers to nothing the context can resolve; the agent fills the gap
    from guesswork. Pruning tends to delete the explanatory line around a constant and keep its
    uses, so this is the commonest structural loss.
    """

    code = "RG101"
    name = "orphaned-reference"
    summary = "an identifier is still used in after but its definition is gone"
    hint = "Keep the definition (or restate it in the summary) wherever a use survives."
    example = Example("MAX_RETRIES=3 caps the attempts.\n\nRetry the upload up to MAX_RETRIES "
                      "times.", "Retry the upload up to MAX_RETRIES times.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a = ctx.before, ctx.after
        seen: set[str] = set()
        named: set[str] = set()
        for i in ctx.alignment.changed_before():
            for nid in b.of_kind(i, NodeKind.IDENTIFIER):
                if b.d(nid).get("role") != "define" or _bound_to_nothing(b, nid):
                    continue
                rid = referent_id(RefKind.IDENTIFIER, str(b.d(nid)["name"]))
                if rid in seen:
                    continue
                seen.add(rid)
                named.add(str(b.d(nid)["name"]))  # judged here; the text path leaves it be
                if _definitions(a, rid):
                    continue
                uses = _uses(a, rid)
                if not uses or self._restated(ctx, rid, uses) or self._explained(ctx, i, nid,
                                                                                 uses):
                    continue
                name = b.d(nid)["name"]
                yield self.finding(
                    f"{name!r} is used in after but its definition "
                    f"{b.units[i].text.strip()[:80]!r} was removed",
                    b.ev_unit(i), a.ev_node(uses[0]),
                    hint=f"Keep the line that defines {name!r}, or restate its value where it "
                         "is used.")
        yield from self._defined_terms(ctx, named)

    def _defined_terms(self, ctx: Context, named: set[str]) -> Iterator[Finding]:
        """Terms a sentence of before defines in words ("MCT means ...", "we define a late
        event as ...", "HEK293T (`HDG`)") that after still uses with no definition left."""
        b, a = ctx.before, ctx.after
        for i in ctx.alignment.changed_before():
            for term in definitions_in(b.units[i].text):
                if term in named or term.lower() in (n.lower() for n in named):
                    continue
                uses = _term_uses(a.text, term)
                if not uses or term.lower() in _defined_after(a):
                    continue
                named.add(term)
                s, e = uses[0]
                yield self.finding(
                    f"{term!r} is used in after but the sentence that defined it "
                    f"{b.units[i].text.strip()[:80]!r} was removed",
                    b.ev_unit(i), a.ev(s, e),
                    hint=f"Keep the definition of {term!r}, or spell it out where it is used.")

    @staticmethod
    def _explained(ctx: Context, i: int, nid: str, uses: list[str]) -> bool:
        """True when a unit using the name repeats what the definition said about it, or
        binds it in its own words ("PRORATE (the prorated credit)", "X: ...", "X means")."""
        b, a = ctx.before, ctx.after
        name = str(b.d(nid)["name"])
        said = b.units[i].words - content_words(name)
        for u in uses:
            j = a.unit_of.get(u)
            if j is None:
                continue
            if said and coverage(said, a.units[j].words) >= 0.5:
                return True
            tail = a.text[a.d(u)["end"]:a.d(u)["end"] + 12].lstrip("`'\" ")
            if tail[:1] in ("=", ":", "(") or tail.lower().startswith(("is ", "means", "are ")):
                return True
        return False

    @staticmethod
    def _restated(ctx: Context, rid: str, uses: list[str]) -> bool:
        """True when a unit using the name also carries the value it was defined with."""
        b, a = ctx.before, ctx.after
        values = [b.d(q)["base_magnitude"] for q in _definitions(b, rid)
                  if b.d(q)["kind"] == NodeKind.QUANTITY.value]
        if not values:
            return False
        for u in uses:
            j = a.unit_of.get(u)
            if j is None:
                continue
            for q in a.of_kind(j, NodeKind.QUANTITY):
                if any(close(v, a.d(q)["base_magnitude"]) for v in values):
                    return True
        return False


class DanglingDeictic(Rule):
    """A deictic reference in ``after`` has no surviving antecedent that fits it.

    ## What it detects
    "the above constraint", "that retry budget", "as noted", "the former" in ``after`` where the
    span it pointed at in ``before`` was removed, or where nothing before it in ``after`` fits its
    description any more.

    ## Why it matters
    The reference reads naturally, so neither the agent nor a reviewer notices that it points at
    nothing; the agent supplies a plausible antecedent from memory instead.
    """

    code = "RG102"
    name = "dangling-deictic"
    summary = "a deictic reference in after has no surviving antecedent"
    hint = "Keep the span the reference points at, or replace the reference with its content."
    example = Example("Never restart the primary during a backup.\n\nThe cache is warm.\n\n"
                      "Keep the above constraint in mind.",
                      "The cache is warm.\n\nKeep the above constraint in mind.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        cache: list[frozenset[str]] = []

        def unresolved_before() -> frozenset[str]:
            """Descriptions before already used with no antecedent (the world, not the text)."""
            if not cache:
                cache.append(frozenset(str(b.d(n).get("description", "")).lower()
                                       for n in b.nodes_of(NodeKind.DEICTIC)
                                       if not b.d(n).get("resolved")))
            return cache[0]

        for j in range(len(a.units)):
            for nid in a.of_kind(j, NodeKind.DEICTIC):
                da = a.d(nid)
                if da.get("deictic_kind") == "pronoun" or str(da.get("head", "")).lower() \
                        in lexicon("time_words") or (
                            da.get("deictic_kind") in ("demonstrative", "discourse")
                            and not da.get("head")
                            and str(da.get("word", "")).lower() in _BARE_DEMONSTRATIVES):
                    continue  # pronouns: too weak to block on; "this week": time, not text
                counterpart = self._counterpart(ctx, j, nid)
                if counterpart is None:
                    if j in al.exact or da.get("resolved") or not self._anaphoric(da) or \
                            str(da.get("description", "")).lower() in unresolved_before():
                        continue
                    yield self._report(ctx, nid, None)
                    continue
                targets = [v for _, v, k in b.G.out_edges(counterpart, keys=True)
                           if k == _REFERS]
                if not targets:
                    # The resolver found nothing, but before did name the head earlier ("the
                    # workaround is to disable duplex" ... "that workaround"), after does not.
                    if self._head_lost(b, a, b.d(counterpart), da):
                        yield self._report(ctx, nid, None)
                    continue
                # Positional references resolve to *something* after any prune, and a
                # demonstrative to any earlier word with its head: the antecedent before had
                # must itself survive ahead of it.
                checked = da.get("deictic_kind") in _POSITIONAL or (
                    da.get("deictic_kind") == "demonstrative" and da.get("head")
                    and str(da.get("word", "")).lower() in ("that", "those"))
                if not da.get("resolved") or (checked and not self._survives(
                        ctx, targets[0], da["start"])):
                    yield self._report(ctx, nid, targets[0])

    @staticmethod
    def _head_lost(b: Side, a: Side, db: dict[str, Any], da: dict[str, Any]) -> bool:
        head = str(da.get("head", "")).lower()
        if da.get("deictic_kind") not in ("demonstrative", "above", "previous") \
                or len(head) < 3 or not head.isalpha() \
                or str(da.get("word", "")).lower() in ("this", "these"):
            return False  # "these notes": the text at hand
        pattern = re.compile(r"\b" + re.escape(head[:6]), re.IGNORECASE)
        earlier_before = pattern.findall(b.text, 0, db["start"])
        earlier_after = pattern.findall(a.text, 0, da["start"])
        return bool(earlier_before) and not earlier_after

    @staticmethod
    def _anaphoric(d: dict[str, object]) -> bool:
        """Points back into the text ("that", "the above", "the former"), unlike "this", which
        often points at the situation."""
        # "that X" is as often a determiner for something the writer names on the spot, so only
        # the positional and discourse forms count when the rewrite introduced them.
        return d.get("deictic_kind") in ("above", "previous", "discourse", "same")

    @staticmethod
    def _counterpart(ctx: Context, j: int, nid: str) -> str | None:
        """The same deictic in the before unit that after unit ``j`` came from."""
        b, a, al = ctx.before, ctx.after, ctx.alignment
        i = al.match.get(j)
        if i is None:
            return None
        da = a.d(nid)
        if j in al.exact:
            off = da["start"] - a.units[j].start
            for cand in b.of_kind(i, NodeKind.DEICTIC):
                if b.d(cand)["start"] - b.units[i].start == off:
                    return cand
            return None
        for cand in b.of_kind(i, NodeKind.DEICTIC):
            if b.d(cand)["text"].lower() == da["text"].lower():
                return cand
        return None

    @staticmethod
    def _survives(ctx: Context, target: str, before_pos: int) -> bool:
        """True when the before antecedent's unit has a copy or rewrite in after before ``pos``."""
        b, a = ctx.before, ctx.after
        i = b.unit_of.get(target)
        if i is None:
            return True
        need = content_words(b.d(target)["text"]) or b.units[i].words
        for j in set(ctx.after_units_from(i)) | set(ctx.after_units_citing(i)):
            if a.units[j].start >= before_pos:
                continue
            if j in ctx.alignment.exact or len(need & a.units[j].words) * 2 >= len(need):
                return True
        return False

    def _report(self, ctx: Context, nid: str, target: str | None) -> Finding:
        da = ctx.after.d(nid)
        ev = [ctx.after.ev_node(nid)]
        if target is not None:
            ev.insert(0, ctx.before.ev_node(target))
            msg = (f"{da['text']!r} pointed at {ctx.before.d(target)['text'][:80]!r}, which is "
                   "gone from after")
        else:
            msg = f"{da['text']!r} has nothing before it in after that fits its description"
        return self.finding(msg, *ev)


class UnsupportedReferent(Rule):
    """``after`` asserts an entity, identifier, handle or quantity nothing in ``before`` supports.

    ## What it detects
    A rewritten or added unit in ``after`` that names an identifier, a handle (path, URL,
    tool-call id), a proper name or a number that appears nowhere in ``before`` in any form (equal
    quantities in other units count as support).

    ## Why it matters
    A rewrite is supposed to compress, not to add. An invented name, number or table is as
    corrupt as a lost one, and the agent cannot tell it from a fact it observed.
    """

    code = "RG104"
    name = "unsupported-referent"
    summary = "after asserts an entity, identifier or quantity nothing in before supports"
    hint = "Remove what before does not say, or cite where it comes from."
    example = Example("The import job wrote 1200 rows to staging.",
                      "The import job wrote 1200 rows to staging and 40 rows to archive_v2.",
                      intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        said: set[str] = set()
        for dq in quantity_diffs(ctx):
            if dq.kind == "unsupported" and a.d(dq.after)["text"] not in said:
                qa = a.d(dq.after)
                said.add(qa["text"])
                yield self.finding(f"{qa['text']!r} appears nowhere in before",
                                   a.ev_node(dq.after))
        before_words = None
        seen: set[str] = set()
        for j in al.changed_after():
            for nid in a.in_unit[j]:
                d = a.d(nid)
                kind = d["kind"]
                if kind == NodeKind.IDENTIFIER.value:
                    if a.d(a.units[j].block)["block_kind"] in ("json", "code"):
                        continue  # keys and code a summary writes to hold what it kept
                    rid = referent_id(RefKind.IDENTIFIER, str(d["name"]))
                elif kind == NodeKind.HANDLE.value:
                    if _list_not_path(d) or str(d["value"]).startswith("ledger:"):
                        continue  # a ledger key cites where pruned text went: nothing invented
                    rid = referent_id(RefKind.HANDLE, str(d["value"]))
                elif kind == NodeKind.MENTION.value and d.get("ent_label") \
                        and d["ent_label"] not in _NUMERIC_ENTITIES \
                        and not _capitalised_anyway(a, j, d):
                    rid = referent_id(RefKind.ENTITY, str(d["key"]))
                else:
                    continue
                if rid in b.G or rid in seen:
                    continue
                surface = d["text"].lower()
                if len(surface.strip()) < 2:
                    continue  # "M" in "1.2 M calls": a letter names nothing
                if _has_words(b.lower, surface) or _has_words(b.lower, _singular(surface)) or \
                        _abbreviates(d["text"], b.lower):
                    continue
                if before_words is None:
                    before_words = b.all_words()
                words = content_words(d["text"])
                if kind == NodeKind.MENTION.value:
                    # Only the capitalised words make it a name: "Scale (€1,140/mo)" names Scale.
                    names = content_words(" ".join(
                        w for w in d["text"].split() if w[:1].isupper() and w[:1].isalpha()
                        and w.lower().strip(".,:;") not in lexicon("date_words")
                        and w.lower().strip(".,:;") not in lexicon("not_names")))
                    if not words or not names or words <= before_words or names <= before_words:
                        continue  # no capitalised word: not a name; or every name word known
                seen.add(rid)
                yield self.finding(f"{d['text']!r} ({kind}) appears nowhere in before",
                                   a.ev_node(nid))
        for (b0, b1), (a0, a1) in swapped_names(ctx):
            yield self.finding(
                f"{a.text[a0:a1]!r} replaced {b.text[b0:b1]!r}; before never names "
                f"{a.text[a0:a1]!r}", b.ev(b0, b1), a.ev(a0, a1),
                hint=f"Keep {b.text[b0:b1]!r} as before says it.")


def _singular(word: str) -> str:
    """"Alexes" -> "alex", "Sams" -> "sam": a plural of a name is the name."""
    for suffix in ("es", "s", "'s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


# Named-entity labels for numbers and times: the quantity rules judge those.
_NUMERIC_ENTITIES = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL",
                               "CARDINAL"})


def _list_not_path(d: dict[str, object]) -> bool:
    """"id/timestamp/actor/action" is a list written with slashes, not a file path."""
    value = str(d.get("value", ""))
    if d.get("handle_kind") != "path" or value.startswith(("/", "~", ".")):
        return False
    last = value.rsplit("/", 1)[-1]
    return "." not in last and value.count("/") >= 2 and " " not in value


_T = r"[`\"']?(?P<t>[A-Z][A-Za-z0-9_]*[A-Z0-9_][A-Za-z0-9_]*)[`\"']?"  # an acronym or a NAME
_DEFINITIONS = [re.compile(p, re.MULTILINE) for p in (
    _T + r"\s+(?:means|stands for|is short for|refers to|is defined as|denotes)\b",
    r"\b(?:[Ww]e|I)\s+(?:define|call|name|abbreviate|refer to)\b[^.;\n]{0,100}?\b(?:as|the)\s+"
    + _T,
    r"\b(?:[Ww]e|I)\s+define\s+(?:an?|the)\s+(?P<t>[a-z][\w-]*(?:\s[a-z][\w-]*){0,2})\s+as\b",
    _T + r"\s*=\s*[^\s=]",
)]


# "Late event: ..." at a line start keeps a term defined, but is too common ("Plan:") to count
# as the definition a rewrite removed.
_LABEL = re.compile(r"^\W{0,3}(?P<t>[A-Za-z][\w-]*(?: [\w-]+){0,2}):\s", re.MULTILINE)
# Same for a term with its gloss in parentheses, either way round: "GRACE_WINDOW (first failure
# to suspension) is 14 days", "minimum connection time (MCT)". Many acronyms are common
# knowledge ("UTC", "WT"), so dropping a gloss is not itself a lost definition.
_GLOSSES = (re.compile(r"\(\s*[`\"']?(?P<t>[A-Z][A-Z0-9_]{1,})[`\"']?\s*\)"),
            re.compile(r"[`\"']?(?P<t>[A-Z][A-Za-z0-9_]*[A-Z0-9_][A-Za-z0-9_]*)[`\"']?\s*"
                       r"\((?=[A-Za-z][A-Za-z-]*\s[^()]{2,80}\))"))


def definitions_in(text: str, *, labels: bool = False) -> set[str]:
    """Terms ``text`` defines in words or with ``=`` (see ``_DEFINITIONS``); with ``labels``,
    also terms that open a line as a label."""
    out = set()
    for pat in (*_DEFINITIONS, _LABEL, *_GLOSSES) if labels else _DEFINITIONS:
        for m in pat.finditer(text):
            term = m.group("t")
            if len(term) >= 2 and not term.isdigit():
                out.add(term)
    return out


def _defined_after(side: Side) -> frozenset[str]:
    """Lower-cased terms the whole text defines, labels included (once per text)."""
    terms: frozenset[str] | None = side.memo.get("defined")
    if terms is None:
        terms = frozenset(t.lower() for t in definitions_in(side.text, labels=True))
        side.memo["defined"] = terms
    return terms


def _term_uses(text: str, term: str) -> list[tuple[int, int]]:
    flags = re.IGNORECASE if term.islower() else 0
    return [(m.start(), m.end()) for m in
            re.finditer(r"(?<![\w-])" + re.escape(term) + r"s?(?![\w-])", text, flags)]


def _capitalised_anyway(side: Side, j: int, d: dict[str, object]) -> bool:
    """A capitalised word that opens its sentence or line, or labels what follows ("Status:"),
    is not evidence of a name the rewrite invented."""
    start, end = int(str(d["start"])), int(str(d["end"]))
    head = side.text[side.units[j].start:start]
    line_start = side.text.rfind("\n", 0, start) + 1
    opens = not head.strip(" -*#>`'\"([") or not side.text[line_start:start].strip(" -*#>`'\"([")
    return opens or side.text[end:end + 1] == ":"


def _abbreviates(text: str, before_lower: str) -> bool:
    """"LR 2e-5" for "learning rate 2e-5": an acronym whose letters open words of before."""
    word = text.split()[0] if text.split() else ""
    if not (2 <= len(word) <= 6 and word.isupper() and word.isalpha()):
        return False
    # Initials of consecutive words (split on spaces and hyphens), searched as a string: a
    # regex here would backtrack exponentially on long hyphenated names.
    initials = "".join(w[0] for w in re.split(r"[\s-]+", before_lower) if w)
    return word.lower() in initials


_TOKEN = re.compile(r"[A-Za-z0-9][\w'’.-]*[\w]|[A-Za-z0-9]")
_ORDINALS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                       "eighth", "ninth", "tenth", "last", "1st", "2nd", "3rd", "4th", "5th"})


def _namelike(token: str, index: int) -> bool:
    """A name, a code or an ordinal: "Moscow" (not opening the sentence), "U.S.", "Q2"."""
    if token.lower() in _ORDINALS:
        return True
    if len(token) < 2 or token.lower() in _stop() or token.lower() in lexicon("negation_words") \
            or token.lower() in lexicon("not_names"):
        return False  # "No", "M" (a scale), "The", "OK": function words and letters
    if any(c.isdigit() for c in token) and any(c.isalpha() for c in token):
        return True
    return token[:1].isupper() and (index > 0 or "." in token or token.isupper())


def swapped_names(ctx: Context) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """In a clear rewrite of one sentence, a name, code or ordinal replaced by another that
    before never uses ("London" -> "Moscow", "Q2" -> "Q3", "third" -> "second")."""
    b, a, al = ctx.before, ctx.after, ctx.alignment
    out = []
    for j in al.changed_after():
        i = al.match.get(j)
        if i is None or al.score.get(j, 0) < 0.6:
            continue
        ub, ua = b.units[i], a.units[j]
        if len(ub.text) > 4000 or len(ua.text) > 4000:
            continue  # a word diff of a wall of text is quadratic and says nothing
        tb = [(m.group(), m.start()) for m in _TOKEN.finditer(ub.text)]
        ta = [(m.group(), m.start()) for m in _TOKEN.finditer(ua.text)]
        sm = difflib.SequenceMatcher(None, [t.lower() for t, _ in tb], [t.lower() for t, _ in ta],
                                     autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag != "replace" or i2 - i1 > 3 or j2 - j1 > 3:
                continue
            olds = [k for k in range(i1, i2) if _namelike(tb[k][0], k)]
            news = [k for k in range(j1, j2) if _namelike(ta[k][0], k)]
            if not olds or not news:
                continue
            new = ta[news[0]][0]
            dates = lexicon("date_words")
            if all(_shortens(ta[k][0], [tb[o][0] for o in range(i1, i2)]) for k in news):
                continue  # "March" -> "Mar", "GPU-hours" -> "GPU-h", "4.19M" -> "4.2M"
            if new.lower() in dates and not any(tb[k][0].lower() in dates for k in olds):
                continue  # "2025-04-03" -> "3 Apr": a date written another way
            if re.search(r"(?<![\w])" + re.escape(new.lower()) + r"(?![\w])", b.lower) or \
                    content_words(new) <= b.all_words():
                continue  # named in before (or its plural): moved, not invented
            s0, s1 = tb[olds[0]][1], tb[olds[-1]][1] + len(tb[olds[-1]][0])
            t0, t1 = ta[news[0]][1], ta[news[-1]][1] + len(ta[news[-1]][0])
            out.append(((ub.start + s0, ub.start + s1), (ua.start + t0, ua.start + t1)))
    return out


_NUMERIC_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})[/.](\d{1,2})(?:[/.]\d{2,4})?")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")
_MONTHS = {m[:3]: k + 1 for k, m in enumerate(_MONTH_NAMES)}


def _date_months(token: str) -> set[int]:
    """The month(s) a numeric date can mean: "2025-06-05" -> {6}; "05/06" -> {5, 6}."""
    m = _NUMERIC_DATE.fullmatch(token)
    if m is None:
        return set()
    if m.group(1):
        return {int(m.group(2))}
    return {int(m.group(4)), int(m.group(5))}
_SCALED = re.compile(r"(\d+(?:\.\d+)?)([A-Za-z%]*)$")


def _shortens(new: str, olds: list[str]) -> bool:
    """True when ``new`` writes one of ``olds`` shorter: an abbreviation ("Mar" for "March",
    "30-min" for "30-minute"), a date word for a date, or the same number rounded ("4.2M" for
    "4.19M")."""
    low = new.lower().rstrip(".")
    month = _MONTHS.get(low[:3]) if low.isalpha() and low[:3] in _MONTHS and (
        len(low) == 3 or low in _MONTH_NAMES) else None
    if month is not None and any(month in _date_months(o) for o in olds):
        return True  # "2025-06-05" -> "Jun": the same month, written as a word
    for old in olds:
        o = old.lower()
        # An abbreviation: a short head of a longer word ("Mar", "Thu", "approx"), or a
        # compound cut short ("GPU-h", "30-min"). Not any prefix: "Uk" is not "Ukraine".
        short = 3 <= len(low) <= 5 and low.isalpha() and len(o) >= len(low) + 2
        compound = "-" in low and len(low) >= 3
        if (short or compound) and o.startswith(low):
            return True
        mn, mo = _SCALED.match(low), _SCALED.match(o)
        if mn and mo and mn.group(2) == mo.group(2) and "." in mo.group(1):
            digits = len(mn.group(1).split(".")[1]) if "." in mn.group(1) else 0
            if digits < len(mo.group(1).split(".")[1]) and \
                    round(float(mo.group(1)), digits) == float(mn.group(1)):
                return True
    return False


def _stop() -> frozenset[str]:
    return load_words("lexicon", "stopwords.txt")


_NOTHING = re.compile(r"[`'\"]?\s*[:=]\s*(?:none|no|n/a|null|nil|unknown|tbd|-)\b", re.IGNORECASE)


def _bound_to_nothing(side: Side, nid: str) -> bool:
    """"Duplicates on scan_id: none found" reports a result; it does not define scan_id."""
    d = side.d(nid)
    return _NOTHING.match(side.text, d["end"]) is not None


def _has_words(text_lower: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text_lower`` as whole words ("ann" is not in "planning")."""
    if not phrase or phrase not in text_lower:
        return False  # the C substring test first: most names are simply absent
    return re.search(r"(?<![\w])" + re.escape(phrase) + r"(?![\w])", text_lower) is not None
