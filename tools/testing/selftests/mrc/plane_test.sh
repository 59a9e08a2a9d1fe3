#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multi-plane devices (Documentation/mrc/multi-plane.rst) on scripts/fabric
# planes: h1 and h2 joined by 4 planes, each with two ECMP links inside.
#
# 1. `rdma link add` still makes a device with one port; dev-new (YNL)
#    refuses a netdev named twice (EINVAL), one that is not Ethernet
#    (EPROTONOSUPPORT) and one that already belongs to an MRC device
#    (EEXIST), each with its extack message.
# 2. dev-new makes mrcA on h1's p1..p4 and mrcB on h2's: 4 ports, port N on
#    pN (sysfs, port-get), every port ACTIVE (sysfs, ibv_devinfo), and the
#    host's one address a RoCE v2 GID of every port.
# 3. port-set admin-state disabled on port 2: ibv_query_port reads
#    PORT_DOWN although p2 is up, an open context gets IBV_EVENT_PORT_ERR
#    for port 2; enabled again: ACTIVE and IBV_EVENT_PORT_ACTIVE.
# 4. An unmodified transfer (mrc_xfer, payload verified) between mrcA and
#    mrcB sprays over all 4 planes: each of h1's plane netdevs sends a
#    share of the packets, and inside each plane both ECMP links carry
#    some (the L4 hash spreads the plane's EVs).
# 5. p3 of h1 down in the middle of a transfer: port 3 goes DOWN
#    (ibv_devinfo), p1, p2 and p4 keep carrying the transfer while p3 is
#    down; p3 up again: port 3 ACTIVE and p3 carries the transfer again;
#    the transfer finishes with every byte verified and no QP error.
#    (mrc_xfer's TCP side channel uses the fabric's management link: h2
#    does not know that h1's p3 is down, and what it routes over plane 3
#    towards h1 is lost meanwhile.)
# 6. Path MTU over the planes: h1's p4 at a smaller MTU lowers port 4's
#    active_mtu only (ibv_devinfo: port 1's stays); a QP's path MTU must
#    fit every port, so the transfer's QP, which asks for port 1's
#    active_mtu, is refused by modify_qp to RTR with EINVAL, also while p4
#    is down (a down port comes back); p4 back at its MTU and up, a
#    transfer goes through again.
#
# Each assertion prints "ok: ..." or "not ok: ..."; the test goes on where
# it can and exits non-zero if any failed.

# Most helpers below run through wait_for or check.
# shellcheck disable=SC2317

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

TOP=$(cd "$SELF_DIR/../../../.." && pwd)
SPEC=$TOP/Documentation/netlink/specs/mrc.yaml

NPLANES=4
HOST_A=198.18.100.1	# scripts/fabric planes: h1's address on every plane
HOST_B=198.18.100.2
# The side channel of mrc_xfer (TCP) goes over the management link, which
# no plane going down disturbs.
MGMT_B=198.18.101.2
LINK_DEV=mrcL		# the one-port device of `rdma link add`
DOWN_PLANE=3		# the plane taken down in 5.
ADMIN_PORT=2		# the port disabled in 3.
HELPER_TIMEOUT=$((120 * TIME_SCALE))	# a debug kernel takes 4x
FABRIC_TIMEOUT=$((240 * TIME_SCALE))	# ten namespaces, sixteen links, under TCG
# 4.: a plane netdev must send at least this share of what the four sent
# (an even spread gives each 1/4; 64 EVs dealt over 4 ports, 16 each).
MIN_SHARE_PCT=10
SPRAY_SIZE=$((1024 * 1024))
SPRAY_ITERS=16
SPRAY_SECS=120
# 5.: writes at most; the test ends the transfer (a stop file) once the
# plane went down and came back.
FAIL_MAX_ITERS=100000
FAIL_SECS=$((300 * TIME_SCALE))
# Packets a plane must send, while the transfer runs, to count as carrying
# it; and how long to wait for that.
CARRY_PKTS=200
CARRY_WAIT=$((30 * TIME_SCALE))
# 6.: the plane given a smaller MTU, that MTU (too small for port 1's
# active IB MTU of 1024 plus MRC's headers, enough for 512), and the
# transfers (refused at once, or one small write).
MTU_PLANE=4
MTU_SMALL=1000
MTU_SECS=60
MTU_IB_SMALL=512
EINVAL=22
# The strerror() texts YNL prints.
ERR_EPROTONOSUPPORT="Protocol not supported"
ERR_ENOENT="No such file or directory"
ERR_EOPNOTSUPP="Operation not supported"

