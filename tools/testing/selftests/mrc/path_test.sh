#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reliability mechanisms of the data path, each shown by what only the
# mechanism itself produces: packets in captures decoded by the project's
# Wireshark dissector (tools/wireshark/mrc.lua), device counters, and
# payload bytes checked by mrc_xfer.  scripts/fabric routed: h1 - fw - h2,
# mrcA on h1 (the requester, mrc_xfer client), mrcB on h2 (the responder,
# server).  fw's eth2 carries h1 -> h2 (data, probes), eth1 h2 -> h1
# (SACK, NACK, ACK); tc filters and qdiscs there impair one direction.
#
# 1. Selective repeat.  A lossless 64 KiB write retransmits nothing and
#    its retransmission timer never expires.  Then
#    a u32 filter on fw eth2 drops the one data packet whose BTH PSN is
#    the chosen one and whose BTH rtx bit is clear, so that only the
#    original is lost.  The write must still verify; mrcA must resend
#    exactly that PSN once, by fast retransmit (the SACKs show dupthresh
#    later PSNs); h1 must send it twice (rtx 0 on DSCP 8, then rtx 1 on
#    DSCP 16 from another UDP source port), h2 must see it once (the
#    resent copy) and no other retransmission at all.
# 2. Window (MPR).  mpr_units=1 (MPR = 128 PSNs) and max_inflight raised
#    past it, so that the MPR is the only limit; the SACKs (opcode 0xdc)
#    blackholed on fw eth1 while a 1 MiB write runs.  With no SACK back the
#    requester may send PSNs start .. start + 126 (cack_psn + MPR - 1, cack
#    starting at start - 1) and nothing beyond, for as long as the
#    blackhole holds, its retransmission timer firing meanwhile.  During
#    the blackhole one crafted data packet at cack + MPR (the first PSN
#    outside the window) goes to mrcB's QP: it must be NACKed
#    PSN_OOR_WINDOW, counted once by out_of_window and nacks_sent; mrcA,
#    which never sent that PSN, drops the NACK (drop_unmatched_ack).  Once
#    the SACKs pass again the write must finish and verify, and over the
#    whole capture no data PSN is ever at or beyond the latest cack_psn
#    h1 had received + MPR.
# 3. Probe.  All h2 -> h1 MRC traffic blackholed on fw eth1; a 64-byte
#    write (nothing else queued) is SACKed into the blackhole, so mrcA's
#    retransmission timer fires and sends a PROBE (0xde, PETH, BTH PSN =
#    probe id).  Once the blackhole is lifted, a SACK with PR=1 and
#    ack_psn_offset = the probe's id answers it on the probe's EV; the
#    next write's packet has the PSN right after the first write's: the
#    probe consumed none.  probes_sent, probes_rcvd and probe_sacks_rcvd
#    match the captures.  The first write's semantic ACK was lost too: it
#    must be sent again, or the write never completes.
# 4. ECN.  On fw eth2, MRC packets go through a tbf bottleneck with a
#    red ... ecn child, which marks data packets CE (they are sent
#    ECT(0)).  Every CE arrival at h2 is answered
#    by a SACK with M = SKIP_ONCE whose trigger PSN (cack_psn +
#    ack_psn_offset) is that packet's PSN and whose entropy is that
#    packet's EV (UDP source port << 16); mrcB's ecn_marked counts them;
#    the write verifies.  Case 1's capture is the negative control: no CE,
#    no M != 0.
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
# shellcheck source=SCRIPTDIR/pkt_lib.sh
. "$SELF_DIR/pkt_lib.sh"

WS_DIR=$MRC_REPO/tools/wireshark
PKT_TOOL=$SELF_DIR/crafted_pkt.py
PYTHON=/usr/bin/python3
DATA_LINK=eth2		# fw's link towards h2: h1 -> h2
CTL_LINK=eth1		# fw's link towards h1: h2 -> h1

# Captures.
SNAPLEN=2048		# whole frames (MTU 1500)
CAPTURE_BUFFER_KIB=32768
CAPTURE_SECS=60
TSHARK_SECS=240
PING_WAIT=5

# Wire format (Documentation/mrc/wire-format.rst).
PSN_MOD=$((1 << 24))
PSN_MASK=$((PSN_MOD - 1))
MPR_UNIT=128		# PSNs per mpr_units
BTH_OPCODE_OFF=28	# IP 20 + UDP 8
BTH_WORD2_OFF=36	# BTH byte 8 (AckReq R rtx tsh) and the 24-bit PSN
BTH_RTX_MASK=0x20000000	# rtx in that 32-bit word
OP_SACK=0xdc
DSCP_DATA=8
DSCP_RETX=16
ECN_ECT0=2
ECN_CE=3
NACK_PSN_OOR_WINDOW=0x0b
EV_SHIFT=16		# entropy fields carry the EV as sport << 16

# 1: selective repeat.
SR_PSN=$((0x3c5a00))	# the client's start PSN (mrc_xfer --psn)
SR_DROP_OFFSET=10	# into the message: more than dupthresh PSNs follow
			# it, so the SACKs, not the timer, must trigger the resend
