#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_mrc loads and unloads repeatedly; its udp_port parameter exists,
# defaults to 4791 and is the port of the UDP socket a device opens in its
# netdev's namespace (none without a device); `rdma link add ... type mrc`
# loads the module by itself; unloading it with a device present removes
# the device and the socket.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

LOAD_CYCLES=3
OTHER_UDP_PORT=4800
PARAM=/sys/module/$MRC_MODULE/parameters/udp_port

case_load_cycles() {
	local i
	for ((i = 1; i <= LOAD_CYCLES; i++)); do
		run modprobe "$MRC_MODULE"
		mrc_module_loaded || fail "cycle $i: not loaded after modprobe"
		run modprobe -r "$MRC_MODULE"
		! mrc_module_loaded || fail "cycle $i: still loaded after modprobe -r"
	done
}

# udp_port parameter, default MRC_DEFAULT_UDP_PORT; no socket yet.
case_udp_port_default() {
	mrc_unload
	mrc_load
	[ -r "$PARAM" ] || fail "no $PARAM"
	assert_eq "udp_port" "$MRC_DEFAULT_UDP_PORT" "$(<"$PARAM")"
	udp_not_listening "$MRC_DEFAULT_UDP_PORT" ||
		fail "a UDP socket on $MRC_DEFAULT_UDP_PORT with no mrc device: $(udp_sockets_on "$MRC_DEFAULT_UDP_PORT")"
}

# A device opens the socket, its removal closes it.
case_device_socket() {
	link_add "$TEST_DEV" "$TEST_NETDEV"
	wait_until "UDP socket on $MRC_DEFAULT_UDP_PORT" "$WAIT_TIMEOUT" \
		udp_listening "$MRC_DEFAULT_UDP_PORT"
	udp_sockets_on "$MRC_DEFAULT_UDP_PORT"
	link_del "$TEST_DEV"
	wait_until "no UDP socket on $MRC_DEFAULT_UDP_PORT after link delete" \
		"$WAIT_TIMEOUT" udp_not_listening "$MRC_DEFAULT_UDP_PORT"
}

# Unloading with a device present removes the device and the socket.
case_unload_with_device() {
	link_add "$TEST_DEV" "$TEST_NETDEV"
	wait_until "UDP socket on $MRC_DEFAULT_UDP_PORT" "$WAIT_TIMEOUT" \
		udp_listening "$MRC_DEFAULT_UDP_PORT"
	mrc_unload
	link_absent "$TEST_DEV" || fail "$TEST_DEV survived modprobe -r"
	udp_not_listening "$MRC_DEFAULT_UDP_PORT" ||
		fail "UDP socket on $MRC_DEFAULT_UDP_PORT survived modprobe -r"
}

# udp_port=OTHER_UDP_PORT
case_other_udp_port() {
	mrc_unload
	mrc_load "udp_port=$OTHER_UDP_PORT"
	assert_eq "udp_port" "$OTHER_UDP_PORT" "$(<"$PARAM")"
	link_add "$TEST_DEV" "$TEST_NETDEV"
	wait_until "UDP socket on $OTHER_UDP_PORT" "$WAIT_TIMEOUT" \
		udp_listening "$OTHER_UDP_PORT"
	udp_not_listening "$MRC_DEFAULT_UDP_PORT" ||
		fail "a socket on $MRC_DEFAULT_UDP_PORT with udp_port=$OTHER_UDP_PORT"
	link_del "$TEST_DEV"
	mrc_unload
}

# rdma link add loads the module (alias rdma-link-MRC_LINK_TYPE).
case_link_add_loads() {
	mrc_unload
	run rdma link add "$TEST_DEV" type "$MRC_LINK_TYPE" netdev "$TEST_NETDEV"
	cleanup_push link_del_quiet "$TEST_DEV"
	mrc_module_loaded || fail "rdma link add did not load $MRC_MODULE"
	link_exists "$TEST_DEV" || fail "no $TEST_DEV after rdma link add"
	link_del "$TEST_DEV"
	mrc_unload
}

# The cases that need the module unloaded first unload it (a no-op in a
# full run); the device cases need udp_port_default's module.
mrc_case load_cycles case_load_cycles
mrc_case udp_port_default case_udp_port_default
mrc_case device_socket case_device_socket --after udp_port_default
mrc_case unload_with_device case_unload_with_device --after device_socket
mrc_case other_udp_port case_other_udp_port
mrc_case link_add_loads case_link_add_loads
mrc_cases_args "$@"

mrc_test_init
mrc_unload
run modprobe ib_uverbs
netdev_add_dummy "$TEST_NETDEV"
addr_add "$TEST_NETDEV" "$TEST_IPV4/$TEST_IPV4_PLEN"
mrc_cases_run
