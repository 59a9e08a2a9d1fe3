#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Congestion control at a bottleneck (Documentation/mrc/congestion.rst):
# senders h1..h4 write to the receiver hr through the router fw, whose
# link to hr is a bottleneck with a RED queue that marks ECN (scripts/fabric
# incast).  The bottleneck runs at 100 Mbit/s or at half the rate one
# sender reaches alone (measured first, through an unlimited link),
# whichever is less, so that the link, not the receiving host, is what
# the senders share; under a slower kernel (the debug kernel) the
# transfers shrink with the rate.  Each sender's device mrcS<I> binds its
# QPs to an NSCC CC profile; hr's mrcR runs one mrc_xfer server per
# sender, each checking every byte.  Cases, one behaviour each:
#
#   incast   4:1 at once: every byte verified; no retransmission timeout
#            on any sender, no resend; the queue marked ECN and never
#            reached its limit (RED pdrop); mrcR saw the marks; the senders
#            took multiplicative decreases, and their windows went below
#            max-cwnd (the tracepoint rdma_mrc:mrc_cc_window: every QP's
#            window changes, each within [MTU, max-cwnd])
#   share    two senders at once, open-ended transfers stopped after a
#            window that begins once both run: over it, their goodputs
#            (data packets sent less resends) have a Jain index of at least
#            0.9; mrcctl qp show names a sender QP's last window change
#            (cc-event); every write verified
#
# Every run is bounded (mrc_xfer --timeout, and the test kills it later).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

SENDERS=4
RATE_MBIT=100			# at most; see calibrate
UNLIMITED_MBIT=10000		# the link while calibrating
CALIB_ITERS=2
RECV_NS=hr
RECV_DEV=mrcR
RECV_IP=198.18.40.2
ROUTER_NS=fw
BOTTLENECK=eth0			# fw's link towards hr
SIZE=4M
ITERS=4
RUN_SECS=$((180 * TIME_SCALE))
TCP_PORT0=18600
CC_ID=1
MAX_CWND=65536
MTU=1024
# share: two long transfers; their goodputs compared over a window that
# begins once both run.
SHARE_SENDERS=2
SHARE_SIZE=4M
# Open-ended: the transfers stop (--stop-file) once the window is over,
# whatever the bottleneck's rate and the kernel's speed.
SHARE_ITERS=1000000
SHARE_WARMUP_SECS=$((2 * TIME_SCALE))
SHARE_WINDOW_SECS=$((4 * TIME_SCALE))
JAIN_MIN_PERMILLE=900
# NSCC for a 100 Mbit/s bottleneck in a TCG guest: base RTT about a
# millisecond, a target delay of a millisecond of queue (12.5 KB); RED
# marks from 30 KB (netlink.rst, "CC profiles", gives the units).
NSCC=(disable-qa 0 adjust-bytes-threshold 16384 adjust-period-threshold 2000000
	base-rtt 1000000 eta 1024 "fi" 4096 fi-scale 250000 gamma 800000
	max-md-jump 500000 max-cwnd "$MAX_CWND" qa-gate 3 qa-threshold 8000000
	target-delay 1000000)

sender_dev() { printf 'mrcS%s\n' "$1"; }
sender_ip() { printf '198.18.4%s.1\n' "$1"; }

# red_stat NAME: the bottleneck's RED statistic NAME (marked, early,
# pdrop, other).
red_stat() {
	ip netns exec "$ROUTER_NS" tc -s qdisc show dev "$BOTTLENECK" |
		awk -v k="$1" '
			$1 == "qdisc" { red = $2 == "red" }
			red { for (i = 1; i < NF; i++) if ($i == k) n += $(i + 1) }
			END { print n + 0 }'
}

# incast_start NAME I [SIZE ITERS [STOP_FILE]]: sender I's transfer to its
# own server on hr (with STOP_FILE: ended after the batch it appears in).
incast_start() {
	local name=$1 i=$2 size=${3:-$SIZE} iters=${4:-$ITERS} bin stop=()
	[ -z "${5:-}" ] || stop=(--stop-file "$5")
	bin=$(helper_path mrc_xfer)
	bg_start "$name$i.server" ip netns exec "$RECV_NS" "$bin" \
		-d "$RECV_DEV" -g "$RECV_GID" -p $((TCP_PORT0 + i)) \
		--timeout "$RUN_SECS"
	bg_start "$name$i.client" ip netns exec "h$i" "$bin" \
		-d "$(sender_dev "$i")" -g "${SENDER_GID[i]}" -p $((TCP_PORT0 + i)) \
		--timeout "$RUN_SECS" --size "$size" --iters "$iters" "${stop[@]}" \
		"$RECV_IP"
}

