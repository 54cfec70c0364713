"""Compile refgraph's graph-building hot path with mypyc, into ``refgraph/_native/``.

    python tools/build_native.py [--clean] [--require]

The modules listed in ``refgraph.native.COMPILED`` are compiled as they are (mypyc, part of mypy,
reads their type hints), in a temporary directory; the extension modules then replace
``refgraph/_native/`` as a whole, with a manifest of the sha256 of every source the build was
made from (``refgraph.native.dependencies()``). Run again, it does nothing while that manifest
still matches, so ``make`` calls it every time.

Where nothing can be compiled (no C compiler, no Python headers), it says why, removes a build
that no longer matches its sources, and exits 0: refgraph then runs as pure Python, slower.
``--require`` (or ``REFGRAPH_REQUIRE_NATIVE=1``, which CI sets) makes that an error, exit 1; a
failing compilation always is. ``--clean`` removes the compiled build.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _native() -> ModuleType:
    """refgraph/native.py on its own: importing the package would load the build it replaces."""
    os.environ["REFGRAPH_PURE"] = "1"  # nothing compiled is loaded in this process
    spec = importlib.util.spec_from_file_location("_refgraph_native", ROOT / "refgraph/native.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _missing_toolchain() -> str:
    """Why nothing can be compiled here, or "" when it can."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc!r} is not on PATH)"
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        return f"no Python headers ({include / 'Python.h'} is missing)"
    for needed in ("mypyc", "setuptools"):  # mypyc comes with mypy; both are dev dependencies
        if importlib.util.find_spec(needed) is None:
            return f"{needed} is not installed (pip install -e '.[dev]')"
    return ""


def _staged(native: ModuleType) -> Path:
    return Path(native.BUILD_DIR).with_name("_native.new")


def clean(native: ModuleType) -> int:
    """Remove the compiled build, and any extension module left beside the sources (where an
    earlier layout put them): those would shadow the sources in any checkout."""
    removed = 0
    if native.BUILD_DIR.exists():
        removed += sum(1 for p in native.BUILD_DIR.rglob("*") if p.is_file())
        shutil.rmtree(native.BUILD_DIR)
    legacy = Path(native.PACKAGE_DIR) / "native-build.json"  # the earlier layout's manifest
    if legacy.exists():
        legacy.unlink()
        removed += 1
    staged = _staged(native)
    for path in native.PACKAGE_DIR.rglob("*"):
        if path.is_file() and path.name.endswith((".so", ".pyd")) and \
                staged not in path.parents:
            path.unlink()
            removed += 1
    return removed


_SETUP = """\
import sys
from mypyc.build import mypycify
from setuptools import setup

setup(name="refgraph-native", script_args=["build_ext", "--build-lib", "out"],
      ext_modules=mypycify(sys.argv[1:], opt_level="3", group_name="refgraph.native"))
"""


def build(native: ModuleType) -> None:
    modules = native.dependencies()
    hashes = native.source_hashes(modules)
    # The project's mypy settings (strict; stubs that are missing on purpose), as `make test`.
    args = ["--config-file", str(ROOT / "pyproject.toml"),
            *(str(native.source_path(m)) for m in native.COMPILED)]
    with tempfile.TemporaryDirectory(prefix="refgraph-native-") as tmp:
        # A directory of its own: mypyc writes C and objects under the working directory, and
        # the modules land under out/ by their dotted names.
        (Path(tmp) / "setup_native.py").write_text(_SETUP, "utf-8")
        run = subprocess.run([sys.executable, "setup_native.py", *args], cwd=tmp,
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
            raise SystemExit(f"refgraph: compiling with mypyc failed (exit {run.returncode}); "
                             "the output is above")
        out = Path(tmp) / "out"
        missing = [m for m in (*native.COMPILED, native.GROUP)
                   if native.extension_path(m, out) is None]
        if missing:
            raise SystemExit("refgraph: mypyc built no module for " + ", ".join(missing))
        if native.source_hashes(modules) != hashes:
            raise SystemExit("refgraph: the sources changed while they were compiled; run again")
        (out / "manifest.json").write_text(json.dumps({
            "python": native.python_tag(), "compiled": list(native.COMPILED),
            "sources": hashes, "mypy": _mypy_version()}, indent=1) + "\n", "utf-8")
        # Swap whole directories: a process that has the old build loaded keeps its mapping
        # of the old files; a new one finds a complete build or, for a moment, none.
        staged = _staged(native)
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(out, staged)  # out/ holds the extension modules only
        clean(native)
        os.replace(staged, native.BUILD_DIR)


def _mypy_version() -> str:
    from mypy.version import __version__

    return str(__version__)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled build")
    ap.add_argument("--require", action="store_true",
                    help="fail (exit 1) when nothing can be compiled here")
    args = ap.parse_args(argv)
    native = _native()
    if args.clean:
        print(f"refgraph: removed {clean(native)} compiled files")
        return 0
    if native.build_is_current(native.read_manifest()):
        print("refgraph: the compiled build is up to date", file=sys.stderr)
        return 0
    why = _missing_toolchain()
    if why:
        stale = clean(native)
        print(f"refgraph: not compiling: {why}; the pure-Python build runs (slower)"
              + (f"; removed the out-of-date build ({stale} files)" if stale else ""),
              file=sys.stderr)
        required = args.require or native.env_flag("REFGRAPH_REQUIRE_NATIVE")
        return 1 if required else 0
    t0 = time.perf_counter()
    print(f"refgraph: compiling {len(native.COMPILED)} modules with mypyc (one to five minutes)...",
          file=sys.stderr)
    build(native)
    print(f"refgraph: compiled build ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
