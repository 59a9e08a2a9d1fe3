# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the data-path tests (xfer_test.sh, loss_test.sh,
# perftest_test.sh, wireshark_test.sh, ev_test.sh, path_test.sh, ...).
# Source lib.sh first.
#
#   xfer_fabric hosts|routed|skew [FABRIC_ARG...]
#                             two hosts h1, h2 (scripts/fabric), the mrc
#                             device mrcA on h1's eth0 and mrcB on h2's,
#                             their IPv4 RoCE v2 GID indices in XFER_GID_A,
#                             XFER_GID_B and h2's address in XFER_SERVER_IP
#   xfer NAME SECS [OPT...]   mrc_xfer server on h2, client on h1 with OPTs,
#                             both bounded; fails unless both print
#                             "RESULT ok"
#   xfer_async NAME SECS [OPT...], xfer_async_ok NAME SECS, expect_xfer
#                             the same in the background
#   counters_snap TAG         every counter of both devices, kept as TAG
#   counter_delta T1 T2 DEV NAME   NAME of DEV at T2 minus at T1
#   counter_at TAG DEV NAME   NAME of DEV in snapshot TAG
#   fw CMD..., tc_clear DEV, tc_drop DEV MATCH..., tc_dropped DEV
#                             commands and u32 drop filters in the routed
#                             fabric's router
#   xfer_spine_netem K [NETEM_ARG...], xfer_spines_netem [NETEM_ARG...],
#   xfer_spine_dropped K, xfer_spines_dropped
#                             the skew fabric's spines towards h2: their
#                             delay plus NETEM_ARGs, packets dropped
#   softnet_drops             packets every CPU's receive backlog dropped
#   cc_trace_on, cc_trace_off, cc_trace_windows FILE
#                             the tracepoint rdma_mrc:mrc_cc_window: record,
#                             stop, "QPN CWND EVENT" per window change

# Constants for the tests that source this file.
# shellcheck disable=SC2034
{
FABRIC=$MRC_REPO/scripts/fabric
XFER_DEV_A=mrcA		# on h1: the client, the requester
XFER_DEV_B=mrcB		# on h2: the server, the responder
XFER_NS_A=h1
XFER_NS_B=h2
# The devices counters_snap and counters_show take (none: mrcA, mrcB).
XFER_COUNTER_DEVS=()
XFER_NETDEV=eth0
XFER_TCP_PORT=18520
# Seconds a bounded mrc_xfer may outlive its own --timeout (alarm backstop
# included) before the test kills it.
XFER_SLACK=20
# hosts: scripts/fabric's addressing.
XFER_HOSTS_IP_A=198.18.0.1
XFER_HOSTS_IP_B=198.18.0.2
# routed: h1 - fw - h2.
XFER_ROUTED_IP_A=198.18.1.1
XFER_ROUTED_IP_B=198.18.2.2
XFER_ROUTER_NS=fw
# skew: h1 - la - spines s1..sN - lb - h2.
XFER_SKEW_IP_A=198.18.121.1
XFER_SKEW_IP_B=198.18.122.2
}

XFER_GID_A=
XFER_GID_B=
XFER_SERVER_IP=
XFER_SERVER_OPTS=()	# extra server options (e.g. --offset) for one run
# Module parameters xfer_fabric loads rdma_mrc with.  A test asserting that
# a lossless run retransmits nothing sets XFER_LOSSLESS_PARAMS: a TCG vCPU
# the host deschedules for longer than the 1 ms RTO floor looks like loss
# to the other vCPU, so such tests raise the floor (as TCP's 200 ms does,
# times lib.sh's TIME_SCALE: a debug kernel's receiver can be that much
# slower to acknowledge) and only real loss can move the counters.
XFER_MODULE_PARAMS=()
XFER_LOSSLESS_PARAMS=(rto_min_us=$((200000 * ${TIME_SCALE:-1})))
XFER_CLIENT_OUT=	# output files of the latest xfer run
XFER_SERVER_OUT=
XFER_CLIENT_RESULT=	# their RESULT lines
XFER_SERVER_RESULT=
declare -gA COUNTERS=()
COUNTER_NAMES=()	# in the order rdma statistic prints them

