# SPDX-License-Identifier: GPL-2.0
#
# pmuctx top-level Makefile: builds the kernel module (through kbuild and the
# top-level Kbuild file), the library, the CLI and the test programs, and
# drives the checks.  `make help` lists every target and variable;
# docs/BUILDING.md explains them.
#
# kbuild never reads this file: when it descends into this directory
# (M=$(CURDIR)) it reads ./Kbuild, which takes precedence over Makefile.

SHELL := /bin/bash

# ---------------------------------------------------------------------------
# Kernel selection
#
# KVER: the running kernel if its build tree is installed, else the newest
# installed /lib/modules/*/build that is not PREEMPT_RT, not a cloud
# flavour and not the pmuctx debug kernel (DEBUG_KVER): scripts/kernels
# default.  RT and debug kernels are only used when named (KVER=, make
# check's CHECK_KERNELS, make check-debug).  Computed once, at parse time,
# and printed by the module build; an empty KVER is only an error for
# targets that need a kernel tree.
DEBUG_KVER ?= 6.1.192-pmuctx-debug
ifeq ($(strip $(KVER)),)
override KVER := $(shell DEBUG_KVER='$(DEBUG_KVER)' scripts/kernels default)
KVER_FROM := default: scripts/kernels default; KVER=<release> to choose
else
KVER_FROM := KVER set on the command line or in the environment
endif
# The kernels `make check` boots, one VM suite each (scripts/kernels
# resolve: 6.1, 6.12, 6.12-rt, debug, or installed releases).
CHECK_KERNELS ?= 6.1 6.12 6.12-rt
# the cloud kernels make check boots over virtio-fs on a core subset
# (scripts/check.sh; empty: none; 6.1-cloud works too, see make help)
CHECK_CLOUD ?= 6.12-cloud
# the arm64 kernels make check boots (scripts/check.sh; empty: none)
CHECK_ARM64 ?= 6.12 6.1
# 1: make check boots the newest sid kernel (scripts/check-sid.sh; empty: no)
CHECK_SID ?= 1
# 1: make check and make check-debug run the whole VM suite on every
# kernel, not the subsets of tests/vm/subsets (docs/TESTING.md, "CI")
CHECK_FULL ?=
export CHECK_FULL
# 1: make check runs the arm64 lane (packages-arm64, the arm64 kernels)
# beside the host steps; 0: after the x86-64 kernels (scripts/check.sh)
CHECK_ARM64_BESIDE ?= 1
export CHECK_ARM64_BESIDE
KDIR ?= /lib/modules/$(KVER)/build

# ---------------------------------------------------------------------------
# Build and install variables (passed down to the sub-makefiles)

# WERROR=1: warnings fail the build (module: KCFLAGS=-Werror plus any
# "warning:" line kbuild prints, e.g. kernel-doc or modpost).  Default on in
# CI (CI=true) and always on for the `all` step of `make check`.
ifneq ($(filter 1 true yes,$(CI)),)
WERROR ?= 1
else
WERROR ?= 0
endif
PREFIX ?= /usr/local
DESTDIR ?=
ifeq ($(PREFIX),/usr)
UDEVDIR ?= /lib/udev
else
UDEVDIR ?= $(PREFIX)/lib/udev
endif

# Manual pages (man/) go to $(PREFIX)/share/man, the bash completion to
# $(BASHCOMPDIR) (bash-completion also reads /usr/local/share/...).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# The main job `make demo` runs in the VM after `tools/pmuctx info`.
DEMO_CMD ?= tools/pmuctx stat -- tests/progs/burn --fork-tree 2,3 --ms 50

# Directories (besides the top level) where kbuild leaves module build
# products; clean-module removes those and nothing else.
MODULE_DIRS ?= module

# The debug build of the module (PMUCTX_DEBUG=1: the SELFTEST backend, the
# selftest_* test hooks, ring_bench; docs/BUILDING.md), for the tests and
# the benchmarks only, never installed.  Same module name (pmuctx), so it
# is built in a tree of its own: $(DEBUG_MODULE_DIR) holds symbolic links
# to Kbuild, include/ and each file of module/, and kbuild's products.
# make module-debug leaves $(DEBUG_MODULE_DIR)/module/pmuctx.ko.
DEBUG_MODULE_DIR ?= $(CURDIR)/module-debug
ifeq ($(origin PMUCTX_DEBUG),command line)
$(error pmuctx: PMUCTX_DEBUG is for kbuild (module/Kbuild); here, make module builds the release module and make module-debug the debug one, in $(DEBUG_MODULE_DIR))
endif

