#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Congestion control (Documentation/mrc/congestion.rst) and trimming
# (trimming.rst) between two namespace hosts joined by a router
# (scripts/fabric routed: h1 - fw - h2).  mrcA's QPs take the CC profile
# the case makes mrcA's default; mrc_xfer moves data from h1 to h2 and its
# server checks every byte.  Cases, one behaviour each:
#
#   none     no CC profile (the built-in fixed window of max_inflight
#            packets): verified, and no congestion-control counter moves
#   nscc     CC profile 1, algorithm uet-1.0-nscc, max-cwnd 16 KiB:
#            verified; the QP is bound to it, and in every sample of
#            mrcctl qp show while it sends its window is at most max-cwnd
#            and at least one MTU, its bytes in flight at most the window
#            (and some samples find bytes in flight); every SACK's
#            received-bytes counter was taken (no cc_bad_rcvd)
#   derived  no CC profile, nscc_default=Y: NSCC with parameters derived
#            from the path: verified; in every sample of mrcctl qp show
#            the QP runs NSCC (a window) on no profile, its base RTT is a
#            measured one (not nscc_base_rtt_us) and its window within
#            [MTU, 1.5 x base RTT x the veth's 10 Gb/s]
#   trim     fw's link to h2 limited to 50 Mbit/s (tbf) with the trimming
#            switch (mrc-trim) on its egress: it trims; every trimmed
#            packet reaches mrcB, which answers each new one with a NACK
#            TRIMMED that mrcA takes; mrcA resends them all; no timeout,
#            no EV ASSUMED_BAD; verified
#   span     CC profile 2, NSCC with max-cwnd 1 MiB, over a path of 20 ms
#            RTT (netem on both of fw's links): the window outgrows the
#            fixed window's 64 packets (a sample of mrcctl qp show above
#            64 KiB), so the txpkts sized for it at RTS are grown
#            (tx_span_grown moves) while PSNs are in flight, and a sample
#            finds more bytes in flight than they reached (256 KiB);
#            verified, no timeout
#
# Every run is bounded (mrc_xfer --timeout, and the test kills it later).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

SIZE=8M
ITERS=4
RUN_SECS=$((120 * TIME_SCALE))
CC_ID=1
# Small enough to bind: 16 packets of the 1 KiB path MTU (the fixed
# window is 64).
MAX_CWND=16384
MTU=1024
SAMPLES=20
# The nscc case's transfer: long enough for the samples (mrcctl takes a
# good part of a second in a TCG guest); under a slower kernel (TIME_SCALE
# > 1, the debug kernel) a TIME_SCALE-th of it, as perftest_test does.
NSCC_ITERS=$(((32 + TIME_SCALE - 1) / TIME_SCALE))
# NSCC's parameters for a TCG guest's link: RTTs of a millisecond or more
# (netlink.rst, "CC profiles", gives the units).
NSCC=(disable-qa 0 adjust-bytes-threshold 32768 adjust-period-threshold 1000000
	base-rtt 1000000 eta 4096 "fi" 8192 fi-scale 250000 gamma 800000
	max-md-jump 500000 max-cwnd "$MAX_CWND" qa-gate 3 qa-threshold 8000000
	target-delay 2000000)
CC_COUNTERS=(cc_increases cc_decreases cc_quick_adapts cc_penalties cc_bad_rcvd)
# trim: the bottleneck, and the switch's virtual queue threshold (bytes).
MRC_TRIM=${MRC_TRIM:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrc-trim}
TRIM_DEV=eth2			# fw's link towards h2
TRIM_MBIT=50
TRIM_THRESHOLD=32768

# span: a path of SPAN_DELAY_MS each way, and NSCC free to fill it.
SPAN_ID=2
SPAN_DELAY_MS=10
SPAN_MAX_CWND=1048576
SPAN_ITERS=$(((16 + TIME_SCALE - 1) / TIME_SCALE))
# The nscc case's parameters, then what differs (mrcctl takes the last of
# a repeated name): the path's RTT, and no quick adapt.
SPAN_NSCC=("${NSCC[@]}" disable-qa 1 base-rtt 20000000 max-cwnd "$SPAN_MAX_CWND"
	qa-threshold 80000000 target-delay 40000000)
