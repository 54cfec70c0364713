"""Compile refgraph's graph-building hot path with mypyc into extension modules in the package.

    python tools/build_native.py [--clean] [--require]

The modules listed in ``refgraph.native.COMPILED`` are compiled as they are (mypyc, part of mypy,
reads their type hints), in a temporary directory; the extension modules are then moved beside
their sources and ``refgraph/native-build.json`` records the sources' hashes, so a later edit
makes ``refgraph`` fall back to the sources until this is run again (see ``refgraph.native``).

Without a C compiler or Python's headers this prints why and exits 0: refgraph then runs as
pure Python, only slower. ``--require`` makes that an error (exit 1), as does any failure of
the compilation itself. ``--clean`` removes a compiled build.
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


def clean(native: ModuleType) -> int:
    removed = 0
    for module in (*native.COMPILED, native.GROUP):
        for path in native.extension_files(module):
            path.unlink()
            removed += 1
    native.MANIFEST.unlink(missing_ok=True)
    return removed


_SETUP = """\
import sys
from mypyc.build import mypycify
from setuptools import setup

setup(name="refgraph-native", script_args=["build_ext", "--build-lib", "out"],
      ext_modules=mypycify(sys.argv[1:], opt_level="3", group_name="refgraph.native"))
"""


def build(native: ModuleType) -> None:
    # The project's mypy settings (strict; stubs that are missing on purpose), as `make test`.
    sources = ["--config-file", str(ROOT / "pyproject.toml"),
               *(str(native.source_path(m)) for m in native.COMPILED)]
    hashes = native.source_hashes()
    with tempfile.TemporaryDirectory(prefix="refgraph-native-") as tmp:
        # A directory of its own: mypyc writes C and objects under the working directory, and
        # the modules land under out/ by their dotted names.
        (Path(tmp) / "setup_native.py").write_text(_SETUP, "utf-8")
        run = subprocess.run([sys.executable, "setup_native.py", *sources], cwd=tmp,
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
            raise SystemExit(f"refgraph: compiling with mypyc failed (exit {run.returncode}); "
                             "the output is above")
        out = Path(tmp) / "out"
        built = {m: sorted((out / native.source_path(m).relative_to(ROOT)).parent.glob(
            native.source_path(m).stem + ".*.so")) for m in (*native.COMPILED, native.GROUP)}
        if not all(built.values()):
            raise SystemExit("refgraph: mypyc built no module for " +
                             ", ".join(m for m, paths in built.items() if not paths))
        clean(native)  # no stale module of another Python version is left beside new ones
        for module, paths in built.items():
            for path in paths:
                target = native.source_path(module).parent / path.name
                # Copy, then rename over: a process that has the old build loaded keeps its
                # mapping of the old file instead of reading a half-written one.
                part = target.with_name(target.name + ".part")
                shutil.copyfile(path, part)
                os.replace(part, target)
    if native.source_hashes() != hashes:
        clean(native)
        raise SystemExit("refgraph: the sources changed while they were compiled; run again")
    native.MANIFEST.write_text(json.dumps({
        "python": native.python_tag(), "sources": hashes,
        "mypy": _mypy_version()}, indent=1) + "\n", "utf-8")


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
    why = _missing_toolchain()
    if why:
        print(f"refgraph: not compiling: {why}; the pure-Python build runs (slower)",
              file=sys.stderr)
        return 1 if args.require else 0
    t0 = time.perf_counter()
    print(f"refgraph: compiling {len(native.COMPILED)} modules with mypyc (about a minute)...",
          file=sys.stderr)
    build(native)
    print(f"refgraph: compiled build ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
