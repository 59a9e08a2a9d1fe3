#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The EV state machine of the datapath (Documentation/mrc/design.rst, "EV
# states"): the requester routes around failed and congested paths by
# itself, with no QP error.  scripts/fabric routed: h1 - fw - h2, mrcA on
# h1 (the requester, mrc_xfer client), mrcB on h2 (the responder).  fw's
# eth2 carries h1 -> h2 (data, probes), eth1 h2 -> h1 (SACK, NACK, ACK).
# The QPs have mrc_xfer's timeout 14 and retry_cnt 7.  Evidence: device
# counters, payload bytes checked by mrc_xfer, and a capture on h1 decoded
# by the project's dissector (tools/wireshark/mrc.lua).
#
# 1. ASSUMED_BAD and recovery.  fw silently drops, on eth2, every MRC
#    packet whose UDP source port has its low BH_BITS bits equal to
#    BH_VALUE.  The built-in EV set of a QP is ev_count ports at an odd
#    stride, so exactly K = ev_count / 2^BH_BITS of its EVs are
#    blackholed.  One-packet writes, one in flight at a time (paced by a
#    delay on eth1): each blackholed EV carries one data packet, lost; the
#    tail loss probe (or the RTO) that follows finds it lost, the EV is
#    suspect (SKIP, probed) and, its probes unanswered, ASSUMED_BAD (the
#    RTO floor is raised so that only real loss expires it).  Once K are,
#    the filter is removed; the probes the requester sends on each
#    ASSUMED_BAD EV are then answered and the EVs are GOOD again.  The
#    transfer verifies, with no retry exhausted.  The capture shows the
#    episodes: a retransmission of a PSN never SACKed excludes the EV its
#    previous copy went on, a SACK with PR=1 answering a probe sent on it
#    meanwhile (and echoing it) ends the episode.  Exactly the K
#    blackholed EVs are condemned once each (a vCPU stalled past the RTO
#    may make others suspect too: reported, and counted below); each
#    carries exactly one data packet before its answer and data again
#    after it; no excluded EV carries data.  ev_suspect_*, ev_assumed_bad,
#    ev_recovered, retransmits, ev_probes_sent and ev_probes_answered
#    equal what the capture shows.
# 2. SKIP.  A tbf bottleneck with a red ... ecn child on eth2 marks data
#    packets CE; each SACK with M=SKIP_ONCE makes its EV SKIP, and the EV
#    is GOOD again once the SKIP hold time passed: ev_skip > 0, at most
#    one per M=SKIP_ONCE SACK (one per CE arrival, path_test.sh), and
#    ev_skip_expired > 0 but no more than ev_skip; no retransmission and no
#    EV ASSUMED_BAD.
# 3. An idle QP does not probe.  The blackhole of 1 until the K EVs are
#    ASSUMED_BAD, then the client pauses (mrc_xfer --pause-file: every WR
#    completed, the QP connected with nothing outstanding); once no EV is
#    left suspect, for IDLE_SECS, longer than any probe interval before
#    backing off: no EV probe and no data packet goes
#    out, and the K EVs are still ASSUMED_BAD (mrcctl qp show).  The
#    blackhole lifted and the client resumed, the probes that follow its
#    first send are answered: the K EVs recover and the transfer verifies.
#
# Each assertion prints "ok: ..." or "not ok: ..."; the test goes on to
# the next assertion where it can and exits non-zero if any failed.
# Runs as root in a test guest, after `make -C <repo> install`.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"
# shellcheck source=SCRIPTDIR/cap_lib.sh
. "$SELF_DIR/cap_lib.sh"

WS_DIR=$MRC_REPO/tools/wireshark
MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
DATA_LINK=eth2		# fw's link towards h2: h1 -> h2
CTL_LINK=eth1		# fw's link towards h1: h2 -> h1

# Captures.
SNAPLEN=2048
CAPTURE_BUFFER_KIB=32768
CAPTURE_SECS=60
TSHARK_SECS=240
PING_WAIT=5

# Wire format (Documentation/mrc/wire-format.rst).
EV_SHIFT=16		# entropy fields carry the EV as sport << 16
UDP_BTH_OPCODE=8	# offsets from the UDP header: BTH opcode
OP_ACK=0xd1

# Only real loss may expire the RTO (xfer_lib.sh, XFER_LOSSLESS_PARAMS).
RTO_MIN_US=$((200000 * TIME_SCALE))

