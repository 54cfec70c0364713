"""refgraph's spaCy front end: one component per module, registered as ``refgraph_*`` factories."""

from .pipeline import COMPONENTS, MODES, Mode, load_pipeline, trained_pipeline_name
from .records import Record, records

__all__ = ["COMPONENTS", "MODES", "Mode", "Record", "load_pipeline", "records",
           "trained_pipeline_name"]
