"""What a text supports: the index RG104 checks an after argument against.

Built once per text (``support_of`` memoizes it on the side) from graph data only: the names,
handles, mention keys, claim terms, quantities, block numerals and words of before. A number is
supported by the same value in any unit, a sum or a difference of two before numbers of its
unit, a product, ratio or percentage of two before numbers, or a count of listed items; a name
by its words, its parts, an abbreviation of a before word or a code written inside a longer one.
"""

from __future__ import annotations

import bisect
import itertools
import math

from ..claims import Arg, Claim
from .common import any_handle, numerals, quantities, same_quantity
from .context import Side

_EDGES = "/_.-:`'\"()+,;"  # around a name: a path's slashes, quotes, a sign, a comma
_SPLITS = str.maketrans({"{": "/", "}": "/", "–": "/", "—": "/"})  # between a name's words
_MAX_PAIRS = 400  # before quantities of one unit tried pairwise for sums (kept linear-bounded)
_MAX_PLAIN = 150  # before numbers tried pairwise for products and ratios
_MIN_INNER = 7  # a code this long written inside a longer one of before is that one
_SUPPORTING = ("identifier", "handle", "mention")
_NAMED = frozenset({"PERSON", "ORG", "GPE", "PRODUCT", "NORP", "FAC", "LOC", "EVENT",
                    "WORK_OF_ART", "LAW", "PROPER"})


def support_of(side: Side) -> Support:
    """What ``side`` supports (built once per text: rules share it)."""
    found = side.memo.get("support")
    if found is None:
        found = side.memo["support"] = Support(side)
    assert isinstance(found, Support)
    return found


