# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# pip byte-compiles every file it installs (torch alone: 28 of its 35 s). Python compiles the modules
# it imports on first use and keeps them in __pycache__, so pip need not, unless PYTHONDONTWRITEBYTECODE
# is set: then nothing would be kept, and every process would compile all its imports again.
PIP_INSTALL := $(PIP) install -q $(if $(PYTHONDONTWRITEBYTECODE),,--no-compile)
# torch: take the CPU build (a plain `torch` pulls a multi-GB CUDA build).
TORCH  ?= torch==2.13.0
ENFACE_DATA_DIR ?= instance
PORT   ?= 8000
export ENFACE_DATA_DIR

.PHONY: venv install check-ter test lint demo demo-cli bench clean fuzz faults races access-matrix load docs screenshots wheel-smoke

# setup.py builds the compiled TER (scoring/metrics/_ter.c) and n-gram counts (_ngrams.c); a change reinstalls.
$(VENV)/.installed: pyproject.toml setup.py scoring/metrics/_ter.c scoring/metrics/_ngrams.c
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP_INSTALL) "$(TORCH)"
	$(PIP_INSTALL) -e ".[test]"
	# irrCAC, the reference for Gwet's AC1/AC2 the humaneval tests compare with: its release pins
	# scipy==1.12 and pandas<3, which would downgrade both, so it comes without its dependencies.
	$(PIP_INSTALL) --no-deps "irrCAC==0.4.4"
	# subset2evaluate (humaneval.selection): its dependencies datasets and sentence-transformers would
	# move transformers to 5.x and huggingface-hub past 1.0, which unbabel-comet 2.2.7 forbids; the
	# methods used (metric_var, metric_cons, metric_avg, random) need only numpy and scipy.
	$(PIP_INSTALL) --no-deps "subset2evaluate==1.0.27"
	touch $@

venv install: $(VENV)/.installed

# Fails loudly when the compiled TER (setup.py, optional for pip) did not build: .ci/run runs it.
check-ter: $(VENV)/.installed
	@$(PY) -c "import scoring.metrics._ter" 2>/dev/null || { echo "make check-ter: the compiled TER \
	(scoring/metrics/_ter.c) did not build; install a C compiler and the Python headers (gcc python3-dev), \
	then: rm $(VENV)/.installed && make install" >&2; exit 1; }
	@echo "compiled TER: $$($(PY) -c 'import scoring.metrics._ter as t; print(t.__file__)')"
	@$(PY) -c "import scoring.metrics._ngrams" 2>/dev/null || { echo "make check-ter: the compiled n-gram counts \
	(scoring/metrics/_ngrams.c) did not build; install a C compiler and the Python headers (gcc python3-dev), \
	then: rm $(VENV)/.installed && make install" >&2; exit 1; }
	@echo "compiled n-grams: $$($(PY) -c 'import scoring.metrics._ngrams as t; print(t.__file__)')"

test: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(PY) -m ruff check .

# Migrates a SQLite database under $(ENFACE_DATA_DIR), imports the demo task, creates demo
# users, submits the demo systems the way a team does, and serves on 127.0.0.1:$(PORT).
demo: $(VENV)/.installed
	$(VENV)/bin/enface demo --host 127.0.0.1 --port $(PORT)

# The scoring library alone, on the command line.
demo-cli: $(VENV)/.installed
	-$(PY) -m scoring validate data/demo/testset data/demo/systems/broken-mt
	$(PY) -m scoring score data/demo/testset data/demo/systems/strong-mt data/demo/systems/literal-mt \
	    data/demo/systems/weak-mt -m bleu chrf ter dbleu --paired-bs

# The wheel outside the checkout: build, twine check, install into a fresh venv, demo, crawl every page.
wheel-smoke: $(VENV)/.installed
	.ci/wheel-smoke $(PY)

bench: $(VENV)/.installed
	$(PY) bench/scoring.py

# Hardening (issue 11; README "Proven under attack, load and faults").
# ENFACE_FUZZ_EXAMPLES inputs per fuzz target; 900 makes more than 10,000 in all (the run prints the count).
FUZZ_TESTS := tests/platform/fuzz tests/protocols/reader/test_reader_fuzz.py tests/scoring/test_validate_fuzz.py
fuzz: $(VENV)/.installed
	ENFACE_FUZZ_EXAMPLES=$${ENFACE_FUZZ_EXAMPLES:-900} $(PY) -m pytest -q $(FUZZ_TESTS)

faults: $(VENV)/.installed
	$(PY) bench/faults.py

races: $(VENV)/.installed
	$(PY) -m pytest -q tests/platform/submissions/test_concurrency.py

access-matrix: $(VENV)/.installed
	$(PY) -m pytest -q tests/platform/security/test_access_matrix.py

load: $(VENV)/.installed
	$(PY) bench/load.py --users 200 --seconds 60

# The manual (docs/, Sphinx + MyST): every warning is an error. Its screenshots are the real-browser
# tests' artefacts (tests/artifacts/); the tests that take them run first when one is missing.
SCREENSHOT_TESTS := tests/platform/browser/test_e2e.py tests/protocols/mqm/test_browser.py
DOCS_SHOTS := $(shell $(PYTHON) -c "import ast, pathlib; t = ast.parse(pathlib.Path('docs/conf.py').read_text()); \
	print(' '.join(n for a in t.body if isinstance(a, ast.Assign) and getattr(a.targets[0], 'id', '') == 'SCREENSHOTS' \
	for n in ast.literal_eval(a.value)))")
# The docs extra's packages only: reinstalling the checkout itself would compile its C extensions again.
$(VENV)/.docs: $(VENV)/.installed pyproject.toml
	$(PIP_INSTALL) $$($(PY) -c "import tomllib; print(' '.join(r.replace(' ', '') for r in \
	    tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs']))")
	touch $@

screenshots: $(VENV)/.installed
	$(PY) -m pytest -q -p no:cacheprovider $(SCREENSHOT_TESTS)

docs: $(VENV)/.docs
	@for shot in $(DOCS_SHOTS); do test -f tests/artifacts/$$shot || { $(MAKE) screenshots; break; }; done
	$(PY) -m sphinx -W --keep-going -q -j auto -b html docs docs/_build/html
	@echo "the manual: docs/_build/html/index.html"

clean:
	rm -rf $(VENV) .pytest_cache docs/_build docs/_screenshots docs/reference/_generated
