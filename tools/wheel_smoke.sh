#!/usr/bin/env bash
# The wheel a user gets: build it, install it in a fresh venv (no checkout, no trained English
# pipeline), and run `refgraph demo` and `refgraph check` from it. Accurate mode, the default,
# must fall back to fast with one warning, never exit 2.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "wheel smoke: building the wheel"
"$PY" -m pip wheel -q --disable-pip-version-check --no-deps -w "$work/dist" .
echo "wheel smoke: installing it in a fresh venv (its dependencies come from the index)"
"$PY" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$work"/dist/refgraph-*.whl
cd "$work"  # away from the checkout: only what the wheel holds
unset REFGRAPH_REQUIRE_ACCURATE
"$work/venv/bin/refgraph" demo > demo.txt 2> demo.err
grep -q "refgraph: warning: accurate mode needs" demo.err
grep -q "RG201" demo.txt
printf 'The request timeout is 30 seconds.\n' > before.txt
printf 'The request timeout is 30.\n' > after.txt
rc=0
"$work/venv/bin/refgraph" check before.txt after.txt --format github > check.txt 2> check.err || rc=$?
test "$rc" -eq 1 || { echo "wheel smoke: check exited $rc, not 1"; cat check.err; exit 1; }
grep -q "^::error file=after.txt,line=1" check.txt
test "$(wc -l < check.err)" -eq 1  # the one fallback warning
"$work/venv/bin/python" -c "import refgraph, pathlib; \
assert (pathlib.Path(refgraph.__file__).parent / 'py.typed').is_file()"
echo "wheel smoke: demo and check work from the wheel"