class Support:
    """What before supports, indexed once."""

    def __init__(self, side: Side) -> None:
        # Every node of before counts, claims or not: a value in a code block or a JSON
        # line supports a summary's number as well as one in prose.
        claims = side.claims.claims
        data = [side.d(n) for kind in _SUPPORTING for n in side.nodes_of(kind)]
        self.idents = {str(d["name"]) for d in data if d["kind"] == "identifier"}
        self.idents_lower = {k.lower() for k in self.idents}
        self.handles = {str(d["value"]) for d in data if d["kind"] == "handle"}
        for bid in side.nodes_of("block"):
            turn = side.d(bid).get("turn_id")
            if turn:
                self.handles.add(str(turn))
        self.basenames = {h.rsplit("/", 1)[-1] for h in self.handles}
        mentions = [d for d in data if d["kind"] == "mention"]
        self.heads = {str(d["head"]).lower() for d in mentions}
        self.keys = {str(d["key"]).lower() for d in mentions}
        # heads before names by a number ("port 8080"): another number is another one
        self.numbered = {str(d["head"]).lower() for d in mentions if any(
            _numeral(w) for w in _key_words(str(d["key"]).lower())[1:])}
        self.terms = {t for c in claims for t in c.terms}
        self.words = self.heads | {w for k in self.keys for w in _key_words(k)} | \
            set(side.claims.speakers)
        self.quantities = quantities(side)
        self.magnitudes = {round(x.magnitude, 9) for x in self.quantities
                           if x.magnitude is not None}
        self.numerals = {f"{m:g}" for m in self.magnitudes} | {
            w for k in self.keys for w in _key_words(k) if any(ch.isdigit() for ch in w)} | {
            k.lower() for k in self.idents | self.handles} | numerals(side)
        self.vocab: set[str] = set()
        for bid in side.nodes_of("block"):
            self.vocab.update(str(side.d(bid).get("words", "")).split())
        # "crypto__katy", "llm_ctf_dataset": the parts of a snake name are words too
        self.vocab.update(p for w in list(self.vocab) if "_" in w for p in w.split("_") if p)
        self.counts = _counts(side, claims)
        # the letter parts of before's codes ("db" of "db-7"): a code of the same family
        # with another number is a changed name, not a shorthand
        self.code_families: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
        for k in self.keys | self.idents_lower:
            for w in _key_words(k):
                if any(c.isdigit() for c in w) and any(c.isalpha() for c in w):
                    letters, digits = _chunks(w)
                    self.code_families.setdefault(tuple(letters), set()).add(tuple(digits))
        self._sums: dict[str, set[float]] = {}
        self._sorted: list[str] | None = None
        self._products: set[float] | None = None

    def lacks(self, x: Arg, claim: Claim) -> tuple[str, float] | None:
        """(what kind of thing, confidence) when before does not support ``x``."""
        if x.kind == "identifier":
            low = x.key.lower()
            if x.key in self.idents or low in self.idents_lower or low.rstrip("s") in \
                    self.idents_lower or low + "s" in self.idents_lower or \
                    x.key in self.handles or any(x.key in h for h in self.handles):
                return None  # "scan_ids" for "scan_id": the same name, in the plural
            if self._quoted(x) or x.key.strip("()").lower() in self.vocab:
                return None  # `return int(value)`, `int()`: names before has
            if self._inside(low) or self._abridged(low):
                return None  # "CE3205AE…C60F8107": the ends of a long hex string of before
            parts = [w for w in low.strip("()").split(".") if w]
            if len(parts) >= 2 and all(w in self.idents_lower or w.lstrip("_") in self.vocab
                                       for w in parts):
                return None  # "TimeDelta._serialize": a method before names in its class
            if x.label == "ref" and _numeral(x.key.lstrip("#").split("-")[-1].split()[-1]) \
                    in self.numerals and x.key.lstrip("#").isdigit():
                return None  # "#1867" where before says 1867
            runs = "".join(ch if ch.isalnum() else " " for ch in x.key).split()
            if runs and all(len(r) == 1 for r in runs):
                return None  # "c_i", "n_i": notation, one-letter names of nothing to miss
            if len(runs) == 2 and len(runs[1]) == 1 and runs[0].lower() in self.vocab:
                return None  # "char_i", "x_0": a before word with an index
            camel = _camel_words(x.key)
            if len(camel) >= 2 and all(w in self.vocab or w in self.words for w in camel):
                return None  # "SyntaxError" where before says "a syntax error"
            if x.label == "code" and x.key.isalpha() and x.key.islower():
                return "an identifier", 0.55  # `submit`: a plain word in backticks
            if x.label == "kebab":
                return self._code(low)  # "node-7" for "node 7"; "db-9" where before has db-7
            return "an identifier", 0.8
        if x.kind == "handle":
            bare = x.key.rstrip("?&#/")
            if x.key in self.handles or x.key.rsplit("/", 1)[-1] in self.basenames or \
                    any(h.endswith(x.key) or x.key.endswith(h) or h.startswith(bare) or
                        (len(bare) >= _MIN_INNER and bare in h) for h in self.handles) or \
                    self._quoted(x) or \
                    any_handle(self.handles, {x.key}):  # "eps1.7_wh1ter0se_….m4v": shortened
                return None
            parts = [w for w in x.key.lower().split("/") if w]
            if x.label == "path" and parts and all(
                    w in self.words or w in self.terms or w in self.idents_lower or
                    _numeral(w) in self.numerals for w in parts):
                return None  # "id/timestamp/actor/action", "2k/4k/6k": a list of before's
            return "a handle", 0.8
        if x.kind == "mention":
            return self._name(x, claim)
        if x.kind == "quantity":
            return self._number(x, claim)
        return None

    def _name(self, x: Arg, claim: Claim) -> tuple[str, float] | None:
        if x.key.lower() in self.keys:
            return None  # the same referent as one of before's, however its words read
        # "2k/4k/6k" is three numbers, "flag{d3167...}" a word and a code, "Mar–30" (a
        # range's dash) two words; "`" is no word
        # a code the tokenizer split at its hyphens ("A-2026 - 55810") is one word again
        words = [p.strip(_EDGES) for w in _key_words(x.key.lower().replace(" - ", "-"))
                 for p in w.translate(_SPLITS).split("/")
                 if any(c.isalnum() for c in p)]
        # a number the claim also holds as a supported quantity ("acetaminophen 1,000 mg"
        # for "1 g", "a loan of about $371k" worked out from before's price) is that
        # quantity's, checked as one
        supported = [q for q in claim.args_of("quantity")
                     if q.magnitude is not None and self._number(q, claim) is None]
        measured = {f"{q.magnitude:g}" for q in supported}
        written = {p.strip(_EDGES).lstrip("$€£¥") for q in supported
                   for p in q.text.lower().split()}
        for w in words:
            if any(c.isdigit() for c in w) and any(c.isalpha() for c in w) and len(w) >= 2 \
                    and w not in written:
                found = self._code(w)
                if found is not None:
                    return found  # "db-9", "eu-west-3": a code names which one
        numbers = [w for w in words if _numeral(w) and not w.isalpha()
                   and _numeral(w) not in measured]
        # a number inside a code of before ("55810" of "A-2026-55810", split by the
        # tokenizer) is that code's
        if any(_numeral(w) not in self.numerals and w not in self.words and w not in written
               and not self._inside(w) for w in numbers):
            if x.head.lower() in self.numbered:
                return "a name", 0.65  # "port 9090" where before names "port 8080"
            return "a name", 0.55  # "Perl 5.22": a version, or a date or figure reworded
        if x.label not in _NAMED:
            return None
        alpha = [w for w in words if w.isalpha() and len(w) > 1]
        missing = [w for w in alpha if w not in self.words and w not in self.terms
                   and w not in self.vocab and not self._abbreviates(w)]
        if not alpha or not missing:
            return None
        if x.label == "PROPER":
            # fast mode's capitalised words: a new word in a known name ("Sam Ferreira") is
            # some evidence, a capitalised word alone ("Systems", "Age") little
            return "a name", 0.58 if len(alpha) > len(missing) else 0.5
        return "a name", 0.62 if len(missing) == len(alpha) and len(alpha) > 1 else 0.58

    def _abbreviates(self, w: str) -> bool:
        """Whether ``w`` (three letters or more) starts a word of before: "Tue" for
        "Tuesday", "approx" for "approximately"."""
        if len(w) < 3:
            return False
        known = self._sorted
        if known is None:
            known = self._sorted = sorted(self.words | self.terms | self.vocab)
        k = bisect.bisect_left(known, w)
        return k < len(known) and known[k].startswith(w)

    def _code(self, w: str) -> tuple[str, float] | None:
        """None when before supports the code ``w`` (as it is, as a number with a scale, or
        as its parts written apart: "layer-27" for "layer 27", "C14" for "cell 14" where
        both parts are before's); else what it is, and how sure: most, when before has the
        same code with another number ("db-9" where before says "db-7")."""
        if w in self.words or w in self.terms or w in self.numerals or w in self.vocab or \
                _numeral(w) in self.numerals or self._inside(w):
            return None
        lead = _leading_number(w)
        if lead and len(w) - len(lead) <= 2 and _numeral(lead) in self.numerals:
            return None  # "1.3b" where before says "1.3B-parameter": its number, scaled
        letters, digits = _chunks(w)
        family = self.code_families.get(tuple(letters))
        if family is not None and not any(tuple(digits[:len(d)]) == d for d in family):
            # "db-9" where before has db-7; "marshmallow-3.13.0" names before's
            # "marshmallow-3" more precisely
            return "a name", 0.65
        parts = [p for p in "".join(c if c.isalnum() else " " for c in w).split()
                 if len(p) > 1]  # "d|o9yx?": a letter alone is no word of before's
        if len(parts) > 1 and all(p in self.vocab or p in self.words or
                                  _numeral(p) in self.numerals for p in parts):
            return None  # "sloria1@gmail.com" where before's words are its parts
        if all(p in self.words or p in self.terms or p in self.vocab or len(p) == 1
               for p in letters) and all(_numeral(d) in self.numerals for d in digits):
            return None
        return "a name", 0.6

    def _inside(self, w: str) -> bool:
        """Whether code ``w`` is written inside a longer word, handle or name of before
        ("marshmallow-3.13.0" in "marshmallow-3.13.0-0.editable-py3-none-any.whl")."""
        if len(w) < _MIN_INNER:
            return False
        return any(w in v for v in self.vocab) or any(w in h.lower() for h in self.handles) \
            or any(w in i for i in self.idents_lower)

    def _abridged(self, w: str) -> bool:
        """Whether ``w`` is a long word of before cut short with an ellipsis: its head and its
        tail, each long enough to name it ("a76edd72…dcfac323")."""
        for mark in ("…", "..."):
            head, sep, tail = w.partition(mark)
            if sep and len(head) >= _MIN_INNER and len(tail) >= _MIN_INNER:
                return any(v.startswith(head) and v.endswith(tail) for v in self.vocab)
        return False

    def _quoted(self, x: Arg) -> bool:
        """Whether every name and number inside code span or handle ``x`` is written
        somewhere in before."""
        if not x.words:
            return x.label == "code" and not any(c.isalnum() for c in x.key)  # `)`
        if all(w in self.vocab or _numeral(w) in self.numerals for w in x.words):
            return True
        # An expression that restates before's code in notation: its names are before's,
        # and what else it holds is operators of a few letters (`{"time_capsule": hex(m^e
        # mod n), "pubkey": [hex n, hex e]}` for before's f-string formatting)
        names = [w for w in x.words if not (w.isalpha() and w.islower() and len(w) <= 3)]
        return len(names) >= 2 and all(w in self.vocab or _numeral(w) in self.numerals
                                       for w in names)

    def _number(self, x: Arg, claim: Claim) -> tuple[str, float] | None:
        m = x.magnitude
        if m is None or abs(m) <= 1:
            return None
        if f"{abs(m):g}" in self.numerals or round(m, 9) in self.magnitudes:
            return None  # a sign is written apart from its digits ("offset_mv": -3.2)
        if not x.unit and m == int(m) and 1900 <= m <= 2100:
            return None  # a year
        if any(same_quantity(q, x) or same_quantity(x, q) for q in self.quantities):
            return None
        if m == int(m) and int(m) in self.counts:
            return None
        if self._derived(x) or _sum_of_others(x, claim, self):
            return None
        # Durations and dates are often computed from clock times, which are no quantities
        # of their own: weaker evidence, unless before has no number to compute from.
        if (x.bound == "~" or x.base_unit in ("second", "day")) and self.numerals:
            return "a number", 0.5
        if _shown_with_inputs(x, claim, self):
            return "a number", 0.55  # "USD 100 ... then USD 15 per extra day: USD 130": worked
        return "a number", 0.62

    def _summed(self, x: Arg) -> bool:
        """A sum or a difference of two before quantities of its unit."""
        unit = x.base_unit
        target = x.base_magnitude
        if target is None:
            return False
        sums = self._sums.get(unit)
        if sums is None:
            same = [q.base_magnitude for q in self.quantities
                    if q.base_unit == unit and q.base_magnitude is not None][:_MAX_PAIRS]
            sums = self._sums[unit] = set()
            for p, q in itertools.combinations(same, 2):
                sums.update((round(p + q, 6), round(abs(p - q), 6)))
        return round(target, 6) in sums

    def _derived(self, x: Arg) -> bool:
        """A sum or a difference of two before quantities of its unit, or a product, a ratio
        or a percentage of two before numbers (rounded as the after number is written)."""
        target = x.base_magnitude
        if target is None:
            return False
        if self._summed(x):
            return True
        if self._products is None:
            plain = sorted({q.magnitude for q in self.quantities if q.magnitude} |
                           {float(n) for n in self.numerals if _is_float(n) and float(n)}
                           )[:_MAX_PLAIN]
            self._products = set()
            for p, q in itertools.permutations(plain, 2):
                self._products.update((round(p * q, 2), round(p / q, 2), round(100 * p / q, 1)))
        m = x.magnitude if x.magnitude is not None else target
        return any(round(m, d) in self._products for d in (1, 2))


