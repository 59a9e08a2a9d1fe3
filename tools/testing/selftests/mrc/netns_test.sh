#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts in network namespaces (scripts/fabric hosts 2): an mrc device
# on each host's eth0, created from inside the namespace.  The ib devices
# stay where they are, the netdevs live in the namespaces.  Each device is
# ACTIVE and has its own host's addresses as GIDs and not the other's; each
# namespace has the UDP socket on port 4791 and the init namespace has none;
# deleting a namespace's netdev removes its device, deleting the namespaces
# removes the rest.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

FABRIC=$MRC_REPO/scripts/fabric
HOSTS=2
HOST_NETDEV=eth0
HOST_NET4=198.18.0	# hI has $HOST_NET4.I
HOST_NET6=fd00:198:18:	# and $HOST_NET6:I
DEVS=(mrcA mrcB)	# the device of hI is DEVS[I-1]

# case_dev I: the device of hI, created inside hI, on hI's eth0.
case_dev() {
	local i=$1 ns=h$1 dev=${DEVS[$1 - 1]}
	log "    $dev on $ns's $HOST_NETDEV"
	link_add "$dev" "$HOST_NETDEV" "$ns"
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
	assert_eq "netdev of $dev" "$HOST_NETDEV" \
		"$(ip netns exec "$ns" rdma link show | awk -v d="$dev" '
			$2 ~ ("^" d "/") { for (i = 3; i < NF; i++)
				if ($i == "netdev") print $(i + 1) }')"
	wait_until "$dev has GID of $HOST_NET4.$i" "$WAIT_TIMEOUT" \
		gid_present "$dev" "$(gid_of_ipv4 "$HOST_NET4.$i")"
	wait_until "$dev has GID of $HOST_NET6:$i" "$WAIT_TIMEOUT" \
		gid_present "$dev" "$(gid_of_ipv6 "$HOST_NET6:$i")"
	show_gids "$dev"
}

# Each table holds only its own host's addresses.
case_own_gids() {
	local i j dev
	for ((i = 1; i <= HOSTS; i++)); do
		dev=${DEVS[i - 1]}
		for ((j = 1; j <= HOSTS; j++)); do
			[ "$i" -eq "$j" ] && continue
			gid_absent "$dev" "$(gid_of_ipv4 "$HOST_NET4.$j")" ||
				fail "$dev lists h$j's $HOST_NET4.$j"
			gid_absent "$dev" "$(gid_of_ipv6 "$HOST_NET6:$j")" ||
				fail "$dev lists h$j's $HOST_NET6:$j"
		done
	done
}

# UDP port MRC_DEFAULT_UDP_PORT: in each namespace, not in the init
# namespace.
case_udp_ns() {
	local i init_socks
	for ((i = 1; i <= HOSTS; i++)); do
		wait_until "UDP socket on $MRC_DEFAULT_UDP_PORT in h$i" "$WAIT_TIMEOUT" \
			udp_listening "$MRC_DEFAULT_UDP_PORT" "h$i"
		udp_sockets_on "$MRC_DEFAULT_UDP_PORT" "h$i" | sed "s/^/    h$i: /"
	done
	init_socks=$(udp_sockets_on "$MRC_DEFAULT_UDP_PORT")
	[ -z "$init_socks" ] ||
		fail "UDP socket on $MRC_DEFAULT_UDP_PORT in the init namespace: $init_socks"
}

# Deleting h1's eth0 removes DEVS[0] only.
case_netdev_delete() {
	run ip netns exec h1 ip link del dev "$HOST_NETDEV"
	wait_until "${DEVS[0]} removed" "$WAIT_TIMEOUT" link_absent "${DEVS[0]}"
	link_exists "${DEVS[1]}" || fail "${DEVS[1]} went away with h1's netdev"
	port_state_is "${DEVS[1]}" "$PORT_STATE_ACTIVE" ||
		fail "${DEVS[1]} port $(port_state "${DEVS[1]}")"
}

# Deleting the namespaces removes DEVS[1].
case_ns_delete() {
	run "$FABRIC" clean
	wait_until "${DEVS[1]} removed with its namespace" "$WAIT_TIMEOUT" \
		link_absent "${DEVS[1]}"
	mrc_unload
}

mrc_case dev_h1 case_dev 1
mrc_case dev_h2 case_dev 2
mrc_case own_gids case_own_gids --after dev_h1 --after dev_h2
mrc_case udp_ns case_udp_ns --after dev_h1 --after dev_h2
mrc_case netdev_delete case_netdev_delete --after dev_h1 --after dev_h2
mrc_case ns_delete case_ns_delete --after netdev_delete
mrc_cases_args "$@"

mrc_test_init
[ -x "$FABRIC" ] || fail "$FABRIC missing"
mrc_load
run "$FABRIC" hosts "$HOSTS"
cleanup_push "$FABRIC" clean
mrc_cases_run
