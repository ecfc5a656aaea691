# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test install lint docs bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU wheel of torch must come first: anything that pulls torch otherwise resolves a CUDA build.
	@echo "== installing torch 2.13.0 (the CPU build)"
	$(BIN)/python -m pip install --progress-bar on torch==2.13.0
	@echo "== installing skillopt-sleep and its dependencies"
	$(BIN)/python -m pip install --progress-bar on -e '.[dev,cluster,multilingual]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/skillopt-sleep prove --persona researcher --assert-improves --full --keep demo-output
	@echo
	@echo "Next:"
	@echo "  open the report above in a browser; demo-output/LAYOUT.txt says what is where"
	@echo "  install for daily use: see README.md, 'Install for daily use' (CPU torch first)"
	@echo "  plan a night on your own history:  $(BIN)/skillopt-sleep run --dry-run"
	@echo "  then:  skillopt-sleep run, skillopt-sleep report --open, skillopt-sleep adopt"

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check skillopt_sleep tests experiments
	$(BIN)/mypy

docs: $(STAMP)
	$(BIN)/python -m skillopt_sleep.cli.reference docs/reference
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV)
