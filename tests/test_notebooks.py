"""The notebooks run top to bottom in a fresh kernel, so they cannot rot.

They are stored without outputs (checked here too) and executed with nbclient in a kernel of
the running interpreter, with ``notebooks/`` as the working directory.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
BOOKS = sorted(NOTEBOOKS.glob("*.ipynb"))


def test_notebooks_exist_and_are_stored_without_outputs() -> None:
    assert [p.name for p in BOOKS] == ["01_quickstart.ipynb", "02_failure_gallery.ipynb",
                                       "03_corpus.ipynb"]
    for path in BOOKS:
        book = nbformat.read(path, as_version=4)
        nbformat.validate(book)
        for cell in book.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], path.name
                assert cell.execution_count is None, path.name


@pytest.mark.parametrize("path", BOOKS, ids=[p.stem for p in BOOKS])
def test_notebook_executes(path: Path, tmp_path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(book, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    # ipykernel's spec starts "python", which jupyter_client replaces by sys.executable: the
    # kernel runs this environment and imports the refgraph under test.
    client.execute()
    images = [o for cell in book.cells if cell.cell_type == "code"
              for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
    assert images, f"{path.name} drew no figure"
    htmls = [o for cell in book.cells if cell.cell_type == "code"
             for o in cell.get("outputs", []) if "text/html" in o.get("data", {})]
    if path.stem == "01_quickstart":
        assert any("rg-review" in o["data"]["text/html"] for o in htmls)
    nbformat.write(book, tmp_path / path.name)  # an executed copy, for a look when it fails
