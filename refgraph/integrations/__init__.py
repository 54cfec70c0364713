"""Hooks that put :func:`refgraph.guard` inside agent frameworks' own compaction steps.

Each adapter lives in its own module and imports its framework, so ``import refgraph`` never
does: ``from refgraph.integrations.langchain import GuardedSummarization``.
"""
