#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `rdma link add NAME type mrc netdev DEV` and `rdma link delete NAME`:
# the device appears in `rdma link show` with its netdev and in sysfs, and
# goes away again; a missing netdev, a taken name and a netdev that already
# has an mrc device are refused, leaving the existing device untouched;
# any name works; deleting the netdev removes its device; add/delete
# cycles leave nothing behind.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

MISSING_NETDEV=mrcnosuch0
ODD_NAME=foo7
SECOND_DEV=mrc1
CYCLES=3

# The device NAME exists, on NETDEV, with an ACTIVE port.
check_device() {
	local name=$1 netdev=$2
	link_exists "$name" || fail "no /sys/class/infiniband/$name"
	rdma_link_names | grep -xF "$name" >/dev/null ||
		fail "$name not in rdma link show: $(rdma link show)"
	assert_eq "netdev of $name in rdma link show" "$netdev" \
		"$(rdma_link_netdev "$name")"
	wait_until "port of $name ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$name" "$PORT_STATE_ACTIVE"
}

case_add_show() {
	link_add "$TEST_DEV" "$TEST_NETDEV"
	check_device "$TEST_DEV" "$TEST_NETDEV"
	run rdma dev show "$TEST_DEV"
	grep -q "$TEST_DEV" "$BOUNDED_OUT" || fail "rdma dev show $TEST_DEV: $(cat "$BOUNDED_OUT")"
	rdma link show
}

# A netdev that does not exist: ENODEV.
case_missing_netdev() {
	run_fails "$ERR_ENODEV" rdma link add "$SECOND_DEV" type "$MRC_LINK_TYPE" \
		netdev "$MISSING_NETDEV"
	link_absent "$SECOND_DEV" || fail "$SECOND_DEV exists after a failed add"
}

# A name that is taken (core: ENFILE; EEXIST if the driver checks).
case_taken_name() {
	bounded "$CMD_TIMEOUT" rdma link add "$TEST_DEV" type "$MRC_LINK_TYPE" \
		netdev "$TEST_NETDEV2" || fail "rdma link add hung"
	[ "$BOUNDED_RC" -ne 0 ] || fail "a second $TEST_DEV was accepted"
	grep -qF -e "$ERR_ENFILE" -e "$ERR_EEXIST" "$BOUNDED_OUT" ||
		fail "unexpected error: $(cat "$BOUNDED_OUT")"
	log "ok: refused ($(head -n1 "$BOUNDED_OUT"))"
	check_device "$TEST_DEV" "$TEST_NETDEV"
}

# A second device on the same netdev: EEXIST.
case_same_netdev() {
	run_fails "$ERR_EEXIST" rdma link add "$SECOND_DEV" type "$MRC_LINK_TYPE" \
		netdev "$TEST_NETDEV"
	link_absent "$SECOND_DEV" || fail "$SECOND_DEV exists after a failed add"
	check_device "$TEST_DEV" "$TEST_NETDEV"
}

# Any name: ODD_NAME on TEST_NETDEV2.
case_any_name() {
	link_add "$ODD_NAME" "$TEST_NETDEV2"
	check_device "$ODD_NAME" "$TEST_NETDEV2"
	check_device "$TEST_DEV" "$TEST_NETDEV"
}

case_delete() {
	link_del "$ODD_NAME"
	link_absent "$ODD_NAME" || fail "$ODD_NAME still there after rdma link delete"
	check_device "$TEST_DEV" "$TEST_NETDEV"
	link_del "$TEST_DEV"
	link_absent "$TEST_DEV" || fail "$TEST_DEV still there after rdma link delete"
}

# Deleting a device that does not exist fails.
case_delete_missing() {
	link_absent "$TEST_DEV" || fail "$TEST_DEV exists"
	run_fails "" rdma link delete "$TEST_DEV"
}

# CYCLES add/delete cycles on the same netdev.
case_cycles() {
	local i
	for ((i = 1; i <= CYCLES; i++)); do
		link_add "$TEST_DEV" "$TEST_NETDEV"
		check_device "$TEST_DEV" "$TEST_NETDEV"
		link_del "$TEST_DEV"
		link_absent "$TEST_DEV" || fail "cycle $i: $TEST_DEV still there"
	done
}

# Deleting the netdev removes its device.
case_netdev_delete() {
	link_add "$ODD_NAME" "$TEST_NETDEV2"
	check_device "$ODD_NAME" "$TEST_NETDEV2"
	run ip link del dev "$TEST_NETDEV2"
	wait_until "$ODD_NAME gone with its netdev" "$WAIT_TIMEOUT" \
		link_absent "$ODD_NAME"
}

# A non-Ethernet netdev is refused.
case_not_ethernet() {
	run_fails "" rdma link add "$SECOND_DEV" type "$MRC_LINK_TYPE" netdev lo
	link_absent "$SECOND_DEV" || fail "$SECOND_DEV exists on lo"
}

# add_show's device is the one the refusals leave untouched and delete
# deletes; missing_netdev, between them, needs no device.
mrc_case add_show case_add_show
mrc_case missing_netdev case_missing_netdev
mrc_case taken_name case_taken_name --after add_show
mrc_case same_netdev case_same_netdev --after add_show
mrc_case any_name case_any_name --after add_show
mrc_case delete case_delete --after any_name
mrc_case delete_missing case_delete_missing
mrc_case cycles case_cycles
mrc_case netdev_delete case_netdev_delete
mrc_case not_ethernet case_not_ethernet
mrc_cases_args "$@"

mrc_test_init
mrc_load
netdev_add_dummy "$TEST_NETDEV"
netdev_add_dummy "$TEST_NETDEV2"
mrc_cases_run