# ynl_refused NS ERRTEXT EXTACK_MSG ARG...
ynl_refused() {
	local ns=$1 errtext=$2 msg=$3
	shift 3
	bounded "$CMD_TIMEOUT" ynl_in "$ns" "$@" || fail "hung: ynl $*"
	if [ "$BOUNDED_RC" -ne 0 ] && grep -qF -- "$errtext" "$BOUNDED_OUT" &&
		grep -qF "'msg': '$msg'" "$BOUNDED_OUT"; then
		ok "refused, $errtext, '$msg': ynl $*"
	else
		bounded_output
		not_ok "not refused with $errtext and '$msg': ynl $*"
	fi
}

ifindex_in() {
	ip netns exec "$1" cat "/sys/class/net/$2/ifindex"
}

# dev_new NS NAME NETDEV...: a device with a port per netdev, by YNL.
dev_new() {
	local ns=$1 name=$2 nd list=
	shift 2
	for nd in "$@"; do
		list+=${list:+,}$(ifindex_in "$ns" "$nd")
	done
	run ynl_in "$ns" --do dev-new \
		--json "{\"dev-name\": \"$name\", \"netdev-ifindex\": [$list]}"
	cleanup_push link_del_quiet "$name"
	link_exists "$name" || fail "no /sys/class/infiniband/$name after dev-new"
}

nports_of() {
	local n=0 d
	for d in "/sys/class/infiniband/$1/ports"/*; do
		[ -d "$d" ] && n=$((n + 1))
	done
	printf '%s\n' "$n"
}

# port_state_of DEV PORT: sysfs's "4: ACTIVE" / "1: DOWN".
port_state_of() {
	local s=
	read -r s 2>/dev/null <"/sys/class/infiniband/$1/ports/$2/state" || true
	printf '%s\n' "$s"
}

port_state_eq() {
	[ "$(port_state_of "$1" "$2")" = "$3" ]
}

# devinfo_port_state DEV PORT: what ibv_devinfo (ibv_query_port) says.
devinfo_port_state() {
	ibv_devinfo -d "$1" -i "$2" 2>/dev/null |
		awk '$1 == "state:" { print $2; exit }'
}

# devinfo_active_mtu DEV PORT: the port's active_mtu in bytes.
devinfo_active_mtu() {
	ibv_devinfo -d "$1" -i "$2" 2>/dev/null |
		awk '$1 == "active_mtu:" { print $2; exit }'
}

active_mtu_is() {
	[ "$(devinfo_active_mtu "$1" "$2")" = "$3" ]
}

# mtu_refused NAME: a transfer whose client's modify_qp to RTR is refused
# with EINVAL.
mtu_refused() {
	local want="RESULT fail reason=setup what=qp_to_rtr errno=$EINVAL"
	xfer_try "$1" "$MTU_SECS" --size 4096 --iters 1 || true
	if [ "$XFER_CLIENT_RESULT" = "$want" ]; then
		ok "$1: modify_qp to RTR refused: $XFER_CLIENT_RESULT"
	else
		xfer_show
		not_ok "$1: client '$XFER_CLIENT_RESULT', expected '$want'"
	fi
}

devinfo_port_is() {
	[ "$(devinfo_port_state "$1" "$2")" = "$3" ]
}

# The netdevs of DEV's port PORT's GIDs, and whether GID is among them.
port_has_gid() {
	local dev=$1 port=$2 gid=$3 f g
	for f in "/sys/class/infiniband/$dev/ports/$port/gids"/*; do
		read -r g 2>/dev/null <"$f" || continue
		[ "$g" = "$gid" ] && return 0
	done
	return 1
}

# The netdev the RDMA core has for DEV's port PORT (from its GID table).
port_gid_ndev() {
	local dev=$1 port=$2 gid=$3 f g idx nd
	for f in "/sys/class/infiniband/$dev/ports/$port/gids"/*; do
		read -r g 2>/dev/null <"$f" || continue
		[ "$g" = "$gid" ] || continue
		idx=${f##*/}
		read -r nd <"/sys/class/infiniband/$dev/ports/$port/gid_attrs/ndevs/$idx"
		printf '%s\n' "$nd"
		return 0
	done
}