# 1: blackhole.
BH_BITS=3
BH_VALUE=5
BH_SIZE=64		# one packet per write
BH_ITERS=1000000		# a bound: the test ends the transfer (stop file)
BH_PSN=$((0x4a0000))
BH_DELAY=10ms		# on eth1: paces the writes (one RTT each)
BH_SECS=240
BH_WAIT_SECS=120	# for the EVs to go ASSUMED_BAD, then GOOD
# 3: idle.  Longer than the longest wait between an ASSUMED_BAD EV's
# probes before backing off (MRC_EV_PROBE_MAX_US, 1 s): a QP that probed
# while idle would send at least 3 per EV.
IDLE_SECS=4
IDLE_PSN=$((0x6c0000))
# 2: SKIP.
ECN_PSN=$((0x5b0000))
ECN_SIZE=$((1024 * 1024))
ECN_SECS=120
ECN_BANDS=3
ECN_MRC_BAND=3
ECN_RATE=32mbit
ECN_TBF_BURST=16kb
ECN_TBF_LATENCY=500ms
ECN_RED_LIMIT=400000
ECN_RED_MIN=3000
ECN_RED_MAX=9000
ECN_RED_AVPKT=1100
ECN_RED_BURST=6

# --- helpers ----------------------------------------------------------------------
#
# Results: case_begin, ok, not_ok, expect_* (lib.sh).  tc in fw: fw,
# tc_clear, tc_drop, tc_dropped; mrc_xfer in the background: xfer_async,
# expect_xfer, xfer_running (xfer_lib.sh).  Captures: cap_start, caps_stop,
# decode (cap_lib.sh) of MRC packets but semantic ACKs, and ICMP (the
# markers).

CAP_FILTER="udp dst port $MRC_DEFAULT_UDP_PORT and udp[$UDP_BTH_OPCODE] != $OP_ACK"

TSHARK_FIELDS=(frame.number ip.src ip.dst ip.dsfield.ecn udp.srcport
	mrc.opcode mrc.psn mrc.rtx mrc.seth.m mrc.seth.pr mrc.seth.entropy
	mrc.seth.probe_id mrc.peth.probe_id mrc.icrc.status mrc.malformed
	_ws.lua.error mrc.seth.cack_psn)

