"""The benchmark scripts keep running (they are not timed here: numbers come from their tables)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


def test_extraction_benchmark_skips_missing_data_cleanly(tmp_path: Path) -> None:
    proc = _run("benchmarks/extraction.py", "--data", str(tmp_path / "none"), "--mode", "fast")
    assert proc.returncode == 0, proc.stderr
    assert "skipped" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_speed_benchmark_runs_on_a_small_context() -> None:
    proc = _run("benchmarks/speed.py", "--words", "600", "--mode", "fast")
    assert proc.returncode == 0, proc.stderr
    assert "refgraph cold build" in proc.stdout


def test_generated_context_is_deterministic_and_sized() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from gen_context import generate, rewrite
    finally:
        sys.path.pop(0)
    a = generate(2000, seed=3)
    assert a == generate(2000, seed=3)
    assert len(a.split()) == 2000
    assert rewrite(a, 0.05, seed=1) != a