# snap_planes TAG: TX[TAG.pP] for h1's plane netdevs, TX[TAG.pPa.lK] for
# the links of h1's plane routers.
declare -A TX=()
snap_planes() {
	local p k
	for ((p = 1; p <= NPLANES; p++)); do
		TX[$1.p$p]=$(tx_pkts h1 "p$p")
		for k in 1 2; do
			TX[$1.p${p}a.l$k]=$(tx_pkts "p${p}a" "l$k")
		done
	done
}

# txd T1 T2 KEY: TX[T2.KEY] - TX[T1.KEY].
txd() {
	printf '%s\n' $((${TX[$2.$3]} - ${TX[$1.$3]}))
}

# plane_carries PLANE SINCE_PKTS: p$PLANE has sent CARRY_PKTS more since.
plane_carries() {
	[ $(($(tx_pkts h1 "p$1") - $2)) -ge "$CARRY_PKTS" ]
}

# xfer_gids: mrc_xfer's GIDs and server address, on the 4-port devices.
xfer_gids() {
	XFER_GID_A=$(gid_index_of "$XFER_DEV_A" "$HOST_A") ||
		fail "no RoCE v2 GID of $HOST_A on $XFER_DEV_A port 1"
	XFER_GID_B=$(gid_index_of "$XFER_DEV_B" "$HOST_B") ||
		fail "no RoCE v2 GID of $HOST_B on $XFER_DEV_B port 1"
	XFER_SERVER_IP=$MGMT_B
}

# rdma link add makes one port; dev-new refusals
case_link_add() {
	link_add "$LINK_DEV" p1 h1
	assert_eq "ports of $LINK_DEV" 1 "$(nports_of "$LINK_DEV")"
	ok "rdma link add: $LINK_DEV has 1 port"
	ynl_refused h1 "$ERR_EEXIST" "a netdev already belongs to an MRC device" \
		--do dev-new --json "{\"dev-name\": \"mrcX\",
		\"netdev-ifindex\": [$(ifindex_in h1 p2), $(ifindex_in h1 p1)]}"
	link_del "$LINK_DEV"
	ynl_refused h1 "$ERR_EINVAL" "a netdev is named twice" \
		--do dev-new --json "{\"dev-name\": \"mrcX\",
		\"netdev-ifindex\": [$(ifindex_in h1 p1), $(ifindex_in h1 p1)]}"
	ynl_refused h1 "$ERR_EPROTONOSUPPORT" "MRC runs over Ethernet netdevs only" \
		--do dev-new --json "{\"dev-name\": \"mrcX\",
		\"netdev-ifindex\": [$(ifindex_in h1 p1), $(ifindex_in h1 lo)]}"
	link_absent mrcX || not_ok "a refused dev-new left mrcX behind"
}

