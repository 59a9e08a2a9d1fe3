#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The GID table follows the netdev's addresses: an IPv4 address gives the
# RoCE v2 GID ::ffff:a.b.c.d, an IPv6 address its own GID, a default
# link-local GID (fe80::) is there; removing an address removes its GID;
# after link down/up the GIDs are back (IPv6 kept on down).  Only RoCE v2
# GIDs exist, each once, on the device's netdev.  Read through sysfs and
# through ibv_devinfo -v.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

LINK_LOCAL_PREFIX=fe80:0000:0000:0000:

V4_GID=$(gid_of_ipv4 "$TEST_IPV4")
V4_GID2=$(gid_of_ipv4 "$TEST_IPV4_2")
V6_GID=$(gid_of_ipv6 "$TEST_IPV6")

has_link_local_gid() {
	local row
	gid_rows "$TEST_DEV"
	for row in "${GID_ROWS[@]}"; do
		[[ $row == *"|$LINK_LOCAL_PREFIX"*"|$GID_TYPE_V2|"* ]] && return 0
	done
	return 1
}

# ibv_devinfo -v lists the GID (as inet_ntop prints it) as RoCE v2.
devinfo_has_gid() {
	ibv_devinfo -v -d "$TEST_DEV" 2>/dev/null |
		grep -qE "GID\[ *[0-9]+\]:[[:space:]]+$1, $GID_TYPE_V2\$"
}

devinfo_lacks_gid() {
	! devinfo_has_gid "$1"
}

# The IPv4 address was there before the device (the setup).
case_ipv4_before() {
	wait_until "GID $V4_GID" "$WAIT_TIMEOUT" gid_present "$TEST_DEV" "$V4_GID"
	wait_until "default link-local GID" "$WAIT_TIMEOUT" has_link_local_gid
	show_gids "$TEST_DEV"
	wait_until "ibv_devinfo shows ::ffff:$TEST_IPV4" "$WAIT_TIMEOUT" \
		devinfo_has_gid "::ffff:$TEST_IPV4"
}

case_ipv6_add() {
	addr_add "$TEST_NETDEV" "$TEST_IPV6/$TEST_IPV6_PLEN"
	wait_until "GID $V6_GID" "$WAIT_TIMEOUT" gid_present "$TEST_DEV" "$V6_GID"
	wait_until "ibv_devinfo shows $TEST_IPV6" "$WAIT_TIMEOUT" \
		devinfo_has_gid "$TEST_IPV6"
}

case_ipv4_second() {
	addr_add "$TEST_NETDEV" "$TEST_IPV4_2/$TEST_IPV4_PLEN"
	wait_until "GID $V4_GID2" "$WAIT_TIMEOUT" gid_present "$TEST_DEV" "$V4_GID2"
	show_gids "$TEST_DEV"
}

# Every GID is RoCE v2, on TEST_NETDEV, and listed once.
case_roce_v2_once() {
	local table bad dups
	table=$(gid_table "$TEST_DEV")
	bad=$(awk -F'|' -v t="$GID_TYPE_V2" -v n="$TEST_NETDEV" \
		'$3 != t || $4 != n' <<<"$table")
	[ -z "$bad" ] || fail "entries not RoCE v2 on $TEST_NETDEV: $bad"
	dups=$(cut -d'|' -f2 <<<"$table" | sort | uniq -d)
	[ -z "$dups" ] || fail "GIDs listed twice: $dups"
}

# Removing addresses removes their GIDs.
case_remove() {
	addr_del "$TEST_NETDEV" "$TEST_IPV4_2/$TEST_IPV4_PLEN"
	wait_until "GID $V4_GID2 removed" "$WAIT_TIMEOUT" gid_absent "$TEST_DEV" "$V4_GID2"
	addr_del "$TEST_NETDEV" "$TEST_IPV6/$TEST_IPV6_PLEN"
	wait_until "GID $V6_GID removed" "$WAIT_TIMEOUT" gid_absent "$TEST_DEV" "$V6_GID"
	gid_present "$TEST_DEV" "$V4_GID" || fail "GID $V4_GID lost with the others"
	wait_until "ibv_devinfo no longer shows $TEST_IPV6" "$WAIT_TIMEOUT" \
		devinfo_lacks_gid "$TEST_IPV6"
	show_gids "$TEST_DEV"
}

# Link down and up: the GIDs come back.
case_down_up() {
	addr_add "$TEST_NETDEV" "$TEST_IPV6/$TEST_IPV6_PLEN"
	wait_until "GID $V6_GID" "$WAIT_TIMEOUT" gid_present "$TEST_DEV" "$V6_GID"
	run ip link set dev "$TEST_NETDEV" down
	wait_until "port DOWN" "$WAIT_TIMEOUT" port_state_is "$TEST_DEV" "$PORT_STATE_DOWN"
	run ip link set dev "$TEST_NETDEV" up
	wait_until "port ACTIVE" "$WAIT_TIMEOUT" port_state_is "$TEST_DEV" "$PORT_STATE_ACTIVE"
	wait_until "GID $V4_GID after up" "$WAIT_TIMEOUT" gid_present "$TEST_DEV" "$V4_GID"
	wait_until "GID $V6_GID after up" "$WAIT_TIMEOUT" gid_present "$TEST_DEV" "$V6_GID"
	wait_until "default link-local GID after up" "$WAIT_TIMEOUT" has_link_local_gid
	show_gids "$TEST_DEV"
}

# Another device's address is not in this table.
case_other_device() {
	netdev_add_dummy "$TEST_NETDEV2"
	addr_add "$TEST_NETDEV2" "$TEST_IPV4_2/$TEST_IPV4_PLEN"
	link_add mrc1 "$TEST_NETDEV2"
	wait_until "GID $V4_GID2 on mrc1" "$WAIT_TIMEOUT" gid_present mrc1 "$V4_GID2"
	gid_absent "$TEST_DEV" "$V4_GID2" || fail "$TEST_DEV lists mrc1's GID $V4_GID2"
	gid_absent mrc1 "$V4_GID" || fail "mrc1 lists $TEST_DEV's GID $V4_GID"
	link_del mrc1
	link_del "$TEST_DEV"
}

# The addresses accumulate on the one device: the cases that look at
# them, or need them gone, come after the cases that add them.
mrc_case ipv4_before case_ipv4_before
mrc_case ipv6_add case_ipv6_add
mrc_case ipv4_second case_ipv4_second
mrc_case roce_v2_once case_roce_v2_once --after ipv6_add --after ipv4_second
mrc_case remove case_remove --after ipv6_add --after ipv4_second
mrc_case down_up case_down_up --after remove
mrc_case other_device case_other_device --after remove
mrc_cases_args "$@"

mrc_test_init
mrc_load
netdev_add_dummy "$TEST_NETDEV"
addr_add "$TEST_NETDEV" "$TEST_IPV4/$TEST_IPV4_PLEN"
link_add "$TEST_DEV" "$TEST_NETDEV"
mrc_cases_run
