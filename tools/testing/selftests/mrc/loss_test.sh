#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC over an impaired path: scripts/fabric routed (h1 - fw - h2), tc netem
# on both of fw's egress links (eth2 towards h2 carries the data, eth1
# towards h1 the SACKs, NACKs and ACKs).  Under each impairment mrc_xfer
# moves data and the server checks every byte (and, with WRITE WITH
# IMMEDIATE, one receive CQE per WriteIMM, in issue order, with the right
# immediate); then the counters must show that the impairment was met and
# handled:
#
#   loss 1%, loss 10%       4 MiB x 3; mrcA retransmits > 0
#   duplicate 5%            4 MiB x 3; mrcB duplicates > 0
#   duplicate 5%, WriteIMM  single-packet WriteIMMs, the server posting
#                           N + K receives for N WriteIMMs: exactly N
#                           receive CQEs, K receives left unconsumed (a
#                           duplicate that consumed a receive, or made a
#                           second CQE, fails), and mrcB duplicates > 0
#   corrupt 1%              4 MiB x 3; the packets whose ICRC no longer
#                           matches are dropped and counted (drop_bad_icrc
#                           > 0 on mrcB for the data, on mrcA for the
#                           control packets) and recovered (mrcA
#                           retransmits > 0, every byte right)
#   delay 1ms reorder 25%   4 MiB x 3, payload only
#   reorder, WriteIMM       128 single-packet WriteIMMs posted at a time
#   delay 1ms 1ms (jitter)  (the driver keeps max_wimm_inflight = 64 in
#                           flight): immediates in issue order and mrcB
#                           stashed_write_imm > 0 (a later WriteIMM arrived
#                           whole before an earlier one and was held back)
#
# Every run is bounded (mrc_xfer --timeout, and the test kills it later).
# About 90 s in a TCG guest (130 s when the host is loaded).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

ROUTER_LINKS=(eth1 eth2)	# fw's links towards h1 and towards h2
NETEM_LIMIT=10000		# packets a netem qdisc may hold
SIZE=4M
ITERS=3
RUN_SECS=90
NETEM_REORDER="delay 1ms reorder 25% 50%"
NETEM_JITTER="delay 1ms 1ms"
# Single-packet WriteIMMs, many posted at once: reordering makes later
# ones arrive whole before earlier ones.  Twice the driver's default
# max_wimm_inflight, so that it keeps its limit's worth in flight.
IMM_SIZE=1024
IMM_OUTSTANDING=128
IMM_ITERS=1024
IMM_OPTS=(--imm --size "$IMM_SIZE" --iters "$IMM_ITERS"
	--outstanding "$IMM_OUTSTANDING")
# Receives posted beyond one per WriteIMM; they must stay unconsumed.
EXTRA_RECVS=4

netem_set() {
	local dev
	for dev in "${ROUTER_LINKS[@]}"; do
		run ip netns exec "$XFER_ROUTER_NS" tc qdisc replace dev "$dev" \
			root netem limit "$NETEM_LIMIT" "$@"
	done
}

netem_clear() {
	local dev
	for dev in "${ROUTER_LINKS[@]}"; do
		ip netns exec "$XFER_ROUTER_NS" tc qdisc del dev "$dev" root \
			2>/dev/null || true
	done
}

# What netem did: "eth2: ... dropped N ..." for each link.
netem_show() {
	local dev
	for dev in "${ROUTER_LINKS[@]}"; do
		bounded "$CMD_TIMEOUT" ip netns exec "$XFER_ROUTER_NS" \
			tc -s qdisc show dev "$dev" || continue
		log "    fw $dev: $(tr -s ' \n' ' ' <"$BOUNDED_OUT")"
	done
}

# impaired NAME "NETEM ARGS" [CLIENT_OPT...]: one verified run under netem.
impaired() {
	local name=$1 netem=$2
	shift 2
	log "    $name: netem $netem on fw eth1 and eth2"
	# shellcheck disable=SC2086 # netem arguments are words
	netem_set $netem
	counters_snap "$name.0"
	xfer "$name" "$RUN_SECS" "$@"
	counters_snap "$name.1"
	netem_show
	netem_clear
	counters_changed "$name.0" "$name.1"
}