# dev-new: mrcA on h1's planes, mrcB on h2's
case_devices() {
	dev_new h1 "$XFER_DEV_A" "${PLANES[@]}"
	dev_new h2 "$XFER_DEV_B" "${PLANES[@]}"
	GID_A=$(gid_of_ipv4 "$HOST_A")
	GID_B=$(gid_of_ipv4 "$HOST_B")
	for dev in "$XFER_DEV_A" "$XFER_DEV_B"; do
		assert_eq "ports of $dev" "$NPLANES" "$(nports_of "$dev")"
		gid=$GID_A
		[ "$dev" = "$XFER_DEV_A" ] || gid=$GID_B
		for ((p = 1; p <= NPLANES; p++)); do
			wait_until "$dev port $p ACTIVE" "$WAIT_TIMEOUT" \
				port_state_eq "$dev" "$p" "$PORT_STATE_ACTIVE"
			wait_until "$dev port $p has the host's GID" "$WAIT_TIMEOUT" \
				port_has_gid "$dev" "$p" "$gid"
			assert_eq "$dev port $p: netdev of the host's GID" "p$p" \
				"$(port_gid_ndev "$dev" "$p" "$gid")"
			assert_eq "$dev port $p: ibv_devinfo state" PORT_ACTIVE \
				"$(devinfo_port_state "$dev" "$p")"
		done
		ok "$dev: $NPLANES ports, port N on pN, ACTIVE, the host's GID on each"
	done
	run ynl_in h1 --dump port-get --json "{\"dev-name\": \"$XFER_DEV_A\"}"
	got=$(jq -c '[if type == "array" then .[] else . end |
		{"port-index", ifname, state, "admin-state"}] | sort_by(."port-index")' \
		"$BOUNDED_OUT") || { bounded_output; fail "port-get: YNL printed no JSON"; }
	want=$(for ((p = 1; p <= NPLANES; p++)); do
		printf '{"port-index":%d,"ifname":"p%d","state":"active","admin-state":"enabled"}\n' "$p" "$p"
	done | jq -cs .)
	if [ "$got" = "$want" ]; then
		ok "port-get dump of $XFER_DEV_A: $got"
	else
		not_ok "port-get dump of $XFER_DEV_A: $got, expected $want"
	fi
}

# port-set admin-state disabled / enabled on port $ADMIN_PORT
case_admin_state() {
	helper=$(helper_path mrc_async_helper)
	bg_start helper ip netns exec h1 env MRC_DEV="$XFER_DEV_A" MRC_IPV4="$HOST_A" \
		"$helper" "$HELPER_TIMEOUT" PORT_ERR PORT_ACTIVE
	wait_until "helper READY" "$WAIT_TIMEOUT" file_has_line "$(bg_out helper)" READY
	run ynl_in h1 --do port-set --json "{\"dev-name\": \"$XFER_DEV_A\",
		\"port-index\": $ADMIN_PORT, \"admin-state\": \"disabled\"}"
	check "port $ADMIN_PORT disabled: PORT_DOWN in ibv_devinfo" \
		wait_for "$WAIT_TIMEOUT" devinfo_port_is "$XFER_DEV_A" "$ADMIN_PORT" PORT_DOWN
	check "port $ADMIN_PORT disabled: its netdev p$ADMIN_PORT is still up" \
		ip netns exec h1 sh -c "ip link show dev p$ADMIN_PORT | grep -q 'state UP'"
	check "port $ADMIN_PORT disabled: the other ports stay ACTIVE" \
		devinfo_port_is "$XFER_DEV_A" 1 PORT_ACTIVE
	run ynl_in h1 --do port-get --json "{\"dev-name\": \"$XFER_DEV_A\",
		\"port-index\": $ADMIN_PORT}"
	if jq -e '."admin-state" == "disabled" and .state == "down"' "$BOUNDED_OUT" \
		>/dev/null 2>&1; then
		ok "port-get: admin-state disabled, state down"
	else
		bounded_output
		not_ok "port-get: not admin-state disabled and state down"
	fi
	run ynl_in h1 --do port-set --json "{\"dev-name\": \"$XFER_DEV_A\",
		\"port-index\": $ADMIN_PORT, \"admin-state\": \"enabled\"}"
	check "port $ADMIN_PORT enabled: PORT_ACTIVE again" \
		wait_for "$WAIT_TIMEOUT" devinfo_port_is "$XFER_DEV_A" "$ADMIN_PORT" PORT_ACTIVE
	if bg_wait helper "$WAIT_TIMEOUT"; then
		check "IBV_EVENT_PORT_ERR for port $ADMIN_PORT" \
			file_has_line "$(bg_out helper)" "EVENT PORT_ERR port $ADMIN_PORT"
		check "IBV_EVENT_PORT_ACTIVE for port $ADMIN_PORT" \
			file_has_line "$(bg_out helper)" "EVENT PORT_ACTIVE port $ADMIN_PORT"
	else
		not_ok "the async helper still waits: $(cat "$(bg_out helper)")"
		bg_kill helper
	fi
	ynl_refused h1 "$ERR_ENOENT" "the device has no such port" \
		--do port-set --json "{\"dev-name\": \"$XFER_DEV_A\",
		\"port-index\": $((NPLANES + 1)), \"admin-state\": \"disabled\"}"
}

