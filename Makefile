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

.PHONY: setup configure build demo test test-full unit golden python differential emulated libcxx \
	format-check typecheck asan fuzz bench bench-peers install clean docs docs-site docs-test scaleout \
	wheel-test

setup:
	@scripts/setup.sh

PYTHON_FLAGS = -DTACK_PYTHON=ON -DPython_EXECUTABLE=$(CURDIR)/.venv/bin/python

configure: setup
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja $(PYTHON_FLAGS) $(CMAKE_FLAGS)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Only what the demo runs (tackc and the Python extension): the test binaries build in `make test`.
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target tackc _tack
	@scripts/demo.sh $(BUILD)

format-check: setup
	@scripts/format.sh --check

# Tests use a cache directory of their own so they neither read nor fill the user's cache.
unit: build
	@rm -rf $(BUILD)/test-cache
	@cd $(BUILD) && TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache ctest --output-on-failure -j $(JOBS) -L unit

python: build
	@TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache scripts/python_test.sh $(BUILD)

# Random programs on every available backend against a serial Python reference: a fixed sample
# (the first 500 seeds' programs, 30 negative controls per mutated oracle) in `make test`, which
# must fit in 40 minutes on a 2-core machine; `make test-full` runs 2,000 and 100.
DIFF_PROGRAMS ?= 500
SELF_CHECK_BATCHES ?= 3
differential: build
	@TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache SELF_CHECK_BATCHES=$(SELF_CHECK_BATCHES) \
		scripts/differential.sh $(DIFF_PROGRAMS) 1 $(BUILD)

# The CUDA and HIP backends end to end on the emulated devices (tests/emulated): the Python cases
# parametrized over backends and random programs on each; their gtests run in `unit`.
# `make test-full` runs 2,000 programs each.
EMULATED_PROGRAMS ?= 400
emulated: build
	@TACK_CACHE_DIR=$(CURDIR)/$(BUILD)/test-cache scripts/emulated_test.sh $(BUILD) $(EMULATED_PROGRAMS)

# The core, tackc and the Python extension built with clang and libc++ (macOS's toolchain), no
# LLVM, warnings as errors; the extension runs a kernel on the emulated Metal device.
LIBCXX_BUILD ?= build-libcxx
libcxx: build
	@scripts/libcxx_build.sh $(LIBCXX_BUILD) $(BUILD)

# The examples under mypy --strict and pyright's strict mode (pyproject.toml), against the
# package's stubs as a user's IDE reads them; neither needs the build. Joins make test once the
# examples are annotated (issue 24).
typecheck: setup
	@.venv/bin/mypy
	@.venv/bin/basedpyright

golden: build
	@scripts/golden.sh $(BUILD)/tools/tackc/tackc

# allocator_may_return_null: the shape-limit tests ask for terabytes and expect bad_alloc, which
# ASan would otherwise turn into an abort. One retry: LeakSanitizer's exit-time tracer has been
# seen to crash (signal 11 in the tracer itself) in processes that ran PoCL's threads.
asan: setup
	@[ -f $(ASAN_BUILD)/build.ninja ] || cmake -S . -B $(ASAN_BUILD) -G Ninja -DTACK_SANITIZE=ON $(CMAKE_FLAGS)
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@rm -rf $(ASAN_BUILD)/test-cache
	@cd $(ASAN_BUILD) && TACK_CACHE_DIR=$(CURDIR)/$(ASAN_BUILD)/test-cache ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --output-on-failure -j $(JOBS) -L unit --repeat until-pass:2

fuzz: setup
	@scripts/fuzz.sh $(FUZZ_BUILD) 60

# The documentation: the site (build/site, warnings are errors; the capability and environment
# tables are generated from this build) and every code block of docs/ run and compared.
docs: docs-site docs-test

docs-site: build
	@NO_MKDOCS_2_WARNING=1 TACKC=$(CURDIR)/$(BUILD)/tools/tackc/tackc .venv-docs/bin/mkdocs build --strict -q

docs-test: build
	@rm -rf $(BUILD)/docs-prefix && cmake --install $(BUILD) --prefix $(BUILD)/docs-prefix >/dev/null
	@.venv-docs/bin/python tests/docs/run_blocks.py --python .venv-docs/bin/python --build $(BUILD) --prefix $(CURDIR)/$(BUILD)/docs-prefix

# MPI examples (1 and 2 ranks, Python and C++, bit-identical) and the 8-process cache race.
scaleout: build
	@scripts/scaleout_test.sh $(BUILD)

# Not part of `make test` (a static-LLVM Release build of the extension takes long here):
# builds the wheel, installs it into a fresh venv, checks it links no LLVM or vendor runtime.
wheel-test: setup
	@scripts/wheel_test.sh

test: format-check build unit golden python differential emulated docs scaleout asan fuzz libcxx
	@echo "make test: all checks passed"

# Everything `make test` runs, with the random-program tester's full counts on every backend.
# And the wheel: pip install . into a fresh venv, the self-contained wheel (make wheel-test).
test-full:
	@$(MAKE) test EMULATED_PROGRAMS=2000 DIFF_PROGRAMS=2000 SELF_CHECK_BATCHES=10
	@$(MAKE) wheel-test

bench: build
	@scripts/bench.sh $(BUILD)

# The same kernels in Numba, Warp and Quadrants next to ours (benchmarks/peers.py). The peers go
# into a venv of their own (.venv-peers), never into the package's dependencies.
bench-peers: setup
	@scripts/bench.sh --peers

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
