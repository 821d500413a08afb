# The two commands of the README: `make bench` and `make test`. Everything else is set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The Swift toolchain lives outside the default PATH on some machines.
SWIFT_BIN := $(firstword $(wildcard /opt/swift/usr/bin) $(dir $(shell command -v swift 2>/dev/null)))
export PATH := $(if $(SWIFT_BIN),$(SWIFT_BIN):,)$(PATH)

.PHONY: setup build bench test test-python test-swift clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

build: setup
	$(BIN)/concbench build

# Toolchains from Debian's packages where we are root (else it prints the command), then builds
# (a language that fails to build is left out), then the quick suite on every available variant:
# one process per point keeps it near a quarter of an hour on 2 cores; `concbench run --runs 3` for more.
bench: setup
	-$(BIN)/concbench install
	-$(BIN)/concbench build
	$(BIN)/concbench run --size quick --runs 1

# The Swift package's own tests first, so the closing line is pytest's summary of the whole suite.
test: test-swift test-python

test-python: setup
	$(BIN)/python -m pytest -q

# The Swift package's own kernel tests; skipped with a note where no Swift toolchain is installed.
test-swift:
	@if command -v swift >/dev/null 2>&1; then cd impls/swift && swift test; \
	else echo "swift not found: impls/swift's own tests skipped"; fi

clean:
	rm -rf $(VENV) build impls/swift/.build