# a transfer sprays over all $NPLANES planes and both links of each
case_spray() {
	xfer_gids
	snap_planes s0
	xfer spray "$SPRAY_SECS" --size "$SPRAY_SIZE" --iters "$SPRAY_ITERS"
	snap_planes s1
	total=0
	for ((p = 1; p <= NPLANES; p++)); do
		total=$((total + $(txd s0 s1 "p$p")))
	done
	for ((p = 1; p <= NPLANES; p++)); do
		sent=$(txd s0 s1 "p$p")
		if [ $((sent * 100)) -ge $((total * MIN_SHARE_PCT)) ]; then
			ok "h1 p$p sent $sent of $total packets"
		else
			not_ok "h1 p$p sent $sent of $total packets (< $MIN_SHARE_PCT%)"
		fi
		for k in 1 2; do
			sent=$(txd s0 s1 "p${p}a.l$k")
			if [ "$sent" -gt 0 ]; then
				ok "plane $p: link l$k carried $sent packets"
			else
				not_ok "plane $p: link l$k carried nothing (no ECMP inside the plane)"
			fi
		done
	done
}

# h1's p$DOWN_PLANE down and up again during a transfer
case_plane_down() {
	xfer_gids
	# Open-ended: the transfer runs until the test has seen p$DOWN_PLANE carry
	# it again (a stop file), however slow the host is today.
	bin=$(helper_path mrc_xfer)
	rm -f "$MRC_TMP/fail.stop"
	bg_start fail.server ip netns exec h2 "$bin" -d "$XFER_DEV_B" -g "$XFER_GID_B" \
		-p "$XFER_TCP_PORT" --timeout "$FAIL_SECS"
	bg_start fail.client ip netns exec h1 "$bin" -d "$XFER_DEV_A" -g "$XFER_GID_A" \
		-p "$XFER_TCP_PORT" --timeout "$FAIL_SECS" --size "$SPRAY_SIZE" \
		--iters "$FAIL_MAX_ITERS" --stop-file "$MRC_TMP/fail.stop" "$MGMT_B"
	snap_planes f0
	wait_until "p$DOWN_PLANE carries the transfer" "$CARRY_WAIT" \
		plane_carries "$DOWN_PLANE" "${TX[f0.p$DOWN_PLANE]}"
	run ip -n h1 link set "p$DOWN_PLANE" down
	check "port $DOWN_PLANE DOWN in ibv_devinfo" wait_for "$WAIT_TIMEOUT" \
		devinfo_port_is "$XFER_DEV_A" "$DOWN_PLANE" PORT_DOWN
	snap_planes f1
	for ((p = 1; p <= NPLANES; p++)); do
		[ "$p" = "$DOWN_PLANE" ] && continue
		check "p$p carries the transfer while p$DOWN_PLANE is down" \
			wait_for "$CARRY_WAIT" plane_carries "$p" "${TX[f1.p$p]}"
	done
	bg_done fail.client && not_ok "the transfer ended before p$DOWN_PLANE came back"
	run ip -n h1 link set "p$DOWN_PLANE" up
	check "port $DOWN_PLANE ACTIVE again in ibv_devinfo" wait_for "$WAIT_TIMEOUT" \
		devinfo_port_is "$XFER_DEV_A" "$DOWN_PLANE" PORT_ACTIVE
	snap_planes f2
	check "p$DOWN_PLANE carries the transfer again" \
		wait_for "$CARRY_WAIT" plane_carries "$DOWN_PLANE" "${TX[f2.p$DOWN_PLANE]}"
	touch "$MRC_TMP/fail.stop"
	bg_wait fail.client "$FAIL_SECS" || not_ok "client still running"
	bg_wait fail.server "$XFER_SLACK" || not_ok "server still running"
	XFER_CLIENT_OUT=$(bg_out fail.client)
	XFER_SERVER_OUT=$(bg_out fail.server)
	cres=$(result_of "$XFER_CLIENT_OUT")
	sres=$(result_of "$XFER_SERVER_OUT")
	if [[ $cres == "RESULT ok "* ]] && [[ $sres == "RESULT ok "* ]]; then
		ok "transfer across the plane failure: payload verified, no QP error: ${cres#RESULT }"
	else
		xfer_show
		not_ok "transfer across the plane failure: client '$cres', server '$sres'"
	fi
}

