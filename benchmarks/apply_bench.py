"""Apply stale patches with refgraph and with today's patch engines, against a ground truth.

Every scenario of ``stale_patches.generate`` (500 by default: 400 mergeable, 100 conflicting)
is applied by each engine to the *live* buffer (the base plus the drift), and the outcome is
compared with the scenario's ground truth (its oracle, written from the rebase contract and
independent of refgraph):

* **refgraph ContextBuffer.apply**: a ``ContextBuffer`` of the base; the drift is recorded through
  ``buf.edit`` / ``buf.append``; then ``buf.apply(Patch.from_unified_diff(diff, base=base_sha))``.
* **refgraph three_way_apply**: the file form (``refgraph apply``), no recorded history: base
  text, live text and the diff.
* **strict sha256**: apply only when the live text is the base (the seed's recommended check).
* **GNU patch**: ``patch --forward --batch`` with its default fuzz (2) on the live file.
* **git apply**: plain ``git apply`` (no fuzz, but hunks may move) on the live file.
* **git apply --3way**: in a scratch repository whose object store holds every base blob, with
  the live file staged and the diff carrying ``diff --git`` / ``index`` lines, so git can fall
  back to a 3-way merge against the preimage.
* **diff-match-patch**: ``patch_apply(patch_make(base, base_with_patch), live)``; applied when
  every patch reports success.

Each outcome is *correct* (a mergeable patch written exactly as the truth), *rejected
(conflict)* (a conflicting patch refused: also correct), *lost* (a mergeable patch refused) or
*silently wrong* (the engine reported success and wrote anything but the truth: a wrong text for a
mergeable patch, or any text for a conflicting one). The time is the median of one apply per
scenario: for refgraph's buffer, ``Patch.from_unified_diff`` plus ``apply`` (recording the drift
is not timed); for git's 3-way, the ``git apply`` alone (staging the live file is not); the
subprocess engines' times include starting the process.

Then refgraph's apply is timed alone on a 5,000-line context (median of ``--reps``; target under
5 ms): base == live, stale by 3 recorded edits, and stale by 50.

Nothing is read from the network; scratch files go to a temporary directory.

    python benchmarks/apply_bench.py [--n 500] [--seed 0] [--conflicts 0.2] [--reps 200]
                                     [--engines refgraph,patch,...] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from stale_patches import (
    DIFF_PATH,
    ContextMaker,
    Edit,
    Scenario,
    apply_edit,
    generate,
    make_context,
    make_drift,
    make_patch,
    rebase,
    unified_diff,
)

import refgraph

TARGET_MS = 5.0
BIG_LINES = 5000


@dataclass
class Outcome:
    """What one engine did with one scenario."""

    status: str  # "applied" | "rejected" | "error"
    text: str | None
    seconds: float
    detail: str = ""


@dataclass
class Tally:
    """One engine's results over all scenarios."""

    name: str
    correct: int = 0
    rejected_conflict: int = 0
    lost: int = 0
    wrong_mergeable: int = 0
    applied_conflict: int = 0
    errors: int = 0
    times: list[float] = field(default_factory=list)
    wrong_ids: list[int] = field(default_factory=list)
    lost_ids: list[int] = field(default_factory=list)
    error_ids: list[int] = field(default_factory=list)
    wrong_by_drift: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)

    @property
    def wrong(self) -> int:
        return self.wrong_mergeable + self.applied_conflict

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times) * 1000 if self.times else float("nan")

    def add(self, sc: Scenario, out: Outcome) -> None:
        self.times.append(out.seconds)
        if out.status == "rejected" and out.detail:
            self.codes[out.detail] += 1
        if out.status == "error":
            self.errors += 1
            self.error_ids.append(sc.id)
        elif sc.truth is None:
            if out.status == "rejected":
                self.rejected_conflict += 1
            else:
                self.applied_conflict += 1
                self.wrong_ids.append(sc.id)
                self.wrong_by_drift.update(set(sc.drift_kinds))
        elif out.status == "rejected":
            self.lost += 1
            self.lost_ids.append(sc.id)
        elif out.text == sc.truth:
            self.correct += 1
        else:
            self.wrong_mergeable += 1
            self.wrong_ids.append(sc.id)
            self.wrong_by_drift.update(set(sc.drift_kinds))

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.name, "correct": self.correct,
                "rejected_conflict": self.rejected_conflict, "lost": self.lost,
                "silently_wrong": self.wrong, "wrong_mergeable": self.wrong_mergeable,
                "applied_conflict": self.applied_conflict, "errors": self.errors,
                "median_ms": round(self.median_ms, 4), "wrong_ids": self.wrong_ids,
                "lost_ids": self.lost_ids, "error_ids": self.error_ids,
                "wrong_by_drift": dict(self.wrong_by_drift), "reject_codes": dict(self.codes)}


