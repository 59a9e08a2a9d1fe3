#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC over an impaired path: scripts/fabric routed (h1 - fw - h2), tc netem
# on both of fw's egress links (eth2 towards h2 carries the data, eth1
# towards h1 the SACKs, NACKs and ACKs).  For each impairment mrc_xfer
# moves 4 MiB a few times and the server checks every byte; then the
# counters must show that the impairment was met and handled:
#
#   loss 1%, loss 10%       mrcA retransmits > 0
#   duplicate 5%            mrcB duplicates > 0
#   corrupt 1%              mrcB drop_bad_icrc > 0
#   delay 1ms reorder 25%   with WRITE WITH IMMEDIATE: mrcB
#                           stashed_write_imm > 0 (a later WriteIMM
#                           arrived whole before an earlier one), and the
#                           immediates still in issue order
#
# Every run is bounded (mrc_xfer --timeout, and the test kills it later).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"
mrc_test_init

ROUTER_LINKS=(eth1 eth2)	# fw's links towards h1 and towards h2
NETEM_LIMIT=10000		# packets a netem qdisc may hold
SIZE=4M
ITERS=3
RUN_SECS=90
# Single-packet WriteIMMs, many in flight: reordering makes later ones
# complete before earlier ones.
STASH_OPTS=(--imm --size 1024 --iters 512 --outstanding 64)

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
	log "== $name: netem $netem on fw eth1 and eth2"
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

xfer_fabric routed
cleanup_push netem_clear

log "== baseline, no impairment"
counters_snap base.0
xfer baseline "$RUN_SECS" --size "$SIZE" --iters "$ITERS"
counters_snap base.1
counters_changed base.0 base.1

impaired loss_1 "loss 1%" --size "$SIZE" --iters "$ITERS"
expect_moved loss_1 "$XFER_DEV_A" retransmits

impaired loss_10 "loss 10%" --size "$SIZE" --iters "$ITERS"
expect_moved loss_10 "$XFER_DEV_A" retransmits

impaired duplicate_5 "duplicate 5%" --size "$SIZE" --iters "$ITERS"
expect_moved duplicate_5 "$XFER_DEV_B" duplicates

impaired corrupt_1 "corrupt 1%" --size "$SIZE" --iters "$ITERS"
expect_moved corrupt_1 "$XFER_DEV_B" drop_bad_icrc

impaired reorder "delay 1ms reorder 25% 50%" --size "$SIZE" --iters "$ITERS"
impaired reorder_imm "delay 1ms reorder 25% 50%" "${STASH_OPTS[@]}"
expect_moved reorder_imm "$XFER_DEV_B" stashed_write_imm

log "PASS"
