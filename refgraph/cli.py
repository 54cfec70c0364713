"""The ``refgraph`` command: ``main(argv=None) -> int`` over argparse; logic lives in the library.

Exit codes: 0 ok, 2 bad input (one line on stderr, never a traceback). See docs/contracts.md.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import os
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__, native
from .errors import InputError, RefgraphError, RefgraphWarning, RewriteRejected
from .io import (
    MAX_CHARS,
    LineSink,
    for_stdout,
    is_utf8,
    read_messages,
    read_text,
    replaceable,
    write_output,
)
from .options import DEFAULT_MIN_CONFIDENCE, INTENTS

# The rest loads on use, in the command that needs it: `refgraph --version`, `rules` and
# `rule X` answer without spaCy, pint or the pipeline (see refgraph.lazy).
if TYPE_CHECKING:
    from .analyze import Analyzer
    from .config import Config
    from .model import RefGraph
    from .options import Mode
    from .report import Report

FORMATS = ("text", "json", "jsonl", "sarif", "github")

# The bundled examples: inside the package in a wheel, beside it in a checkout.
_HERE = Path(__file__).resolve().parent
EXAMPLES = next((p for p in (_HERE / "examples", _HERE.parent / "examples") if p.is_dir()),
                _HERE / "examples")


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"refgraph: error: {message} (see `{self.prog} --help`)\n")


def _parser() -> argparse.ArgumentParser:
    ap = _ArgumentParser(
        prog="refgraph",
        description="Referent graphs of agent contexts: catch rewrites that corrupt memory.")
    ap.add_argument("--version", action="version",
                    version=f"refgraph {__version__}, {native.build()}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)

    g = sub.add_parser("graph", help="print the referent graph of a text file")
    g.add_argument("file", help="a UTF-8 text file, or - for standard input")
    g.add_argument("--mode", choices=("accurate", "fast"), default="accurate")
    g.add_argument("--format", choices=("text", "json", "graphml"), default="text")

    c = sub.add_parser("check", help="is a rewrite compression or corruption? (exit 1: reject)")
    c.add_argument("before", help="the context before the rewrite (file, or - for stdin)")
    c.add_argument("after", help="the context after the rewrite (file, or - for stdin)")
    c.add_argument("--intent", choices=INTENTS, default="rewrite")
    c.add_argument("--messages", action="store_true",
                   help="BEFORE and AFTER are JSON message lists (OpenAI or Anthropic chat "
                        "messages, or an object with a 'messages' list)")
    c.add_argument("--deadline", metavar="SECONDS", type=float, default=None,
                   help="stop the analysis after SECONDS and report it incomplete (verdict at "
                        "least apply-with-log)")
    c.add_argument("--min-confidence", metavar="C", type=_confidence, default=None,
                   help="report findings this sure or surer (0-1; default: the analyzer's, "
                        f"{DEFAULT_MIN_CONFIDENCE})")
    c.add_argument("--declared-span", metavar="START:END", type=_span,
                   help="character range of BEFORE the rewrite claimed to touch")
    c.add_argument("--png", metavar="FILE", help="also write the graph-diff figure as PNG")
    c.add_argument("--svg", metavar="FILE", help="also write the graph-diff figure as SVG")
    c.add_argument("--html", metavar="FILE",
                   help="also write a self-contained side-by-side HTML review")
    _common(c)

    li = sub.add_parser("lint", help="flag what is suspect in one context (exit 1: findings)")
    li.add_argument("file", help="a UTF-8 text file, or - for standard input")
    _common(li)

    sub.add_parser("rules", help="list the finding catalogue")
    r = sub.add_parser("rule", help="print one rule's documentation")
    r.add_argument("code", help="a finding code, e.g. RG201")

    ap_ = sub.add_parser("apply", help="apply a diff authored against BASE to LIVE, or refuse "
                                       "(exit 1: rejected)")
    ap_.add_argument("live", help="the live context file")
    ap_.add_argument("patch", help="a unified diff authored against BASE")
    ap_.add_argument("--base", required=True, help="the context the diff was authored against")
    ap_.add_argument("-o", "--output", metavar="OUT",
                     help="write the result here (atomically) instead of standard output")
    ap_.add_argument("--check", action="store_true",
                     help="also analyze LIVE -> result and refuse on blocking findings")
    ap_.add_argument("--intent", choices=INTENTS, default="rewrite",
                     help="what the patch claims to do (with --check)")
    ap_.add_argument("--mode", choices=("accurate", "fast"), default="accurate")
    ap_.add_argument("--min-confidence", metavar="C", type=_confidence, default=None,
                     help="with --check: refuse on findings this sure or surer (0-1)")

    b = sub.add_parser("batch", help="audit a JSON-lines file of pairs (exit 1: any reject)")
    b.add_argument("file", metavar="FILE.jsonl",
                   help="one {id, before, after, intent?, declared_span?} object per line")
    b.add_argument("--out", metavar="RESULTS.jsonl",
                   help="append one result line per pair here (pairs already in it are "
                        "skipped: a batch resumes); default: standard output")
    b.add_argument("--jobs", metavar="N", type=_jobs, default=1,
                   help="worker processes (default 1; 0: one per core)")
    b.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the chunks on a Dask cluster (refgraph[dask]) instead")
    b.add_argument("--intent", choices=INTENTS, default="rewrite",
                   help="for pairs that name none")
    b.add_argument("--min-confidence", metavar="C", type=_confidence, default=None)
    _settings_options(b)
    b.add_argument("--exit-zero", action="store_true", help="exit 0 even when pairs are rejected")

    d = sub.add_parser("demo", help="graph the bundled contexts and check the bundled rewrites")
    d.add_argument("--mode", choices=("accurate", "fast"), default="accurate")
    d.add_argument("--examples", default=str(EXAMPLES), help=argparse.SUPPRESS)
    return ap


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text, json (the report), jsonl (one finding per line), sarif "
                        "(SARIF 2.1.0) or github (workflow annotations)")
    _settings_options(p)
    p.add_argument("--baseline", metavar="FILE",
                   help="report only findings that are not in this baseline")
    p.add_argument("--write-baseline", action="store_true",
                   help="write the findings to --baseline FILE (accepting them) and exit 0")
    p.add_argument("--statistics", action="store_true",
                   help="print how many findings each code has, instead of the findings")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when the verdict is reject (2 still means bad input)")


def _settings_options(p: argparse.ArgumentParser) -> None:
    """The options :func:`_settings` reads, over the configuration file's."""
    p.add_argument("--mode", choices=("accurate", "fast"), default=None,
                   help="the pipeline (default: the configuration's, else accurate)")
    p.add_argument("--select", metavar="CODES", help="only these codes or prefixes (RG2,RG301)")
    p.add_argument("--ignore", metavar="CODES", help="skip these codes or prefixes")
    p.add_argument("--policy", metavar="CODE=SEVERITY", action="append", default=[],
                   help="give a code another severity, or 'off' (RG304=warning); repeatable")
    p.add_argument("--config", metavar="FILE",
                   help="read settings from FILE (refgraph.toml, or a pyproject.toml with "
                        "[tool.refgraph]) instead of the one found upward from here")
    p.add_argument("--isolated", action="store_true",
                   help="ignore every configuration file")
    p.add_argument("--max-chars", metavar="N", type=_positive, default=None,
                   help="refuse inputs longer than N characters (default: the configuration's, "
                        "else 5,000,000)")