# --------------------------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------------------------

Engine = Callable[[Scenario], Outcome]


def _timed(fn: Callable[[], str]) -> tuple[str, float]:
    t0 = time.perf_counter()
    text = fn()
    return text, time.perf_counter() - t0


def refgraph_buffer(sc: Scenario) -> Outcome:
    """The guarded apply: drift recorded through the buffer, patch bound to the base's sha256."""
    buf = refgraph.ContextBuffer(sc.base)
    base_sha = buf.sha256
    for step in sc.drift:
        if step.append:
            buf.append(step.text)
        else:
            buf.edit(step.edit.start, step.edit.end, list(step.edit.lines))
    if buf.text != sc.live:
        return Outcome("error", None, 0.0, "the buffer's text after the drift is not the live text")
    t0 = time.perf_counter()
    try:
        buf.apply(refgraph.Patch.from_unified_diff(sc.diff, base=base_sha))
    except refgraph.RewriteRejected as exc:
        return Outcome("rejected", None, time.perf_counter() - t0, _code(exc))
    except Exception as exc:
        return Outcome("error", None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}")
    return Outcome("applied", buf.text, time.perf_counter() - t0)


def refgraph_file(sc: Scenario) -> Outcome:
    """The file form: base, live and diff, no recorded history."""
    live = sc.live
    t0 = time.perf_counter()
    try:
        text = refgraph.three_way_apply(sc.base, live, sc.diff)
    except refgraph.RewriteRejected as exc:
        return Outcome("rejected", None, time.perf_counter() - t0, _code(exc))
    except Exception as exc:
        return Outcome("error", None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}")
    return Outcome("applied", text, time.perf_counter() - t0)


def _code(exc: Exception) -> str:
    return str(getattr(exc, "code", type(exc).__name__))


def strict_sha256(sc: Scenario) -> Outcome:
    """Apply only when the live text hashes to the base's sha256; never rebase."""
    live = sc.live
    t0 = time.perf_counter()
    same = hashlib.sha256(live.encode()).digest() == hashlib.sha256(sc.base.encode()).digest()
    if not same:
        return Outcome("rejected", None, time.perf_counter() - t0, "stale")
    return Outcome("applied", sc.patched_base, time.perf_counter() - t0)


def dmp_apply(sc: Scenario) -> Outcome:
    from diff_match_patch import diff_match_patch

    dmp = diff_match_patch()
    patches = dmp.patch_make(sc.base, sc.patched_base)
    live = sc.live
    t0 = time.perf_counter()
    text, results = dmp.patch_apply(patches, live)
    seconds = time.perf_counter() - t0
    if not all(results):
        return Outcome("rejected", None, seconds, "patch failed")
    return Outcome("applied", text, seconds)


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_diff(sc: Scenario) -> str:
    """The scenario's diff with the ``diff --git`` and ``index`` lines git writes."""
    pre = git_blob_sha(sc.base.encode())
    post = git_blob_sha(sc.patched_base.encode())
    header = (f"diff --git a/{DIFF_PATH} b/{DIFF_PATH}", f"index {pre[:12]}..{post[:12]} 100644")
    return unified_diff(sc.base, sc.patch, header=header)


class Workspace:
    """A scratch directory for the subprocess engines, and a git repository inside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = root / "repo"
        self.repo.mkdir()
        self.env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                    "LC_ALL": "C"}
        self.git("init", "-q", ".")
        self.git("config", "core.autocrlf", "false")
        self.file = self.repo / DIFF_PATH

    def git(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=self.repo, env=self.env, input=stdin,
                              capture_output=True, text=True, check=False)

    def store_blobs(self, scenarios: Sequence[Scenario]) -> None:
        """Write every base into git's object store (one process), so --3way finds them."""
        bases = self.root / "bases"
        bases.mkdir()
        paths = []
        for sc in scenarios:
            p = bases / f"{sc.id}.txt"
            p.write_bytes(sc.base.encode())
            paths.append(str(p))
        proc = self.git("hash-object", "-w", "--stdin-paths", stdin="\n".join(paths) + "\n")
        if proc.returncode:
            raise RuntimeError(proc.stderr)

    def _write(self, path: Path, text: str) -> None:
        path.write_bytes(text.encode())

    def gnu_patch(self, sc: Scenario) -> Outcome:
        live, diff, out = self.root / "live.txt", self.root / "diff.patch", self.root / "out.txt"
        self._write(live, sc.live)
        self._write(diff, sc.diff)
        out.unlink(missing_ok=True)
        cmd = ["patch", "--forward", "--batch", "--silent", "--no-backup-if-mismatch",
               "--reject-file=-", "-o", str(out), "-i", str(diff), str(live)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=self.root, capture_output=True, check=False)
        seconds = time.perf_counter() - t0
        if proc.returncode:
            return Outcome("rejected", None, seconds, f"exit {proc.returncode}")
        return Outcome("applied", out.read_bytes().decode(), seconds)

    def git_apply(self, sc: Scenario) -> Outcome:
        diff = self.root / "git.patch"
        self._write(diff, git_diff(sc))
        self._write(self.file, sc.live)
        t0 = time.perf_counter()
        proc = self.git("apply", str(diff))
        seconds = time.perf_counter() - t0
        if proc.returncode:
            return Outcome("rejected", None, seconds, f"exit {proc.returncode}")
        return Outcome("applied", self.file.read_bytes().decode(), seconds)

    def git_apply_3way(self, sc: Scenario) -> Outcome:
        diff = self.root / "git.patch"
        self._write(diff, git_diff(sc))
        self._write(self.file, sc.live)
        staged = self.git("add", DIFF_PATH)
        if staged.returncode:
            return Outcome("error", None, 0.0, staged.stderr.strip())
        t0 = time.perf_counter()
        proc = self.git("apply", "--3way", str(diff))
        seconds = time.perf_counter() - t0
        if proc.returncode:
            return Outcome("rejected", None, seconds, f"exit {proc.returncode}")
        return Outcome("applied", self.file.read_bytes().decode(), seconds)


