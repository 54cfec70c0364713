"""Incremental parsing: blocks are parsed once and cached by content.

A rewrite that touches one block of a long context re-parses only that block: the cache key is
the block's kind and text, so a block that moved, or repeats, is a cache hit. Results are plain
records with block-relative offsets, so a cached parse serves the block wherever it now stands.
"""

from __future__ import annotations

import itertools
import operator
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from spacy.language import Language
from spacy.pipeline import Sentencizer
from spacy.tokens import Doc

from .blocks import Block, BlockKind
from .errors import InputError
from .gcpause import gc_paused
from .nlp.claims import LINKS_KEY, Link
from .nlp.pipeline import MODES, Mode, available_mode, load_pipeline
from .nlp.records import Record, raw_records
from .nlp.view import finalize, make_doc, seed, view

# Code and JSON are read for identifiers, handles and numbers only: prose rules do not apply.
RAW_BLOCKS = frozenset({BlockKind.CODE, BlockKind.JSON})
RAW_COMPONENTS = ("refgraph_identifiers", "refgraph_quantities")
_RECORD_ORDER = operator.itemgetter(1, 2, 0)  # a record's (start, end, kind)
_BATCH = 64  # docs each component runs over in turn; also the progress interval


@dataclass(slots=True)
class ParsedBlock:
    """What the front end found in one block; offsets are relative to the block's start."""

    sentences: tuple[tuple[int, int], ...]
    records: tuple[Record, ...]
    # Relations between records, by kind and offsets (refgraph.nlp.claims.Link): the claims'
    # arguments, cues, conditions and premises, which the fragment turns into edges.
    links: tuple[Link, ...] = ()
    # The block's graph fragment, built by refgraph.graph on first assembly and kept here so
    # that it lives (and is evicted) with the cached parse: a warm rebuild reuses it. Typed
    # Any, not object: mypyc's dataclass support cannot resolve an ``object`` annotation.
    fragment: Any = field(default=None, compare=False, repr=False)


class Parser:
    """A loaded pipeline plus an LRU cache of parsed blocks.

    >>> p = Parser("fast")
    >>> from refgraph.blocks import split_blocks
    >>> _ = p.parse(split_blocks("One.\\n\\nTwo."))
    >>> _ = p.parse(split_blocks("One.\\n\\nThree."))
    >>> p.parses  # "One." was parsed once
    3
    """

    def __init__(self, mode: Mode = "accurate", *, cache_size: int = 20_000) -> None:
        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r}: use 'accurate' or 'fast'")
        self.mode: Mode = available_mode(mode)  # accurate falls back to fast, warning once
        self.nlp = load_pipeline(self.mode)
        # spaCy's own pipes (sentencizer, or tagger/parser/NER) run batched through nlp.pipe;
        # refgraph's components, which all come after them, are then called on each doc
        # directly, with its view computed once (see refgraph.nlp.view.finalize).
        self._own = [(name, proc) for name, proc in self.nlp.pipeline
                     if name.startswith("refgraph_")]
        if self.nlp.pipe_names[len(self.nlp.pipe_names) - len(self._own):] != [
                name for name, _ in self._own]:
            raise ValueError("refgraph's components must come after spaCy's own pipes")
        self._raw = [self.nlp.get_pipe(name) for name in RAW_COMPONENTS]
        # Fast mode's only spaCy pipe is a sentencizer: the views find its sentences instead
        # (refgraph.nlp.view.finalize), and the docs are only tokenized.
        theirs = [proc for name, proc in self.nlp.pipeline if not name.startswith("refgraph_")]
        self._sentence_punct: frozenset[str] | None = None
        # Exactly spaCy's own class (isinstance narrows the type for mypy): a subclass may find
        # sentences some other way.
        only = theirs[0] if len(theirs) == 1 else None
        if isinstance(only, Sentencizer) and type(only) is Sentencizer and not only.overwrite:
            self._sentence_punct = frozenset(only.punct_chars)
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], ParsedBlock] = OrderedDict()
        # Guards the cache and the counters only: threads sharing a parser (an agent server)
        # parse at the same time, and one thread's eviction never takes a block another
        # thread is about to return (each call keeps what it parsed and found).
        self._lock = threading.Lock()
        self.parses = 0  # blocks actually run through spaCy
        self.hits = 0

    def parse(self, blocks: Sequence[Block], *,
              progress: Callable[[int, int], None] | None = None) -> list[ParsedBlock]:
        """Parsed blocks in the order given, parsing only those not cached.

        ``progress(done, total)`` is called as blocks are parsed (total counts uncached blocks).
        Thread-safe: several threads may parse at once (two that miss the same block both
        parse it; the cache keeps one).
        """
        keys = [(b.kind.value, b.text) for b in blocks]
        found: dict[tuple[str, str], ParsedBlock] = {}
        missing: dict[tuple[str, str], Block] = {}
        with self._lock:
            for key, block in zip(keys, blocks, strict=True):
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    found[key] = hit
                elif key not in missing:
                    missing[key] = block
            self.hits += len(blocks) - len(missing)
        if missing:
            self._parse(missing, found, progress)
        elif progress is not None:
            progress(0, 0)
        return [found[k] for k in keys]

    def _parse(self, missing: dict[tuple[str, str], Block],
               found: dict[tuple[str, str], ParsedBlock],
               progress: Callable[[int, int], None] | None) -> None:
        prose = [b for b in missing.values() if b.kind not in RAW_BLOCKS]
        raw = [b for b in missing.values() if b.kind in RAW_BLOCKS]
        longest = max((len(b.text) for b in prose), default=0)
        if longest >= self.nlp.max_length:
            self.nlp.max_length = longest + 1
        total = len(missing)
        with gc_paused():
            docs: Iterator[Doc] = (make_doc(self.nlp, b.text, spans=False) for b in prose)
            punct = self._sentence_punct
            if punct is None:
                own = [name for name, _ in self._own]
                docs = self.nlp.pipe(docs, disable=own)
            piped = zip(prose, docs, strict=True)
            done = 0
            # Each component runs over a batch of docs before the next one starts (as
            # nlp.pipe does): one component's code and data stay in the CPU caches, where
            # running all eight per doc made each of them 20-30% slower.
            while batch := list(itertools.islice(piped, _BATCH)):
                for _, doc in batch:
                    finalize(doc, punct)
                for _, proc in self._own:
                    for k, (block, doc) in enumerate(batch):
                        out = proc(doc)
                        if out is not doc:
                            batch[k] = (block, out)
                # Kept as each batch is done: a deadline that stops the parse mid-way keeps
                # what was parsed for the next call.
                self._keep([(block, _parsed(block, doc)) for block, doc in batch], found)
                done += len(batch)
                if progress is not None and len(batch) == _BATCH:
                    progress(done, total)
            self._keep([(block, _parsed(block, self._raw_doc(block.text))) for block in raw],
                       found)
        if progress is not None:
            progress(total, total)

    def _keep(self, parsed: list[tuple[Block, ParsedBlock]],
              found: dict[tuple[str, str], ParsedBlock]) -> None:
        with self._lock:
            for block, p in parsed:
                key = (block.kind.value, block.text)
                found[key] = self._cache[key] = p
                self._cache.move_to_end(key)
            self.parses += len(parsed)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def _raw_doc(self, text: str) -> Doc:
        doc = raw_doc(self.nlp, text)
        finalize(doc)
        for proc in self._raw:
            doc = proc(doc)
        return doc