# expect_moved NAME DEV COUNTER: the counter went up during run NAME.
expect_moved() {
	local d
	d=$(counter_delta "$1.0" "$1.1" "$2" "$3")
	[ "$d" -gt 0 ] || fail "$1: $2 $3 did not move (delta $d)"
	log "ok $1: $2 $3 +$d"
}

# expect_result NAME KEY WANT: the server's RESULT line of the latest run
# says KEY=WANT.
expect_result() {
	local got
	got=$(result_field "$XFER_SERVER_RESULT" "$2") ||
		fail "$1: no $2 in the server's result"
	assert_eq "$1: server $2" "$3" "$got"
	log "ok $1: server $2=$got"
}

case_baseline() {
	log "    no impairment"
	counters_snap base.0
	xfer baseline "$RUN_SECS" --size "$SIZE" --iters "$ITERS"
	counters_snap base.1
	counters_changed base.0 base.1
}

case_loss_1() {
	impaired loss_1 "loss 1%" --size "$SIZE" --iters "$ITERS"
	expect_moved loss_1 "$XFER_DEV_A" retransmits
}

case_loss_10() {
	impaired loss_10 "loss 10%" --size "$SIZE" --iters "$ITERS"
	expect_moved loss_10 "$XFER_DEV_A" retransmits
}

case_duplicate_5() {
	impaired duplicate_5 "duplicate 5%" --size "$SIZE" --iters "$ITERS"
	expect_moved duplicate_5 "$XFER_DEV_B" duplicates
}

# One receive CQE per WriteIMM however often it arrives: mrc_xfer's
# server fails on a CQE too many after any batch, and at the end counts
# the receives left over (flushed when it moves its QP to error).
case_duplicate_imm() {
	impaired duplicate_imm "duplicate 5%" "${IMM_OPTS[@]}" \
		--extra-recvs "$EXTRA_RECVS"
	expect_moved duplicate_imm "$XFER_DEV_B" duplicates
	expect_result duplicate_imm recv_cqes "$IMM_ITERS"
	expect_result duplicate_imm unconsumed_recvs "$EXTRA_RECVS"
}

case_corrupt_1() {
	impaired corrupt_1 "corrupt 1%" --size "$SIZE" --iters "$ITERS"
	expect_moved corrupt_1 "$XFER_DEV_B" drop_bad_icrc
	expect_moved corrupt_1 "$XFER_DEV_A" drop_bad_icrc
	expect_moved corrupt_1 "$XFER_DEV_A" retransmits
}

case_reorder() {
	impaired reorder "$NETEM_REORDER" --size "$SIZE" --iters "$ITERS"
}

# Immediates in issue order: mrc_xfer's server checks each receive CQE's
# immediate against the next one issued.
case_reorder_imm() {
	impaired reorder_imm "$NETEM_REORDER" "${IMM_OPTS[@]}"
	expect_moved reorder_imm "$XFER_DEV_B" stashed_write_imm
	expect_result reorder_imm recv_cqes "$IMM_ITERS"
}

case_jitter_imm() {
	impaired jitter_imm "$NETEM_JITTER" "${IMM_OPTS[@]}"
	expect_moved jitter_imm "$XFER_DEV_B" stashed_write_imm
	expect_result jitter_imm recv_cqes "$IMM_ITERS"
}

mrc_case baseline case_baseline
mrc_case loss_1 case_loss_1
mrc_case loss_10 case_loss_10
mrc_case duplicate_5 case_duplicate_5
mrc_case duplicate_imm case_duplicate_imm
mrc_case corrupt_1 case_corrupt_1
mrc_case reorder case_reorder
mrc_case reorder_imm case_reorder_imm
mrc_case jitter_imm case_jitter_imm
mrc_cases_args "$@"

mrc_test_init
xfer_fabric routed
cleanup_push netem_clear
mrc_cases_run
