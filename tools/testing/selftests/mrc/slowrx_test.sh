#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host backpressure (Documentation/mrc/congestion.rst, "Host
# backpressure"): a receiver that cannot take what the sender's window
# sends.  Two namespace hosts joined by a veth pair (scripts/fabric hosts);
# the receiving host is made slow with a documented knob, the receive
# backlog: net.core.netdev_max_backlog is lowered to SLOW_BACKLOG packets,
# so a burst larger than that is dropped before rdma_mrc sees it, as a NIC
# drops what a busy host does not take from its ring.  rdma_mrc's fixed
# window is raised to FIXED_WINDOW packets (max_inflight) and the penalty
# rule's thresholds brought under the backlog (rx_backlog_low/high).
# mrc_xfer moves data from h1 to h2 and its server checks every byte.
# Cases, one behaviour each:
#
#   fixed  no CC profile (the fixed window): verified; the receiver drops
#          (softnet drops) and the sender resends: the overrun exists
#   nscc   mrcA's QPs bound to an NSCC profile whose max-cwnd is the fixed
#          window: verified; the receiver's penalties reach the sender
#          (cc_penalties), its window shrinks (tracepoint) to below the
#          fixed window, and over the second half of the run (counters
#          sampled while it runs) the drops and resends per data packet
#          fall to under a twentieth of the fixed window's (two runs:
#          none at all)
#
# Every run is bounded (mrc_xfer --timeout, and the test kills it later).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

SIZE=8M
# Long enough for several counter samples in each half of the nscc run;
# under a slower kernel (TIME_SCALE > 1) a TIME_SCALE-th of it.
ITERS=$(((16 + TIME_SCALE - 1) / TIME_SCALE))
RUN_SECS=$((300 * TIME_SCALE))
MTU=1024
SLOW_BACKLOG=48
FIXED_WINDOW=128
RX_BACKLOG_LOW=8
RX_BACKLOG_HIGH=32
CC_ID=1
# NSCC for the veth link of a TCG guest: a base RTT and target delay of
# 200 us (netlink.rst, "CC profiles", gives the units: ns, bytes,
# millionths), the window at most the fixed one; the increases NSCC-FACTS
# derives for a path whose BDP is the backlog's 48 KiB (a = 0.33: fi 5
# MTU a, eta 0.15 MTU a, fi-scale a / 4, 8 MTUs a fulfil).
NSCC=(disable-qa 0 adjust-bytes-threshold 8192 adjust-period-threshold 200000
	base-rtt 200000 eta 50 "fi" 1690 fi-scale 82000 gamma 800000
	max-md-jump 500000 max-cwnd $((FIXED_WINDOW * MTU)) qa-gate 3
	qa-threshold 800000 target-delay 200000)
# The drop and resend rates of nscc's second half, at most this fraction
# of the fixed window's (per data packet).
RATE_DIVISOR=20
BACKLOG_SYSCTL=/proc/sys/net/core/netdev_max_backlog
OLD_BACKLOG=

backlog_restore() { echo "$OLD_BACKLOG" >"$BACKLOG_SYSCTL"; }

# snap TAG: the counters and the softnet drops now, as TAG.
declare -gA DROPS=()
snap() {
	counters_snap "$1"
	DROPS[$1]=$(softnet_drops)
}

# rates T1 T2: "TX RESENT DROPPED" between two snaps.
rates() {
	printf '%s %s %s\n' "$(counter_delta "$1" "$2" "$XFER_DEV_A" tx_data_pkts)" \
		"$(counter_delta "$1" "$2" "$XFER_DEV_A" retransmits)" \
		$((DROPS[$2] - DROPS[$1]))
}

FIXED_TX=0
FIXED_LOST=0