# The fixed window the txpkts are sized for at RTS, and their reach (four
# windows), in bytes.
FIXED_WINDOW_BYTES=$((64 * MTU))
RTS_SPAN_BYTES=$((4 * FIXED_WINDOW_BYTES))

cc_delta() { counter_delta "$1.0" "$1.1" "$XFER_DEV_A" "$2"; }

# cc_run NAME: the transfer, between two counter snapshots.
cc_run() {
	counters_snap "$1.0"
	xfer_async "$1" "$RUN_SECS" --size "$SIZE" --iters "$ITERS"
	expect_xfer "$SIZE x $ITERS verified" "$1" "$RUN_SECS"
	counters_snap "$1.1"
	counters_show "$1.0" "$1.1" tx_data_pkts retransmits timeouts \
		sacks_rcvd "${CC_COUNTERS[@]}"
}

case_none() {
	local c
	case_what "no CC profile: the fixed window"
	cc_run none
	for c in "${CC_COUNTERS[@]}"; do
		expect_eq "$c" 0 "$(cc_delta none "$c")"
	done
}

# The QP's CC profile, from mrcctl qp show, once the transfer has a QP.
qp_cc_profile() {
	bounded "$CMD_TIMEOUT" "$MRCCTL" -j qp show "$XFER_DEV_A" || return 1
	jq -e --argjson id "$CC_ID" 'length > 0 and all(.[]; ."cc-profile-id" == $id)' \
		"$BOUNDED_OUT" >/dev/null
}

# cc_sample: one "CWND INFLIGHT" line per QP of mrcA, appended to the file
# samples.
# A QP mrc_xfer is still connecting (before RTS: no window, no RTT yet)
# is not sampled; one past RTS on no window keeps its RTT and is.
cc_sample() {
	bounded "$CMD_TIMEOUT" "$MRCCTL" -j qp show "$XFER_DEV_A" || return 0
	jq -r '.[] | select(.cwnd != 0 or ."srtt-us" != 0) |
		"\(.cwnd) \(."inflight-bytes")"' "$BOUNDED_OUT" >>"$MRC_TMP/samples"
}

case_nscc() {
	local i
	case_what "CC profile $CC_ID, uet-1.0-nscc"
	run "$MRCCTL" dev set "$XFER_DEV_A" default-cc-profile "$CC_ID"
	cleanup_push "$MRCCTL" dev set "$XFER_DEV_A" default-cc-profile 0
	counters_snap nscc.0
	xfer_async nscc "$RUN_SECS" --size "$SIZE" --iters "$NSCC_ITERS"
	check "the QP is bound to profile $CC_ID" \
		wait_for "$WAIT_TIMEOUT" qp_cc_profile
	: >"$MRC_TMP/samples"
	for ((i = 0; i < SAMPLES; i++)); do
		xfer_running nscc || break
		cc_sample
	done
	expect_xfer "$SIZE x $NSCC_ITERS verified" nscc "$RUN_SECS"
	log "    $(wc -l <"$MRC_TMP/samples") samples (cwnd inflight):" \
		"$(sort -n "$MRC_TMP/samples" | uniq -c | sort -rn | head -n 5 | tr -s ' \n' ' ')"
	expect_eq "samples with the window outside [MTU, max-cwnd]" 0 \
		"$(awk -v lo="$MTU" -v hi="$MAX_CWND" '$1 < lo || $1 > hi' "$MRC_TMP/samples" | wc -l)"
	expect_eq "samples with more bytes in flight than the window" 0 \
		"$(awk '$2 > $1' "$MRC_TMP/samples" | wc -l)"
	expect_num "samples with bytes in flight" \
		"$(awk '$2 > 0' "$MRC_TMP/samples" | wc -l)" -gt 0
	counters_snap nscc.1
	counters_show nscc.0 nscc.1 tx_data_pkts retransmits timeouts \
		sacks_rcvd "${CC_COUNTERS[@]}"
	expect_eq "every received-bytes counter taken (cc_bad_rcvd)" 0 \
		"$(cc_delta nscc cc_bad_rcvd)"
}

