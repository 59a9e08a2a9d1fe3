#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA WRITE and WRITE WITH IMMEDIATE between two hosts (scripts/fabric
# hosts 2: h1 and h2 on a bridge, mrcA on h1, mrcB on h2), verified byte for
# byte by mrc_xfer: sizes 0, 1, 4095, 4096, 65537, 1 MiB, 16 MiB and 64 MiB,
# MRs starting at odd offsets into a page, one QP, four and 1,000 (every QP
# created, connected and moving verified data at once), plain writes and
# writes with immediate (immediates in issue order, one receive CQE each,
# extra receives left unconsumed), the ibv_wr_* API once, a PSN range that
# wraps past 2^24.
#
# First, the checks must bite: runs with a fault mrc_xfer puts in on
# purpose (a flipped payload byte, a wrong immediate, a flipped byte right
# after the target MR) must fail with the matching reason.
#
# Counters, per run: mrcA sent each PSN once (tx_data_pkts - retransmits =
# the packets the writes need at the path MTU, a zero-length write being
# one packet) and mrcB received each once (rx_data_pkts - duplicates).  The
# fabric is lossless, so after each run `retransmits` of both devices must
# still be 0: a driver that overruns its own path and recovers by
# retransmitting fails here.  The 1,000-QP run is the exception
# (case_burst): its first windows together overrun the receiving host's
# backlog, and what it drops is resent.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

KIB=1024
MIB=$((1024 * 1024))
# Bound of one run: a base plus one second per MiB moved (so at least
# about 1 MB/s including pattern generation and verification in TCG) and
# one per QPS_PER_SEC QPs set up (two of them, an MR and a TCP exchange
# line each), times TIME_SCALE (a debug kernel moves 0.2-0.4 MB/s).
BASE_SECS=20
QPS_PER_SEC=10
# A device's EV probe budget (mrc_param.h, MRC_EV_PROBE_*): one per this
# many data packets sent, this many a second, this many banked.
EV_PROBE_DATA_PER=4
EV_PROBE_FLOOR_PER_SEC=250
EV_PROBE_BANK=256

# size_bytes SIZE: 1M -> 1048576, 4K -> 4096, 17 -> 17.
size_bytes() {
	case $1 in
	*M) echo $((${1%M} * MIB)) ;;
	*K) echo $((${1%K} * KIB)) ;;
	*) echo "$1" ;;
	esac
}

# case_run NAME QPS SIZE ITERS [CLIENT_OPT...]: one verified run and its
# packet accounting; the fabric is lossless: no retransmission (unless
# XFER_BURST is set: case_burst).
case_run() {
	local name=$1 qps=$2 size=$3 iters=$4 bytes secs mtu per_write want
	local sent rtx rcvd dup t0 probes budget
	shift 4
	bytes=$(size_bytes "$size")
	secs=$(((BASE_SECS + bytes * iters * qps / MIB + qps / QPS_PER_SEC) * TIME_SCALE))
	counters_snap "$name.0"
	t0=$SECONDS
	XFER_COUNTERS_SINCE=$name.0 \
		xfer "$name" "$secs" --qps "$qps" --size "$bytes" --iters "$iters" "$@"
	counters_snap "$name.1"

	mtu=$(xfer_client_mtu)
	per_write=$(((bytes + mtu - 1) / mtu))
	[ "$per_write" -gt 0 ] || per_write=1
	want=$((per_write * iters * qps))
	sent=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_A" tx_data_pkts)
	rtx=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_A" retransmits)
	rcvd=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_B" rx_data_pkts)
	dup=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_B" duplicates)
	log "    packets: want $want; $XFER_DEV_A sent $sent ($rtx retransmitted)," \
		"$XFER_DEV_B received $rcvd ($dup duplicates)"
	counters_changed "$name.0" "$name.1"
	assert_eq "$name: data packets sent once each (tx_data_pkts - retransmits)" \
		"$want" $((sent - rtx))
	assert_eq "$name: data packets received once each (rx_data_pkts - duplicates)" \
		"$want" $((rcvd - dup))
	if [ -n "${XFER_BURST:-}" ]; then
		log "    resent what the receiving host's backlog dropped:" \
			"rx_backlog_drops $(counter_delta "$name.0" "$name.1" "$XFER_DEV_B" rx_backlog_drops)"
		assert_eq "$name: no QP retried out (retry_exceeded)" 0 \
			"$(counter_delta "$name.0" "$name.1" "$XFER_DEV_A" retry_exceeded)"
		# What the burst condemns is probed within the device's
		# budget (design.rst, "EV probe budget"), whole seconds
		# rounded up.
		probes=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_A" ev_probes_sent)
		budget=$((sent / EV_PROBE_DATA_PER +
			EV_PROBE_FLOOR_PER_SEC * (SECONDS - t0 + 1) + EV_PROBE_BANK))
		log "    EV probes: $probes; the budget allowed $budget"
		[ "$probes" -le "$budget" ] ||
			fail "$name: $probes EV probes, over the device's budget of $budget"
		return 0
	fi
	[ "$rtx" -eq 0 ] ||
		fail "$name: retransmits on a lossless fabric:" \
			"$XFER_DEV_A $rtx," \
			"$XFER_DEV_B $(counter_delta "$name.0" "$name.1" "$XFER_DEV_B" retransmits)"
}