# incast_wait NAME I: sender I's transfer ended with RESULT ok on both ends.
incast_wait() {
	local name=$1 i=$2 end
	for end in client server; do
		if ! bg_wait "$name$i.$end" $((RUN_SECS + XFER_SLACK)); then
			bg_kill "$name$i.$end"
			log "    sender $i's $end still running: killed"
			return 1
		fi
		[[ $(result_of "$(bg_out "$name$i.$end")") == "RESULT ok "* ]] || {
			sed 's/^/      /' "$(bg_out "$name$i.$end")"
			return 1
		}
	done
}

bg_alive() { ! bg_done "$1"; }

# sender_has_qp I: sender I's device has a QP (its transfer began).
sender_has_qp() {
	bounded "$CMD_TIMEOUT" "$MRCCTL" -j qp show "$(sender_dev "$1")" || return 1
	jq -e 'length > 0' "$BOUNDED_OUT" >/dev/null
}

# qp_cc_event_seen I: sender I has a QP whose last window change (qp show
# cc-event) is one NSCC makes.
qp_cc_event_seen() {
	bounded "$CMD_TIMEOUT" "$MRCCTL" -j qp show "$(sender_dev "$1")" || return 1
	jq -e 'any(.[]; ."cc-event" as $e |
		["increase", "fast-increase", "decrease", "quick-adapt", "nack",
		 "timeout", "penalty"] | index($e))' "$BOUNDED_OUT" >/dev/null
}

# calibrate: sender 1 alone through the unlimited link; the bottleneck
# then runs at half its rate if that is below RATE_MBIT, and the
# transfers shrink in proportion.
calibrate() {
	local mbps mbit
	incast_start calib 1 "$SIZE" "$CALIB_ITERS"
	incast_wait calib 1 || fail "calibration: sender 1 alone failed"
	mbps=$(result_field "$(result_of "$(bg_out calib1.client)")" MBps) ||
		fail "calibration: no MBps in sender 1's RESULT"
	mbit=$(awk -v r="$mbps" 'BEGIN { m = int(r * 8 / 2); print m < 1 ? 1 : m }')
	log "    sender 1 alone: $mbps MB/s; the bottleneck: $((mbit < RATE_MBIT ? mbit : RATE_MBIT)) Mbit/s"
	if [ "$mbit" -lt "$RATE_MBIT" ]; then
		ITERS=$(((ITERS * mbit + RATE_MBIT - 1) / RATE_MBIT))
		RATE_MBIT=$mbit
	fi
	run "$FABRIC" bottleneck "$RATE_MBIT" --queue red
}

# counter_devs_of N [DEV...]: counters_snap takes senders 1..N and DEVs.
counter_devs_of() {
	local i n=$1
	shift
	XFER_COUNTER_DEVS=("$@")
	for ((i = 1; i <= n; i++)); do
		XFER_COUNTER_DEVS+=("$(sender_dev "$i")")
	done
}

senders_delta() {
	local i n=0
	for ((i = 1; i <= SENDERS; i++)); do
		n=$((n + $(counter_delta "$1.0" "$1.1" "$(sender_dev "$i")" "$2")))
	done
	echo "$n"
}

case_incast() {
	local i marked0 pdrop0 early0 marked pdrop early wfile=$MRC_TMP/windows
	case_what "$SENDERS:1 through $RATE_MBIT Mbit/s, RED with ECN"
	counter_devs_of "$SENDERS" "$RECV_DEV"
	counters_snap incast.0
	marked0=$(red_stat marked)
	pdrop0=$(red_stat pdrop)
	early0=$(red_stat early)
	cc_trace_on
	for ((i = 1; i <= SENDERS; i++)); do
		incast_start incast "$i"
	done
	for ((i = 1; i <= SENDERS; i++)); do
		if incast_wait incast "$i"; then
			ok "sender $i: $SIZE x $ITERS verified"
		else
			not_ok "sender $i: mrc_xfer failed"
		fi
	done
	cc_trace_off
	cc_trace_windows "$wfile"
	counters_snap incast.1
	marked=$(($(red_stat marked) - marked0))
	pdrop=$(($(red_stat pdrop) - pdrop0))
	early=$(($(red_stat early) - early0))
	log "    bottleneck: $marked marked, $early dropped early (not ECN-capable:" \
		"the TCP exchanges), $pdrop over the limit; $(wc -l <"$wfile") window" \
		"changes, by event:" \
		"$(cut -d' ' -f3 "$wfile" | sort | uniq -c | tr -s ' \n' ' ')"
	log "    smallest windows: $(cut -d' ' -f2 "$wfile" | sort -n | uniq | head -n 5 | tr '\n' ' ')"
	counters_show incast.0 incast.1 tx_data_pkts rx_data_pkts retransmits \
		timeouts ecn_marked sacks_sent cc_increases cc_decreases \
		cc_quick_adapts cc_penalties cc_penalties_sent rx_backlog_drops
	expect_eq "no retransmission timeout" 0 "$(senders_delta incast timeouts)"
	expect_num "the bottleneck marked ECN" "$marked" -gt 0
	expect_eq "the queue never reached its limit (RED pdrop)" 0 "$pdrop"
	expect_eq "no data packet lost (retransmits)" 0 \
		"$(senders_delta incast retransmits)"
	expect_num "$RECV_DEV saw the marks" \
		"$(counter_delta incast.0 incast.1 "$RECV_DEV" ecn_marked)" -gt 0
	expect_num "the senders decreased their windows" \
		"$(senders_delta incast cc_decreases)" -gt 0
	expect_num "windows went below max-cwnd on a decrease" \
		"$(awk -v hi="$MAX_CWND" '$2 < hi && $3 == "decrease"' "$wfile" | wc -l)" -gt 0
	expect_eq "window changes outside [MTU, max-cwnd]" 0 \
		"$(awk -v lo="$MTU" -v hi="$MAX_CWND" '$2 < lo || $2 > hi' "$wfile" | wc -l)"
}