def _parsed(block: Block, doc: Doc) -> ParsedBlock:
    sents: tuple[tuple[int, int], ...] = ()
    v = view(doc)
    if block.kind not in RAW_BLOCKS and v.has_sents and len(doc):
        # From token offsets, not doc.sents: Span.text would build a Token per word.
        bounds = [v.starts[i] for i in v.sent_starts] + [len(block.text)]
        sents = tuple(s for s in (_stripped(a, b, block.text)
                                  for a, b in itertools.pairwise(bounds)) if s[0] < s[1])
    recs = tuple(Record(kind, start, end, attrs) for kind, start, end, attrs in
                 sorted(raw_records(doc), key=_RECORD_ORDER))
    links = tuple(doc.user_data.get(LINKS_KEY, ()))
    return ParsedBlock(sents, recs, links)


_RAW_TOKEN = re.compile(r"[ ]|\s|[A-Za-z0-9_]+(?:[.,][0-9]+)*|[^\sA-Za-z0-9_]")


def raw_doc(nlp: Language, text: str) -> Doc:
    """A Doc for code and JSON from a linear regex tokenizer.

    spaCy's tokenizer peels punctuation one affix at a time, which is slow on minified JSON and
    keeps a long whitespace-free run whole (losing its numbers); code and JSON need only word,
    number and punctuation tokens. The text is reproduced exactly: a single space after a token
    becomes its trailing whitespace, any other whitespace is a token of its own.
    """
    words: list[str] = []
    spaces: list[bool] = []
    for m in _RAW_TOKEN.finditer(text):
        tok = m.group()
        if tok == " " and words and not spaces[-1] and not words[-1].isspace():
            spaces[-1] = True
        elif tok.isspace() and words and words[-1].isspace() and not spaces[-1]:
            words[-1] += tok  # one token per whitespace run, as spaCy makes them
        else:
            words.append(tok)
            spaces.append(False)
    return seed(Doc(nlp.vocab, words=words, spaces=spaces), text, spans=False)


def _stripped(start: int, end: int, text: str) -> tuple[int, int]:
    """Offsets without surrounding whitespace: the sentencizer keeps a leading newline."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
