# SPDX-License-Identifier: GPL-2.0
#
# rdma_mrc: top-level build.
#
#   make            install missing build deps, build rdma_mrc.ko for KVER,
#                   rdma-core with the mrc provider, the selftests and
#                   the controller CLI build/tools/mrcctl
#   make install    copy what `make` built into the system (no download,
#                   no rebuild; works inside offline guests)
#   make check      on the host: the dissector's own test, the netlink
#                   spec check, perftest-pair's test and the OCP API
#                   headers' layouts (scripts/check-api-headers); then build for
#                   the test kernel, boot it under QEMU, install, run
#                   the kselftests (TAP, then "N passed, N failed");
#                   KVER=<a test kernel> for the other one (scripts/kver
#                   --test-all lists them), TESTS="a.sh b" for some tests
#   make check-kernels  make check on the first test kernel, then on each
#                   other one (as .ci/run does; KERNEL2_TESTS, if set, the
#                   tests for the others)
#   make check-debug  the kselftests under a debug kernel built from
#                   linux-source-6.1 and cached (KASAN, lockdep, kmemleak,
#                   UBSAN); hours, not part of make check; TESTS="...",
#                   GUESTS=N (N guests at once, one CPU each)
#   make check-kcsan  the data-path tests under its KCSAN variant
#   make demo       boot a guest: two hosts and their devices, then a
#                   plane failure under ib_write_bw (goodput, EV health),
#                   then an incast through an ECN bottleneck (NSCC windows)
#   make stage      put the module into the test kernel's cached tree
#   make KVER=...   build the module for another installed kernel
#   make dkms-install, dkms-uninstall  the module under DKMS (root)
#   make deb        Debian packages into build/deb (rdma-mrc-dkms, rdma-mrc)
#   make check-packages  the packages installed in a guest: DKMS builds for
#                   a kernel, then for the one "upgraded" to; loads; removal
#
# When make is not run inside the kernel build (Kbuild is read there).

TOP		:= $(CURDIR)
CACHE		?= $(TOP)/.cache
BUILD		?= $(TOP)/build
export MRC_CACHE := $(CACHE)
export MRC_BUILD := $(BUILD)

KVER		?= $(shell $(TOP)/scripts/kver)
# make check KVER=...: that test kernel; else the first one.
ifeq ($(origin KVER),command line)
TEST_KVER	:= $(KVER)
else
TEST_KVER	= $(shell $(TOP)/scripts/kver --test)
endif
KDIR		?= /lib/modules/$(KVER)/build
MODDIR		:= drivers/infiniband/sw/mrc
# The whole suite's guest: a last resort against a hang (every test has its
# own timeout in run_tests.sh).  Alone it takes about 25 minutes on 2 cores
# under TCG; two suites at once on such a machine took over 60: 90, the
# time CI allows.
VM_TIMEOUT	?= 5400

.PHONY: all deps module provider selftests tools install stage check demo clean help \
	check-kernels dkms-install dkms-uninstall deb check-packages

all: deps
	$(MAKE) module provider selftests tools

help:
	@sed -n '3,32p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@$(TOP)/scripts/install-deps

module:
	@[ -e $(KDIR)/Makefile ] || { echo "rdma_mrc: no kernel headers for $(KVER) at $(KDIR): install linux-headers-$(KVER)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules
	@echo $(KVER) > $(MODDIR)/.kver

provider:
	$(TOP)/scripts/build-rdma-core

# The selftests link mrc_bind_qp against the provider's libmrc (mrcdv).
selftests: provider
	$(MAKE) -C tools/testing/selftests/mrc

# The OCP API examples link the provider's libmrc.
tools: provider
	$(MAKE) -C tools/mrc

install:
	$(TOP)/scripts/install-built

# The module into the cached test kernel's tree, indexed there by the host's
# depmod, so that `make install` in a guest has nothing slow left to do.
stage:
	$(TOP)/scripts/install-built --kver $(TEST_KVER) --module-only \
		--destdir $(CACHE)/kernel/$(TEST_KVER)/root

check: deps
	$(MAKE) module KVER=$(TEST_KVER)
	$(MAKE) provider selftests tools stage
	$(TOP)/tools/wireshark/test/check.sh
	$(TOP)/scripts/check-netlink-spec
	$(TOP)/scripts/check-perftest-pair
	$(TOP)/scripts/check-api-headers
	$(TOP)/scripts/vm-run --kernel $(TEST_KVER) --timeout $(VM_TIMEOUT) -- \
		$(TOP)/tools/testing/selftests/mrc/run_tests.sh $(TESTS)

# Every test kernel in turn, the first one first.
check-kernels: deps
	@set -e; first=1; for k in $$($(TOP)/scripts/kver --test-all); do \
		if [ $$first = 1 ]; then \
			$(MAKE) check KVER=$$k; \
		else \
			$(MAKE) check KVER=$$k TESTS="$(KERNEL2_TESTS)"; \
		fi; first=0; \
	done

dkms-install:
	$(TOP)/scripts/dkms-install install

dkms-uninstall:
	$(TOP)/scripts/dkms-install uninstall

deb: provider tools
	$(TOP)/scripts/make-deb

check-packages: deps deb
	$(TOP)/scripts/check-packages

# A debug kernel built from linux-source-6.1 (scripts/debug-kernel.config,
# cached in $(CACHE)/), the module and tests for it, the suite under it.
.PHONY: check-debug check-kcsan
check-debug: deps
	$(TOP)/scripts/debug-kernel $(if $(GUESTS),--guests $(GUESTS)) check $(TESTS)

check-kcsan: deps
	$(TOP)/scripts/debug-kernel --kcsan $(if $(GUESTS),--guests $(GUESTS)) check $(TESTS)

demo: deps
	$(MAKE) module KVER=$(TEST_KVER)
	$(MAKE) provider selftests tools stage
	$(TOP)/scripts/vm-run --timeout 900 -- $(TOP)/scripts/demo

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	-$(MAKE) -C tools/testing/selftests/mrc clean
	-$(MAKE) -C tools/mrc clean
	rm -rf $(BUILD) $(MODDIR)/.kver
