#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loopback: RC QPs reach each other when both ends are on this host.
#
#   same_device   client and server QPs on one device (mrcA on h1's eth0)
#   two_devices   client on mrcL0, server on mrcL1: two devices in one
#                 namespace, on the two ends of a veth pair that both live
#                 there, addressed in one subnet.  (The RDMA core resolves a
#                 peer's MAC through the source GID's netdev, bound to it:
#                 the peer's address must be reachable there, as with rxe.
#                 The packets themselves then go through loopback.  Both
#                 ends accept ARP from a local source address: accept_local.)
#
# mrc_xfer moves WRITEs and WRITEs with immediate and the server checks
# every byte and immediate.  The counters must show that the packets were
# MRC data packets of the devices themselves: the sender's tx_data_pkts and
# the receiver's rx_data_pkts move by the same count, at least the packets
# the writes need, and nothing is dropped.
#
# Runs as root in a test guest, after `make -C <repo> install`.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

NS=h1
HOST_IP=$XFER_HOSTS_IP_A
# two_devices: a veth pair inside NS.
PAIR_A=lb0
PAIR_B=lb1
PAIR_IP_A=198.18.9.1
PAIR_IP_B=198.18.9.2
PAIR_PREFIX=24
DEV_MAIN=mrcA
DEV_PAIR_A=mrcL0
DEV_PAIR_B=mrcL1
SIZE=$((256 * 1024))
ITERS=8
XFER_SECS=60
DROP_COUNTERS=(drop_short drop_bad_icrc drop_bad_opcode drop_bad_qpn
	drop_bad_state drop_bad_header drop_bad_source duplicates
	out_of_window)

# device_up DEV NETDEV IP: DEV on NETDEV in NS, ACTIVE, with the GID of IP.
device_up() {
	local dev=$1 netdev=$2 ip=$3
	link_add "$dev" "$netdev" "$NS"
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
	wait_until "$dev has the GID of $ip" "$WAIT_TIMEOUT" \
		gid_present "$dev" "$(gid_of_ipv4 "$ip")"
}

# case_loop NAME CLIENT_DEV CLIENT_IP SERVER_DEV SERVER_IP [OPT...]
case_loop() {
	local name=$1 cdev=$2 cip=$3 sdev=$4 sip=$5 want tx rx c mtu
	shift 5
	XFER_NS_A=$NS
	XFER_NS_B=$NS
	XFER_DEV_A=$cdev
	XFER_DEV_B=$sdev
	XFER_GID_A=$(gid_index_of "$cdev" "$cip") ||
		fail "no RoCE v2 GID of $cip on $cdev"
	XFER_GID_B=$(gid_index_of "$sdev" "$sip") ||
		fail "no RoCE v2 GID of $sip on $sdev"
	XFER_SERVER_IP=$sip
	counters_snap "$name.0"
	xfer "$name" "$XFER_SECS" --size "$SIZE" --iters "$ITERS" "$@"
	counters_snap "$name.1"
	counters_changed "$name.0" "$name.1"

	mtu=$(xfer_client_mtu)
	[ -n "$mtu" ] || fail "$name: no path MTU from the client"
	want=$((ITERS * ((SIZE + mtu - 1) / mtu)))
	tx=$(counter_delta "$name.0" "$name.1" "$cdev" tx_data_pkts)
	rx=$(counter_delta "$name.0" "$name.1" "$sdev" rx_data_pkts)
	[ "$tx" -ge "$want" ] ||
		fail "$name: $cdev tx_data_pkts +$tx, the writes need $want"
	assert_eq "$name: $sdev received every data packet $cdev sent" "$tx" "$rx"
	for c in "${DROP_COUNTERS[@]}"; do
		assert_eq "$name: $sdev $c" 0 \
			"$(counter_delta "$name.0" "$name.1" "$sdev" "$c")"
	done
	log "ok $name: $cdev sent $tx data packets, $sdev received $rx"
}

# One device: client and server QPs on DEV_MAIN; two devices in one
# namespace: DEV_PAIR_A -> DEV_PAIR_B.
mrc_case same_device case_loop same_device "$DEV_MAIN" "$HOST_IP" "$DEV_MAIN" "$HOST_IP"
mrc_case same_device_imm case_loop same_device_imm "$DEV_MAIN" "$HOST_IP" \
	"$DEV_MAIN" "$HOST_IP" --imm --extra-recvs 1
mrc_case two_devices case_loop two_devices "$DEV_PAIR_A" "$PAIR_IP_A" \
	"$DEV_PAIR_B" "$PAIR_IP_B"
mrc_case two_devices_imm case_loop two_devices_imm "$DEV_PAIR_A" "$PAIR_IP_A" \
	"$DEV_PAIR_B" "$PAIR_IP_B" --imm --qps 2 --wr-api
mrc_cases_args "$@"

mrc_test_init
mrc_load "${XFER_LOSSLESS_PARAMS[@]}"
run "$FABRIC" hosts 1
cleanup_push "$FABRIC" clean
run ip -n "$NS" link add "$PAIR_A" type veth peer name "$PAIR_B"
run ip -n "$NS" addr add "$PAIR_IP_A/$PAIR_PREFIX" dev "$PAIR_A"
run ip -n "$NS" addr add "$PAIR_IP_B/$PAIR_PREFIX" dev "$PAIR_B"
run ip -n "$NS" link set "$PAIR_A" up
run ip -n "$NS" link set "$PAIR_B" up
# Each end answers the other's ARP although its source address is local.
run ip netns exec "$NS" sysctl -qw net.ipv4.conf.all.accept_local=1 \
	"net.ipv4.conf.$PAIR_A.accept_local=1" \
	"net.ipv4.conf.$PAIR_B.accept_local=1"
device_up "$DEV_MAIN" "$XFER_NETDEV" "$HOST_IP"
device_up "$DEV_PAIR_A" "$PAIR_A" "$PAIR_IP_A"
device_up "$DEV_PAIR_B" "$PAIR_B" "$PAIR_IP_B"

mrc_cases_run