# case_burst NAME QPS SIZE ITERS [CLIENT_OPT...]: case_run for more QPs
# than the receiving host takes at once: 1,000 QPs post their first
# windows together, 16,000 packets against the backlog's 1,000
# (netdev_max_backlog), and the fixed window has no congestion control to
# pace them, so what the backlog drops (rx_backlog_drops) is resent.  Every
# byte is still verified, every PSN placed once, and no QP errs.
case_burst() {
	XFER_BURST=1 case_run "$@"
}

# case_caught NAME REASON [CLIENT_OPT...]: the run must fail, the server saying
# "RESULT fail reason=REASON ..." and the client failing too.
case_caught() {
	local name=$1 reason=$2
	shift 2
	if xfer_try "$name" "$BASE_SECS" "$@"; then
		xfer_show
		fail "$name: the injected fault went unnoticed"
	fi
	if [[ $XFER_SERVER_RESULT != "RESULT fail reason=$reason "* ]] ||
		[[ $XFER_CLIENT_RESULT != "RESULT fail "* ]]; then
		xfer_show
		fail "$name: want the server to fail with reason=$reason"
	fi
	log "ok $name: server ${XFER_SERVER_RESULT#RESULT }"
}

# with_server OPT... -- CMD...: CMD with mrc_xfer's server options OPT.
with_server() {
	XFER_SERVER_OPTS=()
	while [ "$1" != -- ]; do
		XFER_SERVER_OPTS+=("$1")
		shift
	done
	shift
	"$@"
	XFER_SERVER_OPTS=()
}

# First the checks catch injected faults; then sizes, one QP; PSNs
# wrapping past 2^24; four QPs; WRITE WITH IMMEDIATE; the ibv_wr_* API;
# large writes.
mrc_case inject_payload case_caught inject_payload mismatch --size 65537 --iters 4 --inject payload
mrc_case inject_imm case_caught inject_imm recv_cqe --size 100 --iters 4 --imm --inject imm
mrc_case inject_canary with_server --offset 3 --inject canary -- \
	case_caught inject_canary canary --size 4095 --iters 2
mrc_case size_0 case_run size_0 1 0 16
mrc_case size_1 case_run size_1 1 1 16
mrc_case size_4095_offset_1 with_server --offset 1 -- case_run size_4095_offset_1 1 4095 8
mrc_case size_4096 case_run size_4096 1 4096 8
mrc_case size_65537_offset_2000 with_server --offset 2000 -- \
	case_run size_65537_offset_2000 1 65537 8
mrc_case size_1m case_run size_1M 1 1M 4
mrc_case psn_wrap case_run psn_wrap 1 65537 4 --psn 0xffffc0
mrc_case qps4_size_4095 case_run qps4_size_4095 4 4095 8
mrc_case qps4_size_1m case_run qps4_size_1M 4 1M 2
mrc_case qps1000_size_4096 case_burst qps1000_size_4096 1000 4096 4
mrc_case imm_size_0 case_run imm_size_0 1 0 16 --imm --extra-recvs 2
mrc_case imm_size_1 case_run imm_size_1 1 1 16 --imm
mrc_case imm_size_65537 case_run imm_size_65537 1 65537 8 --imm --extra-recvs 3
mrc_case imm_qps4_size_4096 case_run imm_qps4_size_4096 4 4096 16 --imm --extra-recvs 1
mrc_case wr_api_imm_qps2 case_run wr_api_imm_qps2 2 65537 8 --wr-api --imm --extra-recvs 1
mrc_case size_16m case_run size_16M 1 16M 2
mrc_case size_64m case_run size_64M 1 64M 1
mrc_cases_args "$@"

mrc_test_init
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric hosts
mrc_cases_run
