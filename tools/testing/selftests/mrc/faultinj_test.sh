#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures on the data path (needs a kernel with fault
# injection: FAILSLAB and FAIL_PAGE_ALLOC, as `make check-debug` builds;
# elsewhere the test is skipped and says so).  While verified transfers
# run between two hosts (scripts/fabric hosts 2), every atomic slab and
# page allocation of the guest fails with a set probability (failslab and
# fail_page_alloc with ignore-gfp-wait: what the softirq and the tasklet
# allocate, sleeping allocations never).  rdma_mrc must take no state for
# a packet it could not build (an MSN, a receive-queue MSN, a WriteIMM
# slot) and resend later what it could not resend now: every transfer
# completes, each byte verified, with no QP error, and mrcA's tx_nomem
# shows the failures were met.  Writes with immediates and without, to
# exercise both message numbers.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

DEBUGFS=/sys/kernel/debug
FAULT_DIRS=(failslab fail_page_alloc)
FAULT_PROBABILITY=3	# percent of the allocations that may fail
XFER_SECS=300
XFER_SIZE=$((256 * 1024))
XFER_ITERS=64

# fault_set DIR PROBABILITY: inject into DIR's allocations, atomic ones
# only, with no limit on their number and nothing printed.
fault_set() {
	local d=$DEBUGFS/$1
	echo Y >"$d/ignore-gfp-wait"
	[ -e "$d/ignore-gfp-highmem" ] && echo N >"$d/ignore-gfp-highmem"
	echo 0 >"$d/verbose"
	echo 0 >"$d/space"
	echo 1 >"$d/interval"
	echo -1 >"$d/times"
	echo "$2" >"$d/probability"
}

faults_off() {
	local d
	for d in "${FAULT_DIRS[@]}"; do
		echo 0 >"$DEBUGFS/$d/probability"
	done
}

# FAULT_PROBABILITY% of atomic allocations fail while verified writes
# (with immediates and without) run; mrcA met the failures.
case_alloc_failures() {
	local d nomem
	counters_snap fi.0
	cleanup_push faults_off
	for d in "${FAULT_DIRS[@]}"; do
		fault_set "$d" "$FAULT_PROBABILITY"
	done
	log "    $FAULT_PROBABILITY% of atomic allocations fail"
	xfer write "$XFER_SECS" --size "$XFER_SIZE" --iters "$XFER_ITERS"
	xfer imm "$XFER_SECS" --size "$XFER_SIZE" --iters "$XFER_ITERS" --imm
	faults_off
	counters_snap fi.1
	counters_show fi.0 fi.1 tx_nomem rx_nomem tx_data_pkts retransmits timeouts \
		retry_exceeded
	nomem=$(counter_delta fi.0 fi.1 "$XFER_DEV_A" tx_nomem)
	[ "$nomem" -gt 0 ] || fail "no allocation of $XFER_DEV_A failed: the injection did not reach it"
	log "ok: $XFER_DEV_A met $nomem failed allocations and every byte arrived"
	assert_eq "no retry exceeded" 0 \
		"$(counter_delta fi.0 fi.1 "$XFER_DEV_A" retry_exceeded)"
}

mrc_case alloc_failures case_alloc_failures
mrc_cases_args "$@"

mrc_test_init
if [ ! -d "$DEBUGFS/failslab" ]; then
	mountpoint -q "$DEBUGFS" || mount -t debugfs debugfs "$DEBUGFS" 2>/dev/null || true
fi
for d in "${FAULT_DIRS[@]}"; do
	if [ ! -d "$DEBUGFS/$d" ]; then
		log "SKIP: this kernel has no $DEBUGFS/$d (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC: make check-debug)"
		exit "$KSFT_SKIP"
	fi
done

# A lossy TCG guest makes spurious expiries: the lossless floor.
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric hosts
mrc_cases_run