SUBMAKE_VARS = WERROR="$(WERROR)" CC="$(CC)" PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)"
KBUILD = $(MAKE) -C "$(KDIR)" M="$(CURDIR)"
# The module build, with warnings failing it under WERROR=1; $(1): kbuild
# command line.
define BUILD_MODULE
	@$(NEED_KDIR)
	@echo "  KVER    $(KVER) ($(KVER_FROM))"
	+@set -o pipefail; log=$$(mktemp); \
	$(1) W=1 $(MODULE_KCFLAGS) modules 2>&1 | tee "$$log"; rc=$$?; \
	if [ $$rc -eq 0 ] && [ "$(WERROR)" = 1 ] && \
	   grep -iE '(^|[^[:alnum:]_])warning:' "$$log" | \
	   grep -v 'the compiler differs from the one used to build the kernel' >/dev/null; then \
		echo "pmuctx: the module build printed warnings and WERROR=1" >&2; rc=1; \
	fi; rm -f "$$log"; exit $$rc
endef
MODULE_KCFLAGS = $(if $(filter 1,$(WERROR)),KCFLAGS="$(strip $(KCFLAGS) -Werror)")

# Shell snippet: fail with a clear message when there is no kernel tree.
NEED_KDIR = \
	if [ -z "$(KVER)" ]; then \
		echo "pmuctx: no kernel build tree: neither /lib/modules/$$(uname -r)/build nor any /lib/modules/*/build exists." >&2; \
		echo "pmuctx: install the headers (scripts/setup-deps.sh, or apt-get install linux-headers-amd64) or pass KVER=<release> / KDIR=<dir>." >&2; \
		exit 1; \
	fi; \
	if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "pmuctx: KDIR=$(KDIR) is not a kernel build tree (no Makefile); install linux-headers-$(KVER) or pass KDIR=<dir>." >&2; \
		exit 1; \
	fi

.DEFAULT_GOAL := all

.PHONY: all module module-debug lib tools progs examples clean clean-module install uninstall \
	modules_install check style sparse check-unit check-install \
	check-examples check-man check-uapi-doc check-packages check-dkms-prepare check-vm \
	check-debug check-module-builds demo demo-run help version

# ---------------------------------------------------------------------------
# Build

all: module lib tools progs examples

# W=1 must stay warning-free.  With WERROR=1 the compiler gets -Werror and the
# kbuild output is scanned for any other "warning:" line (kernel-doc, modpost);
# the kernel's own "the compiler differs" notice is not about our code.
# `module` is the release build, the one DKMS and the Debian package build
# (PMUCTX_DEBUG=0 is passed so that nothing can turn it into the debug one).
module:
	$(call BUILD_MODULE,$(KBUILD) PMUCTX_DEBUG=0)

# The debug build (see DEBUG_MODULE_DIR): the links are made again each
# time (a file added to or removed from module/), the objects are kept.
module-debug: debug-tree
	$(call BUILD_MODULE,$(MAKE) -C "$(KDIR)" M="$(DEBUG_MODULE_DIR)" PMUCTX_DEBUG=1)