SR_SIZE=$((64 * 1024))
SR_SECS=60
# 2: window.
WIN_MPR_UNITS=1
WIN_MPR=$((WIN_MPR_UNITS * MPR_UNIT))
WIN_MAX_INFLIGHT=1024	# above the MPR: the MPR is the only limit
WIN_PSN=$((0xffffa0))	# the window edge wraps past 2^24
WIN_SIZE=$((1024 * 1024))
WIN_SECS=180
WIN_HOLD_SECS=3		# the blackhole stays this long once the window is full
INJ_SPORT=0x4242	# the crafted packet's source port, outside the EVs
# A floor under the RTO so that the retry budget (retry_cnt + exp_retries
# expiries, the last ones doubling) outlasts the blackholes of cases 2 and
# 3 in a TCG guest: 261 x RTO, about 78 s.
SLOW_RTO_MIN_US=300000
# selective_repeat counts retransmissions exactly: its floor scales as
# XFER_LOSSLESS_PARAMS' does (a debug kernel's vCPU stalls outlast 200 ms:
# one expired before the reorder timer's resend in a check-debug run).
SR_RTO_MIN_US=$((200000 * TIME_SCALE))
# 3: probe.
PROBE_PSN=$((0x123456))
PROBE_SIZE=64		# one packet
# The transfer's bound, from before the blackhole to the writes' end, and
# the wait for the first probe: under the debug kernel an unscaled 30 s
# ran out with the blackhole barely lifted (h2 answered 203 probes, none
# reached h1; 2026-12-07), so it scales.
PROBE_SECS=$((30 * TIME_SCALE))
# 4: ECN.
ECN_PSN=$((0x200000))
ECN_SIZE=$((1024 * 1024))
ECN_SECS=120
# MRC packets (only: red drops what it cannot mark, e.g. mrc_xfer's TCP)
# go to band 3 of a prio qdisc, a tbf bottleneck where the queue builds,
# with red ... ecn under it; the rest to band 2, a plain FIFO.
ECN_BANDS=3
ECN_MRC_BAND=3
ECN_RATE=32mbit
ECN_TBF_BURST=16kb
ECN_TBF_LATENCY=500ms
ECN_RED_LIMIT=400000	# bytes
ECN_RED_MIN=3000
ECN_RED_MAX=9000
ECN_RED_AVPKT=1100
ECN_RED_BURST=6		# >= (2 min + max) / (3 avpkt)

# --- helpers ----------------------------------------------------------------------
#
# Results: case_begin, ok, not_ok, expect_* (lib.sh).  tc in fw: fw,
# tc_clear, tc_drop, tc_dropped; mrc_xfer in the background: xfer_async,
# expect_xfer (xfer_lib.sh).  Captures: cap_start, marker_ping, caps_stop,
# decode (cap_lib.sh) of MRC and ICMP (the markers).

CAP_FILTER="udp port $MRC_DEFAULT_UDP_PORT"
TSHARK_FILTER="udp.port == $MRC_DEFAULT_UDP_PORT or icmp"

# The fields tshark prints, in this order; AWK_LIB names their columns.
TSHARK_FIELDS=(frame.number frame.interface_id ip.src ip.dst ip.dsfield.dscp
	ip.dsfield.ecn udp.srcport mrc.opcode mrc.psn mrc.rtx mrc.dqpn
	mrc.seth.m mrc.seth.pr mrc.seth.ack_psn_off mrc.seth.entropy
	mrc.seth.cack_psn mrc.seth.mpr mrc.seth.probe_id mrc.neth.reason
	mrc.neth.psn mrc.neth.entropy mrc.peth.probe_id mrc.icrc.status
	icmp.type mrc.malformed _ws.lua.error)