# --------------------------------------------------------------------------------------------
# The 5,000-line timing
# --------------------------------------------------------------------------------------------


@dataclass
class BigTiming:
    """Median milliseconds of refgraph's apply on one large buffer, per staleness."""

    lines: int
    reps: int
    parse_ms: float = 0.0
    fresh_ms: float = 0.0
    stale3_ms: float = 0.0
    stale50_ms: float = 0.0

    def target_met(self) -> bool:
        return max(self.fresh_ms, self.stale3_ms, self.stale50_ms) < TARGET_MS


def time_big(reps: int, seed: str) -> BigTiming:
    """Time ``buf.apply`` alone on a 5,000-line buffer (building and drifting it untimed)."""
    rng = Random(f"apply-bench-big:{seed}")
    maker = ContextMaker(Random(rng.random()))
    base, spans = make_context(maker, BIG_LINES)
    patch: list[Edit] = []
    while len(patch) < 3:
        patch = make_patch(rng, base, spans)
    diff = unified_diff(base, patch)
    drifts = {k: make_drift(rng, maker, base, patch, conflict=False, steps=k) for k in (3, 50)}
    res = BigTiming(len(base.split("\n")) - 1, reps)
    parse: list[float] = []
    fresh: list[float] = []
    stale3: list[float] = []
    stale50: list[float] = []
    for _ in range(reps):
        for key, into in ((0, fresh), (3, stale3), (50, stale50)):
            buf = refgraph.ContextBuffer(base)
            sha = buf.sha256
            for step in drifts.get(key, []):
                if step.append:
                    buf.append(step.text)
                else:
                    buf.edit(step.edit.start, step.edit.end, list(step.edit.lines))
            gc.collect()
            t0 = time.perf_counter()
            p = refgraph.Patch.from_unified_diff(diff, base=sha)
            t1 = time.perf_counter()
            buf.apply(p)
            t2 = time.perf_counter()
            into.append(t2 - t1)
            if key == 0:
                parse.append(t1 - t0)
    res.parse_ms = statistics.median(parse) * 1000
    res.fresh_ms = statistics.median(fresh) * 1000
    res.stale3_ms = statistics.median(stale3) * 1000
    res.stale50_ms = statistics.median(stale50) * 1000
    # The result itself must be right, too.
    for key in (0, 3, 50):
        buf = refgraph.ContextBuffer(base)
        sha = buf.sha256
        live = base.split("\n")
        for step in drifts.get(key, []):
            live = apply_edit(live, step.edit)
            if step.append:
                buf.append(step.text)
            else:
                buf.edit(step.edit.start, step.edit.end, list(step.edit.lines))
        buf.apply(refgraph.Patch.from_unified_diff(diff, base=sha))
        assert buf.text == rebase(base, [s.edit for s in drifts.get(key, [])], patch)
    return res


# --------------------------------------------------------------------------------------------
# Runner and tables
# --------------------------------------------------------------------------------------------

ENGINE_NAMES = {
    "refgraph": "refgraph ContextBuffer.apply",
    "refgraph-file": "refgraph three_way_apply (file form)",
    "strict": "strict sha256 check",
    "patch": "GNU patch (default fuzz 2)",
    "git": "git apply",
    "git3way": "git apply --3way",
    "dmp": "diff-match-patch",
}


