# Two commands do everything on a fresh machine (see README.md):
#   make demo   install what is missing, build, run an example
#   make test   the same, then every test
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# ccache hits across clones (CI builds a fresh clone): paths relative to the checkout.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
export CCACHE_MAXSIZE := 5G

.PHONY: setup configure build demo test unit golden python differential format-check asan fuzz bench install clean

setup:
	@scripts/setup.sh

PYTHON_FLAGS = -DTACK_PYTHON=ON -DPython_EXECUTABLE=$(CURDIR)/.venv/bin/python

configure: setup
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja $(PYTHON_FLAGS) $(CMAKE_FLAGS)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

format-check: setup
	@scripts/format.sh --check

# Tests use a cache directory of their own so they neither read nor fill the user's cache.
unit: build
	@rm -rf $(BUILD)/test-cache
	@cd $(BUILD) && TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache ctest --output-on-failure -j $(JOBS) -L unit

python: build
	@TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache scripts/python_test.sh $(BUILD)

golden: build
	@scripts/golden.sh $(BUILD)/tools/tackc/tackc

# 2,000 random programs on every available backend against their serial references.
differential: build
	@TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache scripts/differential.sh 2000 1 $(BUILD)

asan: setup
	@[ -f $(ASAN_BUILD)/build.ninja ] || cmake -S . -B $(ASAN_BUILD) -G Ninja -DTACK_SANITIZE=ON $(CMAKE_FLAGS)
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@rm -rf $(ASAN_BUILD)/test-cache
	@cd $(ASAN_BUILD) && TACK_CACHE_DIR=$(CURDIR)/$(ASAN_BUILD)/test-cache ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -L unit

fuzz: setup
	@scripts/fuzz.sh $(FUZZ_BUILD) 60

test: format-check build unit golden python differential asan fuzz
	@echo "make test: all checks passed"

bench: build
	@scripts/bench.sh $(BUILD)

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