# shellcheck disable=SC2016 # awk code
AWK_LIB='
BEGIN {
	FS = "|"
	C_FRAME = 1; C_SRC = 2; C_DST = 3; C_ECN = 4; C_SPORT = 5; C_OP = 6
	C_PSN = 7; C_RTX = 8; C_M = 9; C_PR = 10; C_SENT = 11; C_SPROBE = 12
	C_PPROBE = 13; C_ICRC = 14; C_MALF = 15; C_LUAERR = 16; C_CACK = 17
	OP_DATA_FIRST = 198; OP_DATA_LAST = 203
	OP_SACK = 220; OP_PROBE = 222
}
function hex(s,   i, c, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
{ op = $C_OP == "" ? -1 : hex($C_OP) }
function is_data() { return op >= OP_DATA_FIRST && op <= OP_DATA_LAST }
'

# --- 1: ASSUMED_BAD and recovery ----------------------------------------------------

# BH_AWK: the blackhole case's capture, as awk reads tshark's fields.
# Episodes of ASSUMED_BAD, as the capture shows them: a timeout
# retransmission (rtx set) of a PSN never SACKed condemns the EV its
# previous copy went on; a SACK with PR set answering a probe sent on
# that EV while condemned, and echoing it, ends the episode.  (The
# data PSNs do not wrap in this run.)
# shellcheck disable=SC2016 # awk code
BH_AWK='
	function bh(s) { return s % mod == val }
	op == OP_SACK && $C_DST == client && $C_CACK != "" {
		if (cack == "" || $C_CACK + 0 > cack) cack = $C_CACK + 0
	}
	is_data() && $C_SRC == client {
		s = $C_SPORT
		p = $C_PSN + 0
		if ($C_RTX == 1) {
			rtx++
			if ((p in last) && (cack == "" || p > cack) &&
			    !(last[p] in bad)) {
				bad[last[p]] = 1
				episodes++
				if (bh(last[p])) bh_episodes++
			}
		}
		last[p] = s
		if (s in bad) used_bad++
		if (!bh(s)) next
		seen[s] = 1
		if (s in ans) post[s]++
		else pre[s]++
	}
	op == OP_PROBE && $C_SRC == client {
		id = hex($C_PPROBE)
		psport[id] = $C_SPORT
		if ($C_SPORT in bad) { evprobe[id] = 1; evprobes++ }
	}
	op == OP_SACK && $C_DST == client && $C_PR == 1 {
		id = hex($C_SPROBE)
		if (!(id in evprobe)) next
		evans++
		s = psport[id]
		if (hex($C_SENT) != s * shift_mul) { badev++; next }
		if (s in bad) { delete bad[s]; recovered++ }
		if (bh(s) && !(s in ans)) ans[s] = $C_FRAME
	}
	END {
		for (s in seen) {
			k++
			if (pre[s] != 1) badpre++
			if (!(s in ans)) unanswered++
			if (!post[s]) nodata++
		}
		print "k", k + 0
		print "badpre", badpre + 0
		print "unanswered", unanswered + 0
		print "nodata", nodata + 0
		print "rtx", rtx + 0
		print "episodes", episodes + 0
		print "bh_episodes", bh_episodes + 0
		print "recovered", recovered + 0
		print "used_bad", used_bad + 0
		print "evprobes", evprobes + 0
		print "evans", evans + 0
		print "badev", badev + 0
	}
'

# bh_blackhole: the EVs whose source port % 2^BH_BITS is BH_VALUE
# dropped on DATA_LINK, the control link delayed, h1 captured.
bh_blackhole() {
	local mod=$((1 << BH_BITS))
	cleanup_push tc_clear "$CTL_LINK"
	fw tc qdisc add dev "$CTL_LINK" root netem delay "$BH_DELAY"
	cleanup_push tc_clear "$DATA_LINK"
	tc_drop "$DATA_LINK" match u16 "$BH_VALUE" $((mod - 1)) at "$UDP_SPORT_OFF"
	cap_start bh_h1 "$XFER_NS_A" "$XFER_NETDEV" "$CAP_FILTER"
}

# bh_transfer K NEVS: one-packet writes while K EVs are blackholed: they
# go ASSUMED_BAD, the blackhole is lifted, they recover and carry data.
bh_transfer() {
	local k=$1 nevs=$2 base
	counters_snap bh.0
	log "    transfer starts (at $((SECONDS - START)) s)"
	# Open-ended: it runs until the test has seen what it waits for.
	rm -f "$MRC_TMP/bh.stop"
	xfer_async bh "$BH_SECS" --size "$BH_SIZE" --iters "$BH_ITERS" \
		--outstanding 1 --psn "$BH_PSN" --stop-file "$MRC_TMP/bh.stop"

	# Each blackholed EV loses its one packet, then its probes: condemned.
	base=$(counter_at bh.0 "$XFER_DEV_A" ev_assumed_bad)
	wait_until "$k EVs of $XFER_DEV_A ASSUMED_BAD" "$BH_WAIT_SECS" \
		hwc_at_least "$XFER_DEV_A" ev_assumed_bad $((base + k))
	counters_snap bh.1
	log "    $k EVs ASSUMED_BAD (at $((SECONDS - START)) s," \
		"$(counter_delta bh.0 bh.1 "$XFER_DEV_A" tx_data_pkts) data packets)"
	xfer_running bh || not_ok "the transfer ended before the filter was removed"
	expect_num "the blackhole dropped packets" "$(tc_dropped "$DATA_LINK")" -ge "$k"
	fw tc qdisc del dev "$DATA_LINK" clsact
	log "    blackhole lifted (at $((SECONDS - START)) s)"
	counters_snap bh.lift

	# Their probes are answered now: GOOD again.
	base=$(counter_at bh.0 "$XFER_DEV_A" ev_recovered)
	wait_until "$k EVs of $XFER_DEV_A GOOD again" "$BH_WAIT_SECS" \
		hwc_at_least "$XFER_DEV_A" ev_recovered $((base + k))
	xfer_running bh || not_ok "the transfer ended before the EVs recovered"
	counters_snap bh.rec
	log "    recovered (at $((SECONDS - START)) s," \
		"$(counter_delta bh.lift bh.rec "$XFER_DEV_A" tx_data_pkts) data packets after the lift)"
	# Twice round the EVs after that: each recovered EV carries data again.
	base=$(counter_at bh.rec "$XFER_DEV_A" tx_data_pkts)
	wait_until "$((2 * nevs)) data packets after the recovery" "$BH_WAIT_SECS" \
		hwc_at_least "$XFER_DEV_A" tx_data_pkts $((base + 2 * nevs))
	touch "$MRC_TMP/bh.stop"
	expect_xfer "one-packet writes verified" bh \
		$((BH_SECS + XFER_SLACK * 2))
	counters_snap bh.2
	caps_stop bh_h1
	tc_clear "$CTL_LINK"
	counters_show bh.0 bh.2 tx_data_pkts retransmits timeout_retransmits \
		timeouts tlp_probes_sent retry_exceeded probes_sent probe_sacks_rcvd \
		ev_suspect_loss ev_suspect_timeout ev_assumed_bad ev_recovered \
		ev_probes_sent ev_probes_answered ev_min_active_holds
}

# bh_suspects T1 T2: EVs made suspect between snapshots T1 and T2.
bh_suspects() {
	echo $(($(counter_delta "$1" "$2" "$XFER_DEV_A" ev_suspect_loss) +
		$(counter_delta "$1" "$2" "$XFER_DEV_A" ev_suspect_timeout)))
}

# bh_counters: what the device counted agrees with one exclusion and one
# recovery per lost packet.
bh_counters() {
	expect_eq "$XFER_DEV_A: every timeout resent one packet" \
		"$(counter_delta bh.0 bh.2 "$XFER_DEV_A" timeouts)" \
		"$(counter_delta bh.0 bh.2 "$XFER_DEV_A" timeout_retransmits)"
	expect_eq "$XFER_DEV_A: every EV made suspect recovered (or was cleared: its packet came)" \
		"$(bh_suspects bh.0 bh.2)" \
		$(($(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_recovered) +
		$(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_suspect_spurious)))
	expect_eq "$XFER_DEV_A: no retry exceeded" 0 \
		"$(counter_delta bh.0 bh.2 "$XFER_DEV_A" retry_exceeded)"
	expect_eq "$XFER_DEV_A: no min-active hold" 0 \
		"$(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_min_active_holds)"
}

# bh_capture K: the capture shows each blackholed EV condemned once and
# recovered by a probe's answer, and agrees with the counters.
bh_capture() {
	local k=$1 mod=$((1 << BH_BITS))
	decode bh_h1 bh_h1
	awk -v client="$XFER_ROUTED_IP_A" -v mod="$mod" -v val="$BH_VALUE" \
		-v shift_mul=$((1 << EV_SHIFT)) "$AWK_LIB$BH_AWK" "$FIELDS" \
		>"$MRC_TMP/bh.results"
	results "$MRC_TMP/bh.results"
	log "    capture: ${R[k]} blackholed EVs used; ${R[episodes]} EVs condemned" \
		"(${R[bh_episodes]} blackholed), ${R[evprobes]} probes on them," \
		"${R[evans]} answered"
	expect_eq "the capture shows $k blackholed EVs carrying data" "$k" "${R[k]}"
	expect_eq "each was condemned once" "$k" "${R[bh_episodes]}"
	expect_eq "each carried one data packet (lost) before a probe on it was answered" \
		0 "${R[badpre]}"
	expect_eq "each had a probe answered by a SACK with PR=1 echoing it" "0 0" \
		"${R[unanswered]} ${R[badev]}"
	expect_eq "each carried data again after that" 0 "${R[nodata]}"
	expect_eq "no data packet on a condemned EV before its probe was answered" 0 \
		"${R[used_bad]}"
	if [ "${R[episodes]}" != "${R[bh_episodes]}" ]; then
		log "    $((R[episodes] - R[bh_episodes])) spurious expiries (a stalled vCPU) condemned other EVs"
	fi
	expect_eq "$XFER_DEV_A ev_suspect_* = EVs excluded in the capture" \
		"${R[episodes]}" "$(bh_suspects bh.0 bh.2)"
	expect_eq "$XFER_DEV_A ev_assumed_bad = the blackholed EVs" \
		"$k" "$(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_assumed_bad)"
	expect_eq "$XFER_DEV_A ev_recovered = episodes ended by a probe's answer" \
		"${R[recovered]}" "$(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_recovered)"
	expect_eq "$XFER_DEV_A retransmits = data packets with rtx set" \
		"${R[rtx]}" "$(counter_delta bh.0 bh.2 "$XFER_DEV_A" retransmits)"
	expect_eq "$XFER_DEV_A ev_probes_sent = probes on condemned EVs at h1" \
		"${R[evprobes]}" "$(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_probes_sent)"
	expect_eq "$XFER_DEV_A ev_probes_answered = their answers at h1" \
		"${R[evans]}" "$(counter_delta bh.0 bh.2 "$XFER_DEV_A" ev_probes_answered)"
}

case_blackhole() {
	local mod=$((1 << BH_BITS)) nevs k

	nevs=$(param_get ev_count)
	k=$((nevs / mod))
	case_what "EVs with sport % $mod = $BH_VALUE blackholed on fw $DATA_LINK ($k of $nevs)"
	[ "$k" -ge 1 ] || fail "ev_count $nevs: no EV to blackhole"
	param_set rto_min_us "$RTO_MIN_US"
	bh_blackhole
	bh_transfer "$k" "$nevs"
	bh_counters
	bh_capture "$k"
	param_write rto_min_us "${PARAM_SAVED[rto_min_us]}"
}

# --- 2: SKIP ------------------------------------------------------------------------------

case_skip() {
	local marks

	case_what "MRC through tbf $ECN_RATE + red ecn on fw $DATA_LINK"
	param_set rto_min_us "$RTO_MIN_US"
	cleanup_push tc_clear "$DATA_LINK"
	fw tc qdisc add dev "$DATA_LINK" root handle 1: prio bands "$ECN_BANDS"
	fw tc qdisc add dev "$DATA_LINK" parent "1:$ECN_MRC_BAND" handle 30: \
		tbf rate "$ECN_RATE" burst "$ECN_TBF_BURST" \
		latency "$ECN_TBF_LATENCY"
	fw tc qdisc add dev "$DATA_LINK" parent 30:1 handle 31: red \
		limit "$ECN_RED_LIMIT" min "$ECN_RED_MIN" max "$ECN_RED_MAX" \
		avpkt "$ECN_RED_AVPKT" burst "$ECN_RED_BURST" \
		bandwidth "$ECN_RATE" probability 1.0 ecn
	fw tc filter add dev "$DATA_LINK" parent 1: protocol ip prio 1 u32 \
		match u8 "$IPV4_VIHL" 0xff at 0 \
		match u8 "$IPPROTO_UDP" 0xff at "$IP_PROTO_OFF" \
		match u16 "$MRC_DEFAULT_UDP_PORT" 0xffff at "$UDP_DPORT_OFF" \
		flowid "1:$ECN_MRC_BAND"
	counters_snap skip.0
	xfer_async skip "$ECN_SECS" --size "$ECN_SIZE" --iters 1 --psn "$ECN_PSN"
	expect_xfer "1 MiB write through the marking bottleneck verified" skip \
		$((ECN_SECS + XFER_SLACK * 2))
	counters_snap skip.1
	tc_clear "$DATA_LINK"
	counters_show skip.0 skip.1 tx_data_pkts retransmits timeouts ecn_marked \
		ev_skip ev_skip_expired ev_assumed_bad ev_min_active_holds

	marks=$(counter_delta skip.0 skip.1 "$XFER_DEV_B" ecn_marked)
	expect_num "$XFER_DEV_B: data packets arrived CE (one SACK M=SKIP_ONCE each)" \
		"$marks" -gt 0
	expect_num "$XFER_DEV_A: EVs went SKIP" \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" ev_skip)" -gt 0
	expect_num "$XFER_DEV_A: at most one SKIP entry per M=SKIP_ONCE SACK" \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" ev_skip)" -le "$marks"
	expect_num "$XFER_DEV_A: SKIP EVs GOOD again after the hold time" \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" ev_skip_expired)" -gt 0
	expect_num "$XFER_DEV_A: no more returns than entries" \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" ev_skip_expired)" -le \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" ev_skip)"
	expect_eq "$XFER_DEV_A: no retransmission" 0 \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" retransmits)"
	expect_eq "$XFER_DEV_A: no EV ASSUMED_BAD" 0 \
		"$(counter_delta skip.0 skip.1 "$XFER_DEV_A" ev_assumed_bad)"
	param_write rto_min_us "${PARAM_SAVED[rto_min_us]}"
}

# --- 3: idle -------------------------------------------------------------------------------

# idle_evs STATE: how many EVs of mrcA's QP read STATE (mrcctl qp show).
idle_evs() {
	bounded "$CMD_TIMEOUT" ip netns exec "$XFER_NS_A" "$MRCCTL" -j qp show "$XFER_DEV_A" ||
		return 1
	jq --arg s "$1" '[.[0].ev[] | select(.state | tostring | test($s))] | length' \
		"$BOUNDED_OUT"
}

# no_suspect: no EV of mrcA's QP is SKIP (a suspect is judged by its
# probes, idle or not: a few probe intervals).
no_suspect() {
	[ "$(idle_evs skip)" = 0 ]
}

case_idle() {
	local mod=$((1 << BH_BITS)) nevs k base

	nevs=$(param_get ev_count)
	k=$((nevs / mod))
	case_what "$k of $nevs EVs blackholed and condemned, then the QP idle for $IDLE_SECS s"
	[ "$k" -ge 1 ] || fail "ev_count $nevs: no EV to blackhole"
	param_set rto_min_us "$RTO_MIN_US"
	cleanup_push tc_clear "$CTL_LINK"
	fw tc qdisc add dev "$CTL_LINK" root netem delay "$BH_DELAY"
	cleanup_push tc_clear "$DATA_LINK"
	tc_drop "$DATA_LINK" match u16 "$BH_VALUE" $((mod - 1)) at "$UDP_SPORT_OFF"
	counters_snap idle.0
	rm -f "$MRC_TMP/idle.stop" "$MRC_TMP/idle.pause"
	xfer_async idle "$BH_SECS" --size "$BH_SIZE" --iters "$BH_ITERS" \
		--outstanding 1 --psn "$IDLE_PSN" --stop-file "$MRC_TMP/idle.stop" \
		--pause-file "$MRC_TMP/idle.pause"
	base=$(counter_at idle.0 "$XFER_DEV_A" ev_assumed_bad)
	wait_until "$k EVs of $XFER_DEV_A ASSUMED_BAD" "$BH_WAIT_SECS" \
		hwc_at_least "$XFER_DEV_A" ev_assumed_bad $((base + k))
	touch "$MRC_TMP/idle.pause"
	wait_until "the client paused" "$WAIT_TIMEOUT" \
		grep -q "mrc_xfer: paused" "$XFER_CLIENT_OUT"
	wait_until "no suspect EV left to judge" "$WAIT_TIMEOUT" no_suspect
	counters_snap idle.1
	# The window is what is measured: nothing may happen in it.
	sleep "$IDLE_SECS"
	counters_snap idle.2
	expect_eq "$XFER_DEV_A: no EV probe while idle for $IDLE_SECS s" 0 \
		"$(counter_delta idle.1 idle.2 "$XFER_DEV_A" ev_probes_sent)"
	expect_eq "$XFER_DEV_A: no data packet while idle" 0 \
		"$(counter_delta idle.1 idle.2 "$XFER_DEV_A" tx_data_pkts)"
	expect_num "$XFER_DEV_A: the $k blackholed EVs still ASSUMED_BAD" \
		"$(idle_evs assumed-bad)" -ge "$k"

	tc_clear "$DATA_LINK"
	rm -f "$MRC_TMP/idle.pause"
	base=$(counter_at idle.2 "$XFER_DEV_A" ev_recovered)
	wait_until "$k EVs of $XFER_DEV_A GOOD again once it sends" "$BH_WAIT_SECS" \
		hwc_at_least "$XFER_DEV_A" ev_recovered $((base + k))
	touch "$MRC_TMP/idle.stop"
	expect_xfer "one-packet writes around the idle time verified" idle \
		$((BH_SECS + XFER_SLACK * 2))
	counters_snap idle.3
	expect_num "$XFER_DEV_A: EV probes once it sent again" \
		"$(counter_delta idle.2 idle.3 "$XFER_DEV_A" ev_probes_sent)" -ge "$k"
	expect_eq "$XFER_DEV_A: no retry exceeded" 0 \
		"$(counter_delta idle.0 idle.3 "$XFER_DEV_A" retry_exceeded)"
	counters_show idle.0 idle.3 tx_data_pkts retransmits timeouts ev_assumed_bad \
		ev_recovered ev_probes_sent ev_probes_answered ev_probes_deferred
	tc_clear "$CTL_LINK"
	param_write rto_min_us "${PARAM_SAVED[rto_min_us]}"
}

# --- main ---------------------------------------------------------------------------------

mrc_case blackhole case_blackhole
mrc_case skip case_skip
mrc_case idle case_idle
mrc_cases_args "$@"

mrc_test_init
for tool in tshark tcpdump mergecap tc ping jq; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
export HOME=$MRC_TMP

START=$SECONDS
xfer_fabric routed
mrc_cases_run
log "run time $((SECONDS - START)) s"