.PHONY: module-debug debug-tree
debug-tree:
	@mkdir -p "$(DEBUG_MODULE_DIR)/module"
	@ln -sfn "$(CURDIR)/Kbuild" "$(DEBUG_MODULE_DIR)/Kbuild"
	@ln -sfn "$(CURDIR)/include" "$(DEBUG_MODULE_DIR)/include"
	@find "$(DEBUG_MODULE_DIR)/module" -maxdepth 1 -type l -delete
	@for f in module/Kbuild module/*.[ch]; do \
		case $$f in *.mod.c) continue ;; esac; \
		ln -s "$(CURDIR)/$$f" "$(DEBUG_MODULE_DIR)/$$f"; \
	done

lib:
	$(MAKE) -C lib $(SUBMAKE_VARS)

tools: lib
	$(MAKE) -C tools $(SUBMAKE_VARS)

progs: lib
	$(MAKE) -C tests/progs $(SUBMAKE_VARS)
	$(MAKE) -C tests/store $(SUBMAKE_VARS)
	$(MAKE) -C tests/fuzz $(SUBMAKE_VARS)
	$(MAKE) -C tests/faults $(SUBMAKE_VARS)
	$(MAKE) -C tests/ring $(SUBMAKE_VARS)
	$(MAKE) -C tests/sample $(SUBMAKE_VARS)

version:
	@scripts/version.sh

# ---------------------------------------------------------------------------
# arm64 (docs/TESTING.md "The arm64 tier"; scripts/setup-deps.sh --arm64).
# The C Makefiles build in the source tree, so the aarch64 user space is
# built in a copy of the tree's sources (tracked and untracked, not
# ignored: git ls-files), $(ARM64_DIR), never over the x86-64 objects
# here.  The test VM runs the suite from that copy.  The module is built
# against the unpacked Debian arm64 headers (scripts/kernels-arm64) in
# $(ARM64_DIR)/build-<release>/ (release) and .../debug/ (PMUCTX_DEBUG=1).
ARM64_DIR ?= $(CURDIR)/build-arm64
ARM64_CROSS ?= aarch64-linux-gnu-
ARM64_KVER ?= 6.1
ARM64_PKG_CONFIG = PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config

.PHONY: arm64-tree userland-arm64 module-arm64 check-arm64 check-arm64-ci check-sid check-packages-arm64
arm64-tree:
	@mkdir -p "$(ARM64_DIR)"
	@git ls-files -z --cached --others --exclude-standard | \
		grep -zv '^build-arm64/' | \
		rsync -a --from0 --files-from=- ./ "$(ARM64_DIR)/"

userland-arm64: arm64-tree
	+$(MAKE) -C "$(ARM64_DIR)" lib tools progs examples CC="$(ARM64_CROSS)gcc" \
		PKG_CONFIG="$(ARM64_PKG_CONFIG)" WERROR="$(WERROR)"

module-arm64: arm64-tree
	+ARM64_DIR="$(ARM64_DIR)" ARM64_CROSS="$(ARM64_CROSS)" \
		scripts/check-arm64.sh --build-only $(ARM64_KVER)

# The arm64 VM tier on one kernel (ARM64_KVER=6.1 or 6.12): W=1 -Werror
# module builds, then tests/vm/check --arch arm64 on ARM64_CASES (default:
# the cases known to run there, scripts/check-arm64.sh).
check-arm64: userland-arm64
	+ARM64_DIR="$(ARM64_DIR)" ARM64_CROSS="$(ARM64_CROSS)" \
		scripts/check-arm64.sh $(ARM64_KVER) $(ARM64_CASES)

# The Debian packages cross-built for arm64, linted, the pmuctx-dkms source
# built as DKMS would for each arm64 kernel (ARM64_KVERS) and installed in
# its module tree; the arm64 tier's 96-packages-arm64 then runs them
# (scripts/check-packages-arm64.sh).
ARM64_KVERS ?= 6.12 6.1
check-packages-arm64:
	ARM64_DIR="$(ARM64_DIR)" ARM64_CROSS="$(ARM64_CROSS)" \
		scripts/check-packages-arm64.sh $(ARM64_KVERS)

# The newest Debian kernel (sid): the chroot, the module built there, the
# kernel booted on a core subset (scripts/check-sid.sh; CASES=... to choose).
check-sid: all
	scripts/check-sid.sh $(CASES)

# What make check runs on each arm64 kernel: 10-load, 40-abi,
# 90-pmu-arm64 and 91-modifiers under -icount shift=0 (scripts/check-arm64.sh --ci).
check-arm64-ci: userland-arm64
	+ARM64_DIR="$(ARM64_DIR)" ARM64_CROSS="$(ARM64_CROSS)" \
		scripts/check-arm64.sh --ci $(ARM64_KVER)


# The examples build against an installed libpmuctx, as a user's program
# would: lib/ is installed into examples/.stage (same PREFIX) and the
# examples find it with pkg-config there (examples/Makefile).
EXAMPLES_STAGE = $(CURDIR)/examples/.stage
examples: lib
	+@rm -rf "$(EXAMPLES_STAGE)"
	+@$(MAKE) --no-print-directory -s -C lib install WERROR="$(WERROR)" CC="$(CC)" \
		PREFIX="$(PREFIX)" DESTDIR="$(EXAMPLES_STAGE)" >/dev/null
	+$(MAKE) -C examples WERROR="$(WERROR)" CC="$(CC)" \
		HEADERS="$(CURDIR)/include/uapi/linux/pmuctx.h $(CURDIR)/lib/pmuctx.h" \
		PKG_CONFIG_SYSROOT_DIR="$(EXAMPLES_STAGE)" \
		PKG_CONFIG_PATH="$$(dirname "$$(find "$(EXAMPLES_STAGE)" -name libpmuctx.pc | head -n 1)")" \
		RPATH="$$(dirname "$$(find "$(EXAMPLES_STAGE)" -name 'libpmuctx.so.*.*' | head -n 1)")"

# ---------------------------------------------------------------------------
# Clean

# Sub-directories are cleaned only where they have a Makefile, so `make clean`
# works in a partial tree (a DKMS source copy, a checkout mid-way).
CLEAN_SUBDIRS = lib tools tests/progs tests/store tests/ring tests/sample tests/fuzz tests/faults tests/unit tests/vm examples

clean:
	+@if [ -n "$(KVER)" ] && [ -f "$(KDIR)/Makefile" ]; then \
		$(KBUILD) clean; \
	fi
	+@$(MAKE) --no-print-directory clean-module
	rm -rf "$(DEBUG_MODULE_DIR)"
	+@for d in $(CLEAN_SUBDIRS); do \
		if [ -f "$$d/Makefile" ]; then $(MAKE) -C "$$d" clean || exit 1; fi; \
	done

# Module products only, without needing a kernel tree (DKMS runs this in its
# build directory before and after a build).  kbuild's own `clean` would also
# delete every *.[aios] in the tree, i.e. lib/ and tests/ objects.
clean-module:
	rm -f Module.symvers modules.order modules.nsdeps .Module.symvers.cmd \
		.modules.order.cmd compile_commands.json
	rm -rf .tmp_versions .thinlto-cache
	$(if $(wildcard $(MODULE_DIRS)),find $(wildcard $(MODULE_DIRS)) -type f \( -name '*.o' -o -name '*.ko' -o -name '*.ko.*' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o -name '.*.d' \
		-o -name '.*.tmp' -o -name '*.dwo' -o -name '*.su' -o -name '*.lst' \
		-o -name '*.symtypes' -o -name '*.i' -o -name '*.s' -o -name '*.gcno' \
		-o -name 'modules.order' -o -name 'Module.symvers' \) -delete)

# ---------------------------------------------------------------------------
# Install

# lib (headers, UAPI header, libraries, libpmuctx.pc) and tools (CLI) install
# themselves; the udev rule is installed here.  The module is not: use DKMS
# (README.md) or `make modules_install`.
install:
	$(MAKE) -C lib install $(SUBMAKE_VARS)
	$(MAKE) -C tools install $(SUBMAKE_VARS)
	install -D -m 0644 udev/60-pmuctx.rules "$(DESTDIR)$(UDEVDIR)/rules.d/60-pmuctx.rules"
	$(MAKE) -C man install $(SUBMAKE_VARS)
	install -D -m 0644 completion/pmuctx "$(DESTDIR)$(BASHCOMPDIR)/pmuctx"
	@if [ -z "$(DESTDIR)" ]; then \
		echo "pmuctx: udev rule installed; run 'udevadm control --reload'," \
		     "'groupadd --system pmuctx' and add users to the group (README.md)."; \
	fi

uninstall:
	$(MAKE) -C tools uninstall $(SUBMAKE_VARS)
	$(MAKE) -C lib uninstall $(SUBMAKE_VARS)
	rm -f "$(DESTDIR)$(UDEVDIR)/rules.d/60-pmuctx.rules"
	$(MAKE) -C man uninstall $(SUBMAKE_VARS)
	rm -f "$(DESTDIR)$(BASHCOMPDIR)/pmuctx"

# Installs module/pmuctx.ko as /lib/modules/$(KVER)/extra/module/pmuctx.ko
# (INSTALL_MOD_PATH and INSTALL_MOD_DIR are kbuild's).  The module is signed
# only when the key the kernel config names (CONFIG_MODULE_SIG_KEY) exists:
# distribution headers do not ship the distribution's key.  kbuild skips
# depmod without a System.map in KDIR (Debian's headers have none), so depmod
# runs here.
modules_install: module
	@$(NEED_KDIR)
	+@key=$$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' "$(KDIR)/include/config/auto.conf" 2>/dev/null); \
	case "$$key" in ""|/*|pkcs11:*) ;; *) key="$(KDIR)/$$key" ;; esac; \
	nosign=; \
	if grep -q '^CONFIG_MODULE_SIG_ALL=y' "$(KDIR)/include/config/auto.conf" 2>/dev/null && \
	   case "$$key" in pkcs11:*) false ;; *) [ ! -r "$$key" ] ;; esac; then \
		echo "pmuctx: no module signing key ($$key): installing the module unsigned"; \
		nosign=CONFIG_MODULE_SIG_ALL=; \
	fi; \
	echo "$(KBUILD) modules_install $$nosign"; \
	$(KBUILD) modules_install $$nosign
	@if [ -z "$(INSTALL_MOD_PATH)" ]; then \
		echo "  DEPMOD  $(KVER)"; depmod -a "$(KVER)"; \
	else \
		echo "pmuctx: INSTALL_MOD_PATH set: run depmod -b <root> $(KVER) on the target"; \
	fi

# ---------------------------------------------------------------------------
# Checks

# scripts/check.sh runs the steps below in order (style, sparse, all with
# WERROR=1, check-module-builds, check-unit, check-install, check-examples, check-man,
# check-uapi-doc, check-packages, then vm:KERNEL for each of
# CHECK_KERNELS: scripts/check-kernel.sh, the same on a core subset for
# each of CHECK_CLOUD, vm:sid, and vm:arm64-KERNEL for each of
# CHECK_ARM64: make check-arm64-ci), keeps going after a failure
# where later steps still make sense, and prints a per-step table and, as
# its very last line, "N passed, M failed" (unit + every kernel's VM test
# counts, plus one for each other step).  It exits non-zero if any
# step failed.
check:
	scripts/setup-deps.sh
	$(if $(strip $(CHECK_ARM64)),scripts/setup-deps.sh --arm64)
	+@MAKE="$(MAKE)" KVER="$(KVER)" KDIR="$(KDIR)" CHECK_KERNELS="$(CHECK_KERNELS)" \
		CHECK_CLOUD="$(CHECK_CLOUD)" CHECK_ARM64="$(CHECK_ARM64)" \
		CHECK_SID="$(CHECK_SID)" scripts/check.sh

style:
	scripts/checkpatch.sh

sparse:
	@$(NEED_KDIR)
	+MAKE="$(MAKE)" KDIR="$(KDIR)" scripts/sparse.sh

check-unit:
	$(MAKE) -C tests/unit check $(SUBMAKE_VARS)

# The release module (make module) has no test or benchmark code, the
# debug one (make module-debug, built here) has it: nm and modinfo.
check-module-builds: module
	@$(NEED_KDIR)
	+MAKE="$(MAKE)" KVER="$(KVER)" KDIR="$(KDIR)" scripts/check-module-builds.sh

check-install:
	+MAKE="$(MAKE)" scripts/check-install.sh

# The examples against the installed library, the manual pages, and the
# Debian packages (built, linted, installed on this machine for
# tests/vm/cases/81-packages.sh; before check-dkms-prepare, which re-adds
# the same DKMS pmuctx/VERSION from the tree: scripts/check-packages.sh).
check-examples:
	+MAKE="$(MAKE)" scripts/check-examples.sh

check-man:
	+MAKE="$(MAKE)" scripts/check-man.sh

# The kernel-doc of include/uapi/linux/pmuctx.h: every struct's @fields are
# exactly its members (no stale @__reserved3 after a rename).
check-uapi-doc:
	scripts/check-uapi-doc.sh

check-packages:
	@$(NEED_KDIR)
	KVER="$(KVER)" scripts/check-packages.sh

check-dkms-prepare:
	@$(NEED_KDIR)
	KVER="$(KVER)" KDIR="$(KDIR)" tests/dkms.sh

# The VM suite on the debug kernel (KASAN, lockdep, kmemleak, ...).
check-debug: lib tools progs examples
	DEBUG_KVER="$(DEBUG_KVER)" scripts/check-debug.sh

# The VM suite on one kernel (KVER=<release>, or an alias: 6.1, 6.12,
# 6.12-rt): module built against it, DKMS-installed for it, booted.
check-vm: lib tools progs examples
	env -u CHECK_SUBSET DEBUG_KVER="$(DEBUG_KVER)" scripts/check-kernel.sh "$(KVER)"

# ---------------------------------------------------------------------------
# Demo: the README's main job, one command on a fresh Debian bookworm machine.
# demo-run is a separate make so that KVER is computed after setup-deps.sh
# installed the kernel headers.

demo:
	scripts/setup-deps.sh --demo
	+@$(MAKE) --no-print-directory demo-run

demo-run: all
	@$(NEED_KDIR)
	tests/vm/run --kernel /boot/vmlinuz-$(KVER) -- tools/pmuctx info
	tests/vm/run --kernel /boot/vmlinuz-$(KVER) -- $(DEMO_CMD)

# Benchmark suite against perf and bpftrace, in the VM (bench/run,
# docs/PERFORMANCE.md); not part of `check`.  Guest time counts
# instructions (QEMU icount), so the host's load does not matter;
# BENCH_ARGS=--wallclock for host time, e.g. BENCH_ARGS="--quick" for a
# smoke run.  It measures the release module; the debug build only runs
# ring_bench (case ring) and times the sched_switch probe (case cs).
BENCH_ARGS ?=
.PHONY: bench bench-arm64
bench: all module-debug
	bench/run $(BENCH_ARGS)

# Hardware counters against perf on the arm64 tier's emulated PMU
# (bench/arm64-pmu.sh; docs/PERFORMANCE.md section 18)
bench-arm64: userland-arm64 module-arm64
	bench/arm64-pmu.sh $(ARM64_KVER) $(BENCH_ROUNDS)

# ---------------------------------------------------------------------------

help:
	@echo 'pmuctx: make targets (docs/BUILDING.md has the details)'
	@echo
	@echo 'Build:'
	@echo '  all (default)      module + lib + tools + progs'
	@echo '  module             module/pmuctx.ko via kbuild (W=1): the release build'
	@echo '  module-debug       the debug build (PMUCTX_DEBUG=1: SELFTEST backend, test'
	@echo '                     hooks, ring_bench) in module-debug/module/pmuctx.ko'
	@echo '  lib                lib/ (libpmuctx)'
	@echo '  tools              tools/pmuctx CLI (after lib)'
	@echo '  progs              tests/progs and tests/store test programs (after lib)'
	@echo '  clean              everything (kbuild clean + sub-directories)'
	@echo '  clean-module       module build products only (used by DKMS)'
	@echo 'Install:'
	@echo '  install            lib, UAPI header, pkg-config file, CLI, udev rule'
	@echo '  uninstall          remove what install installed'
	@echo '  modules_install    module into /lib/modules/$$KVER/extra + depmod'
	@echo '                     (DKMS is the recommended way: README.md)'
	@echo 'Checks:'
	@echo '  check              style, sparse, all WERROR=1, check-module-builds,'
	@echo '                     check-unit, check-install,'
	@echo '                     check-examples, check-man, check-uapi-doc, check-packages,'
	@echo '                     then the VM suite on each kernel of CHECK_KERNELS (without'
	@echo '                     the cases tests/vm/subsets names for it), a core'
	@echo '                     subset on each cloud kernel of CHECK_CLOUD, the newest sid'
	@echo '                     kernel (check-sid) and the arm64 subset on each of'
	@echo '                     CHECK_ARM64 (check-arm64-ci);'
	@echo '                     last line "N passed, M failed" (all of them added up)'
	@echo '  style              checkpatch.pl --strict on module/ and the UAPI header'
	@echo '  sparse             sparse (C=2) over the module, release and debug builds'
	@echo '  check-module-builds the release module has no test code, the debug one has it'
	@echo '  check-unit         host unit tests (tests/unit)'
	@echo '  check-install      install/uninstall into a DESTDIR leave exactly the expected files'
	@echo '  check-examples     examples/ build with -Werror against the installed header and library'
	@echo '  check-man          man pages render without groff warnings; commands and functions covered'
	@echo '  check-uapi-doc     UAPI header kernel-doc: each struct'"'"'s @fields are exactly its members'
	@echo '  check-packages     Debian packages: build, lintian, install here (as root) for the VM'
	@echo '  check-dkms-prepare dkms-install the module on this host for the VM (tests/dkms.sh)'
	@echo '  check-vm           the VM suite on KVER (scripts/check-kernel.sh; KVER=6.12-rt works)'
	@echo '  check-debug        the VM suite on the debug kernel $(DEBUG_KVER) (KASAN, lockdep, kmemleak),'
	@echo '                     without the cases tests/vm/subsets names (CHECK_FULL=1: all)'
	@echo '                     The matrix (scripts/kernels resolve ALIAS; CI figures, docs/TESTING.md):'
	@echo '                       make check-vm KVER=6.1      Debian 6.1 generic      ~10 min'
	@echo '                       make check-vm KVER=6.12     Debian 6.12 generic     ~9 min'
	@echo '                       make check-vm KVER=6.12-rt  Debian 6.12 PREEMPT_RT  ~12 min'
	@echo '                       make check-debug            6.1 debug (KASAN ...)   ~25 min'
	@echo '                       make check-sid              sid'"'"'s newest (7.2 today) ~3 min, a core subset'
	@echo '                       make check-vm KVER=6.12-cloud  Debian 6.12 cloud (also 6.1-cloud):'
	@echo '                                                   the whole suite over virtio-fs (no 9p);'
	@echo '                                                   make check runs a core subset, ~3 min each'
	@echo '  userland-arm64     lib, tools, tests cross-built for aarch64 in $(ARM64_DIR) (a copy of the sources)'
	@echo '  module-arm64       W=1 -Werror arm64 module builds, release and debug, ARM64_KVER=6.1|6.12'
	@echo '  check-arm64        the arm64 tier: qemu-system-aarch64 -M virt (emulated PMUv3) on ARM64_KVER,'
	@echo '                     ARM64_CASES or the cases that run there; PMUCTX_VM_ICOUNT=0 for exact counts'
	@echo '                     (scripts/setup-deps.sh --arm64; docs/TESTING.md)'
	@echo '  check-arm64-ci     what check runs on ARM64_KVER: 10-load, 40-abi, 90, 91, -icount'
	@echo '                       make check-arm64-ci ARM64_KVER=6.12  ~4 min'
	@echo '                       make check-arm64-ci ARM64_KVER=6.1   ~3 min'
	@echo 'Other:'
	@echo '  demo               install what the demo needs, build, run the main job in a QEMU VM'
	@echo '  bench              benchmarks against perf and bpftrace in the VM, icount time'
	@echo '  bench-arm64        hardware counters against perf on the arm64 tier (ARM64_KVER, BENCH_ROUNDS)'
	@echo '                     (docs/PERFORMANCE.md; BENCH_ARGS="--quick", "--wallclock")'
	@echo '  version            print the version (scripts/version.sh)'
	@echo '  help               this text'
	@echo
	@echo 'Variables (current value):'
	@echo '  KVER=$(KVER)  ($(KVER_FROM))'
	@echo '  CHECK_KERNELS=$(CHECK_KERNELS)  (the kernel matrix of make check)'
	@echo '  CHECK_CLOUD=$(CHECK_CLOUD)  (the cloud kernels of make check, core subset; empty: none)'
	@echo '  CHECK_ARM64=$(CHECK_ARM64)  (the arm64 kernels of make check; empty: none)'
	@echo '  CHECK_ARM64_BESIDE=$(CHECK_ARM64_BESIDE)  (1: the arm64 steps run beside the host steps; 0: in turn)'
	@echo '  CHECK_SID=$(CHECK_SID)  (1: make check boots the newest sid kernel; empty: not)'
	@echo '  CHECK_FULL=$(CHECK_FULL)  (1: the whole VM suite on every kernel, not tests/vm/subsets)'
	@echo '  KDIR=$(KDIR)'
	@echo '  WERROR=$(WERROR)  (1: warnings are errors; default 1 when CI=true)'
	@echo '  CC=$(CC)  (lib, tools, progs; kbuild uses the kernel'"'"'s compiler unless CC is on the command line)'
	@echo '  PREFIX=$(PREFIX)'
	@echo '  DESTDIR=$(DESTDIR)'
	@echo '  UDEVDIR=$(UDEVDIR)'
	@echo '  KCFLAGS=$(KCFLAGS)  (extra module CFLAGS; WERROR=1 appends -Werror)'
	@echo '  INSTALL_MOD_PATH=$(INSTALL_MOD_PATH)  (modules_install root)'
	@echo '  DEMO_CMD=$(DEMO_CMD)'
