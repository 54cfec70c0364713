"""refgraph: catch context rewrites that corrupt an agent's memory, structurally and offline."""

__version__ = "0.1.0"
