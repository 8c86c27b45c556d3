# cordon — build wrapper around meson/ninja. See README.md.
BUILD ?= build
ASAN ?= build-asan
SEATBELT ?= build-seatbelt
WINDOWS ?= build-windows
DEB ?= build-deb
MUSL_JANSSON ?= $(CURDIR)/build-jansson-musl
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60
RUNS ?=

.PHONY: all deps asan check check-fast check-kernels check-seatbelt windows check-windows soak demo install deb bench bench-startup lint fuzz clean

all: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@scripts/deps.sh build

# The static CLI is linked with musl when jansson could be built for it
# (from Debian's source package; meson.build says why), else with glibc.
$(BUILD)/build.ninja:
	scripts/jansson-source.sh musl $(MUSL_JANSSON) || echo "cordon: no jansson for musl: the CLI is linked with glibc" >&2
	meson setup $(BUILD) --prefix=$(PREFIX) -Dmusl_jansson=$(MUSL_JANSSON)

$(ASAN)/build.ninja:
	meson setup $(ASAN) -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug

asan: deps $(ASAN)/build.ninja
	ninja -C $(ASAN)

# Every test, in the normal build as root and as an unprivileged user, again
# under ASan+UBSan (each integration suite once, root and user by turns), then the seatbelt backend's run path with its
# stand-in; first the short kernel subset (Debian 12's 6.1 under qemu,
# tests/escape/kernel-fallbacks.sh: some 2 minutes; the whole matrix is
# make check-kernels). Ends with "N passed, N failed".
check: all asan check-seatbelt windows
	@scripts/deps.sh test
	@scripts/deps.sh wine
	@scripts/deps.sh kernels
	@k=0; if [ "$$(id -u)" -eq 0 ]; then KERNELS=6.1 KERNEL_SUITES=kernel-fallbacks scripts/check-kernels.sh $(BUILD) || k=1; \
	else echo "cordon: the kernel subset (scripts/check-kernels.sh) needs root: not run"; [ "$${CI:-}" != true ] || k=1; fi; \
	tests/run-tests $(BUILD) $(ASAN) && [ $$k -eq 0 ]

# The seatbelt backend's run path on Linux: a build without the linux
# backend (the core and seatbelt sources compiled with POSIX interfaces
# only) whose sandbox-exec is a test stand-in (it does NOT isolate; never
# install that build), and the tests that apply to it.
$(SEATBELT)/build.ninja:
	meson setup $(SEATBELT) -Dlinux_backend=false -Dseatbelt_standin=true

check-seatbelt: deps $(SEATBELT)/build.ninja
	ninja -C $(SEATBELT)
	ONLY="seatbelt test-net test-config test-env test-plan test-util test-cli-args test-fuzz" tests/run-tests $(SEATBELT)

# The Windows build: cordon.exe and the library cross-built with Debian's
# mingw-w64, jansson built for Windows from Debian's source package.
windows:
	@scripts/deps.sh windows
	scripts/jansson-source.sh mingw $(CURDIR)/$(WINDOWS)/jansson
	printf "[properties]\npkg_config_libdir = '%s'\n" $(CURDIR)/$(WINDOWS)/jansson/lib/pkgconfig >$(WINDOWS)/jansson.ini
	[ -f $(WINDOWS)/build.ninja ] || meson setup $(WINDOWS) --cross-file cross/mingw-w64.ini --cross-file $(WINDOWS)/jansson.ini
	ninja -C $(WINDOWS)

# Its tests under Wine (tests/integration/windows.sh), as root and as an
# unprivileged user.
check-windows: all windows
	@scripts/deps.sh wine
	ONLY=windows tests/run-tests $(BUILD)

# Debian's kernels (6.1, 6.12; 5.10 where apt reaches it) booted under qemu
# without KVM, the host's root read-only over 9p: cordon check and
# KERNEL_SUITES (scripts/check-kernels.sh; docs/testing.md), as root and
# as an unprivileged user.
check-kernels: all
	@scripts/deps.sh kernels
	scripts/check-kernels.sh $(BUILD)

# Only the normal build (quicker while developing).
check-fast: all windows
	@scripts/deps.sh test
	@scripts/deps.sh wine
	tests/run-tests $(BUILD)

# The lifecycle fault-injection test (tests/integration/lifecycle.sh) with
# many more launches: ITERATIONS per pass (default 5000), as root and as an
# unprivileged user. A race that leaks once in 1000 launches shows with a
# probability of 99%.
soak: all
	@scripts/deps.sh test
	LIFECYCLE_ITERATIONS=$${ITERATIONS:-5000} ONLY=lifecycle tests/run-tests $(BUILD)

demo: all
	@scripts/demo.sh $(BUILD)/cordon

install: all
	meson configure $(BUILD) -Dprefix=$(PREFIX) >/dev/null
	ninja -C $(BUILD)
	meson install -C $(BUILD)
	@cat $(BUILD)/apparmor-install.log 2>/dev/null || true

# The Debian packages (debian/): cordon, libcordon0, libcordon-dev, built
# with debhelper from a copy of the source in $(DEB)/src, then lintian.
deb:
	@scripts/deps.sh deb
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make deb: needs a git checkout (it packages the files git knows)" >&2; exit 125; }
	rm -rf $(DEB) && mkdir -p $(DEB)/src
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		xargs -0 cp -P --parents -t $(DEB)/src
	cd $(DEB)/src && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc --no-sign >../dpkg-buildpackage.log 2>&1 || \
		{ tail -40 ../dpkg-buildpackage.log; exit 1; }
	lintian --fail-on error $(DEB)/*.changes
	@ls $(DEB)/*.deb

bench: all
	@scripts/deps.sh bench
	bench/run-all $(CURDIR)/$(BUILD)/cordon

# make bench also measures the previous round's build (bench/baseline builds
# bench/BASELINE, or BASELINE_REF=..., in build-baseline/; BASELINE_CORDON=PATH
# names a built one; BASELINE=0 leaves it out).
# What CI runs: the start-up benchmark completes (RUNS=5 by default here;
# without the baseline unless BASELINE=1 or BASELINE_REF / BASELINE_CORDON).
bench-startup: all
	@scripts/deps.sh bench
	RUNS=$${RUNS:-5} CORDON=$(CURDIR)/$(BUILD)/cordon bench/startup

lint: all windows
	@scripts/deps.sh lint
	scripts/lint.sh $(BUILD)

fuzz: deps
	@scripts/deps.sh lint
	fuzz/run $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN) $(SEATBELT) $(WINDOWS) $(DEB) $(MUSL_JANSSON) build-fuzz