def run(scenarios: Sequence[Scenario], engines: Sequence[str], console: Console) -> list[Tally]:
    with tempfile.TemporaryDirectory(prefix="apply-bench-") as tmp:
        ws = Workspace(Path(tmp))
        fns: dict[str, Engine] = {"refgraph": refgraph_buffer, "refgraph-file": refgraph_file,
                                  "strict": strict_sha256, "patch": ws.gnu_patch,
                                  "git": ws.git_apply, "git3way": ws.git_apply_3way,
                                  "dmp": dmp_apply}
        if "git3way" in engines:
            ws.store_blobs(scenarios)
        tallies = {e: Tally(ENGINE_NAMES[e]) for e in engines}
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("applying", total=len(scenarios))
            for sc in scenarios:
                for e in engines:
                    tallies[e].add(sc, fns[e](sc))
                progress.advance(task)
    return [tallies[e] for e in engines]


def table(tallies: Sequence[Tally]) -> str:
    errors = any(t.errors for t in tallies)
    head = ["engine", "correct", "rejected (conflict, correctly)", "rejected mergeable (lost)",
            "silently wrong", *(["errors"] if errors else []), "median ms per apply"]
    rows = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for t in tallies:
        wrong = f"{t.wrong}" + (f" ({t.wrong_mergeable} + {t.applied_conflict})" if t.wrong else "")
        cells = [t.name, str(t.correct), str(t.rejected_conflict), str(t.lost), wrong,
                 *([str(t.errors)] if errors else []), f"{t.median_ms:.3g}"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def drift_table(tallies: Sequence[Tally], scenarios: Sequence[Scenario]) -> str:
    kinds = Counter(k for sc in scenarios for k in set(sc.drift_kinds))
    head = ["drift in the scenario (count)", *(t.name for t in tallies)]
    rows = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for kind, n in sorted(kinds.items()):
        rows.append("| " + " | ".join([f"{kind} ({n})",
                                       *(str(t.wrong_by_drift[kind]) for t in tallies)]) + " |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--n", type=int, default=500, help="number of scenarios (default 500)")
    ap.add_argument("--seed", default="0", help="scenario seed (default 0)")
    ap.add_argument("--conflicts", type=float, default=0.2,
                    help="share of conflicting scenarios (default 0.2)")
    ap.add_argument("--reps", type=int, default=200,
                    help="repetitions of the 5,000-line timing (default 200; 0 skips it)")
    ap.add_argument("--engines", default=",".join(ENGINE_NAMES),
                    help=f"comma-separated subset of {','.join(ENGINE_NAMES)}")
    ap.add_argument("--json", metavar="OUT", help="write every number to this JSON file")
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINE_NAMES]
    if unknown:
        ap.error(f"unknown engines: {', '.join(unknown)}")
    missing = [tool for tool, e in (("patch", "patch"), ("git", "git"), ("git", "git3way"))
               if e in engines and shutil.which(tool) is None]
    if missing:
        ap.error(f"not installed: {', '.join(sorted(set(missing)))}")
    console = Console(stderr=True)

    t0 = time.perf_counter()
    scenarios = generate(args.n, args.seed, args.conflicts)
    n_conf = sum(sc.conflict for sc in scenarios)
    tallies = run(scenarios, engines, console)
    elapsed = time.perf_counter() - t0

    print(f"{len(scenarios)} stale-patch scenarios (seed {args.seed}): "
          f"{len(scenarios) - n_conf} mergeable, {n_conf} conflicting; "
          f"silently wrong = wrong text on a mergeable patch + a conflicting patch applied\n")
    print(table(tallies))
    print("\nSilently wrong, by the kinds of drift in the scenario:\n")
    print(drift_table(tallies, scenarios))
    big = None
    if args.reps > 0 and "refgraph" in engines:
        big = time_big(args.reps, args.seed)
        print(f"\nrefgraph apply on a {big.lines:,}-line buffer (median of {big.reps}): "
              f"base == live {big.fresh_ms:.3f} ms, stale by 3 recorded edits "
              f"{big.stale3_ms:.3f} ms, stale by 50 {big.stale50_ms:.3f} ms "
              f"(target < {TARGET_MS:g} ms: {'met' if big.target_met() else 'NOT met'}); "
              f"parsing the diff {big.parse_ms:.3f} ms")
    print(f"\n({elapsed:.0f} s for the scenarios; {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.machine()})")
    for t in tallies:
        if t.name.startswith("refgraph") and (t.wrong_ids or t.error_ids):
            console.print(f"[red]{t.name}: silently wrong on {t.wrong_ids[:20]}, errors on "
                          f"{t.error_ids[:20]}[/red]")
    if args.json:
        payload = {"scenarios": len(scenarios), "mergeable": len(scenarios) - n_conf,
                   "conflict": n_conf, "seed": args.seed, "engines": [t.to_dict() for t in tallies],
                   "big": vars(big) if big else None, "seconds": round(elapsed, 1),
                   "python": platform.python_version(), "machine": platform.machine()}
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