# h1's p$MTU_PLANE at MTU $MTU_SMALL: a path MTU that does not fit it is refused
case_mtu() {
	xfer_gids
	mtu_port1=$(devinfo_active_mtu "$XFER_DEV_A" 1)
	mtu_normal=$(ip netns exec h1 cat "/sys/class/net/p$MTU_PLANE/mtu")
	run ip -n h1 link set "p$MTU_PLANE" mtu "$MTU_SMALL"
	check "port $MTU_PLANE: active_mtu $MTU_IB_SMALL in ibv_devinfo" wait_for \
		"$WAIT_TIMEOUT" active_mtu_is "$XFER_DEV_A" "$MTU_PLANE" "$MTU_IB_SMALL"
	assert_eq "port 1: active_mtu unchanged by p$MTU_PLANE" "$mtu_port1" \
		"$(devinfo_active_mtu "$XFER_DEV_A" 1)"
	mtu_refused mtu_small
	run ip -n h1 link set "p$MTU_PLANE" down
	check "port $MTU_PLANE DOWN in ibv_devinfo" wait_for "$WAIT_TIMEOUT" \
		devinfo_port_is "$XFER_DEV_A" "$MTU_PLANE" PORT_DOWN
	mtu_refused mtu_small_down
	run ip -n h1 link set "p$MTU_PLANE" mtu "$mtu_normal"
	run ip -n h1 link set "p$MTU_PLANE" up
	check "port $MTU_PLANE ACTIVE again in ibv_devinfo" wait_for "$WAIT_TIMEOUT" \
		devinfo_port_is "$XFER_DEV_A" "$MTU_PLANE" PORT_ACTIVE
	if xfer_try mtu_back "$MTU_SECS" --size 4096 --iters 1; then
		ok "p$MTU_PLANE back at MTU $mtu_normal: ${XFER_CLIENT_RESULT#RESULT }"
	else
		xfer_show
		not_ok "p$MTU_PLANE back at MTU $mtu_normal: client '$XFER_CLIENT_RESULT'"
	fi
}

# --- main -------------------------------------------------------------------

# Every case after link_add uses the 4-port devices of devices.
mrc_case link_add case_link_add
mrc_case devices case_devices
mrc_case admin_state case_admin_state --after devices
mrc_case spray case_spray --after devices
mrc_case plane_down case_plane_down --after devices
mrc_case mtu case_mtu --after devices
mrc_cases_args "$@"

mrc_test_init
for tool in jq ibv_devinfo; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is needed"
YNL_CLI=${MRC_YNL_CLI:-$MRC_SELFTEST_BIN/ynl/tools/net/ynl/cli.py}
[ -r "$YNL_CLI" ] ||
	fail "no YNL CLI at $YNL_CLI: run make -C tools/testing/selftests/mrc"

mrc_load
cleanup_push "$FABRIC" clean
bounded "$FABRIC_TIMEOUT" "$FABRIC" planes "$NPLANES" ||
	fail "scripts/fabric planes: not done after ${FABRIC_TIMEOUT}s"
[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "scripts/fabric planes failed"; }
run "$FABRIC" check
PLANES=()
for ((p = 1; p <= NPLANES; p++)); do
	PLANES+=("p$p")
done

# A tree whose netlink family lacks dev-new cannot make the devices.
bounded "$CMD_TIMEOUT" ynl_in h1 --do dev-new --json '{"dev-name": "mrcX"}' ||
	fail "hung: ynl dev-new"
if grep -qF "$ERR_EOPNOTSUPP" "$BOUNDED_OUT"; then
	bounded_output
	log "SKIP: the mrc netlink family has no dev-new in this tree"
	exit "$KSFT_SKIP"
fi
mrc_cases_run