case_fixed() {
	local tx resent dropped
	case_what "no CC profile: a window of $FIXED_WINDOW packets into a backlog of $SLOW_BACKLOG"
	snap fixed.0
	xfer_async fixed "$RUN_SECS" --size "$SIZE" --iters "$ITERS"
	expect_xfer "$SIZE x $ITERS verified" fixed "$RUN_SECS"
	snap fixed.1
	counters_show fixed.0 fixed.1 tx_data_pkts retransmits timeouts \
		cc_penalties_sent rx_backlog_drops
	read -r tx resent dropped < <(rates fixed.0 fixed.1)
	log "    softnet drops: $dropped"
	expect_num "the receiving host dropped packets (softnet)" "$dropped" -gt 0
	expect_num "the sender resent" "$resent" -gt 0
	FIXED_TX=$tx
	FIXED_LOST=$((resent + dropped))
}

case_nscc() {
	local n=0 half tx resent dropped min_cwnd
	case_what "NSCC, max-cwnd $FIXED_WINDOW packets, the receiver's penalties"
	[ "$FIXED_TX" -gt 0 ] || fail "needs the fixed case's figures"
	run "$MRCCTL" dev set "$XFER_DEV_A" default-cc-profile "$CC_ID"
	cleanup_push "$MRCCTL" dev set "$XFER_DEV_A" default-cc-profile 0
	cc_trace_on
	snap nscc.0
	xfer_async nscc "$RUN_SECS" --size "$SIZE" --iters "$ITERS"
	while xfer_running nscc; do
		n=$((n + 1))
		snap "nscc.s$n"
	done
	expect_xfer "$SIZE x $ITERS verified" nscc "$RUN_SECS"
	cc_trace_windows "$MRC_TMP/windows"
	cc_trace_off
	snap nscc.1
	counters_show nscc.0 nscc.1 tx_data_pkts retransmits timeouts \
		cc_penalties cc_decreases cc_increases cc_penalties_sent \
		rx_backlog_drops
	expect_num "penalties reached the sender (cc_penalties)" \
		"$(counter_delta nscc.0 nscc.1 "$XFER_DEV_A" cc_penalties)" -gt 0
	min_cwnd=$(awk 'NR == 1 || $2 < m { m = $2 } END { print m + 0 }' "$MRC_TMP/windows")
	log "    $(wc -l <"$MRC_TMP/windows") window changes, smallest $min_cwnd bytes"
	expect_num "the window shrank below the fixed one" "$min_cwnd" \
		-lt $((FIXED_WINDOW * MTU))
	expect_num "counter samples while it ran" "$n" -ge 4
	[ "$n" -ge 4 ] || return 0
	half=$(((n + 1) / 2))
	read -r tx resent dropped < <(rates "nscc.s$half" "nscc.s$n")
	log "    second half ($half of $n samples): $tx data packets, $resent resent," \
		"$dropped dropped; fixed window: $FIXED_TX, $FIXED_LOST resent + dropped"
	expect_num "data packets in the second half" "$tx" -gt 0
	# (resent + dropped) / tx < FIXED_LOST / FIXED_TX / RATE_DIVISOR
	expect_num "second half's resends + drops per packet, x $RATE_DIVISOR x fixed's packets" \
		$(((resent + dropped) * RATE_DIVISOR * FIXED_TX)) -le $((FIXED_LOST * tx))
}

mrc_case fixed case_fixed
mrc_case nscc case_nscc --after fixed
mrc_cases_args "$@"

mrc_test_init
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"
command -v jq >/dev/null || fail "jq is not installed"
OLD_BACKLOG=$(cat "$BACKLOG_SYSCTL")
cleanup_push backlog_restore
echo "$SLOW_BACKLOG" >"$BACKLOG_SYSCTL"
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}" max_inflight=$FIXED_WINDOW
	rx_backlog_low=$RX_BACKLOG_LOW rx_backlog_high=$RX_BACKLOG_HIGH)
xfer_fabric hosts
run "$MRCCTL" cc set "$XFER_DEV_A" id "$CC_ID" state offline algorithm uet-1.0-nscc
run "$MRCCTL" cc set "$XFER_DEV_A" id "$CC_ID" "${NSCC[@]}"
run "$MRCCTL" cc set "$XFER_DEV_A" id "$CC_ID" state online
mrc_cases_run