def _positive(value: str) -> int:
    try:
        n = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {value!r}")
    return n


def _confidence(value: str) -> float:
    try:
        c = float(value)
    except ValueError:
        c = -1.0
    if not 0.0 <= c <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {value!r}")
    return c


def _span(value: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*", value)
    if not m:
        raise argparse.ArgumentTypeError(f"expected START:END character offsets, not {value!r}")
    return int(m.group(1)), int(m.group(2))


def main(argv: Sequence[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.command is None:
        ap.print_help()
        return 0
    for stream in (sys.stdout, sys.stderr):  # print() on an ASCII terminal escapes, not crashes
        if hasattr(stream, "reconfigure") and not is_utf8(getattr(stream, "encoding", None)):
            stream.reconfigure(errors="backslashreplace")
    with warnings.catch_warnings():
        warnings.simplefilter("default", RefgraphWarning)
        warnings.showwarning = _show_warning
        return _run(ap, args)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """A warning as one line on stderr ("refgraph: warning: ..."), not Python's two."""
    print(f"refgraph: warning: {message}", file=sys.stderr)


def _run(ap: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        if args.command == "graph":
            return _graph(args)
        if args.command == "demo":
            return _demo(args)
        if args.command == "check":
            return _check(args)
        if args.command == "lint":
            return _lint(args)
        if args.command == "apply":
            return _apply(args)
        if args.command == "batch":
            return _batch(args)
        if args.command == "rules":
            return _rules()
        if args.command == "rule":
            return _rule(args.code)
    except RefgraphError as exc:
        print(f"refgraph: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("refgraph: interrupted", file=sys.stderr)
        return 130
    ap.error(f"unknown command {args.command!r}")
    return 2  # pragma: no cover  (argparse exits)


def _apply(args: argparse.Namespace) -> int:
    from .analyze import analyze
    from .merge import three_way_apply

    live, diff, base = read_text(args.live), read_text(args.patch), read_text(args.base)
    try:
        result = three_way_apply(base, live, diff)
    except RewriteRejected as exc:
        print(f"refgraph: rejected: {exc}", file=sys.stderr)
        return 1
    if args.check:
        report = analyze(live, result, intent=args.intent, mode=args.mode,
                         min_confidence=args.min_confidence)
        if report.verdict in ("reject", "refuse"):
            # The findings go to stderr: stdout is reserved for the merged text.
            sys.stderr.write(report.format_text(before_name=args.live, after_name="result")
                             + "\n")
            print(f"refgraph: rejected: blocking findings {', '.join(report.codes)}; nothing "
                  "was written", file=sys.stderr)
            return 1
    # Bytes, not text: a terminal encoding that cannot hold a character must not change it.
    out = "-" if args.output is None else args.output
    write_output(out, result.encode("utf-8"), f"-o {out}")
    return 0


def _graph(args: argparse.Namespace) -> int:
    import networkx as nx

    from .graph import to_node_link

    text = read_text(args.file)
    G = _build_with_progress(text, args.mode)
    if args.format == "json":
        _write(json.dumps(to_node_link(G), ensure_ascii=False, indent=1) + "\n", is_json=True)
    elif args.format == "graphml":
        # XML: characters the output encoding lacks become character references
        enc = sys.stdout.encoding or "utf-8"
        for line in nx.generate_graphml(G):
            _write(line.encode(enc, "xmlcharrefreplace").decode(enc) + "\n")
    else:
        _write(format_graph(G, text))
    return 0


def _check(args: argparse.Namespace) -> int:
    if args.before == "-" and args.after == "-":
        raise InputError("only one of BEFORE and AFTER can be - (standard input)")
    outputs = [(flag, path) for flag in ("png", "svg", "html")
               if (path := getattr(args, flag)) is not None]
    for flag, path in outputs:  # fail before the analysis, not after it
        _check_writable(flag, path)
    settings = _settings(args)
    az = settings.analyzer()
    with _parse_progress(az, args.before, args.after):
        report = _analyze_check(az, args, settings)
    return _finish(report, args, outputs)


_LONG_INPUT = 50_000  # characters over both sides: from here parsing takes seconds


@contextlib.contextmanager
def _parse_progress(az: Analyzer, *paths: str) -> Iterator[None]:
    """Progress on stderr while a long input is parsed (a line per quarter of each side when
    stderr is no terminal)."""
    size = sum(os.path.getsize(p) for p in paths if p != "-" and os.path.isfile(p))
    if size < _LONG_INPUT:
        yield
        return
    with _progress("blocks", every=4) as update:
        az.progress = lambda side, done, total: update(f"parsing {side}: ", done, total)
        try:
            yield
        finally:
            az.progress = None


def _analyze_check(az: Analyzer, args: argparse.Namespace, settings: Config) -> Report:
    if args.messages:
        if args.declared_span is not None:
            raise InputError("--declared-span indexes a text: it cannot be used with --messages")
        report = az.analyze_messages(read_messages(args.before, max_chars=az.max_chars),
                                     read_messages(args.after, max_chars=az.max_chars),
                                     intent=args.intent, select=settings.select,
                                     ignore=settings.ignore, min_confidence=args.min_confidence,
                                     deadline=args.deadline)
    else:
        before = read_text(args.before, max_chars=az.max_chars)
        after = read_text(args.after, max_chars=az.max_chars)
        report = az.analyze(before, after, intent=args.intent,
                            declared_span=args.declared_span, select=settings.select,
                            ignore=settings.ignore, min_confidence=args.min_confidence,
                            deadline=args.deadline)
    return report


def _finish(report: Report, args: argparse.Namespace,
            outputs: Sequence[tuple[str, str]] = ()) -> int:
    """Baseline, output, figures and the exit code: the same for check and lint."""
    from .baseline import baseline_dict, read_baseline, without_baseline

    before_name = getattr(args, "before", None) or args.file
    after_name = getattr(args, "after", None) or args.file
    if args.write_baseline:
        write_output(args.baseline, (json.dumps(
            baseline_dict(report.findings), indent=1) + "\n").encode("utf-8"),
            f"--baseline {args.baseline}")
        n = len(report.findings)
        print(f"refgraph: wrote {n} finding{'' if n == 1 else 's'} to {args.baseline}",
              file=sys.stderr)
        return 0
    if args.baseline is not None:
        report = without_baseline(report, read_baseline(args.baseline))
    if args.statistics:
        _write(format_statistics(report, args.format) + "\n", is_json=args.format == "json")
    else:
        _emit(report, args.format, before_name, after_name)
    for flag, path in outputs:
        _write_review(report, flag, path, before_name, after_name)
    if args.exit_zero:
        return 0
    if report.intent == "lint":
        return 1 if report.findings else 0
    return 1 if report.verdict in ("reject", "refuse") else 0


def _settings(args: argparse.Namespace) -> Config:
    """The configuration file's settings, overridden by the command line's."""
    from .config import Config, load_config, parse_policy

    if getattr(args, "write_baseline", False) and args.baseline is None:
        raise InputError("--write-baseline needs --baseline FILE: the file to write")
    if args.isolated and args.config is not None:
        raise InputError("--isolated ignores configuration files: it cannot be used with "
                         "--config")
    config = load_config(args.config, isolated=args.isolated)
    policy = dict(config.policy)
    for value in args.policy:
        policy.update(parse_policy(value, "--policy"))
    select = _split(args.select) if args.select is not None else config.select
    ignore = _split(args.ignore) if args.ignore is not None else config.ignore
    return Config(mode=args.mode or config.mode, select=select, ignore=ignore,
                  policy=policy, min_confidence=config.min_confidence,
                  max_chars=args.max_chars or config.max_chars, path=config.path)


def _split(codes: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in codes.split(",") if c.strip())


def format_statistics(report: Report, fmt: str = "text") -> str:
    """How many findings each code has, most first (``--statistics``)."""
    counts = Counter((f.code, f.name) for f in report.findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        return json.dumps([{"code": c, "name": n, "count": k} for (c, n), k in rows], indent=2)
    return "\n".join(f"{k:>5}  {c}  {n}" for (c, n), k in rows) or "no findings"


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return n or (os.cpu_count() or 1)


def _batch(args: argparse.Namespace) -> int:
    from .audit import audit, done_ids, drop_torn_line, read_pairs, summary

    settings = _settings(args)
    limit = settings.max_chars or MAX_CHARS
    pairs = list(read_pairs(args.file, max_chars=limit))  # every line checked before any work
    out_path = Path(args.out) if args.out else None
    if out_path is not None and (out_path.is_dir() or not out_path.resolve().parent.is_dir()):
        raise InputError(f"--out {args.out}: not a writable file path")
    # a device or a FIFO holds no earlier results to resume from (and reading one blocks)
    journal = out_path is not None and replaceable(out_path)
    skip = done_ids(out_path) if out_path is not None and journal else set()
    todo = [p for p in pairs if p["id"] not in skip]
    if skip:
        print(f"refgraph: resuming: {len(pairs) - len(todo)} of {len(pairs)} pairs already in "
              f"{args.out}", file=sys.stderr)
    client = None
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--scheduler needs Dask: pip install \"refgraph[dask]\"") from None
        try:
            client = Client(args.scheduler, timeout=10)  # type: ignore[no-untyped-call]
        except OSError as exc:
            raise InputError(f"--scheduler {args.scheduler}: cannot connect: {exc}") from None
    if out_path is not None and journal:
        drop_torn_line(out_path)
    sink = LineSink(out_path)
    results = []
    t0 = time.perf_counter()
    try:
        with _progress("pairs", every=20, percent=True) as update:
            for r in audit(todo, mode=settings.mode or "accurate", intent=args.intent,
                           jobs=args.jobs, client=client, select=settings.select,
                           ignore=settings.ignore,
                           min_confidence=settings.min_confidence
                           if args.min_confidence is None else args.min_confidence,
                           policy=settings.policy, max_chars=limit,
                           progress=lambda done, total: update("", done, total)):
                sink.write(json.dumps(r.to_dict(), ensure_ascii=False))  # flushed: resumable
                results.append(r)
        sink.close()
    finally:
        if client is not None:
            client.close()  # type: ignore[no-untyped-call]
    table = summary(results, time.perf_counter() - t0)
    print(table, file=sys.stdout if out_path is not None else sys.stderr)
    rejected = any(r.verdict in ("reject", "refuse") for r in results)
    return 1 if rejected and not args.exit_zero else 0


@contextlib.contextmanager
def _progress(noun: str, *, every: int, percent: bool = False
              ) -> Iterator[Callable[[str, int, int], None]]:
    """``update(task, done, total)`` for work that reports progress: a bar per task on a
    terminal's stderr; elsewhere a line ``refgraph: TASKDONE/TOTAL NOUN`` each time a task
    passes another 1/``every`` of its total (and when it ends)."""
    if sys.stderr.isatty():
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            tasks: dict[str, Any] = {}

            def advance(task: str, done: int, total: int) -> None:
                if task not in tasks:
                    tasks[task] = bar.add_task(task.rstrip(": ") or noun, total=total)
                bar.update(tasks[task], completed=done, total=total)

            yield advance
        return
    shown: dict[str, int] = {}

    def line(task: str, done: int, total: int) -> None:
        step = every * done // max(1, total)
        if step > shown.get(task, 0) or (done == total and task not in shown):
            shown[task] = max(step, 1)
            pct = f" ({100 * done // max(1, total)}%)" if percent else ""
            print(f"refgraph: {task}{done}/{total} {noun}{pct}", file=sys.stderr, flush=True)

    yield line


def _check_writable(flag: str, path: str) -> None:
    p = Path(path)
    if p.is_dir():
        raise InputError(f"--{flag} {path}: is a directory, not a file")
    if not p.parent.is_dir():
        raise InputError(f"--{flag} {path}: no such directory {str(p.parent)!r}")


def _write_review(report: Report, flag: str, path: str, before_name: str,
                  after_name: str) -> None:
    """Write the figure or the HTML review; matplotlib loads only when one is asked for."""
    from .render import figure_bytes, review_html

    if flag == "html":
        data = review_html(report, before_name=before_name, after_name=after_name).encode()
    else:
        data = figure_bytes(report, "png" if flag == "png" else "svg")
    write_output(path, data, f"--{flag} {path}")


def _lint(args: argparse.Namespace) -> int:
    settings = _settings(args)
    az = settings.analyzer()
    report = az.lint(read_text(args.file, max_chars=az.max_chars), select=settings.select,
                     ignore=settings.ignore)
    return _finish(report, args)


def _emit(report: Report, fmt: str, before_name: str, after_name: str) -> None:
    from .formats import github_annotations, json_lines, to_sarif

    paths = {"before": _uri(before_name), "after": _uri(after_name)}
    if fmt == "json":
        text = report.to_json(paths=paths)
    elif fmt == "sarif":
        text = json.dumps(to_sarif(report, paths), ensure_ascii=False, indent=2)
    elif fmt in ("jsonl", "github"):
        lines = list((json_lines if fmt == "jsonl" else github_annotations)(report, paths))
        if not lines:
            return
        text = "\n".join(lines)
    else:
        text = report.format_text(before_name=before_name, after_name=after_name)
    _write(text + "\n", is_json=fmt in ("json", "sarif", "jsonl"))


def _uri(name: str) -> str:
    """A file name as CI tools want it: relative, with forward slashes; standard input as
    ``stdin``."""
    return "stdin" if name == "-" else Path(name).as_posix()


def _write(text: str, *, is_json: bool = False) -> None:
    """Write to stdout even when its encoding cannot hold a quote ("Zoë" on an ASCII pipe):
    see :func:`refgraph.io.for_stdout`."""
    sys.stdout.write(for_stdout(text, is_json=is_json))


def _rules() -> int:
    from .rules import RULES

    for r in RULES:
        print(f"{r.code}  {r.name:<24} {r.severity:<8} {r.summary}")
    return 0


def _rule(code: str) -> int:
    from .rules import get_rule

    try:
        r = get_rule(code)
    except KeyError:
        raise InputError(f"no rule {code!r} (see `refgraph rules`)") from None
    print(f"{r.code} {r.name} (default severity: {r.severity})\n")
    print(r.doc())
    print(f"\nFix: {r.hint}")
    return 0


def _build_with_progress(text: str, mode: str) -> RefGraph:
    """Build the graph, with a progress bar on a terminal when the text is long."""
    from .graph import build_graph

    if len(text) < 50_000 or not sys.stderr.isatty():
        return build_graph(text, mode=mode)  # type: ignore[arg-type]
    from rich.progress import Progress  # only a terminal needs it

    with Progress(transient=True) as bar:
        task = bar.add_task(f"parsing ({mode} mode)", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return build_graph(text, mode=mode, progress=update)  # type: ignore[arg-type]


class _Lines:
    """line:col of offsets, from line starts computed once (a count per node is quadratic)."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> str:
        k = bisect.bisect_right(self.starts, offset) - 1
        return f"{k + 1}:{offset - self.starts[k] + 1}"


# per node kind (NodeKind's values: the model is not imported for a command that prints none)
_DETAIL: dict[str, tuple[str, ...]] = {
    "identifier": ("role", "ident_kind"),
    "handle": ("handle_kind",),
    "quantity": ("bound", "magnitude", "magnitude_high", "unit", "measured"),
    "negation": ("cue_kind",),
    "conditional": ("cond_kind", "antecedent_polarity", "consequent_polarity"),
    "constraint": ("constraint_kind", "target"),
    "deictic": ("deictic_kind", "description", "resolved"),
    "hedge": ("modality", "strength"),
    "mention": ("key", "ent_label"),
    "causal": ("direction", "order"),
}


def _short(text: str, width: int = 48) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def format_graph(G: RefGraph, text: str) -> str:
    """One line per block and per extracted span: where it is (line:col), kind, text, details."""
    from .model import NodeKind

    _position = _Lines(text)
    lines: list[str] = []
    nodes = sorted(((d["start"], d["end"], n, d) for n, d in G.nodes(data=True)
                    if d["kind"] not in (NodeKind.SENTENCE, NodeKind.REFERENT, NodeKind.CLAIM)),
                   key=lambda t: (t[0], t[3]["kind"] != NodeKind.BLOCK, t[1]))
    for start, _end, _nid, d in nodes:
        kind = d["kind"]
        if kind == NodeKind.BLOCK:
            lines.append(f"{_position(start):>7}  {d['block_kind']:<11} {_short(d['text'])}")
            continue
        details = []
        for key in _DETAIL.get(kind, ()):
            if key in d:
                value = d[key]
                details.append(f"{key}={value:g}" if isinstance(value, float) else
                               f"{key}={value}")
        lines.append(f"{_position(start):>7}    {kind:<11} {_short(d['text'], 40)!r}"
                     + (f"  {' '.join(details)}" if details else ""))
    counts = Counter(d["kind"] for _, d in G.nodes(data=True))
    summary = ", ".join(f"{k} {counts[k]}" for k in sorted(counts))
    lines.append(f"-- {G.number_of_nodes()} nodes, {G.number_of_edges()} edges ({summary})")
    return "\n".join(lines) + "\n"


def _demo(args: argparse.Namespace) -> int:
    from .analyze import analyze
    from .graph import build_graph

    folder = Path(args.examples)
    files = sorted(p for p in folder.glob("*") if p.suffix in (".md", ".txt"))
    if not files:
        print(f"refgraph: error: no example contexts in {folder}", file=sys.stderr)
        return 2
    print(f"refgraph {__version__} demo: referent graphs of {len(files)} bundled contexts "
          f"({args.mode} mode)\n")
    for path in files:
        text = read_text(str(path))
        G = build_graph(text, mode=args.mode)
        print(f"== {path.name}: {len(text.split())} words, {G.number_of_nodes()} nodes, "
              f"{G.number_of_edges()} edges")
        for line in _highlights(G, text):
            print(f"   {line}")
        print()
    rewrites = sorted((folder / "rewrites").glob("*--*--*.md"))
    if rewrites:
        print(f"Checking {len(rewrites)} bundled rewrites (examples/rewrites/):\n")
    for path in rewrites:
        base, intent, _ = path.stem.split("--", 2)
        source = folder / f"{base}.md"
        if intent not in INTENTS or not source.exists():
            print(f"refgraph: error: {path.name}: names no bundled context and intent",
                  file=sys.stderr)
            return 2
        report = analyze(read_text(str(source)), read_text(str(path)), intent=intent,
                         mode=args.mode)
        print(f"== {source.name} -> {path.name} (intent {intent}): {report.verdict}")
        text = report.format_text(before_name=f"examples/{source.name}",
                                  after_name=f"examples/rewrites/{path.name}")
        for line in text.splitlines()[:-1]:
            print(f"   {line}")
        print()
    return _demo_patches(folder / "patches", args.mode)


def _demo_patches(folder: Path, mode: Mode) -> int:
    """The guarded apply on bundled stale patches: each ``<context>--<intent>--<what>.diff`` was
    authored against ``<context>.base.md``; ``<context>.edits.json`` holds the edits recorded
    since, which made ``<context>.live.md``."""
    from .analyze import Analyzer, analyze
    from .buffer import ContextBuffer
    from .gate import Gate, GateRejected
    from .merge import three_way_apply
    from .patch import Patch

    patches = sorted(folder.glob("*--*--*.diff"))
    if patches:
        print(f"Applying {len(patches)} bundled stale patches (examples/patches/):\n")
    analyzer = Analyzer(mode)  # one parse cache for every patch's gate
    for path in patches:
        context, intent, _ = path.stem.split("--", 2)
        base_path, live_path = folder / f"{context}.base.md", folder / f"{context}.live.md"
        edits_path = folder / f"{context}.edits.json"
        if intent not in INTENTS or not (base_path.exists() and live_path.exists()
                                         and edits_path.exists()):
            print(f"refgraph: error: {path.name}: names no bundled context and intent",
                  file=sys.stderr)
            return 2
        base, live, diff = (read_text(str(p)) for p in (base_path, live_path, path))
        buffer = ContextBuffer(base)
        shown = buffer.snapshot()
        for start, end, lines in json.loads(read_text(str(edits_path)))["edits"]:
            buffer.edit(start, end, lines)
        recorded = buffer.revision - shown.revision
        print(f"== {path.name} (intent {intent}), authored against r{shown.revision}, "
              f"live is r{buffer.revision}")
        try:
            done = Gate(buffer, analyzer=analyzer).submit(
                Patch.from_unified_diff(diff, base=shown.sha256, intent=intent))
            print(f"   ContextBuffer + Gate: rebased through {recorded} recorded edits, "
                  f"analyzed, committed r{done.revision} ({done.report.verdict})")
        except GateRejected as exc:
            print(f"   ContextBuffer + Gate: rejected, nothing written: {', '.join(exc.codes)}")
            for line in exc.report.format_text(before_name=f"r{buffer.revision}",
                                               after_name="candidate").splitlines()[:-1]:
                print(f"     {line}")
        except RewriteRejected as exc:
            print(f"   ContextBuffer: rejected, nothing written: {exc}")
        try:
            merged = three_way_apply(base, live, diff)
            verdict = analyze(live, merged, intent=intent, mode=mode)
            codes = f" ({', '.join(verdict.codes)})" if verdict.codes else ""
            print(f"   file form (refgraph apply, no history): merged; with --check: "
                  f"{verdict.verdict}{codes}")
        except RewriteRejected as exc:
            print(f"   file form (refgraph apply, no history): refused: {exc}")
        print()
    return 0


def _highlights(G: RefGraph, text: str) -> list[str]:
    """What a reviewer would look at first: constraints, bare numbers, unresolved references."""
    from .model import NodeKind

    _position = _Lines(text)
    out: list[str] = []
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for _, d in G.nodes(data=True):
        by_kind.setdefault(d["kind"], []).append(d)
    for d in sorted(by_kind.get(NodeKind.CONSTRAINT, []), key=lambda d: d["start"])[:4]:
        out.append(f"constraint  {_position(d['start']):>6}  {d['constraint_kind']:<12} "
                   f"{_short(d['text'])!r} governs: {d.get('target', '?')}")
    for d in sorted(by_kind.get(NodeKind.QUANTITY, []), key=lambda d: d["start"])[:4]:
        unit = d.get("unit", "(no unit)")
        out.append(f"quantity    {_position(d['start']):>6}  {_short(d['text'])!r} -> "
                   f"{d['bound']} {d['magnitude']:g} {unit}"
                   + (f" measures {d['measured']}" if "measured" in d else ""))
    for d in sorted(by_kind.get(NodeKind.DEICTIC, []), key=lambda d: d["start"]):
        if not d.get("resolved", True):
            out.append(f"reference   {_position(d['start']):>6}  {_short(d['text'])!r} "
                       "has no antecedent in this text")
    counts = Counter(d["kind"] for _, d in G.nodes(data=True))
    out.append("kinds: " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)))
    return out


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