# goodput_pkts TAG DEV: data packets DEV sent between snapshots TAG.0 and
# TAG.1, less its resends.
goodput_pkts() {
	echo $(($(counter_delta "$1.0" "$1.1" "$2" tx_data_pkts) -
		$(counter_delta "$1.0" "$1.1" "$2" retransmits)))
}

case_share() {
	local i x sum=0 sq=0 jain
	case_what "$SHARE_SENDERS senders share $RATE_MBIT Mbit/s"
	for ((i = 1; i <= SHARE_SENDERS; i++)); do
		incast_start share "$i" "$SHARE_SIZE" "$SHARE_ITERS" \
			"$MRC_TMP/share.stop"
	done
	# Only the senders' counters: each snapshot is over sooner.
	counter_devs_of "$SHARE_SENDERS"
	# The warm-up counts from when both send (a slow kernel starts them
	# seconds apart, and the first would have the link to itself).
	for ((i = 1; i <= SHARE_SENDERS; i++)); do
		check "sender $i has its QP" wait_for "$WAIT_TIMEOUT" sender_has_qp "$i"
	done
	sleep "$SHARE_WARMUP_SECS"
	counters_snap share.0
	sleep "$SHARE_WINDOW_SECS"
	counters_snap share.1
	for ((i = 1; i <= SHARE_SENDERS; i++)); do
		check "sender $i still sending at the window's end" bg_alive "share$i.client"
	done
	# Asked while the QPs live (incast's are over in seconds).
	check "mrcctl qp show names a sender's last window change" \
		wait_for "$WAIT_TIMEOUT" qp_cc_event_seen 1
	touch "$MRC_TMP/share.stop"
	for ((i = 1; i <= SHARE_SENDERS; i++)); do
		if incast_wait share "$i"; then
			ok "sender $i: $SHARE_SIZE writes verified until stopped"
		else
			not_ok "sender $i: mrc_xfer failed"
		fi
	done
	counters_show share.0 share.1 tx_data_pkts retransmits timeouts \
		cc_decreases cc_increases
	for ((i = 1; i <= SHARE_SENDERS; i++)); do
		x=$(goodput_pkts share "$(sender_dev "$i")")
		sum=$((sum + x))
		sq=$((sq + x * x))
	done
	# Jain = sum^2 / (n sum of squares), in thousandths.
	jain=$((sq ? sum * sum * 1000 / (SHARE_SENDERS * sq) : 0))
	expect_num "Jain index over ${SHARE_WINDOW_SECS}s: 0.$(printf '%03d' "$jain") >= 0.$JAIN_MIN_PERMILLE" \
		"$jain" -ge "$JAIN_MIN_PERMILLE"
}

mrc_case incast case_incast
mrc_case share case_share
mrc_cases_args "$@"

mrc_test_init
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"
command -v jq >/dev/null || fail "jq is not installed"
helper_path mrc_xfer >/dev/null
mrc_load "${XFER_LOSSLESS_PARAMS[@]}"
run "$FABRIC" incast "$SENDERS" --rate "$UNLIMITED_MBIT" --queue red
cleanup_push "$FABRIC" clean
declare -a SENDER_GID=()
xfer_dev_up "$RECV_DEV" "$RECV_NS" "$RECV_IP"
RECV_GID=$(gid_index_of "$RECV_DEV" "$RECV_IP") ||
	fail "no RoCE v2 GID of $RECV_IP on $RECV_DEV"
for ((i = 1; i <= SENDERS; i++)); do
	dev=$(sender_dev "$i")
	xfer_dev_up "$dev" "h$i" "$(sender_ip "$i")"
	SENDER_GID[i]=$(gid_index_of "$dev" "$(sender_ip "$i")") ||
		fail "no RoCE v2 GID of $(sender_ip "$i") on $dev"
	run "$MRCCTL" cc set "$dev" id "$CC_ID" state offline algorithm uet-1.0-nscc
	run "$MRCCTL" cc set "$dev" id "$CC_ID" "${NSCC[@]}"
	run "$MRCCTL" cc set "$dev" id "$CC_ID" state online
	run "$MRCCTL" dev set "$dev" default-cc-profile "$CC_ID"
done
calibrate
mrc_cases_run