# derived: what the veths report (Mb/s), and the base RTT a QP assumes
# until its first sample (nscc_base_rtt_us, ns).
VETH_MBPS=10000
GUESS_RTT_NS=100000
NSCC_DEFAULT=/sys/module/rdma_mrc/parameters/nscc_default

nscc_default_off() { echo N >"$NSCC_DEFAULT"; }

# derived_sample: "CWND PROFILE BASE_RTT_NS" per QP of mrcA, appended to
# the file samples.
derived_sample() {
	bounded "$CMD_TIMEOUT" "$MRCCTL" -j qp show "$XFER_DEV_A" || return 0
	jq -r '.[] | select(.cwnd != 0 or ."srtt-us" != 0) |
		"\(.cwnd) \(."cc-profile-id") \(."base-rtt-ns")"' \
		"$BOUNDED_OUT" >>"$MRC_TMP/samples"
}

case_derived() {
	local i
	case_what "no CC profile, nscc_default: NSCC derived from the path"
	echo Y >"$NSCC_DEFAULT"
	cleanup_push nscc_default_off
	counters_snap derived.0
	xfer_async derived "$RUN_SECS" --size "$SIZE" --iters "$NSCC_ITERS"
	: >"$MRC_TMP/samples"
	for ((i = 0; i < SAMPLES; i++)); do
		xfer_running derived || break
		derived_sample
	done
	expect_xfer "$SIZE x $NSCC_ITERS verified" derived "$RUN_SECS"
	# Only the samples taken once the QP had its first RTT sample.
	awk -v g="$GUESS_RTT_NS" '$3 != g' "$MRC_TMP/samples" >"$MRC_TMP/measured"
	log "    $(wc -l <"$MRC_TMP/samples") samples (cwnd profile base-rtt-ns):" \
		"$(sort -n "$MRC_TMP/samples" | uniq -c | sort -rn | head -n 5 | tr -s ' \n' ' ')"
	expect_num "samples of a QP with a measured base RTT" \
		"$(wc -l <"$MRC_TMP/measured")" -gt 0
	expect_eq "samples without an NSCC window or with a profile" 0 \
		"$(awk '$1 == 0 || $2 != 0' "$MRC_TMP/samples" | wc -l)"
	expect_eq "samples with the window outside [MTU, 1.5 BDP]" 0 \
		"$(awk -v lo="$MTU" -v s="$VETH_MBPS" \
			'$1 < lo || $1 > int($3 * s / 8000 * 3 / 2) + 1' "$MRC_TMP/measured" | wc -l)"
	counters_snap derived.1
	counters_show derived.0 derived.1 tx_data_pkts retransmits timeouts \
		sacks_rcvd "${CC_COUNTERS[@]}"
}

