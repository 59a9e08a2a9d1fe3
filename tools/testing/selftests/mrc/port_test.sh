#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The port follows its netdev: up -> ACTIVE, `ip link set down` -> DOWN
# with IBV_EVENT_PORT_ERR delivered to an open user context, up again ->
# ACTIVE with IBV_EVENT_PORT_ACTIVE; ibv_devinfo agrees.  Carrier loss
# (the peer of a veth going down) takes the port DOWN as well.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

HELPER_TIMEOUT=120	# the helper's own bound for all its events
VETH=mrct1
VETH_PEER=mrct1p
VETH_DEV=mrc1

devinfo_state_is() {
	ibv_devinfo -d "$1" 2>/dev/null |
		grep -qE "state:[[:space:]]+$2 \\("
}

case_active() {
	port_state_is "$TEST_DEV" "$PORT_STATE_ACTIVE" || fail "state $(port_state "$TEST_DEV")"
	wait_until "ibv_devinfo PORT_ACTIVE" "$WAIT_TIMEOUT" \
		devinfo_state_is "$TEST_DEV" PORT_ACTIVE
}

# ip link set down, with a user context open waiting for its events.
case_netdev_down() {
	bg_start helper "$helper" "$HELPER_TIMEOUT" PORT_ERR PORT_ACTIVE
	wait_until "helper READY" "$WAIT_TIMEOUT" helper_ready
	run ip link set dev "$TEST_NETDEV" down
	wait_until "port DOWN" "$WAIT_TIMEOUT" port_state_is "$TEST_DEV" "$PORT_STATE_DOWN"
	wait_until "ibv_devinfo PORT_DOWN" "$WAIT_TIMEOUT" \
		devinfo_state_is "$TEST_DEV" PORT_DOWN
	wait_until "IBV_EVENT_PORT_ERR delivered" "$WAIT_TIMEOUT" \
		helper_says "EVENT PORT_ERR port $MRC_PORT"
}

# ip link set up: the helper of netdev_down sees PORT_ACTIVE.
case_netdev_up() {
	run ip link set dev "$TEST_NETDEV" up
	wait_until "port ACTIVE" "$WAIT_TIMEOUT" port_state_is "$TEST_DEV" "$PORT_STATE_ACTIVE"
	wait_until "ibv_devinfo PORT_ACTIVE" "$WAIT_TIMEOUT" \
		devinfo_state_is "$TEST_DEV" PORT_ACTIVE
	bg_wait helper "$WAIT_TIMEOUT" || fail "helper still waiting: $(cat "$(bg_out helper)")"
	cat "$(bg_out helper)"
	assert_eq "helper exit status" 0 "$(bg_rc helper)"
	helper_says "EVENT PORT_ACTIVE port $MRC_PORT" || fail "no IBV_EVENT_PORT_ACTIVE"
	helper_says DONE || fail "helper did not finish cleanly"
	link_del "$TEST_DEV"
}

# Carrier: the veth peer goes down and up.
case_carrier() {
	netdev_add_veth "$VETH" "$VETH_PEER"
	link_add "$VETH_DEV" "$VETH"
	wait_until "port ACTIVE" "$WAIT_TIMEOUT" port_state_is "$VETH_DEV" "$PORT_STATE_ACTIVE"
	run ip link set dev "$VETH_PEER" down
	wait_until "port DOWN on carrier loss" "$WAIT_TIMEOUT" \
		port_state_is "$VETH_DEV" "$PORT_STATE_DOWN"
	run ip link set dev "$VETH_PEER" up
	wait_until "port ACTIVE on carrier" "$WAIT_TIMEOUT" \
		port_state_is "$VETH_DEV" "$PORT_STATE_ACTIVE"
	link_del "$VETH_DEV"
}

mrc_case active case_active
mrc_case netdev_down case_netdev_down
mrc_case netdev_up case_netdev_up --after netdev_down
mrc_case carrier case_carrier
mrc_cases_args "$@"

mrc_test_init
helper=$(helper_path mrc_async_helper)
mrc_dev_setup "$TEST_DEV" "$TEST_NETDEV"
export MRC_DEV=$TEST_DEV MRC_IPV4=$TEST_IPV4
mrc_cases_run
