"""The package and the CLI's catalogue commands load no heavy dependency (issue: cold start).

Structural, not timed: the times are in ``benchmarks/cold_start.py``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import refgraph

_HEAVY = ("spacy", "pint", "networkx", "thinc")


def _loaded(code: str) -> list[str]:
    probe = code + f"\nimport sys; print(','.join(m for m in {_HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", probe], check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()
    return [m for m in out[-1].split(",") if m] if out else []


def test_import_refgraph_loads_none_of_them() -> None:
    assert _loaded("import refgraph") == []


@pytest.mark.parametrize("argv", [["--version"], ["rules"], ["rule", "RG201"]])
def test_catalogue_commands_load_no_pipeline(argv: list[str]) -> None:
    code = ("import contextlib, io\nfrom refgraph.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            f"    main({argv!r})")
    assert not {"spacy", "pint", "thinc"} & set(_loaded(code))


def test_rules_never_import_spacy() -> None:
    # the layering rule, checked on what actually loads: rules -> claims -> nlp.lemmas
    assert not {"spacy", "thinc"} & set(_loaded("import refgraph.rules"))


def test_functions_named_like_their_modules_stay_functions() -> None:
    # each import sets the submodule as its parent's attribute: the function must survive it
    import refgraph.analyze
    import refgraph.audit
    import refgraph.guard
    import refgraph.nlp.records

    for f in (refgraph.analyze, refgraph.audit, refgraph.guard, refgraph.nlp.records):
        assert callable(f)
    assert refgraph.analyze is sys.modules["refgraph.analyze"].analyze


def test_every_public_name_resolves() -> None:
    for name in refgraph.__all__:
        assert getattr(refgraph, name) is not None
    assert set(refgraph.__all__) <= set(dir(refgraph))
    with pytest.raises(AttributeError):
        refgraph.no_such_name  # noqa: B018


def test_the_graph_listing_knows_every_node_kind_it_details() -> None:
    from refgraph import cli
    from refgraph.model import NodeKind

    assert set(cli._DETAIL) <= {k.value for k in NodeKind}
