# The two commands of the README: `make bench` and `make test`. Everything else is set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The Swift toolchain lives outside the default PATH on some machines.
SWIFT_BIN := $(firstword $(wildcard /opt/swift/usr/bin) $(dir $(shell command -v swift 2>/dev/null)))
export PATH := $(if $(SWIFT_BIN),$(SWIFT_BIN):,)$(PATH)
# Bytecode and pytest's rewritten test modules are cached (in the ignored __pycache__ folders): with
# PYTHONDONTWRITEBYTECODE, which some images set, every pytest process and worker compiled and
# rewrote them again, 1.3 s of each process's 3.4 s of collection here.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup browser services build bench test test-fast lint mutate check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# The headless Chromium the HTML page's browser test drives: Debian's chromium and chromium-driver,
# installed here where missing and we are root (else the test says what to install); never by a test.
BROWSER_PACKAGES := chromium chromium-driver
browser:
	@if command -v chromedriver >/dev/null && { command -v chromium || command -v chromium-browser || command -v google-chrome; } >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null || { apt-get update -qq && apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; } || echo "could not install $(BROWSER_PACKAGES): the browser test will say so"; \
	else echo "chromium/chromedriver missing: as root, apt-get install $(BROWSER_PACKAGES)"; fi

# The real services the store's and the Slurm engine's tests start by themselves (PostgreSQL; munge and a
# one-node slurmctld/slurmd): Debian's packages, installed here where missing and we are root (else the
# tests say what to install); never by a test. The tests start and stop each service in a temporary folder.
services:
	@missing=""; \
	  [ -n "$$(ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null)" ] || missing="$$missing postgresql"; \
	  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null || missing="$$missing slurm-wlm"; \
	  command -v munged >/dev/null || missing="$$missing munge"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq $$missing >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $$missing >/dev/null 2>&1; } || echo "could not install$$missing: their tests will say so"; \
	else echo "missing:$$missing: as root, apt-get install$$missing"; fi

build: setup
	$(BIN)/concbench build

# Toolchains from Debian's packages where we are root (else it prints the command), then builds
# (a language that fails to build is left out), then the quick suite on every available variant,
# faithful shapes only, three processes per point in shuffled rounds, the machine probe judging each run:
# within 10 minutes on 2 cores with the builds made (README); `--all-shapes` for more. It ends by writing the session's HTML report beside
# the database (results/session-N/index.html) and printing its path; `concbench report --open` opens it.
bench: setup
	-$(BIN)/concbench install
	-$(BIN)/concbench build
	$(BIN)/concbench run --size quick --runs 3 --settle 30 --page

# The whole suite is pytest: the harness's own tests, `concbench check` of every installed
# language (protocol, refusals, every shape at test size) and each language's own unit tests. Two
# workers (pytest-xdist) run all but the tests marked serial, which judge timing or the machine's load
# (the probe, explain's diagnoses, stalls and deadlines, a regression found) and run alone afterwards.
test: setup browser services lint
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not serial"
	$(BIN)/python -m pytest -q -m serial

# The edit-run loop: the harness's tests not marked slow (no language's checks, no end-to-end run of
# a second or more), on two workers as in `test`, the serial ones alone afterwards.
test-fast: setup lint
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not slow and not serial"
	$(BIN)/python -m pytest -q -m "serial and not slow"

# Ruff over the harness and its tests, and mypy over the harness (the rules and the strictness chosen in
# pyproject.toml): clean, or the tests do not run.
lint: setup
	$(BIN)/ruff check concbench tests
	$(BIN)/mypy

# Mutation testing of the modules that judge (verify, protocol, regression, stats' comparisons) against
# their fast tests, with mutmut (the `mutate` extra, installed here if missing): each module's score;
# exit 1 naming every surviving mutant not listed in tests/mutation-equivalents.txt. Not part of `test`.
mutate: setup
	@$(BIN)/python -c "import mutmut" 2>/dev/null || $(BIN)/pip install -q -e '.[mutate]'
	$(BIN)/python tests/mutate.py

# The conformance check alone, for every installed language.
check: setup
	$(BIN)/concbench check

clean:
	rm -rf $(VENV) build impls/swift/.build
