#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Endpoint operations on the reserved QP 0x2 (ERTH 0xd8 / EETH 0xd9,
# Documentation/mrc/wire-format.rst).  scripts/fabric routed: mrcA on h1
# (198.18.1.1), mrcB on h2 (198.18.2.2), through fw.
#
# A. The stateless responder, driven by ep_pkt.py's crafted requests from
#    a raw socket in h1 (every field of each response checked; device
#    counters of both devices compared exactly: the counters a case names
#    move by exactly what it says, every other counter stays):
#    - an EV probe is answered on the EV it came on (same UDP source port,
#      entropy = that port << 16), DSCP 46, Not-ECT, its timestamp and id
#      echoed, with a service time; the response also reaches mrcA, which
#      has no batch waiting: ep_drop_unmatched moves by one there;
#    - a Port Status Update is acknowledged the same way with its mask
#      echoed, and counted in ep_port_status_rcvd;
#    - malformed endpoint packets (a byte short or long, undefined ops,
#      wrong P_Key, PadCnt, TVer, an ERTH to another QP, a short EETH) are
#      dropped: ep_drop_malformed moves by exactly one each and nothing is
#      sent; a request to an address of h2 that is not a GID of mrcB
#      (on a dummy netdev, routed over h2's eth0): ep_drop_unknown_gid;
#      a response nobody waits for: ep_drop_unmatched;
#    - a capture of h2's eth0 decoded by tools/wireshark/mrc.lua shows each
#      request and its response on the same EV (UDP source port).
# B. The requester, through the netlink family's ep-op (YNL CLI): a batch
#    of EV probes from mrcA (one over IPv6 on a structured EV) gets every
#    response, rtt > 0, port 1, adj-svc-time 1; a probe on an EV
#    blackholed in fw (u32 on the UDP source port) is reported timed-out
#    while the others are answered; a Port Status Update makes mrcB emit
#    peer-status-event on group ep; bad batches are refused with their
#    extack and send nothing (duplicate id, sgid not ours, flow label bits
#    over IPv4, an EV too wide for its mode, SRv6, no such port, too many
#    requests), and a second batch while one is in flight is EAGAIN (sent
#    from a process that was ready beforehand, once the first batch's
#    request has left).
#
# Runs as root in a test guest, after `make -C <repo> install`.

# Functions run through wait_for, bounded or bg_start look unreachable:
# shellcheck disable=SC2317

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"
# shellcheck source=SCRIPTDIR/cap_lib.sh
. "$SELF_DIR/cap_lib.sh"
# shellcheck source=SCRIPTDIR/pkt_lib.sh
. "$SELF_DIR/pkt_lib.sh"

TOP=$(cd "$SELF_DIR/../../../.." && pwd)
SPEC=$TOP/Documentation/netlink/specs/mrc.yaml
WS_DIR=$MRC_REPO/tools/wireshark
PKT_TOOL=$SELF_DIR/ep_pkt.py
EV_TOOL=$SELF_DIR/ep_events.py
PYTHON=/usr/bin/python3
A=$XFER_DEV_A
B=$XFER_DEV_B
IP_A=$XFER_ROUTED_IP_A
IP_B=$XFER_ROUTED_IP_B
NOGID_IP=198.18.9.2		# on a dummy netdev of h2: not a GID of mrcB
NOGID_NETDEV=epdummy
DATA_LINK=eth2			# fw -> h2

# Wire sizes (wire-format.rst): UDP lengths of a request and a response,
# IP length of a response.
UDP_HLEN=8
BTH_LEN=12
ERTH_LEN=16
EETH_LEN=36
ICRC_LEN=4
IPV4_HLEN=20
IPV6_HLEN=40
REQ_UDP=$((UDP_HLEN + BTH_LEN + ERTH_LEN + ICRC_LEN))
RSP_UDP=$((UDP_HLEN + BTH_LEN + EETH_LEN + ICRC_LEN))
RSP_IP=$((IPV4_HLEN + RSP_UDP))
OP_PSU=0
OP_PROBE=1
OP_EP_REQUEST=0xd8
OP_EP_RESPONSE=0xd9
EV_SHIFT=16
DSCP_CONTROL=46
ICRC_GOOD=1