# gid_index_of DEV IPV4: the index of the RoCE v2 GID of IPV4 in DEV's
# table (from sysfs), or nothing.
gid_index_of() {
	local want row idx rest
	want=$(gid_of_ipv4 "$2")
	gid_rows "$1"
	for row in "${GID_ROWS[@]}"; do
		idx=${row%%|*}
		rest=${row#*|}
		if [ "${rest%%|*}" = "$want" ] &&
			[ "$(cut -d'|' -f2 <<<"$rest")" = "$GID_TYPE_V2" ]; then
			printf '%s\n' "$idx"
			return 0
		fi
	done
	return 1
}

# xfer_dev_up DEV NS IPV4: the device on NS's eth0, ACTIVE, with the GID.
xfer_dev_up() {
	local dev=$1 ns=$2 ip=$3
	link_add "$dev" "$XFER_NETDEV" "$ns"
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
	wait_until "$dev has the GID of $ip" "$WAIT_TIMEOUT" \
		gid_present "$dev" "$(gid_of_ipv4 "$ip")"
}

xfer_fabric() {
	local kind=$1 ip_a ip_b
	shift
	[ -x "$FABRIC" ] || fail "$FABRIC missing"
	helper_path mrc_xfer >/dev/null
	mrc_load "${XFER_MODULE_PARAMS[@]}"
	case $kind in
	hosts)
		run "$FABRIC" hosts 2
		ip_a=$XFER_HOSTS_IP_A
		ip_b=$XFER_HOSTS_IP_B
		;;
	routed)
		run "$FABRIC" routed
		ip_a=$XFER_ROUTED_IP_A
		ip_b=$XFER_ROUTED_IP_B
		;;
	skew)
		run "$FABRIC" skew "$@"
		ip_a=$XFER_SKEW_IP_A
		ip_b=$XFER_SKEW_IP_B
		;;
	*) fail "xfer_fabric: unknown kind $kind" ;;
	esac
	cleanup_push "$FABRIC" clean
	xfer_dev_up "$XFER_DEV_A" "$XFER_NS_A" "$ip_a"
	xfer_dev_up "$XFER_DEV_B" "$XFER_NS_B" "$ip_b"
	XFER_GID_A=$(gid_index_of "$XFER_DEV_A" "$ip_a") ||
		fail "no RoCE v2 GID of $ip_a on $XFER_DEV_A"
	XFER_GID_B=$(gid_index_of "$XFER_DEV_B" "$ip_b") ||
		fail "no RoCE v2 GID of $ip_b on $XFER_DEV_B"
	XFER_SERVER_IP=$ip_b
	log "$XFER_DEV_A on $XFER_NS_A ($ip_a, GID index $XFER_GID_A)," \
		"$XFER_DEV_B on $XFER_NS_B ($ip_b, GID index $XFER_GID_B)"
}

# The skew fabric's spines (scripts/fabric skew): how many, their one-way
# delays in microseconds (the caller's, as it gave them to xfer_fabric
# skew), how many packets a spine's netem may hold.
XFER_SPINES=4
XFER_SPINE_DELAYS_US=(0 50 100 200)
XFER_SPINE_LIMIT=10000

