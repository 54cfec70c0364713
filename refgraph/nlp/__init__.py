"""refgraph's spaCy front end: one component per module, registered as ``refgraph_*`` factories.

The package is lazy (see :mod:`refgraph.lazy`): its lexicon and lemma modules load without
spaCy; ``load_pipeline`` and the components import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import install

if TYPE_CHECKING:
    from .pipeline import COMPONENTS, MODES, Mode, load_pipeline, trained_pipeline_name
    from .records import Record, records

__all__ = ["COMPONENTS", "MODES", "Mode", "Record", "load_pipeline", "records",
           "trained_pipeline_name"]

_EXPORTS = {"COMPONENTS": "pipeline", "MODES": "pipeline", "Mode": "pipeline",
            "load_pipeline": "pipeline", "trained_pipeline_name": "pipeline",
            "Record": "records", "records": "records"}

__getattr__, __dir__ = install(__name__, _EXPORTS, __all__)