# Part B.
EP_TIMEOUT_NS=3000000000	# 3 s: TCG round trips are milliseconds
EP_LONG_TIMEOUT_NS=4200000000	# near the u32 limit of the timeout
EP_MAX_REQS=64			# MRC_EP_MAX_REQS
PROBE_EVS=(0xc101 0xc202 0xd303 0xe404)
BLACKHOLE_EV=0xc5c5
STEV_PROBE=c6060042		# UDP source port 0xc606, flow label bits 0x0042
PSU_MASK=0x2
CAPTURE_SECS=60
TSHARK_SECS=240
SNAPLEN=2048
PING_WAIT=5
ERR_EOPNOTSUPP="Operation not supported"
ERR_E2BIG="Argument list too long"

# --- counters of both devices -------------------------------------------------

declare -A SNAP=()	# DEV.NAME -> value at the start of the case
declare -A NOW=()

hwc_dir() { printf '/sys/class/infiniband/%s/ports/%s/hw_counters\n' "$1" "$MRC_PORT"; }

# counters_read_ab: every counter of A and B into NOW.
counters_read_ab() {
	local dev f v
	NOW=()
	for dev in "$A" "$B"; do
		for f in "$(hwc_dir "$dev")"/*; do
			[ "${f##*/}" = lifespan ] && continue
			read -r v <"$f" || return 1
			NOW[$dev.${f##*/}]=$v
		done
	done
}

snap() {
	local k
	counters_read_ab || fail "cannot read the counters"
	SNAP=()
	for k in "${!NOW[@]}"; do
		SNAP[$k]=${NOW[$k]}
	done
}

declare -A WANT=()
# want_set "DEV.NAME=DELTA ...": WANT = SNAP + deltas.
want_set() {
	local d k
	WANT=()
	for k in "${!SNAP[@]}"; do
		WANT[$k]=${SNAP[$k]}
	done
	for d in $1; do
		k=${d%%=*}
		[ -n "${WANT[$k]+set}" ] || fail "no counter $k"
		WANT[$k]=$((WANT[$k] + ${d#*=}))
	done
}

counters_match_ab() {
	local k
	counters_read_ab || return 1
	for k in "${!WANT[@]}"; do
		[ "${NOW[$k]}" = "${WANT[$k]}" ] || return 1
	done
}

# expect_counters DESC "DEV.NAME=DELTA ...": exactly these moved since the
# last snap, by exactly that much; then a new snap.
expect_counters() {
	local k
	want_set "$2"
	if ! wait_for "$WAIT_TIMEOUT" counters_match_ab; then
		for k in $(printf '%s\n' "${!WANT[@]}" | sort); do
			[ "${NOW[$k]}" = "${WANT[$k]}" ] ||
				log "    $k: +$((NOW[$k] - SNAP[$k])), expected +$((WANT[$k] - SNAP[$k]))"
		done
		fail "$1: counters"
	fi
	log "ok: $1: counters moved by exactly: $2"
	snap
}

# --- ep_pkt.py, one process (serve) in h1 (pkt_lib.sh) --------------------------

# pkt ARG...: ep_pkt.py send ARG... in h1.
PKT_NS=$XFER_NS_A
PKT_ARGS=(--src "$IP_A")

# pkt_ok DESC ARG...: must print RESULT ok.
pkt_ok() {
	local desc=$1
	shift
	pkt "$@"
	if [ "$PKT_RC" != 0 ]; then
		sed 's/^/    /' "$PKT_OUT"
		fail "$desc: $(grep '^RESULT' "$PKT_OUT" || echo "exit $PKT_RC")"
	fi
	grep '^REPLY' "$PKT_OUT" | sed 's/^/    /' || true
}

# dropped DESC COUNTER ARG...: a request that mrcB must drop, counting
# COUNTER and nothing else (no reply: tx_pkts stays).
dropped() {
	local desc=$1 counter=$2 udp
	shift 2
	pkt_ok "$desc" --dst "$IP_B" "$@"
	udp=$(sed -n 's/^SENT udp_len=\([0-9]*\) .*/\1/p' "$PKT_OUT")
	expect_counters "$desc" \
		"$B.rx_pkts=1 $B.rx_bytes=$udp $B.$counter=1"
}

# --- part A: mrcB answers crafted endpoint packets ----------------------------------

# EV probe request: answered on its EV
case_a_ev_probe() {
	snap
	pkt_ok "EV probe" --dst "$IP_B" --op "$OP_PROBE" --id 0x1234 --sport 0xc5a1 \
		--ts 0x0321 --reply
	expect_counters "EV probe" "$B.rx_pkts=1 $B.rx_bytes=$REQ_UDP \
		$B.ep_reqs_rcvd=1 $B.ep_rsps_sent=1 $B.tx_pkts=1 $B.tx_bytes=$RSP_IP \
		$A.rx_pkts=1 $A.rx_bytes=$RSP_UDP $A.ep_drop_unmatched=1"
}

# Port Status Update: acted upon and acknowledged
case_a_psu() {
	snap
	# Port 1 down (the only port of $B, whose peer it names); no QP of $B is
	# connected to A: nothing to apply it to (ep_port_status_no_peer).
	pkt_ok "Port Status Update" --dst "$IP_B" --op "$OP_PSU" --mask 0x2 \
		--id 0x2001 --sport 0xd00d --reply
	expect_counters "Port Status Update" "$B.rx_pkts=1 $B.rx_bytes=$REQ_UDP \
		$B.ep_reqs_rcvd=1 $B.ep_port_status_rcvd=1 $B.ep_port_status_no_peer=1 \
		$B.ep_rsps_sent=1 $B.tx_pkts=1 $B.tx_bytes=$RSP_IP \
		$A.rx_pkts=1 $A.rx_bytes=$RSP_UDP $A.ep_drop_unmatched=1"
}

# malformed endpoint packets: dropped and counted, no reply
case_a_malformed() {
	snap
	dropped "ERTH one byte short" ep_drop_malformed --hlen $((ERTH_LEN - 1))
	dropped "ERTH one byte long" ep_drop_malformed --hlen $((ERTH_LEN + 1))
	dropped "undefined op 2" ep_drop_malformed --op 2
	dropped "undefined op 3" ep_drop_malformed --op 3
	dropped "Port Status Update naming ports $B does not have" ep_drop_malformed \
		--op "$OP_PSU" --mask 0x24
	dropped "P_Key other than the control P_Key" ep_drop_malformed --pkey 0x7fff
	dropped "PadCnt 1" ep_drop_malformed --padcnt 1
	dropped "TVer 1" ep_drop_malformed --tver 1
	dropped "ERTH to DestQP 0x11, not 0x2" ep_drop_malformed --qpn 0x11
	dropped "EETH one byte short" ep_drop_malformed --opcode "$OP_EP_RESPONSE" \
		--hlen $((EETH_LEN - 1))
	dropped "ERTH with a bad ICRC" drop_bad_icrc --icrcxor 0x1
}

# unknown GID, unmatched response
case_a_unknown() {
	snap
	dropped "request to $NOGID_IP, not a GID of $B" ep_drop_unknown_gid \
		--dst "$NOGID_IP"
	dropped "response that no batch waits for" ep_drop_unmatched \
		--opcode "$OP_EP_RESPONSE" --op "$OP_PROBE" --id 0x0777
}

# the capture: each request and its response on the same EV
case_a_capture() {
	run ip netns exec "$XFER_NS_A" ping -c 1 -W "$PING_WAIT" "$IP_B"
	wait_until "the marker ping in the capture" "$CAPTURE_SECS" marker_written "$cap"
	kill -INT "$(ps -o pid= --ppid "${BG_PID[capture]}" | tr -d ' ')"
	bg_wait capture "$CAPTURE_SECS" || fail "tcpdump did not stop"
	bounded "$TSHARK_SECS" ws_fields "$cap" \
		"mrc.opcode == $OP_EP_REQUEST || mrc.opcode == $OP_EP_RESPONSE" \
		-e ip.src -e udp.srcport -e mrc.opcode -e mrc.req_id -e mrc.icrc.status \
		-e ip.dsfield.dscp -e mrc.eeth.entropy -e mrc.eeth.op -e mrc.erth.op ||
		fail "tshark did not finish"
	[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "tshark failed"; }
	fields=$(cat "$BOUNDED_OUT")
	printf '%s\n' "$fields" | sed 's/^/    /'
	for x in "0x1234 $((0xc5a1)) $OP_PROBE" "0x2001 $((0xd00d)) $OP_PSU"; do
		read -r id sport op <<<"$x"
		printf '%s\n' "$fields" | grep -qxF "$IP_A|$sport|$OP_EP_REQUEST|$id|$ICRC_GOOD|0|||$op" ||
			fail "capture: no request $id from $IP_A on EV $sport"
		ent=$(printf '0x%08x' $((sport << EV_SHIFT)))
		printf '%s\n' "$fields" | grep -qxF "$IP_B|$sport|$OP_EP_RESPONSE|$id|$ICRC_GOOD|$DSCP_CONTROL|$ent|$op|" ||
			fail "capture: no response $id from $IP_B on EV $sport"
		log "ok: capture: request $id and its response on EV $sport (entropy $ent)"
	done
}

# --- part B: mrcA's ep-op requests -----------------------------------------------


gid_hex() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '00000000000000000000ffff%02x%02x%02x%02x\n' "$a" "$b" "$c" "$d"
}
GID_A=$(gid_hex "$IP_A")
GID_B=$(gid_hex "$IP_B")
# IPv6: the hosts' fd00:N::N addresses are GIDs too.
IP6_A=fd00:1::1
IP6_B=fd00:2::2
gid6_hex() {
	local g
	g=$(gid_of_ipv6 "$1")
	printf '%s\n' "${g//:/}"
}
GID6_A=$(gid6_hex "$IP6_A")
GID6_B=$(gid6_hex "$IP6_B")
# req_json ID EV [PORT_STATUS]: one ep-req, EV in UDP mode on port 1.
req_json() {
	local ev
	ev=$(printf '%04x' $(($2)))
	if [ -n "${3:-}" ]; then
		printf '{"req-id": %d, "sgid": "%s", "dgid": "%s", "ev-fmt-mode": "udp", "ev-value": "%s", "port": %d, "port-status": %d}' \
			$(($1)) "${4:-$GID_A}" "$GID_B" "$ev" "$MRC_PORT" $(($3))
	else
		printf '{"req-id": %d, "sgid": "%s", "dgid": "%s", "ev-fmt-mode": "udp", "ev-value": "%s", "port": %d}' \
			$(($1)) "${4:-$GID_A}" "$GID_B" "$ev" "$MRC_PORT"
	fi
}

# ep_op TYPE REQ_JSON...: the ep-op request's JSON.
ep_json() {
	local type=$1 reqs
	shift
	reqs=$(IFS=,; printf '%s' "$*")
	printf '{"dev-name": "%s", "op-type": "%s", "timeout": %d, "req": [%s]}' \
		"$A" "$type" "$EP_TIMEOUT_NS" "$reqs"
}

# The responses of $BOUNDED_OUT, one "req-id port rtt adj timed-out" line each.
rsp_lines() {
	jq -r '.rsp[] | "\(."req-id") \(.port // "-") \(.rtt // "-") \(."adj-svc-time" // "-") \(if has("timed-out") then "timed-out" else "answered" end)"' \
		"$BOUNDED_OUT"
}

# ep_file NAME JSON: the request in a file (refusals log their command).
ep_file() {
	printf '%s\n' "$2" >"$MRC_TMP/$1.json"
}
ep_op_file() {
	ynl_in "$XFER_NS_A" --do ep-op --json "$(cat "$MRC_TMP/$1.json")"
}
# ep_op_refused ERRTEXT EXTACK NAME
ep_op_refused() {
	run_fails "$1" ep_op_file "$3"
	grep -qF "'msg': '$2'" "$BOUNDED_OUT" ||
		fail "no extack '$2': $(cat "$BOUNDED_OUT")"
}
# ep-op answers
case_b_answers() {
	run ynl_in "$XFER_NS_A" --do ep-op --json "$(ep_json ev-probe "$(req_json 1 "${PROBE_EVS[0]}")")"
	bounded_output
}

# a batch of $((${#PROBE_EVS[@]} + 1)) EV probes, one over IPv6 on a structured EV: every one answered
case_b_probe_batch() {
	snap
	reqs=()
	i=0
	for ev in "${PROBE_EVS[@]}"; do
		i=$((i + 1))
		reqs+=("$(req_json $((0x100 + i)) "$ev")")
	done
	i=$((i + 1))
	reqs+=("$(req_json $((0x100 + i)) "${PROBE_EVS[0]}" | jq -c --arg s "$GID6_A" \
		--arg d "$GID6_B" --arg ev "$STEV_PROBE" \
		'.sgid = $s | .dgid = $d | ."ev-fmt-mode" = "stev" | ."ev-value" = $ev')")
	run ynl_in "$XFER_NS_A" --do ep-op --json "$(ep_json ev-probe "${reqs[@]}")"
	bounded_output
	n=0
	while read -r id port rtt adj state; do
		[ "$state" = answered ] || fail "probe $id: $state"
		[ "$port" = "$MRC_PORT" ] || fail "probe $id: port $port"
		[ "$rtt" -gt 0 ] || fail "probe $id: rtt $rtt"
		[ "$adj" = 1 ] || fail "probe $id: adj-svc-time $adj"
		n=$((n + 1))
	done <<<"$(rsp_lines)"
	assert_eq "answered probes" "$i" "$n"
	log "ok: $i probes answered, rtt > 0, port $MRC_PORT"
	expect_counters "probe batch" "$A.ep_reqs_sent=5 $A.ep_rsps_rcvd=5 \
		$A.tx_pkts=5 \
		$A.tx_bytes=$((4 * (IPV4_HLEN + REQ_UDP) + IPV6_HLEN + REQ_UDP)) \
		$A.rx_pkts=5 $A.rx_bytes=$((5 * RSP_UDP)) \
		$B.rx_pkts=5 $B.rx_bytes=$((5 * REQ_UDP)) $B.ep_reqs_rcvd=5 \
		$B.ep_rsps_sent=5 $B.tx_pkts=5 \
		$B.tx_bytes=$((4 * RSP_IP + IPV6_HLEN + RSP_UDP))"
}

# a probe on a blackholed EV times out, the others are answered
case_b_blackhole() {
	snap
	run ip netns exec "$XFER_ROUTER_NS" tc qdisc add dev "$DATA_LINK" clsact
	cleanup_push ip netns exec "$XFER_ROUTER_NS" tc qdisc del dev "$DATA_LINK" clsact
	run ip netns exec "$XFER_ROUTER_NS" tc filter add dev "$DATA_LINK" egress \
		protocol ip prio 1 u32 \
		match u8 "$IPV4_VIHL" 0xff at 0 \
		match u8 "$IPPROTO_UDP" 0xff at "$IP_PROTO_OFF" \
		match u16 $((BLACKHOLE_EV)) 0xffff at "$UDP_SPORT_OFF" \
		match u16 "$MRC_DEFAULT_UDP_PORT" 0xffff at "$UDP_DPORT_OFF" action drop
	run ynl_in "$XFER_NS_A" --do ep-op --json "$(ep_json ev-probe "$(req_json 0x201 "${PROBE_EVS[1]}")" \
		"$(req_json 0x202 "$BLACKHOLE_EV")")"
	bounded_output
	# 0x201 (513) on a working EV, 0x202 (514) on the blackholed one; the
	# answered come first.
	rsps=$(rsp_lines)
	assert_eq "responses in order" "513 514" "$(cut -d' ' -f1 <<<"$rsps" | xargs)"
	[[ $(grep '^513 ' <<<"$rsps") == "513 $MRC_PORT "*" 1 answered" ]] ||
		fail "the probe on a working EV: $(grep '^513 ' <<<"$rsps")"
	assert_eq "blackholed probe" "514 - - - timed-out" "$(grep '^514 ' <<<"$rsps")"
	run ip netns exec "$XFER_ROUTER_NS" tc -s filter show dev "$DATA_LINK" egress
	grep -q 'dropped 1,' "$BOUNDED_OUT" || { bounded_output; fail "fw did not drop exactly one"; }
	expect_counters "blackholed probe" "$A.ep_reqs_sent=2 $A.ep_rsps_rcvd=1 \
		$A.ep_timeouts=1 $A.tx_pkts=2 $A.tx_bytes=$((2 * (IPV4_HLEN + REQ_UDP))) \
		$A.rx_pkts=1 $A.rx_bytes=$RSP_UDP \
		$B.rx_pkts=1 $B.rx_bytes=$REQ_UDP $B.ep_reqs_rcvd=1 \
		$B.ep_rsps_sent=1 $B.tx_pkts=1 $B.tx_bytes=$RSP_IP"
	log "ok: blackholed EV timed-out, the other answered"
}

# Port Status Update: $B emits peer-status-event
case_b_psu_event() {
	snap
	bg_start events ip netns exec "$XFER_NS_B" "$PYTHON" "$EV_TOOL" wait \
		"$YNL_CLI" "$SPEC" ep peer-status-event $((CMD_TIMEOUT + WAIT_TIMEOUT))
	wait_until "subscribed to group ep" "$CMD_TIMEOUT" \
		grep -q '^SUBSCRIBED' "$(bg_out events)"
	run ynl_in "$XFER_NS_A" --do ep-op --json "$(ep_json port-status-update \
		"$(req_json 0x301 "${PROBE_EVS[2]}" "$PSU_MASK")")"
	bounded_output
	[[ $(rsp_lines) == "769 $MRC_PORT "*" answered" ]] || fail "PSU: $(rsp_lines)"
	bg_wait events "$WAIT_TIMEOUT" || fail "no peer-status-event within ${WAIT_TIMEOUT}s"
	ev=$(grep '^EVENT ' "$(bg_out events)" | head -n 1)
	[ -n "$ev" ] || fail "no peer-status-event: $(tr '\n' ' ' <"$(bg_out events)")"
	ev=${ev#EVENT }
	log "    $ev"
	assert_eq "peer-status-event port-status" "$((PSU_MASK))" "$(jq -r '.msg."port-status"' <<<"$ev")"
	assert_eq "peer-status-event device" "$B" "$(jq -r '.msg."dev-name"' <<<"$ev")"
	log "ok: peer-status-event from $B with port-status $PSU_MASK"
}

# refusals
case_b_refusals() {
	snap
	ep_file dup "$(ep_json ev-probe "$(req_json 7 "${PROBE_EVS[0]}")" \
		"$(req_json 7 "${PROBE_EVS[1]}")")"
	ep_op_refused "$ERR_EINVAL" "req-id is not unique in the batch" dup
	ep_file notours "$(ep_json ev-probe "$(req_json 8 "${PROBE_EVS[0]}" "" "$GID_B")")"
	ep_op_refused "$ERR_EINVAL" "the device has no such RoCE v2 GID" notours
	# An EV with flow label bits (STEV) cannot be carried by IPv4.
	ep_file stev4 "$(ep_json ev-probe "$(req_json 9 "${PROBE_EVS[0]}" | \
		jq -c '."ev-fmt-mode" = "stev" | ."ev-value" = "c1010001"')")"
	ep_op_refused "$ERR_EINVAL" "the EV has flow label bits, which IPv4 cannot carry" stev4
	ep_file nofit "$(ep_json ev-probe "$(req_json 10 "${PROBE_EVS[0]}" | \
		jq -c '."ev-value" = "c1010001"')")"
	ep_op_refused "$ERR_EINVAL" "the EV does not fit its mode" nofit
	ep_file srv6 "$(ep_json ev-probe "$(req_json 11 "${PROBE_EVS[0]}" | \
		jq -c '."ev-fmt-mode" = "srv6" | ."ev-value" = "fd000000000000000000000000000001"')")"
	ep_op_refused "$ERR_EOPNOTSUPP" "SRv6 endpoint requests are not supported yet" srv6
	ep_file port2 "$(ep_json ev-probe "$(req_json 12 "${PROBE_EVS[0]}" | \
		jq -c '.port = 2')")"
	ep_op_refused "$ERR_EINVAL" "the device has no such port" port2
	reqs=()
	for ((i = 0; i <= EP_MAX_REQS; i++)); do
		reqs+=("$(req_json $((0x400 + i)) "${PROBE_EVS[0]}")")
	done
	ep_file toomany "$(ep_json ev-probe "${reqs[@]}")"
	run_fails "$ERR_E2BIG" ep_op_file toomany
	expect_counters "refused batches send nothing" ""
}

# a second batch while one is in flight: EAGAIN
case_b_eagain() {
	snap
	# The second request waits, loaded and ready, in its own process; it is
	# sent once the first batch's request has left (mrcA's ep_reqs_sent), while
	# the first batch waits up to EP_LONG_TIMEOUT_NS for its blackholed probe.
	fifo2=$MRC_TMP/second.in
	mkfifo "$fifo2"
	exec {SECOND_FD}<>"$fifo2"
	second_exec() {
		exec {SECOND_FD}>&-
		ip netns exec "$XFER_NS_A" "$PYTHON" "$EV_TOOL" "do" "$YNL_CLI" "$SPEC" \
			ep-op "$(ep_json ev-probe "$(req_json 0x502 "${PROBE_EVS[0]}")")" <"$1"
	}
	bg_start second second_exec "$fifo2"
	wait_until "the second batch ready" "$CMD_TIMEOUT" \
		grep -q '^READY' "$(bg_out second)"
	first_exec() {
		ynl_in "$XFER_NS_A" --do ep-op --json "$(printf '{"dev-name": "%s", "op-type": "ev-probe", "timeout": %d, "req": [%s]}' \
			"$A" "$EP_LONG_TIMEOUT_NS" "$(req_json 0x501 "$BLACKHOLE_EV")")"
	}
	bg_start first first_exec
	sent_one() {
		local v
		read -r v <"$(hwc_dir "$A")/ep_reqs_sent"
		[ "$v" -gt "${SNAP[$A.ep_reqs_sent]}" ]
	}
	wait_until "the first batch sent" "$CMD_TIMEOUT" sent_one
	printf 'go\n' >&"$SECOND_FD"
	bg_wait second "$CMD_TIMEOUT" || fail "the second batch did not return"
	out2=$(bg_out second)
	sed 's/^/    /' "$out2"
	bg_done first && fail "the first batch ended before the second was refused"
	grep -q '^DONE error Resource temporarily unavailable' "$out2" ||
		fail "the second batch was not refused with EAGAIN"
	grep -qF "'msg': 'another endpoint batch of this device is in flight'" "$out2" ||
		fail "no extack for EAGAIN"
	bg_wait first "$CMD_TIMEOUT" || fail "the first batch did not return"
	sed 's/^/    /' "$(bg_out first)"
	[ "$(bg_rc first)" = 0 ] || fail "the first batch failed"
	assert_eq "the first batch" '[{"req-id":1281,"timed-out":true}]' \
		"$(jq -c '.rsp' "$(bg_out first)")"
	expect_counters "one batch at a time" "$A.ep_reqs_sent=1 $A.ep_timeouts=1 \
		$A.tx_pkts=1 $A.tx_bytes=$((IPV4_HLEN + REQ_UDP))"
	log "ok: EAGAIN while a batch is in flight"
}

# --- main -----------------------------------------------------------------------

# Each case counts from a snapshot of its own; a_capture looks at the
# packets of a_ev_probe and a_psu, b_eagain's first batch waits on
# b_blackhole's blackholed EV.
mrc_case a_ev_probe case_a_ev_probe
mrc_case a_psu case_a_psu
mrc_case a_malformed case_a_malformed
mrc_case a_unknown case_a_unknown
mrc_case a_capture case_a_capture --after a_ev_probe --after a_psu
mrc_case b_answers case_b_answers
mrc_case b_probe_batch case_b_probe_batch
mrc_case b_blackhole case_b_blackhole
mrc_case b_psu_event case_b_psu_event
mrc_case b_refusals case_b_refusals
mrc_case b_eagain case_b_eagain --after b_blackhole
mrc_cases_args "$@"

mrc_test_init
for tool in tshark tcpdump tc jq; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ -r "$PKT_TOOL" ] || fail "$PKT_TOOL missing"
export HOME=$MRC_TMP

YNL_CLI=${MRC_YNL_CLI:-$MRC_SELFTEST_BIN/ynl/tools/net/ynl/cli.py}
[ -r "$YNL_CLI" ] || fail "no YNL CLI at $YNL_CLI"
log "== setup: routed fabric, $A on h1, $B on h2"
xfer_fabric routed
# An address of h2 that is not on mrcB's netdev, reached through eth0.
run ip -n "$XFER_NS_B" link add "$NOGID_NETDEV" type dummy
run ip -n "$XFER_NS_B" addr add "$NOGID_IP/32" dev "$NOGID_NETDEV"
run ip -n "$XFER_NS_B" link set "$NOGID_NETDEV" up
run ip -n "$XFER_ROUTER_NS" route add "$NOGID_IP/32" via "$IP_B"
run ip netns exec "$XFER_NS_A" ping -c 1 -W "$PING_WAIT" "$NOGID_IP"

pkt_server_start

# A: capture on h2's eth0, for the A cases.
cap=$MRC_TMP/ep.pcap
bg_start capture ip netns exec "$XFER_NS_B" tcpdump -i "$XFER_NETDEV" -n \
	-s "$SNAPLEN" --immediate-mode -U -w "$cap" \
	"udp port $MRC_DEFAULT_UDP_PORT or icmp"
wait_until "tcpdump listening" "$WAIT_TIMEOUT" \
	grep -q 'listening on' "$(bg_out capture)"

wait_until "$A has the GID of $IP6_A" "$WAIT_TIMEOUT" \
	gid_present "$A" "$(gid_of_ipv6 "$IP6_A")"
wait_until "$B has the GID of $IP6_B" "$WAIT_TIMEOUT" \
	gid_present "$B" "$(gid_of_ipv6 "$IP6_B")"

mrc_cases_run
