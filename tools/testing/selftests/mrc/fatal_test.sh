#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Removing an mrc device while a process has it open never hangs: for each
# way of removing it (rdma link delete, modprobe -r rdma_mrc, deleting its
# netdev) a helper holding a user context with a PD, MR, CQ and a connected
# QP gets IBV_EVENT_DEVICE_FATAL, a new verb then fails, and it can still
# destroy its objects and close the device.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

HELPER_TIMEOUT=120	# the helper's own bound for its event
REMOVE_TIMEOUT=60	# the removal command must return within this

remove_by_link_delete() { rdma link delete "$TEST_DEV"; }
remove_by_unload() { modprobe -r "$MRC_MODULE"; }
remove_by_netdev_delete() { ip link del dev "$TEST_NETDEV"; }

# case_removal NAME FUNCTION
case_removal() {
	local name=$1 remove=$2 job=helper.$2 start

	log "== $name with a user context open"
	mrc_dev_setup "$TEST_DEV" "$TEST_NETDEV"
	bg_start "$job" "$helper" "$HELPER_TIMEOUT" DEVICE_FATAL
	wait_until "helper READY" "$WAIT_TIMEOUT" helper_ready "$job"

	start=$SECONDS
	bounded "$REMOVE_TIMEOUT" "$remove" ||
		fail "$name hung for ${REMOVE_TIMEOUT}s with a user context open"
	bounded_output
	assert_eq "exit status of $name" 0 "$BOUNDED_RC"
	log "$name returned after $((SECONDS - start))s"
	wait_until "$TEST_DEV removed" "$WAIT_TIMEOUT" link_absent "$TEST_DEV"

	bg_wait "$job" "$WAIT_TIMEOUT" ||
		fail "helper still running: $(cat "$(bg_out "$job")")"
	cat "$(bg_out "$job")"
	assert_eq "helper exit status" 0 "$(bg_rc "$job")"
	helper_says "EVENT DEVICE_FATAL" "$job" || fail "no IBV_EVENT_DEVICE_FATAL"
	grep -q "^POSTFATAL alloc_pd refused" "$(bg_out "$job")" ||
		fail "alloc_pd after the fatal event was not refused"
	helper_says DONE "$job" || fail "helper did not close cleanly"

	run netdev_del_quiet "$TEST_NETDEV"
	mrc_unload
}

mrc_case link_delete case_removal "rdma link delete" remove_by_link_delete
mrc_case unload case_removal "modprobe -r $MRC_MODULE" remove_by_unload
mrc_case netdev_delete case_removal "ip link del $TEST_NETDEV" remove_by_netdev_delete
mrc_cases_args "$@"

mrc_test_init
helper=$(helper_path mrc_async_helper)
export MRC_DEV=$TEST_DEV MRC_IPV4=$TEST_IPV4
mrc_cases_run
