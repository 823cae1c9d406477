# Each target bootstraps .venv itself: a fresh machine needs nothing but python3.
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-$(shell $(PY) -c "import hashlib,sys;print(hashlib.md5(open('pyproject.toml','rb').read()).hexdigest()[:10])")

.PHONY: report lint test test-fast bench corpus clean

$(VPY):
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip

$(STAMP): $(VPY) pyproject.toml
	$(VPY) -m pip install -q -e ".[test]"
	touch $(STAMP)

report: $(STAMP)
	$(VENV)/bin/imlkit report

# ruff's rules and line length are in pyproject.toml ([tool.ruff]); ruff comes with the test extra.
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench scripts docs

# Lint first: a style or import-order slip fails in seconds, before the minutes of the suite;
# then the suite, then the documentation (about a minute; warnings are errors).
test: lint
	bash scripts/setup_test_env.sh
	$(VPY) -m pytest -q
	$(MAKE) docs

# The inner loop: every test but those marked @pytest.mark.slow (whole reports, many refits);
# `make test` (CI) still runs everything.
test-fast: lint
	bash scripts/setup_test_env.sh
	$(VPY) -m pytest -q -m "not slow"

bench: $(STAMP)
	$(VPY) -m pip install -q -e ".[test,bench]"
	bash bench/run_all.sh

# The corpus of real tables with every report method: outcome and seconds -> bench/results/corpus.md
corpus: $(STAMP)
	$(VPY) bench/corpus.py

# The documentation site -> docs/_build/html; every Sphinx warning is an error.
DOCS_STAMP := $(STAMP)-docs

$(DOCS_STAMP): $(VPY) pyproject.toml
	$(VPY) -m pip install -q -e ".[test,docs]"
	touch $(DOCS_STAMP)

.PHONY: docs
docs: $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf $(VENV) build src/*.egg-info docs/_build docs/api/generated docs/auto_examples
