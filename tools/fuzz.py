"""Coverage-guided fuzzing of the unified-diff parser and the block splitter, with atheris.

    make fuzz                      # both targets, 60 s each (installs atheris into .venv)
    python tools/fuzz.py diff -max_total_time=600 -jobs=2 corpus/

Each target takes raw bytes, decodes them as the CLI would (UTF-8, undecodable bytes replaced)
and checks the target's contract: the only exception is ``InputError`` (or its documented
subclasses), and what comes back is consistent with the input. ``tests/test_fuzz.py`` runs the
same checks on a fixed seed list, so the harness cannot rot where atheris is not installed.
The pure-Python sources are fuzzed (``REFGRAPH_PURE=1``): compiled modules carry no coverage.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def check_diff(data: bytes) -> None:
    """``Patch.from_unified_diff`` parses or refuses; a parsed patch applies or is refused
    (a ``RewriteRejected``) and leaves the buffer as it was."""
    from refgraph import ContextBuffer, InputError, Patch, RewriteRejected

    text = _text(data)
    base_text, _, diff = text.partition("\x00")  # the first NUL splits the base from the diff
    buf = ContextBuffer(base_text)
    try:
        patch = Patch.from_unified_diff(diff, base=buf.sha256)
    except InputError:
        return
    for hunk in patch.hunks:
        assert 0 <= hunk.start <= hunk.end, hunk
    try:
        rev = buf.apply(patch)
    except (RewriteRejected, InputError):
        assert buf.text == base_text  # a refused patch changes nothing
        assert buf.revision == 0
        return
    assert rev == buf.revision == 1


def check_blocks(data: bytes) -> None:
    """``split_blocks`` covers the text with ordered, non-overlapping blocks that slice to
    their own text."""
    from refgraph.blocks import split_blocks

    text = _text(data)
    end = 0
    for block in split_blocks(text):
        assert end <= block.start <= block.end <= len(text), block
        assert text[block.start:block.end] == block.text, block
        assert block.text.strip(), block  # blank runs separate blocks; they are not blocks
        end = block.end


TARGETS: dict[str, Callable[[bytes], None]] = {"diff": check_diff, "blocks": check_blocks}


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] not in TARGETS:
        print(f"usage: python tools/fuzz.py {{{','.join(TARGETS)}}} [libFuzzer options]",
              file=sys.stderr)
        return 2
    os.environ.setdefault("REFGRAPH_PURE", "1")  # before refgraph is imported
    try:
        import atheris  # type: ignore[import-untyped]  # (optional: make fuzz installs it)
    except ImportError:
        print("tools/fuzz.py: atheris is not installed (make fuzz installs it)", file=sys.stderr)
        return 2
    with atheris.instrument_imports(include=["refgraph"]):
        import refgraph.blocks
        import refgraph.patch  # noqa: F401
    atheris.Setup([argv[0], *argv[2:]], TARGETS[argv[1]])
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