# trim_stat NAME: the switch's statistic NAME (mrc-trim stats).
trim_stat() {
	ip netns exec "$XFER_ROUTER_NS" "$MRC_TRIM" stats "$TRIM_DEV" |
		awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

case_trim() {
	local trimmed rcvd stale
	case_what "a $TRIM_MBIT Mbit/s bottleneck at fw, the trimming switch on"
	cleanup_push tc_clear "$TRIM_DEV"
	fw tc qdisc replace dev "$TRIM_DEV" root tbf rate "${TRIM_MBIT}mbit" \
		burst 16kb latency 200ms
	fw "$MRC_TRIM" attach "$TRIM_DEV" --rate "$TRIM_MBIT" \
		--threshold "$TRIM_THRESHOLD"
	cc_run trim
	log "    switch: $(ip netns exec "$XFER_ROUTER_NS" "$MRC_TRIM" stats "$TRIM_DEV")"
	counters_show trim.0 trim.1 trimmed_rcvd trimmed_stale drop_bad_trimmed \
		nack_trimmed nacks_sent fast_retransmits ev_skip ev_assumed_bad
	trimmed=$(trim_stat trimmed)
	rcvd=$(counter_delta trim.0 trim.1 "$XFER_DEV_B" trimmed_rcvd)
	stale=$(counter_delta trim.0 trim.1 "$XFER_DEV_B" trimmed_stale)
	expect_num "the switch trimmed packets" "${trimmed:-0}" -gt 0
	expect_eq "each reached mrcB (trimmed_rcvd + trimmed_stale)" \
		"$trimmed" $((rcvd + stale))
	expect_eq "none refused as malformed" 0 \
		"$(counter_delta trim.0 trim.1 "$XFER_DEV_B" drop_bad_trimmed)"
	expect_eq "mrcA took a NACK TRIMMED for each one mrcB answered" "$rcvd" \
		"$(cc_delta trim nack_trimmed)"
	expect_num "mrcA resent them (retransmits)" \
		"$(cc_delta trim retransmits)" -ge "$rcvd"
	expect_eq "no timeout" 0 "$(cc_delta trim timeouts)"
	expect_eq "no EV ASSUMED_BAD" 0 "$(cc_delta trim ev_assumed_bad)"
}

case_span() {
	local i
	case_what "CC profile $SPAN_ID, NSCC up to $SPAN_MAX_CWND bytes, 2 x $SPAN_DELAY_MS ms"
	cleanup_push tc_clear eth1
	cleanup_push tc_clear eth2
	fw tc qdisc replace dev eth1 root netem delay "${SPAN_DELAY_MS}ms" limit 10000
	fw tc qdisc replace dev eth2 root netem delay "${SPAN_DELAY_MS}ms" limit 10000
	run "$MRCCTL" dev set "$XFER_DEV_A" default-cc-profile "$SPAN_ID"
	cleanup_push "$MRCCTL" dev set "$XFER_DEV_A" default-cc-profile 0
	counters_snap span.0
	xfer_async span "$RUN_SECS" --size "$SIZE" --iters "$SPAN_ITERS"
	: >"$MRC_TMP/samples"
	for ((i = 0; i < SAMPLES; i++)); do
		xfer_running span || break
		cc_sample
	done
	expect_xfer "$SIZE x $SPAN_ITERS verified" span "$RUN_SECS"
	counters_snap span.1
	log "    $(wc -l <"$MRC_TMP/samples") samples (cwnd inflight), the largest:" \
		"$(sort -n "$MRC_TMP/samples" | tail -n 3 | tr -s ' \n' ' ')"
	counters_show span.0 span.1 tx_data_pkts retransmits timeouts \
		tx_span_grown "${CC_COUNTERS[@]}"
	expect_num "samples with the window above the fixed window ($FIXED_WINDOW_BYTES)" \
		"$(awk -v w="$FIXED_WINDOW_BYTES" '$1 > w' "$MRC_TMP/samples" | wc -l)" -gt 0
	expect_num "txpkts grown (tx_span_grown)" "$(cc_delta span tx_span_grown)" -gt 0
	expect_num "samples with more in flight than the txpkts of RTS ($RTS_SPAN_BYTES)" \
		"$(awk -v s="$RTS_SPAN_BYTES" '$2 > s' "$MRC_TMP/samples" | wc -l)" -gt 0
	expect_eq "no timeout" 0 "$(cc_delta span timeouts)"
}

mrc_case none case_none
mrc_case nscc case_nscc
mrc_case derived case_derived
mrc_case trim case_trim
mrc_case span case_span
mrc_cases_args "$@"

mrc_test_init
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"
[ -x "$MRC_TRIM" ] || fail "no mrc-trim at $MRC_TRIM: run make"
command -v jq >/dev/null || fail "jq is not installed"
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric routed
run "$MRCCTL" cc set "$XFER_DEV_A" id "$CC_ID" state offline algorithm uet-1.0-nscc
run "$MRCCTL" cc set "$XFER_DEV_A" id "$CC_ID" "${NSCC[@]}"
run "$MRCCTL" cc set "$XFER_DEV_A" id "$CC_ID" state online
run "$MRCCTL" cc set "$XFER_DEV_A" id "$SPAN_ID" state offline algorithm uet-1.0-nscc
run "$MRCCTL" cc set "$XFER_DEV_A" id "$SPAN_ID" "${SPAN_NSCC[@]}"
run "$MRCCTL" cc set "$XFER_DEV_A" id "$SPAN_ID" state online
mrc_cases_run