# shellcheck disable=SC2016 # awk code
AWK_LIB='
BEGIN {
	FS = "|"
	C_FRAME = 1; C_IF = 2; C_SRC = 3; C_DST = 4; C_DSCP = 5; C_ECN = 6
	C_SPORT = 7; C_OP = 8; C_PSN = 9; C_RTX = 10; C_DQPN = 11
	C_M = 12; C_PR = 13; C_ACKOFF = 14; C_SENT = 15; C_CACK = 16
	C_MPR = 17; C_SPROBE = 18; C_REASON = 19; C_NPSN = 20; C_NENT = 21
	C_PPROBE = 22; C_ICRC = 23; C_ICMP = 24; C_MALF = 25; C_LUAERR = 26
	PSN_MOD = 16777216; PSN_HALF = 8388608
	OP_DATA_FIRST = 198; OP_DATA_LAST = 203
	OP_ACK = 209; OP_SACK = 220; OP_NACK = 221; OP_PROBE = 222
	ICMP_ECHO = 8
}
function hex(s,   i, c, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
# (a - b) mod 2^24
function dist(a, b) { return ((a - b) % PSN_MOD + PSN_MOD) % PSN_MOD }
{ op = $C_OP == "" ? -1 : hex($C_OP) }
function is_data() { return op >= OP_DATA_FIRST && op <= OP_DATA_LAST }
'

# --- mrc_xfer in the background --------------------------------------------------

# The QPNs the server printed: "... first QPN N, remote QPN M".
QPN_B=
QPN_A=
server_qpns() {
	local line
	[ -f "$XFER_SERVER_OUT" ] || return 1
	while IFS= read -r line; do
		if [[ $line =~ server\ connected:.*first\ QPN\ ([0-9]+),\ remote\ QPN\ ([0-9]+) ]]; then
			QPN_B=${BASH_REMATCH[1]}
			QPN_A=${BASH_REMATCH[2]}
			return 0
		fi
	done <"$XFER_SERVER_OUT"
	return 1
}

# --- 1: selective repeat -----------------------------------------------------------

# SR_AWK: case selective_repeat's capture checks, run by awk over tshark's fields
# (AWK_LIB's columns).
# shellcheck disable=SC2016 # awk code
SR_AWK='
	is_data() && $C_IF == 0 {
		if ($C_PSN == x) {
			h1x++
			desc[h1x] = $C_RTX " " $C_DSCP " " $C_SPORT
		}
		if ($C_RTX == 1) h1rtx++
	}
	is_data() && $C_IF == 1 {
		h2data++
		if (dist($C_PSN, first) < n) seen[$C_PSN]++
		else outside++
		if ($C_PSN == x) {
			h2x++
			h2desc = $C_RTX " " $C_DSCP " " $C_SPORT
		}
		if ($C_RTX == 1) h2rtx++
	}
	is_data() && $C_ECN == 3 { ce++ }
	op == OP_SACK && $C_M != 0 { msack++ }
	END {
		for (p in seen) { distinct++; if (seen[p] != 1) multi++ }
		print "h1x", h1x + 0
		print "h1x_first", desc[1]
		print "h1x_second", desc[2]
		print "h1rtx", h1rtx + 0
		print "h2x", h2x + 0
		print "h2x_desc", h2desc
		print "h2rtx", h2rtx + 0
		print "h2data", h2data + 0
		print "h2distinct", distinct + 0
		print "h2multi", multi + 0
		print "h2outside", outside + 0
		print "ce", ce + 0
		print "msack", msack + 0
	}
'

# sr_lossless: the write without loss resends nothing.
sr_lossless() {
	local d
	counters_snap sr.0
	xfer_async sr_lossless "$SR_SECS" --size "$SR_SIZE" --iters 1 --psn "$SR_PSN"
	expect_xfer "lossless write verified" sr_lossless $((SR_SECS + XFER_SLACK * 2))
	counters_snap sr.1
	counters_show sr.0 sr.1 tx_data_pkts retransmits fast_retransmits \
		timeout_retransmits timeouts rx_data_pkts duplicates
	for d in retransmits fast_retransmits timeout_retransmits timeouts; do
		expect_eq "lossless: $XFER_DEV_A $d" 0 \
			"$(counter_delta sr.0 sr.1 "$XFER_DEV_A" "$d")"
	done
}

# sr_drop_once PSN: the write with PSN's original dropped once is verified,
# and the requester resent it once, on the SACKs' word.
sr_drop_once() {
	local drop_psn=$1
	# Drop the original (rtx = 0) of drop_psn only: its resend passes.
	cleanup_push tc_clear "$DATA_LINK"
	tc_drop "$DATA_LINK" \
		match u32 "$(printf '0x%08x' "$drop_psn")" \
		"$(printf '0x%08x' $((BTH_RTX_MASK | PSN_MASK)))" at "$BTH_WORD2_OFF"
	cap_start sr_h1 "$XFER_NS_A" "$XFER_NETDEV" "$CAP_FILTER"
	cap_start sr_h2 "$XFER_NS_B" "$XFER_NETDEV" "$CAP_FILTER"

	counters_snap sr.2
	xfer_async sr_lossy "$SR_SECS" --size "$SR_SIZE" --iters 1 --psn "$SR_PSN"
	expect_xfer "write with PSN $drop_psn dropped once verified" sr_lossy \
		$((SR_SECS + XFER_SLACK * 2))
	counters_snap sr.3
	caps_stop sr_h1 sr_h2
	expect_eq "the fw filter dropped exactly one packet" 1 \
		"$(tc_dropped "$DATA_LINK")"
	tc_clear "$DATA_LINK"
	counters_show sr.2 sr.3 retransmits fast_retransmits timeout_retransmits \
		timeouts sacks_rcvd duplicates ecn_marked
	expect_eq "$XFER_DEV_A retransmits" 1 \
		"$(counter_delta sr.2 sr.3 "$XFER_DEV_A" retransmits)"
	expect_eq "$XFER_DEV_A fast_retransmits (the SACKs showed the hole)" 1 \
		"$(counter_delta sr.2 sr.3 "$XFER_DEV_A" fast_retransmits)"
	expect_eq "$XFER_DEV_A timeout_retransmits" 0 \
		"$(counter_delta sr.2 sr.3 "$XFER_DEV_A" timeout_retransmits)"
	expect_eq "$XFER_DEV_B ecn_marked (no ECN qdisc)" 0 \
		"$(counter_delta sr.2 sr.3 "$XFER_DEV_B" ecn_marked)"
}

# sr_capture PSN NPKTS: h1 sent PSN twice (the resend marked, on another
# EV), h2 received each of the NPKTS PSNs once.
sr_capture() {
	local drop_psn=$1 npkts=$2
	local -a first second at_h2
	decode sr sr_h1 sr_h2
	awk -v x="$drop_psn" -v first="$SR_PSN" -v n="$npkts" "$AWK_LIB$SR_AWK" "$FIELDS" >"$MRC_TMP/sr.results"
	results "$MRC_TMP/sr.results"
	read -r -a first <<<"${R[h1x_first]}"
	read -r -a second <<<"${R[h1x_second]}"
	read -r -a at_h2 <<<"${R[h2x_desc]}"
	log "    PSN $drop_psn at h1 (rtx dscp sport): '${R[h1x_first]}' then" \
		"'${R[h1x_second]}'; at h2: '${R[h2x_desc]}'"
	expect_eq "h1 sent PSN $drop_psn twice" 2 "${R[h1x]}"
	expect_eq "h1: the original has rtx 0, DSCP $DSCP_DATA" \
		"0 $DSCP_DATA" "${first[0]:-} ${first[1]:-}"
	expect_eq "h1: the resend has rtx 1, DSCP $DSCP_RETX" \
		"1 $DSCP_RETX" "${second[0]:-} ${second[1]:-}"
	if [ -n "${first[2]:-}" ] && [ -n "${second[2]:-}" ] &&
		[ "${first[2]}" != "${second[2]}" ]; then
		ok "the resend left on another UDP source port (EV ${first[2]} -> ${second[2]})"
	else
		not_ok "the resend's UDP source port '${second[2]:-}' is the original's '${first[2]:-}'"
	fi
	expect_eq "h1 sent exactly one data packet with rtx 1" 1 "${R[h1rtx]}"
	expect_eq "h2 received PSN $drop_psn once" 1 "${R[h2x]}"
	expect_eq "h2: it is the resend (rtx, DSCP, sport)" \
		"1 $DSCP_RETX ${second[2]:-?}" "${at_h2[*]:-}"
	expect_eq "h2 received exactly one data packet with rtx 1" 1 "${R[h2rtx]}"
	expect_eq "h2 received each of the $npkts PSNs (distinct)" "$npkts" \
		"${R[h2distinct]}"
	expect_eq "h2 received no PSN twice and none outside the message" "0 0" \
		"${R[h2multi]} ${R[h2outside]}"
	expect_eq "no CE-marked data and no SACK with M != 0 without an ECN qdisc" \
		"0 0" "${R[ce]} ${R[msack]}"
}

case_selective_repeat() {
	local drop_psn=$(((SR_PSN + SR_DROP_OFFSET) & PSN_MASK)) mtu npkts

	case_what "one data packet dropped once, PSN $drop_psn"
	# Exact retransmission counts: no spurious expiry from a descheduled
	# vCPU may add to them (xfer_lib.sh, XFER_LOSSLESS_PARAMS).
	param_set rto_min_us "$SR_RTO_MIN_US"
	sr_lossless
	mtu=$(xfer_client_mtu)
	npkts=$(((SR_SIZE + mtu - 1) / mtu))
	[ "$SR_DROP_OFFSET" -lt $((npkts - 3)) ] ||
		fail "PSN offset $SR_DROP_OFFSET is too close to the end of $npkts packets"
	sr_drop_once "$drop_psn"
	sr_capture "$drop_psn" "$npkts"
}

# --- 2: window ------------------------------------------------------------------------

# crafted_pkt.py serve (pkt_lib.sh) runs in h1 for the whole case: a TCG
# guest takes seconds to start Python, and the blackhole should not wait
# for that.
PKT_NS=$XFER_NS_A

# inject_oor PSN: one WRITE Only with that PSN to mrcB's QP, from h1's
# address (the QP's peer) and port INJ_SPORT, with a good ICRC.
inject_oor() {
	local info=$MRC_TMP/win.target prefix=$MRC_TMP/pkt.inject line rc
	printf '%s\n' "QPN=$QPN_B" "RQ_PSN=$WIN_PSN" "RKEY=0" "ADDR=0" \
		"PEER_QPN=$QPN_A" >"$info"
	wait_until "crafted_pkt.py serving" "$CMD_TIMEOUT" pkt_server_ready
	printf -v line '%q ' "$prefix" send --info "$info" \
		--src "$XFER_ROUTED_IP_A" --dst "$XFER_ROUTED_IP_B" \
		"op=0xca psn=$1 sport=$INJ_SPORT len=64"
	printf '%s\n' "$line" >&"$PKT_FD"
	wait_until "crafted_pkt.py sent the packet" "$CMD_TIMEOUT" \
		test -s "$prefix.rc"
	read -r rc <"$prefix.rc"
	if [ "$rc" != 0 ]; then
		sed 's/^/    /' "$prefix.out"
		fail "crafted_pkt.py send: exit status $rc"
	fi
}

# WIN_AWK: case window's capture checks, run by awk over tshark's fields
# (AWK_LIB's columns).
# shellcheck disable=SC2016 # awk code
WIN_AWK='
	BEGIN { cack = (first - 1 + PSN_MOD) % PSN_MOD }
	$C_ICMP == ICMP_ECHO && $C_SRC == client && !marker { marker = $C_FRAME }
	is_data() && $C_SPORT == inj_sport { inj++; next }
	is_data() {
		d = dist($C_PSN, first)
		if (!marker) {
			held[d] = 1
			if (d > hold_max || hold_n == 0) hold_max = d
			hold_n++
			if (d >= edge) beyond++
		}
		# Never at or past the newest cack_psn h1 had seen + MPR.
		e = dist($C_PSN, cack)
		if (e >= mpr && e < PSN_HALF) {
			viol++
			if (viol == 1) first_viol = $C_FRAME ": PSN " $C_PSN " cack " cack
		}
	}
	op == OP_SACK {
		sacks++
		if (!marker) sacks_held++
		if (dist($C_CACK, cack) < PSN_HALF) cack = $C_CACK
		if ($C_MPR != mpr / 128) badmpr++
	}
	op == OP_NACK {
		nacks++
		nack = hex($C_REASON) " " $C_NPSN " " hex($C_DQPN) " " hex($C_NENT)
	}
	END {
		for (d in held) distinct++
		print "marker", marker + 0
		print "hold_n", hold_n + 0
		print "hold_distinct", distinct + 0
		print "hold_max", hold_max + 0
		print "beyond", beyond + 0
		print "viol", viol + 0
		print "first_viol", first_viol
		print "sacks", sacks + 0
		print "sacks_held", sacks_held + 0
		print "badmpr", badmpr + 0
		print "inj", inj + 0
		print "nacks", nacks + 0
		print "nack", nack
	}
'

# win_blocked EDGE INJ_PSN: with every SACK blackholed the requester sends
# EDGE PSNs and stops; a packet injected at INJ_PSN (cack + MPR) is NACKed
# by mrcB and that NACK dropped by mrcA; the write completes once SACKs
# pass again.
win_blocked() {
	local edge=$1 inj_psn=$2 hold_end base
	cleanup_push tc_clear "$CTL_LINK"
	tc_drop "$CTL_LINK" match u8 "$OP_SACK" 0xff at "$BTH_OPCODE_OFF"
	pkt_server_spawn
	cap_start win_h1 "$XFER_NS_A" "$XFER_NETDEV" "$CAP_FILTER"
	counters_snap win.0
	xfer_async win "$WIN_SECS" --size "$WIN_SIZE" --iters 1 --psn "$WIN_PSN"

	# The window fills: mrcB has received every PSN it allows.
	base=$(counter_at win.0 "$XFER_DEV_B" rx_data_pkts)
	wait_until "$XFER_DEV_B received $edge data packets" "$WIN_SECS" \
		hwc_at_least "$XFER_DEV_B" rx_data_pkts $((base + edge))
	hold_end=$((SECONDS + WIN_HOLD_SECS))
	wait_until "the server's QPNs" "$WAIT_TIMEOUT" server_qpns

	# One data packet at cack + MPR, from h1's address (the QP's peer).
	counters_snap win.1
	inject_oor "$inj_psn"
	base=$(counter_at win.1 "$XFER_DEV_B" out_of_window)
	wait_for "$WAIT_TIMEOUT" hwc_at_least "$XFER_DEV_B" out_of_window \
		$((base + 1)) || true
	base=$(counter_at win.1 "$XFER_DEV_A" drop_unmatched_ack)
	wait_for "$WAIT_TIMEOUT" hwc_at_least "$XFER_DEV_A" drop_unmatched_ack \
		$((base + 1)) || true
	# The requester stays blocked for a while: its timer fires (it resends
	# and probes) and still nothing new may go out.
	base=$(counter_at win.0 "$XFER_DEV_A" timeouts)
	wait_for "$WIN_SECS" hwc_at_least "$XFER_DEV_A" timeouts $((base + 2)) ||
		true
	if ((SECONDS < hold_end)); then
		nap $((hold_end - SECONDS))
	fi
	marker_ping	# in the capture: everything before it was sent blackholed
	counters_snap win.2
	expect_num "the SACK blackhole dropped SACKs" "$(tc_dropped "$CTL_LINK")" -gt 0
	tc_clear "$CTL_LINK"
	log "    blackhole lifted"
	expect_xfer "1 MiB write verified once the SACKs pass" win \
		$((WIN_SECS + XFER_SLACK * 2))
	counters_snap win.3
	pkt_server_kill
	caps_stop win_h1
	param_restore
	counters_show win.0 win.2 tx_data_pkts retransmits timeouts probes_sent \
		sacks_rcvd rx_data_pkts out_of_window nacks_sent nack_psn_oor_window \
		drop_unmatched_ack
}

# win_counters: what the devices counted while the SACKs were blackholed.
win_counters() {
	expect_eq "$XFER_DEV_A received no SACK while they were blackholed" 0 \
		"$(counter_delta win.0 win.2 "$XFER_DEV_A" sacks_rcvd)"
	expect_num "$XFER_DEV_A's retransmission timer fired while blocked" \
		"$(counter_delta win.0 win.2 "$XFER_DEV_A" timeouts)" -ge 1
	expect_eq "$XFER_DEV_B out_of_window (the injected packet)" 1 \
		"$(counter_delta win.1 win.2 "$XFER_DEV_B" out_of_window)"
	expect_eq "$XFER_DEV_B nacks_sent" 1 \
		"$(counter_delta win.1 win.2 "$XFER_DEV_B" nacks_sent)"
	# The injected packet was not mrcA's: a NACK for a PSN it never sent
	# is dropped as matching nothing outstanding (security.rst).
	expect_eq "$XFER_DEV_A dropped the NACK for a PSN it never sent" 1 \
		"$(counter_delta win.1 win.2 "$XFER_DEV_A" drop_unmatched_ack)"
	expect_eq "$XFER_DEV_A nack_psn_oor_window (none of its own)" 0 \
		"$(counter_delta win.1 win.2 "$XFER_DEV_A" nack_psn_oor_window)"
}

# win_capture EDGE INJ_PSN: no data PSN at or beyond cack + MPR, in the
# blackhole or after it; the one NACK names the injected packet.
win_capture() {
	local edge=$1 inj_psn=$2
	decode win win_h1
	awk -v first="$WIN_PSN" -v mpr="$WIN_MPR" -v edge="$edge" \
		-v inj_sport="$((INJ_SPORT))" -v client="$XFER_ROUTED_IP_A" "$AWK_LIB$WIN_AWK" "$FIELDS" >"$MRC_TMP/win.results"
	results "$MRC_TMP/win.results"
	log "    blackholed: ${R[hold_n]} data packets, ${R[hold_distinct]} PSNs," \
		"highest start + ${R[hold_max]}"
	expect_num "the blackhole marker is in the capture" "${R[marker]}" -gt 0
	expect_eq "no SACK reached h1 before the marker" 0 "${R[sacks_held]}"
	expect_eq "blackholed: PSNs sent = start .. start + $((edge - 1)), each" \
		"$edge $((edge - 1))" "${R[hold_distinct]} ${R[hold_max]}"
	expect_eq "blackholed: no data PSN at or beyond cack + MPR (start + $edge)" 0 \
		"${R[beyond]}"
	if [ "${R[viol]}" = 0 ]; then
		ok "whole write: no data PSN at or beyond the latest cack_psn + MPR"
	else
		not_ok "whole write: ${R[viol]} data packets beyond the window, first frame ${R[first_viol]}"
	fi
	expect_num "SACKs after the blackhole" "${R[sacks]}" -gt 0
	expect_eq "every SACK advertises mpr $WIN_MPR_UNITS" 0 "${R[badmpr]}"
	expect_eq "the injected packet went out from h1" 1 "${R[inj]}"
	expect_eq "exactly one NACK reached h1" 1 "${R[nacks]}"
	expect_eq "NACK: reason PSN_OOR_WINDOW, PSN cack + MPR, to $XFER_DEV_A's QP, the packet's EV" \
		"$((NACK_PSN_OOR_WINDOW)) $inj_psn $QPN_A $((INJ_SPORT << EV_SHIFT))" \
		"${R[nack]}"
}

case_window() {
	local edge=$((WIN_MPR - 1))	# PSNs start .. start + edge - 1 may go
	local cack=$(((WIN_PSN - 1 + edge) & PSN_MASK))
	local inj_psn=$(((cack + WIN_MPR) & PSN_MASK))

	case_what "MPR $WIN_MPR PSNs, SACKs blackholed, start PSN $WIN_PSN"
	param_set mpr_units "$WIN_MPR_UNITS"
	param_set max_inflight "$WIN_MAX_INFLIGHT"
	param_set rto_min_us "$SLOW_RTO_MIN_US"
	win_blocked "$edge" "$inj_psn"
	win_counters
	win_capture "$edge" "$inj_psn"
}

# --- 3: probe --------------------------------------------------------------------------

# PROBE_AWK: case probe's capture checks, run by awk over tshark's fields
# (AWK_LIB's columns).
# shellcheck disable=SC2016 # awk code
PROBE_AWK='
	op == OP_PROBE && $C_IF == 0 {
		probes1++
		id = hex($C_PPROBE)
		if ($C_PSN != id || $C_DSCP != dscp_data || $C_ECN != 0)
			badprobe++
		sport[id] = $C_SPORT
		if (!first_probe) first_probe = $C_FRAME
	}
	op == OP_PROBE && $C_IF == 1 { probes2++ }
	is_data() && $C_IF == 0 && $C_RTX == 0 {
		psns[$C_PSN] = 1
		if (!first_probe) last_before = $C_PSN
		else if (next_after == "") next_after = $C_PSN
	}
	op == OP_SACK && $C_PR == 1 && $C_IF == 0 {
		pr1++
		id = hex($C_SPROBE)
		if (!(id in sport)) unknown++
		else if (hex($C_SENT) != sport[id] * 65536) badev++
		else matched++
	}
	op == OP_SACK && $C_PR == 1 && $C_IF == 1 { pr2++ }
	op == OP_ACK && $C_IF == 0 { acks1++ }
	op == OP_ACK && $C_IF == 1 { acks2++ }
	END {
		print "acks1", acks1 + 0
		print "acks2", acks2 + 0
		for (p in psns) distinct++
		print "probes1", probes1 + 0
		print "probes2", probes2 + 0
		print "badprobe", badprobe + 0
		print "pr1", pr1 + 0
		print "pr2", pr2 + 0
		print "matched", matched + 0
		print "unknown", unknown + 0
		print "badev", badev + 0
		print "distinct", distinct + 0
		print "last_before", last_before
		print "next_after", next_after
	}
'

# probe_blackholed: two one-packet writes with everything h2 sends
# blackholed until a probe reached h2: verified once it is lifted.
probe_blackholed() {
	local base
	cleanup_push tc_clear "$CTL_LINK"
	tc_drop "$CTL_LINK"
	cap_start probe_h1 "$XFER_NS_A" "$XFER_NETDEV" "$CAP_FILTER"
	cap_start probe_h2 "$XFER_NS_B" "$XFER_NETDEV" "$CAP_FILTER"
	counters_snap probe.0
	# Two one-packet writes, the second posted once the first completed.
	xfer_async probe "$PROBE_SECS" --size "$PROBE_SIZE" --iters 2 \
		--outstanding 1 --psn "$PROBE_PSN"

	# The first write's SACK and ACK went into the blackhole; the RTO
	# expires and the probe reaches h2, whose answer is lost too.
	base=$(counter_at probe.0 "$XFER_DEV_B" probes_rcvd)
	wait_until "a probe reached $XFER_DEV_B" "$PROBE_SECS" \
		hwc_at_least "$XFER_DEV_B" probes_rcvd $((base + 1))
	counters_snap probe.1
	expect_num "the blackhole dropped packets" "$(tc_dropped "$CTL_LINK")" -gt 0
	tc_clear "$CTL_LINK"
	log "    blackhole lifted"
	expect_xfer "two writes verified once the blackhole is lifted" probe \
		$((PROBE_SECS + XFER_SLACK * 2))
	# The counters once the captures hold everything sent until both QPs
	# were gone (the marker pings follow it): a probe or its answer may
	# still be in flight when the transfer ends, and reach a QP destroyed
	# meanwhile (dropped for its QPN).
	caps_stop probe_h1 probe_h2
	counters_snap probe.2
	param_restore
	counters_show probe.0 probe.2 tx_data_pkts retransmits timeouts probes_sent \
		probes_rcvd probe_sacks_rcvd sacks_sent sacks_rcvd acks_sent acks_rcvd \
		drop_bad_qpn
	expect_eq "$XFER_DEV_A received nothing while blackholed" 0 \
		"$(counter_delta probe.0 probe.1 "$XFER_DEV_A" rx_pkts)"
}

# probe_capture: the PROBEs and their answers in the captures agree with
# the counters; the probe consumed no PSN; the lost ACK came again.
probe_capture() {
	local late sacked
	decode probe probe_h1 probe_h2
	awk -v dscp_data="$DSCP_DATA" "$AWK_LIB$PROBE_AWK" "$FIELDS" >"$MRC_TMP/probe.results"
	results "$MRC_TMP/probe.results"
	log "    probes: ${R[probes1]} sent (h1), ${R[probes2]} received (h2);" \
		"SACKs with PR=1: ${R[pr2]} sent (h2), ${R[pr1]} received (h1)"
	expect_num "PROBEs went h1 -> h2" "${R[probes1]}" -gt 0
	expect_eq "every PROBE: BTH PSN = PETH probe_id, DSCP $DSCP_DATA, Not-ECT" 0 \
		"${R[badprobe]}"
	expect_eq "$XFER_DEV_A probes_sent = PROBEs at h1" "${R[probes1]}" \
		"$(counter_delta probe.0 probe.2 "$XFER_DEV_A" probes_sent)"
	expect_eq "$XFER_DEV_B probes_rcvd + drop_bad_qpn (its QP gone) = PROBEs at h2" \
		"${R[probes2]}" \
		$(($(counter_delta probe.0 probe.2 "$XFER_DEV_B" probes_rcvd) +
		   $(counter_delta probe.0 probe.2 "$XFER_DEV_B" drop_bad_qpn)))
	expect_num "SACKs with PR=1 reached h1 after the blackhole" "${R[pr1]}" -gt 0
	expect_eq "each answers a probe h1 sent (ack_psn_offset = its id) on its EV" \
		"${R[pr1]} 0 0" "${R[matched]} ${R[unknown]} ${R[badev]}"
	# An answer that reached h1 once its QP was gone is dropped for its
	# QPN, as are late ACKs: the drops bound the difference.
	late=$(($(counter_delta probe.0 probe.2 "$XFER_DEV_A" drop_bad_qpn)))
	sacked=$(counter_delta probe.0 probe.2 "$XFER_DEV_A" probe_sacks_rcvd)
	if [ "$sacked" -le "${R[pr1]}" ] && [ $((R[pr1] - sacked)) -le "$late" ]; then
		ok "$XFER_DEV_A probe_sacks_rcvd ($sacked) = PR=1 SACKs at h1 (${R[pr1]}), but for $late dropped (its QP gone)"
	else
		not_ok "$XFER_DEV_A probe_sacks_rcvd $sacked, PR=1 SACKs at h1 ${R[pr1]}, drop_bad_qpn $late"
	fi
	# The first write's ACK (0xd1) was lost in the blackhole: it completes
	# only if the responder sends it again.
	log "    semantic ACKs: ${R[acks2]} sent (h2), ${R[acks1]} received (h1)"
	expect_num "a semantic ACK reached h1 after the blackhole" "${R[acks1]}" -gt 0
	expect_eq "data PSNs: the two writes' only" "2" "${R[distinct]}"
	if [ -n "${R[last_before]}" ] && [ -n "${R[next_after]}" ] &&
		[ "${R[next_after]}" = $(((R[last_before] + 1) & PSN_MASK)) ]; then
		ok "the probe consumed no PSN (${R[last_before]} before it, ${R[next_after]} next)"
	else
		not_ok "new data after the probe: PSN '${R[next_after]}', want the one after '${R[last_before]}'"
	fi
}

case_probe() {
	case_what "all h2 -> h1 MRC packets blackholed past an RTO"
	param_set rto_min_us "$SLOW_RTO_MIN_US"
	probe_blackholed
	probe_capture
}

# --- 4: ECN -----------------------------------------------------------------------------

# ECN_AWK: case ecn's capture checks, run by awk over tshark's fields
# (AWK_LIB's columns).
# shellcheck disable=SC2016 # awk code
ECN_AWK='
	is_data() && $C_DST == server {
		data++
		if ($C_ECN == ce) {
			nce++
			k = ++nq[$C_PSN]
			q[$C_PSN, k] = $C_FRAME " " $C_SPORT
		} else if ($C_ECN != ect0) {
			notect++
		}
	}
	op == OP_SACK && $C_SRC == server {
		sacks++
		if ($C_M == 1) {
			skip++
			trig = ($C_CACK + $C_ACKOFF + PSN_MOD) % PSN_MOD
			k = ++used[trig]
			if (k > nq[trig]) { unmatched++; next }
			split(q[trig, k], a, " ")
			if (a[1] + 0 >= $C_FRAME + 0) early++
			else if (hex($C_SENT) != a[2] * 65536) badev++
			else matched++
		} else if ($C_M != 0) {
			otherm++
		}
	}
	END {
		print "data", data + 0
		print "ce", nce + 0
		print "notect", notect + 0
		print "sacks", sacks + 0
		print "skip", skip + 0
		print "matched", matched + 0
		print "unmatched", unmatched + 0
		print "early", early + 0
		print "badev", badev + 0
		print "otherm", otherm + 0
	}
'

case_ecn() {
	case_what "MRC through tbf $ECN_RATE + red ecn on fw $DATA_LINK"
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
	cap_start ecn_h2 "$XFER_NS_B" "$XFER_NETDEV" "$CAP_FILTER"
	counters_snap ecn.0
	xfer_async ecn "$ECN_SECS" --size "$ECN_SIZE" --iters 1 --psn "$ECN_PSN"
	expect_xfer "1 MiB write through the marking bottleneck verified" ecn \
		$((ECN_SECS + XFER_SLACK * 2))
	counters_snap ecn.1
	fw tc -s qdisc show dev "$DATA_LINK"
	log "    fw $DATA_LINK: $(tr -s ' \n' ' ' <"$BOUNDED_OUT")"
	# red drops what is not ECN-capable: not the marker ping.
	tc_clear "$DATA_LINK"
	caps_stop ecn_h2
	counters_show ecn.0 ecn.1 tx_data_pkts retransmits timeouts sacks_sent \
		ecn_marked duplicates

	decode ecn ecn_h2
	awk -v server="$XFER_ROUTED_IP_B" -v ce="$ECN_CE" -v ect0="$ECN_ECT0" "$AWK_LIB$ECN_AWK" "$FIELDS" >"$MRC_TMP/ecn.results"
	results "$MRC_TMP/ecn.results"
	log "    h2: ${R[data]} data packets, ${R[ce]} CE-marked; ${R[sacks]} SACKs," \
		"${R[skip]} with M=SKIP_ONCE"
	expect_num "red marked data packets CE" "${R[ce]}" -gt 0
	expect_eq "unmarked data packets are ECT(0)" 0 "${R[notect]}"
	expect_eq "$XFER_DEV_B ecn_marked = CE data packets at h2" "${R[ce]}" \
		"$(counter_delta ecn.0 ecn.1 "$XFER_DEV_B" ecn_marked)"
	expect_eq "one SACK with M=SKIP_ONCE per CE arrival" "${R[ce]}" "${R[skip]}"
	expect_eq "each follows a CE packet of its trigger PSN and echoes its EV" \
		"${R[skip]} 0 0 0" \
		"${R[matched]} ${R[unmatched]} ${R[early]} ${R[badev]}"
	expect_eq "no SACK with M other than 0 or SKIP_ONCE" 0 "${R[otherm]}"
}

# --- main --------------------------------------------------------------------------------

mrc_case selective_repeat case_selective_repeat
mrc_case window case_window
mrc_case probe case_probe
mrc_case ecn case_ecn
mrc_cases_args "$@"

mrc_test_init
for tool in tshark tcpdump mergecap tc ping; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ -r "$PKT_TOOL" ] || fail "$PKT_TOOL missing"
# Hermetic: no user preferences, and a writable home for tshark.
export HOME=$MRC_TMP

START=$SECONDS
xfer_fabric routed
mrc_cases_run
log "run time $((SECONDS - START)) s"
