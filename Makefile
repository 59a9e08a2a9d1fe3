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
#                   spec check and perftest-pair's test; then build for
#                   the test kernel, boot it under QEMU, install, run
#                   the kselftests (TAP, then "N passed, N failed")
#   make demo       boot a guest: two hosts and their devices, then a
#                   plane failure under ib_write_bw (goodput, EV health)
#   make stage      put the module into the test kernel's cached tree
#   make KVER=...   build the module for another installed kernel
#
# When make is not run inside the kernel build (Kbuild is read there).

TOP		:= $(CURDIR)
CACHE		?= $(TOP)/.cache
BUILD		?= $(TOP)/build
export MRC_CACHE := $(CACHE)
export MRC_BUILD := $(BUILD)

KVER		?= $(shell $(TOP)/scripts/kver)
TEST_KVER	= $(shell $(TOP)/scripts/kver --test)
KDIR		?= /lib/modules/$(KVER)/build
MODDIR		:= drivers/infiniband/sw/mrc
VM_TIMEOUT	?= 3600

.PHONY: all deps module provider selftests tools install stage check demo clean help

all: deps
	$(MAKE) module provider selftests tools

help:
	@sed -n '3,17p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@$(TOP)/scripts/install-deps

module:
	$(MAKE) -C $(KDIR) M=$(TOP) modules
	@echo $(KVER) > $(MODDIR)/.kver

provider:
	$(TOP)/scripts/build-rdma-core

# The selftests link mrc_bind_qp against the provider's libmrc (mrcdv).
selftests: provider
	$(MAKE) -C tools/testing/selftests/mrc

tools:
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
	$(TOP)/scripts/vm-run --timeout $(VM_TIMEOUT) -- \
		$(TOP)/tools/testing/selftests/mrc/run_tests.sh

demo: deps
	$(MAKE) module KVER=$(TEST_KVER)
	$(MAKE) provider tools stage
	$(TOP)/scripts/vm-run --timeout 600 -- $(TOP)/scripts/demo

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	-$(MAKE) -C tools/testing/selftests/mrc clean
	-$(MAKE) -C tools/mrc clean
	rm -rf $(BUILD) $(MODDIR)/.kver