# xfer_spine_netem K [NETEM_ARG...]: spine sK's qdisc towards h2 is its
# delay plus NETEM_ARGs (its delay alone with none).
xfer_spine_netem() {
	local k=$1 delay=()
	shift
	[ "${XFER_SPINE_DELAYS_US[k - 1]}" = 0 ] ||
		delay=(delay "${XFER_SPINE_DELAYS_US[k - 1]}us")
	if [ ${#delay[@]} = 0 ] && [ $# = 0 ]; then
		ip netns exec "s$k" tc qdisc del dev lb root 2>/dev/null || true
		return 0
	fi
	run ip netns exec "s$k" tc qdisc replace dev lb root netem \
		limit "$XFER_SPINE_LIMIT" "${delay[@]}" "$@"
}

# xfer_spines_netem [NETEM_ARG...]: the same on every spine.
xfer_spines_netem() {
	local k
	for ((k = 1; k <= XFER_SPINES; k++)); do
		xfer_spine_netem "$k" "$@"
	done
}

# xfer_spine_dropped K: packets spine sK's qdisc towards h2 dropped so far.
xfer_spine_dropped() {
	ip netns exec "s$1" tc -s qdisc show dev lb |
		awk '/dropped/ { sub(",", "", $7); n += $7 } END { print n + 0 }'
}

xfer_spines_dropped() {
	local k n=0
	for ((k = 1; k <= XFER_SPINES; k++)); do
		n=$((n + $(xfer_spine_dropped "$k")))
	done
	echo "$n"
}

# The last RESULT line of a file.
result_of() {
	local line result=
	while IFS= read -r line; do
		if [[ $line == RESULT\ * ]]; then
			result=$line
		fi
	done <"$1"
	printf '%s\n' "$result"
}

# result_field LINE KEY: the value of KEY=value in a RESULT line.
result_field() {
	local word
	for word in $1; do
		if [[ $word == "$2="* ]]; then
			printf '%s\n' "${word#*=}"
			return 0
		fi
	done
	return 1
}

xfer_show() {
	log "  client ($XFER_NS_A):"
	sed 's/^/    /' "$XFER_CLIENT_OUT"
	log "  server ($XFER_NS_B):"
	sed 's/^/    /' "$XFER_SERVER_OUT"
}

# xfer_try NAME SECS [CLIENT_OPT...]: one bounded run; 0 if both sides
# said RESULT ok, else 1.  Outputs in XFER_CLIENT_OUT / XFER_SERVER_OUT.
xfer_try() {
	local name=$1 secs=$2 bin ok=0
	shift 2
	bin=$(helper_path mrc_xfer)
	bg_start "$name.server" ip netns exec "$XFER_NS_B" "$bin" \
		-d "$XFER_DEV_B" -g "$XFER_GID_B" -p "$XFER_TCP_PORT" \
		--timeout "$secs" "${XFER_SERVER_OPTS[@]}"
	bg_start "$name.client" ip netns exec "$XFER_NS_A" "$bin" \
		-d "$XFER_DEV_A" -g "$XFER_GID_A" -p "$XFER_TCP_PORT" \
		--timeout "$secs" "$@" "$XFER_SERVER_IP"
	XFER_CLIENT_OUT=$(bg_out "$name.client")
	XFER_SERVER_OUT=$(bg_out "$name.server")
	if ! bg_wait "$name.client" $((secs + XFER_SLACK)); then
		log "  client still running after $((secs + XFER_SLACK))s: killed"
		bg_kill "$name.client"
		ok=1
	fi
	if ! bg_wait "$name.server" "$XFER_SLACK"; then
		log "  server still running ${XFER_SLACK}s after the client: killed"
		bg_kill "$name.server"
		ok=1
	fi
	XFER_CLIENT_RESULT=$(result_of "$XFER_CLIENT_OUT")
	XFER_SERVER_RESULT=$(result_of "$XFER_SERVER_OUT")
	[[ $XFER_CLIENT_RESULT == "RESULT ok "* ]] || ok=1
	[[ $XFER_SERVER_RESULT == "RESULT ok "* ]] || ok=1
	[ "$(bg_rc "$name.client" 2>/dev/null)" = 0 ] || ok=1
	[ "$(bg_rc "$name.server" 2>/dev/null)" = 0 ] || ok=1
	return "$ok"
}

# xfer_client_mtu: the path MTU the client of the latest run reported
# ("... connected: ... mtu N, ...").
xfer_client_mtu() {
	local line
	while IFS= read -r line; do
		if [[ $line =~ connected:.*\ mtu\ ([0-9]+), ]]; then
			printf '%s\n' "${BASH_REMATCH[1]}"
			return 0
		fi
	done <"$XFER_CLIENT_OUT"
	fail "no MTU in the client's output"
}

# xfer NAME SECS [CLIENT_OPT...]: xfer_try that must succeed.
xfer() {
	local name=$1 start=$SECONDS
	if ! xfer_try "$@"; then
		# With XFER_COUNTERS_SINCE=TAG (a counters_snap before the run),
		# what the devices did until the failure, which says why.
		if [ -n "${XFER_COUNTERS_SINCE:-}" ]; then
			counters_snap "$name.failed"
			log "    counters that moved until the failure:"
			counters_changed "$XFER_COUNTERS_SINCE" "$name.failed"
		fi
		xfer_show
		fail "$name: mrc_xfer failed"
	fi
	log "ok $name ($((SECONDS - start))s): client ${XFER_CLIENT_RESULT#RESULT }"
	log "    server ${XFER_SERVER_RESULT#RESULT }"
}

# has_gid DEV IPV4: DEV's table has the RoCE v2 GID of IPV4.
has_gid() { gid_index_of "$@" >/dev/null; }

# --- mrc_xfer in the background ---------------------------------------------

# xfer_async NAME SECS [CLIENT_OPT...]: xfer_try as background job
# NAME.xfer; xfer_async_ok NAME SECS waits up to SECS for it (then kills
# it), sets XFER_CLIENT_RESULT / XFER_SERVER_RESULT and tells whether it
# succeeded.
xfer_async() {
	bg_start "$1.xfer" xfer_try "$@"
	XFER_CLIENT_OUT=$(bg_out "$1.client")
	XFER_SERVER_OUT=$(bg_out "$1.server")
}

xfer_async_ok() {
	if ! bg_wait "$1.xfer" "$2"; then
		log "    mrc_xfer $1 still running after $2 s: killed"
		bg_kill "$1.xfer"
	fi
	XFER_CLIENT_RESULT=
	XFER_SERVER_RESULT=
	[ ! -f "$XFER_CLIENT_OUT" ] || XFER_CLIENT_RESULT=$(result_of "$XFER_CLIENT_OUT")
	[ ! -f "$XFER_SERVER_OUT" ] || XFER_SERVER_RESULT=$(result_of "$XFER_SERVER_OUT")
	bg_done "$1.xfer" && [ "$(bg_rc "$1.xfer")" = 0 ]
}

# expect_xfer WHAT NAME SECS: ok if xfer_async NAME succeeds within SECS.
expect_xfer() {
	if xfer_async_ok "$2" "$3"; then
		ok "$1: ${XFER_CLIENT_RESULT#RESULT }"
	else
		xfer_show || true
		not_ok "$1: mrc_xfer failed (client '$XFER_CLIENT_RESULT'," \
			"server '$XFER_SERVER_RESULT')"
	fi
}

# xfer_running NAME: xfer_async NAME has not ended yet.
xfer_running() {
	! bg_done "$1.xfer"
}

# --- tc in the routed fabric's router ------------------------------------------

# MRC over IPv4 as u32 sees it (IPv4 without options: the offsets hold).
IPV4_VIHL=0x45
IPPROTO_UDP=17
IP_PROTO_OFF=9
UDP_SPORT_OFF=20	# IP header 20 + 0
UDP_DPORT_OFF=22	# IP header 20 + 2

fw() { run ip netns exec "$XFER_ROUTER_NS" "$@"; }

# tc_clear DEV: remove every qdisc (and so every filter) a test put on DEV.
tc_clear() {
	ip netns exec "$XFER_ROUTER_NS" tc qdisc del dev "$1" clsact \
		2>/dev/null || true
	ip netns exec "$XFER_ROUTER_NS" tc qdisc del dev "$1" root \
		2>/dev/null || true
}

# tc_drop DEV MATCH...: drop what leaves DEV and matches (u32 keys on the
# IPv4 header onwards), for MRC packets (IPv4 without options, UDP to
# port 4791) only.
tc_drop() {
	local dev=$1
	shift
	fw tc qdisc add dev "$dev" clsact
	fw tc filter add dev "$dev" egress protocol ip prio 1 u32 \
		match u8 "$IPV4_VIHL" 0xff at 0 \
		match u8 "$IPPROTO_UDP" 0xff at "$IP_PROTO_OFF" \
		match u16 "$MRC_DEFAULT_UDP_PORT" 0xffff at "$UDP_DPORT_OFF" \
		"$@" action drop
}

# tc_dropped DEV: how many packets the filter of tc_drop dropped.
tc_dropped() {
	local n
	fw tc -s filter show dev "$1" egress
	n=$(sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' "$BOUNDED_OUT" | head -n 1)
	if [ -z "$n" ]; then
		bounded_output
		fail "no drop count in tc -s filter show dev $1 egress"
	fi
	printf '%s\n' "$n"
}

# counter_devs: the devices counters_snap and counters_show take, one per
# line: XFER_COUNTER_DEVS, or the two of the xfer fabric.
counter_devs() {
	if [ ${#XFER_COUNTER_DEVS[@]} -gt 0 ]; then
		printf '%s\n' "${XFER_COUNTER_DEVS[@]}"
	else
		printf '%s\n' "$XFER_DEV_A" "$XFER_DEV_B"
	fi
}

# counters_snap TAG: COUNTERS[TAG.DEV.NAME] for every device of counter_devs.
counters_snap() {
	local tag=$1 dev i first=1
	local -a w
	for dev in $(counter_devs); do
		run rdma statistic show link "$dev/$MRC_PORT"
		read -r -a w <"$BOUNDED_OUT"
		[ "${w[0]:-}" = link ] || fail "rdma statistic: unexpected: ${w[*]}"
		[ $first = 0 ] || COUNTER_NAMES=()
		for ((i = 2; i + 1 < ${#w[@]}; i += 2)); do
			COUNTERS[$tag.$dev.${w[i]}]=${w[i + 1]}
			[ $first = 0 ] || COUNTER_NAMES+=("${w[i]}")
		done
		first=0
	done
}

# counter_at TAG DEV NAME: the counter in snapshot TAG.
counter_at() {
	local v=${COUNTERS[$1.$2.$3]:-}
	[ -n "$v" ] || fail "no counter $3 of $2 in snapshot $1"
	printf '%s\n' "$v"
}

counter_delta() {
	local a=${COUNTERS[$1.$3.$4]:-} b=${COUNTERS[$2.$3.$4]:-}
	if [ -z "$a" ] || [ -z "$b" ]; then
		fail "no counter $4 of $3 in snapshots $1, $2"
	fi
	printf '%s\n' $((b - a))
}

# counters_show T1 T2 NAME...: the deltas of NAMEs on each device, one
# line per device.
counters_show() {
	local t1=$1 t2=$2 dev name line
	shift 2
	for dev in $(counter_devs); do
		line=
		for name in "$@"; do
			line+=" $name=$(counter_delta "$t1" "$t2" "$dev" "$name")"
		done
		log "    $dev:$line"
	done
}

# counters_changed T1 T2: every counter that moved, one line per device.
counters_changed() {
	local t1=$1 t2=$2 dev name line a b
	for dev in $(counter_devs); do
		line=
		for name in "${COUNTER_NAMES[@]}"; do
			a=${COUNTERS[$t1.$dev.$name]:-0}
			b=${COUNTERS[$t2.$dev.$name]:-0}
			[ "$a" = "$b" ] || line+=" $name=$((b - a))"
		done
		log "    $dev:${line:- (none)}"
	done
}

# --- congestion control ---------------------------------------------------------

# softnet_drops: the packets every CPU's backlog queue dropped, in total.
softnet_drops() {
	local _ dropped n=0
	while read -r _ dropped _; do
		n=$((n + 16#$dropped))
	done </proc/net/softnet_stat
	printf '%d\n' "$n"
}

# The tracepoint of window changes, in tracefs (mounted if need be).
CC_TRACEFS=/sys/kernel/tracing
CC_TRACE_EVENT=$CC_TRACEFS/events/rdma_mrc/mrc_cc_window

# cc_trace_on: an empty trace buffer recording only the window changes.
cc_trace_on() {
	if [ ! -d "$CC_TRACEFS/events" ]; then
		run mount -t tracefs nodev "$CC_TRACEFS"
	fi
	[ -d "$CC_TRACE_EVENT" ] || fail "no tracepoint rdma_mrc:mrc_cc_window in $CC_TRACEFS"
	echo 0 >"$CC_TRACEFS/tracing_on"
	echo >"$CC_TRACEFS/trace"
	echo 1 >"$CC_TRACE_EVENT/enable"
	cleanup_push cc_trace_off
	echo 1 >"$CC_TRACEFS/tracing_on"
}

cc_trace_off() {
	echo 0 >"$CC_TRACE_EVENT/enable"
	echo 0 >"$CC_TRACEFS/tracing_on"
}

# cc_trace_windows FILE: "QPN CWND EVENT" per window change recorded so far.
cc_trace_windows() {
	sed -n 's/.*mrc_cc_window: dev=[0-9]* qpn=\([0-9]*\) cwnd=\([0-9]*\) .* event=\([a-z_]*\).*/\1 \2 \3/p' \
		"$CC_TRACEFS/trace" >"$1"
}