def _camel_words(name: str) -> list[str]:
    """The words of a CamelCase name, lower-cased ("SyntaxError" -> ["syntax", "error"]);
    [] for anything else (digits, underscores, one word, all capitals)."""
    if not name.isalpha() or name.isupper() or name.islower():
        return []
    words: list[str] = []
    for ch in name:
        if ch.isupper() or not words:
            words.append(ch.lower())
        else:
            words[-1] += ch
    return words if all(len(w) > 1 for w in words) else []


def _leading_number(w: str) -> str:
    """The number a code starts with: "1.3b" -> "1.3", "v2" -> ""."""
    k = 0
    while k < len(w) and (w[k].isdigit() or (w[k] in ".," and k and w[k - 1].isdigit())):
        k += 1
    return w[:k].rstrip(".,")


def _chunks(w: str) -> tuple[list[str], list[str]]:
    """The letter runs and the digit runs of a code: "eu-west-3" -> (["eu", "west"], ["3"])."""
    letters: list[str] = []
    digits: list[str] = []
    run = ""
    for ch in w + " ":
        kind = "a" if ch.isalpha() else "d" if ch.isdigit() else ""
        if run and (not kind or kind != ("a" if run[0].isalpha() else "d")):
            (letters if run[0].isalpha() else digits).append(run)
            run = ""
        if kind:
            run += ch
    return letters, digits


