# skirmish: the two commands. Each creates .venv if needed and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,bench,research,openspiel,ray]'
	touch $(STAMP)

## demo: play a mission, store it in SQLite, replay and verify it
demo: $(STAMP)
	$(BIN)/python -m skirmish.server.demo

## test: run the whole test suite, on every core (TEST_WORKERS=0: one test at a time, in one process)
TEST_WORKERS ?= auto
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --durations 15

## bench: run every benchmark in bench/ (prints figures and ratios)
bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
