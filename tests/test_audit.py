"""Batch audits: `refgraph.audit` in this process, in worker processes and on a Dask
LocalCluster (the same results each way), and `refgraph batch` with resume and progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refgraph.audit import AuditResult, audit, check_pair, chunks, read_pairs
from refgraph.cli import main
from refgraph.errors import InputError

CONTEXT = ("user: Deploy api v2 to staging. The timeout is 30 seconds.\n\n"
           "assistant: Staging deploy done; do not touch prod until QA signs off.")
PAIRS = [
    {"id": "unit", "before": CONTEXT, "after": CONTEXT.replace("30 seconds", "30"),
     "intent": "summarize"},
    {"id": "same", "before": CONTEXT, "after": CONTEXT},
    {"id": "neg", "before": CONTEXT, "after": CONTEXT.replace("do not touch", "touch")},
    {"id": 7, "before": "Retries: 3 per call.", "after": "Retries: 3 per call."},
    {"id": "msgs", "before": [{"role": "user", "content": "The limit is 5 GB."}],
     "after": [{"role": "user", "content": "The limit is 5."}]},
]


def _by_id(results: list[AuditResult]) -> dict[str, tuple[str, list[str]]]:
    return {r.id: (r.verdict, r.codes) for r in results}


def test_audit_in_this_process_keeps_input_order() -> None:
    results = list(audit(PAIRS, mode="fast"))
    assert [r.id for r in results] == ["unit", "same", "neg", "7", "msgs"]
    got = _by_id(results)
    assert got["unit"] == ("reject", ["RG201"])
    assert got["same"] == ("apply", [])
    assert got["neg"][0] == "reject"
    assert got["msgs"] == ("reject", ["RG201"])
    d = results[0].to_dict()
    assert d["findings"][0]["evidence"][0]["line"] == 1
    assert d["schema"] == "refgraph.audit/1"


def test_worker_processes_and_dask_give_the_single_process_results() -> None:
    from distributed import Client, LocalCluster

    one = _by_id(list(audit(PAIRS, mode="fast", chunk_pairs=2)))
    two = _by_id(list(audit(PAIRS, mode="fast", jobs=2, chunk_pairs=2)))
    assert two == one
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        on_dask = _by_id(list(audit(PAIRS, mode="fast", client=client, chunk_pairs=2)))
    assert on_dask == one


def test_a_bad_pair_is_its_own_result_not_the_end_of_the_batch() -> None:
    bad = {"id": "span", "before": "abc", "after": "abc", "declared_span": [5, 1]}
    results = _by_id(list(audit([bad, PAIRS[1]], mode="fast")))
    assert results["same"] == ("apply", [])
    (r,) = [x for x in audit([bad], mode="fast")]
    assert "declared_span" in r.error
    assert r.to_dict() == {"schema": "refgraph.audit/1", "id": "span", "error": r.error}


def test_chunks_keep_a_shared_context_together() -> None:
    pairs = [{"id": str(k), "before": "A" if k % 2 else "B", "after": "x"} for k in range(10)]
    parts = chunks(pairs, size=3)
    for part in parts:
        assert len({p["before"] for p in part}) == 1  # a context's 5 pairs are never split
    assert sum(len(p) for p in parts) == 10


@pytest.mark.parametrize(("pair", "message"), [
    ([1, 2], "expected an object"),
    ({"id": "a", "before": "x"}, "missing after"),
    ({"id": True, "before": "x", "after": "y"}, "id must be"),
    ({"id": "a", "before": 3, "after": "y"}, "before must be"),
    ({"id": "a", "before": "x", "after": []}, "both be strings or both lists"),
    ({"id": "a", "before": "x", "after": "y", "intent": "shrink"}, "unknown intent"),
])
def test_bad_pairs_are_input_errors(pair: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        check_pair(pair, "here")


def test_read_pairs_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "p.jsonl"
    f.write_text('{"id": "a", "before": "x", "after": "y"}\n\n{"id": "a", "before": "x", '
                 '"after": "y"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"p.jsonl:3: id 'a' appears twice"):
        list(read_pairs(f))
    f.write_text('{"id": "a", "before": "x", "after": "y"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"p.jsonl:2: not JSON"):
        list(read_pairs(f))


def test_cli_batch_writes_results_resumes_and_shows_progress(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    assert main(["batch", str(pairs), "--mode", "fast", "--out", str(out), "--isolated"]) == 1
    cap = capsys.readouterr()
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [d["id"] for d in lines] == ["unit", "same", "neg", "7", "msgs"]
    assert "| reject | 3 |" in cap.out
    assert "pairs/s" in cap.out
    assert "refgraph: 5/5 pairs (100%)" in cap.err  # not a terminal: progress lines
    # an interrupted run: the last result is lost, a torn line is left; the rerun does only it
    out.write_text("\n".join(json.dumps(d) for d in lines[:4]) + '\n{"id": "ms', encoding="utf-8")
    assert main(["batch", str(pairs), "--mode", "fast", "--out", str(out), "--isolated",
                 "--exit-zero"]) == 0
    cap = capsys.readouterr()
    assert "resuming: 4 of 5 pairs" in cap.err
    ids = [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert ids == ["unit", "same", "neg", "7", "msgs"]  # the torn line was dropped


def test_cli_batch_bad_input_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "a", "before": "x"}\n', encoding="utf-8")
    assert main(["batch", str(pairs), "--mode", "fast"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"refgraph: error: {pairs}:1: missing after"
    assert main(["batch", str(tmp_path / "none.jsonl"), "--mode", "fast"]) == 2


def test_cli_batch_min_confidence_zero_is_a_floor_not_unset(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(PAIRS[0]) + "\n", encoding="utf-8")
    (tmp_path / "refgraph.toml").write_text("min-confidence = 1.0\n", encoding="utf-8")
    args = ["batch", str(pairs), "--mode", "fast", "--config", str(tmp_path / "refgraph.toml")]
    assert main(args) == 0  # the file's floor of 1.0 reports nothing
    capsys.readouterr()
    assert main([*args, "--min-confidence", "0"]) == 1  # 0 overrides it: every finding counts