def _key_words(key: str) -> list[str]:
    """The words of an entity key ``head[q1;of=x y]``."""
    out: list[str] = []
    for part in key.replace("[", ";").replace("]", "").split(";"):
        part = part.split("=", 1)[-1].strip("()")
        out.extend(w for w in part.split() if w)
    return out


def _counts(side: Side, claims: list[Claim]) -> set[int]:
    """How many items before lists: the arguments of one kind in a claim or in a block, runs
    of consecutive bullet blocks, and the lines of a block."""
    out: set[int] = set()
    per_block: dict[tuple[str, str], int] = {}
    for c in claims:
        per_kind: dict[str, int] = {}
        for a in c.args:
            per_kind[a.kind] = per_kind.get(a.kind, 0) + 1
            per_block[(c.block, a.kind)] = per_block.get((c.block, a.kind), 0) + 1
        out.update(per_kind.values())
    out.update(per_block.values())
    run = 0
    for bid in side.nodes_of("block"):
        d = side.d(bid)
        if isinstance(d.get("lines"), int):
            out.add(d["lines"])  # a tool's output "printed 8 lines"
        if d.get("block_kind") == "bullet":
            run += 1
            out.add(run)
        else:
            run = 0
    return out


def _sum_of_others(x: Arg, claim: Claim, support: Support) -> bool:
    """"36 people: 32 singers + 4 chaperones": the claim's other numbers, each supported,
    add up to ``x``."""
    others = [q.magnitude for q in claim.args_of("quantity")
              if q is not x and q.magnitude is not None and (
                  f"{q.magnitude:g}" in support.numerals)]
    if len(others) < 2 or x.magnitude is None:
        return False
    total = sum(others)
    return math.isclose(total, x.magnitude) or any(
        math.isclose(p + q, x.magnitude) for p, q in itertools.combinations(others, 2))


def _shown_with_inputs(x: Arg, claim: Claim, support: Support) -> bool:
    """Whether the claim states two or more other numbers of ``x``'s unit that before
    supports: a result worked out in place from inputs it shows, by more steps than
    :meth:`Support._derived` tries."""
    inputs = [q for q in claim.args_of("quantity") if q is not x and q.base_unit == x.base_unit
              and q.magnitude is not None and f"{q.magnitude:g}" in support.numerals]
    return len(inputs) >= 2


_SCALES = {"k": 1e3, "m": 1e6, "bn": 1e9, "b": 1e9}


def _numeral(w: str) -> str:
    """A word that is a number with a scale ("148k", "€4.2m") as a numeral string, else ""."""
    w = w.strip("€$£¥%+()")
    for suffix, factor in _SCALES.items():
        if w.endswith(suffix):
            try:
                return f"{float(w[:-len(suffix)].replace(',', '')) * factor:g}"
            except ValueError:
                return ""
    try:
        return f"{float(w.replace(',', '')):g}"
    except ValueError:
        return ""


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
