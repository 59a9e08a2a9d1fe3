#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "bad input" corpus.  Packets crafted byte by byte by crafted_pkt.py
# (from Documentation/mrc/wire-format.rst, ICRC included) are sent from a
# raw socket in host h1 to an RC QP of mrc_target on an mrc device in host
# h2 (scripts/fabric hosts 2).  The QP is connected to h1's address, so
# the packets pass the driver's source check unless a case spoofs it.
#
# Each case asserts the exact change of every counter of `rdma statistic
# show link DEV/1` (read through the same hw_counters in sysfs, checked
# against the rdma tool at the start and the end): the counters the case
# must move and no other.  Every packet reaches the driver, so rx_pkts
# moves by their number; rx_bytes and tx_bytes must move by the UDP or the
# IP lengths of what was received and sent.  Most cases end with a fence:
# a PROBE whose SACK (PR=1, the probe's id) proves that every reply the
# case caused has arrived (the fabric is FIFO), so the replies before it
# must be exactly the expected ones, and the SACK's cack_psn says which
# PSNs were consumed.  Every reply's ICRC, UDP checksum, DSCP, P_Key and
# DestQP are checked.  No counter may move between cases.
#
# Each group of cases has a fresh target; cases that leave its QP in error
# come last.  At the end of each group the target checks that the canary
# pages around its MR are intact and the MR holds exactly what the
# accepted packets wrote (CRC-32 against crafted_pkt.py's model).  At the
# end, no kernel warning since the test began.  A failing case ends its
# group and fails the test; the other groups still run.
#
# crafted_pkt.py runs once, as a server in h1 (a TCG guest takes seconds
# to start Python), and the per-case path starts no process: that is what
# keeps a hundred cases within minutes.
#
# Runs as root in a test guest, after `make -C <repo> install`.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/pkt_lib.sh
. "$SELF_DIR/pkt_lib.sh"

FABRIC=$MRC_REPO/scripts/fabric
PKT_TOOL=$SELF_DIR/crafted_pkt.py
PYTHON=/usr/bin/python3
DEV=mrcc
HOST_NETDEV=eth0
TGT_NS=h2
SRC_NS=h1
TGT_IP=198.18.0.2
SRC_IP=198.18.0.1
STRANGER_IP=198.18.0.99	# on the subnet, nobody's address
TGT_IP2=198.18.0.3	# a second address of the target's host (group_peer)
TGT_BCAST=198.18.0.255	# the subnet's broadcast address
PEER_QPN=0x0000c1	# the QPN the target is connected to (nobody's)
MR_PAGES=4
TARGET_TIMEOUT=900	# mrc_target's own bound
PKT_TIMEOUT=20		# crafted_pkt.py's wait for replies
MPR_UNIT=128		# PSNs per mpr_units
PSN_HALF=$((1 << 23))
MSN_AHEAD_MAX=4096	# the responder's MSN window (MRC_MPR_MAX_PSNS)
HWC=/sys/class/infiniband/$DEV/ports/$MRC_PORT/hw_counters
# What in the kernel log fails the test (as run_tests.sh).
KERNEL_BAD='BUG|Oops|WARNING|refcount|general protection|KASAN|UBSAN|'
KERNEL_BAD+='Call Trace|blocked for more than|circular locking|'
KERNEL_BAD+='list_(add|del) corruption|kernel BUG|stack-protector|'
KERNEL_BAD+='soft lockup|hard LOCKUP|RCU stall'
KMSG_MARK="crafted_test: begin $$ $RANDOM"

# --- counters -------------------------------------------------------------

declare -A CNT=()	# as last read
declare -A MODEL=()	# what they must be now
declare -A WANT=()	# what they must become in the running case
WANT_RX_BYTES=()	# allowed deltas of rx_bytes (UDP or IP lengths)
WANT_TX_BYTES=()

counters_read() {
	local f v
	CNT=()
	for f in "$HWC"/*; do
		[ "${f##*/}" = lifespan ] && continue
		read -r v <"$f" || return 1
		CNT[${f##*/}]=$v
	done
	[ ${#CNT[@]} -gt 0 ]
}

model_sync() {
	local k
	counters_read || fail "cannot read $HWC"
	MODEL=()
	for k in "${!CNT[@]}"; do
		MODEL[$k]=${CNT[$k]}
	done
}

# What changed from MODEL to CNT, one "name: old -> new" per counter.
counters_diff() {
	local k
	for k in $(printf '%s\n' "${!CNT[@]}" | sort); do
		[ "${CNT[$k]}" = "${MODEL[$k]:-}" ] ||
			log "    $k: ${MODEL[$k]:-?} -> ${CNT[$k]} (+$((CNT[$k] - ${MODEL[$k]:-0})))"
	done
}

counters_unchanged() {
	local k
	counters_read || return 1
	for k in "${!MODEL[@]}"; do
		[ "${CNT[$k]}" = "${MODEL[$k]}" ] || return 1
	done
}

# delta_in DELTA ALLOWED...
delta_in() {
	local d=$1 a
	shift
	for a in "$@"; do
		[ "$d" = "$a" ] && return 0
	done
	return 1
}

counters_match() {
	local k
	counters_read || return 1
	for k in "${!MODEL[@]}"; do
		case $k in
		rx_bytes)
			delta_in $((CNT[$k] - MODEL[$k])) "${WANT_RX_BYTES[@]}" ||
				return 1
			;;
		tx_bytes)
			delta_in $((CNT[$k] - MODEL[$k])) "${WANT_TX_BYTES[@]}" ||
				return 1
			;;
		*) [ "${CNT[$k]}" = "${WANT[$k]}" ] || return 1 ;;
		esac
	done
}

counters_explain() {
	local k
	for k in $(printf '%s\n' "${!MODEL[@]}" | sort); do
		case $k in
		rx_bytes)
			delta_in $((CNT[$k] - MODEL[$k])) "${WANT_RX_BYTES[@]}" ||
				log "    $k: +$((CNT[$k] - MODEL[$k])), expected +${WANT_RX_BYTES[*]} (UDP or IP lengths)"
			;;
		tx_bytes)
			delta_in $((CNT[$k] - MODEL[$k])) "${WANT_TX_BYTES[@]}" ||
				log "    $k: +$((CNT[$k] - MODEL[$k])), expected +${WANT_TX_BYTES[*]} (UDP or IP lengths)"
			;;
		*)
			[ "${CNT[$k]}" = "${WANT[$k]}" ] ||
				log "    $k: +$((CNT[$k] - MODEL[$k])), expected +$((WANT[$k] - MODEL[$k]))"
			;;
		esac
	done
}

# The rdma tool must show what sysfs shows (the same hw_stats).
counters_vs_rdma_tool() {
	local -a words
	local i name
	counters_read || fail "cannot read $HWC"
	run rdma statistic show link "$DEV/$MRC_PORT"
	read -r -a words <"$BOUNDED_OUT"
	[ "${words[0]:-}" = link ] || fail "rdma statistic: $(cat "$BOUNDED_OUT")"
	for ((i = 2; i + 1 < ${#words[@]}; i += 2)); do
		name=${words[i]}
		[ "${CNT[$name]:-}" = "${words[i + 1]}" ] ||
			fail "rdma statistic says $name ${words[i + 1]}, sysfs ${CNT[$name]:-none}"
	done
}

# --- the target -----------------------------------------------------------

TGT_SEQ=0
TGT_NAME=
TGT_FD=
TGT_OUT=
TGT_INFO=
TGT_TAG=0
TGT_WANT=
TGT_LINE=
declare -A TGT=()

# target_start [mrc_target options]: a fresh target; its KEY=VALUE lines
# into TGT[] and the file TGT_INFO.
target_start() {
	local fifo line
	TGT_SEQ=$((TGT_SEQ + 1))
	# Named by the case subshell too: they all count from the same SEQ.
	TGT_NAME=target.$BASHPID.$TGT_SEQ
	fifo=$MRC_TMP/$TGT_NAME.in
	mkfifo "$fifo"
	exec {TGT_FD}<>"$fifo"
	bg_start "$TGT_NAME" target_exec "$fifo" \
		ip netns exec "$TGT_NS" env MRC_DEV="$DEV" MRC_IPV4="$TGT_IP" \
		"$TARGET_BIN" --peer-ip "$SRC_IP" --peer-qpn "$PEER_QPN" \
		--pages "$MR_PAGES" --timeout "$TARGET_TIMEOUT" "$@"
	TGT_OUT=$(bg_out "$TGT_NAME")
	wait_until "mrc_target READY" "$WAIT_TIMEOUT" target_ready "$TGT_NAME"
	TGT_INFO=$MRC_TMP/$TGT_NAME.info
	TGT=()
	: >"$TGT_INFO"
	while IFS= read -r line; do
		[ "$line" = READY ] && break
		[[ $line == [A-Z]*=* ]] || continue
		TGT[${line%%=*}]=${line#*=}
		printf '%s\n' "$line" >>"$TGT_INFO"
	done <"$TGT_OUT"
	printf '%s\n' "${MODULE_INFO[@]}" >>"$TGT_INFO"
	log "target: QPN ${TGT[QPN]} RQ_PSN ${TGT[RQ_PSN]} RKEY ${TGT[RKEY]} MR ${TGT[ADDR]} +${TGT[LEN]}"
}

target_answered() {
	local line
	while IFS= read -r line; do
		case $line in
		"$TGT_WANT" | "$TGT_WANT "*)
			TGT_LINE=$line
			return 0
			;;
		esac
	done <"$TGT_OUT"
	if bg_done "$TGT_NAME"; then
		sed 's/^/    /' "$TGT_OUT"
		fail "mrc_target exited (status $(bg_rc "$TGT_NAME"))"
	fi
	return 1
}

# target_cmd CMD [ARG...]: its answer line into TGT_LINE.
target_cmd() {
	local cmd=$1 tag
	shift
	TGT_TAG=$((TGT_TAG + 1))
	tag=c$TGT_TAG
	printf '%s %s %s\n' "$cmd" "$tag" "$*" >&"$TGT_FD"
	TGT_WANT="${cmd^^} $tag"
	wait_until "mrc_target answers '$cmd'" "$WAIT_TIMEOUT" target_answered
}

# kv_parse LINE: its KEY=VALUE words into KV[].
declare -A KV=()
kv_parse() {
	local word
	KV=()
	for word in $1; do
		case $word in
		*=*) KV[${word%%=*}]=${word#*=} ;;
		esac
	done
}


# target_stop: quit; 0 if it exited 0 with its canaries intact.
target_stop() {
	local rc
	printf 'quit\n' >&"$TGT_FD"
	if ! bg_wait "$TGT_NAME" "$WAIT_TIMEOUT"; then
		log "FAIL: mrc_target did not quit"
		bg_kill "$TGT_NAME"
		exec {TGT_FD}>&-
		return 1
	fi
	exec {TGT_FD}>&-
	rc=$(bg_rc "$TGT_NAME")
	if [ "$rc" != 0 ] || ! grep -q '^BYE canaries=ok ' "$TGT_OUT"; then
		sed 's/^/    /' "$TGT_OUT" | tail -n 5
		log "FAIL: mrc_target exit status $rc, canaries: $(grep '^BYE' "$TGT_OUT")"
		return 1
	fi
	return 0
}

# --- crafted_pkt.py, one process for the whole test (pkt_lib.sh) ----------

PKT_NS=$SRC_NS

# --- what the target holds ------------------------------------------------

MR_WRITES=()	# OFF:LEN:SEED of every payload that must have landed

# expect_mr [--maybe OFF:LEN:SEED]...: canaries intact, the MR as modelled.
expect_mr() {
	local hash want w line
	local -a args=(model --len "${TGT[LEN]}")
	for w in "${MR_WRITES[@]}"; do
		args+=(--write "$w")
	done
	pkt "${args[@]}" "$@"
	[ "$PKT_RC" = 0 ] || fail "crafted_pkt.py model: $(cat "$PKT_OUT")"
	want=
	while IFS= read -r line; do
		case $line in
		HASHES=*) want=${line#HASHES=} ;;
		HASH=*) [ $# -gt 0 ] || want=${line#HASH=} ;;
		esac
	done <"$PKT_OUT"
	target_cmd check
	kv_parse "$TGT_LINE"
	[ "${KV[canaries]:-}" = ok ] ||
		fail "canary pages around the MR written: $TGT_LINE"
	hash=${KV[hash]:-}
	[[ ,$want, == *,$hash,* ]] ||
		fail "MR content: hash $hash, expected ${want//,/ or } (writes: ${MR_WRITES[*]:-none} $*)"
	log "ok: canaries intact, MR holds what was written (${#MR_WRITES[@]} writes)"
}

expect_state() {
	target_cmd state
	[ "$TGT_LINE" = "STATE c$TGT_TAG $1" ] ||
		fail "QP state: '$TGT_LINE', expected $1"
	log "ok: QP state $1"
}

# expect_cqes N [CQE...]: the CQ holds exactly these now.
expect_cqes() {
	local n=$1 i=0 cqe
	shift
	target_cmd cqes
	kv_parse "$TGT_LINE"
	[ "${KV[n]:-}" = "$n" ] ||
		fail "CQ: '$TGT_LINE', expected $n completions"
	for cqe in "$@"; do
		# shellcheck disable=SC2053 # CQE is a glob pattern
		[[ "${KV[cqe$i]:-}" == $cqe ]] ||
			fail "CQ: cqe$i '${KV[cqe$i]:-}', expected '$cqe'"
		i=$((i + 1))
	done
	log "ok: $n completions${1:+ ($1${2:+, ...})}"
}

# expect_flushed: every receive was flushed (the QP went to error).
expect_flushed() {
	local i
	local -a all=()
	for ((i = 0; i < TGT[RECVS]; i++)); do
		all+=("WR_FLUSH_ERR,*")
	done
	expect_cqes "${TGT[RECVS]}" "${all[@]}"
}

# has_event NAME...: one of these async events has come.
has_event() {
	local name
	target_cmd events
	for name in "$@"; do
		[[ " $TGT_LINE " == *"=$name "* ]] && return 0
	done
	return 1
}

# A QP that went to error tells its owner: which of the QP error events
# is the driver's choice.
expect_error_event() {
	wait_until "an async QP error event" "$WAIT_TIMEOUT" \
		has_event QP_FATAL QP_ACCESS_ERR QP_REQ_ERR
	log "ok: async event (${TGT_LINE#EVENTS c* })"
}

# --- a case ---------------------------------------------------------------

# crafted NAME DELTAS [--nofence] [--expect SPEC]... [--cack PSN] PKT...
#
# DELTAS: "counter=N ..." the case adds to the counters, besides rx_pkts
# (+1 per packet), tx_pkts (+1 per expected reply) and the fence's
# probes_rcvd, sacks_sent; every other counter must stay.  --expect and
# PKT: see crafted_pkt.py; --cack: the fence's cack_psn.
crafted() {
	local name=$1 deltas=$2 fence=1 cack='' d k out
	local -a expects=() pkts=() args=()
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--nofence) fence=0 ;;
		--expect)
			expects+=(--expect "$2")
			shift
			;;
		--cack)
			cack=$2
			shift
			;;
		*) pkts+=("$1") ;;
		esac
		shift
	done

	counters_unchanged || {
		counters_diff
		fail "$name: counters moved since the last case"
	}
	args=(send --info "$TGT_INFO" --src "$SRC_IP" --dst "$TGT_IP"
		--timeout "$PKT_TIMEOUT")
	[ "$fence" = 1 ] && args+=(--fence)
	[ -n "$cack" ] && args+=(--fence-cack "$cack")
	args+=("${expects[@]}" "${pkts[@]}")
	pkt "${args[@]}"
	out=$PKT_OUT
	if [ "$PKT_RC" -ne 0 ]; then
		grep -v '^PKT ' "$out" | sed 's/^/    /'
		grep '^PKT ' "$out" | cut -c1-300 | sed 's/^/    /'
		fail "$name: $(grep '^RESULT' "$out" || echo "crafted_pkt.py exit $PKT_RC")"
	fi

	# Builtins only: every process started costs most of a second in a
	# TCG guest.
	local line sent_n='' sent_udp='' sent_ip='' f_udp=0 f_ip=0 r_udp=''
	local r_ip='' kinds='' kind
	while IFS= read -r line; do
		kv_parse "$line"
		case $line in
		"SENT "*)
			sent_n=${KV[n]:-} sent_udp=${KV[udp_bytes]:-}
			sent_ip=${KV[ip_bytes]:-}
			;;
		"FENCE_SENT "*) f_udp=${KV[udp_len]:-} f_ip=${KV[ip_len]:-} ;;
		"REPLIES "*) r_udp=${KV[udp_bytes]:-} r_ip=${KV[ip_bytes]:-} ;;
		"REPLY "*)
			read -r _ _ kind _ <<<"$line"
			kinds+="${kinds:+ }$kind"
			;;
		esac
	done <"$out"
	if [ -z "$sent_n" ] || [ -z "$r_udp" ] || [ -z "$f_udp" ]; then
		fail "$name: cannot parse crafted_pkt.py's output"
	fi

	WANT=()
	for k in "${!MODEL[@]}"; do
		WANT[$k]=${MODEL[$k]}
	done
	WANT[rx_pkts]=$((WANT[rx_pkts] + sent_n + fence))
	WANT[tx_pkts]=$((WANT[tx_pkts] + ${#expects[@]} / 2 + fence))
	WANT[probes_rcvd]=$((WANT[probes_rcvd] + fence))
	WANT[sacks_sent]=$((WANT[sacks_sent] + fence))
	for d in $deltas; do
		k=${d%%=*}
		[ -n "${WANT[$k]+set}" ] || fail "$name: no counter '$k'"
		WANT[$k]=$((WANT[$k] + ${d#*=}))
	done
	WANT_RX_BYTES=($((sent_udp + f_udp)) $((sent_ip + f_ip)))
	WANT_TX_BYTES=("$r_udp" "$r_ip")

	if ! wait_for "$WAIT_TIMEOUT" counters_match; then
		grep -v '^PKT ' "$out" | sed 's/^/    /'
		log "  counters that differ:"
		counters_explain
		fail "$name: counters"
	fi
	for k in "${!CNT[@]}"; do
		MODEL[$k]=${CNT[$k]}
	done
	log "ok: $name [$kinds]"
}

# --- groups ---------------------------------------------------------------

# WRITE packets that must be accepted (this checks the ICRC, too).
group_valid() {
	crafted "WRITE Only: placed, ACKed" "rx_data_pkts=1 acks_sent=1" \
		--expect ack:syn=0x1f:msn=1:psn=@0 --cack @0 \
		"psn=@0 msn=1 va=@128 len=64 seed=1"
	MR_WRITES+=(128:64:1)
	expect_mr
	crafted "WRITE Only with Immediate, TSETH, 5 bytes + 3 pad" \
		"rx_data_pkts=1 acks_sent=1" \
		--expect ack:syn=0x1f:msn=2:psn=@1 --cack @1 \
		"op=0xcb tsh=1 psn=@1 msn=2 rqmsn=1 va=@1001 len=5 seed=2 imm=0xcafef00d"
	MR_WRITES+=(1001:5:2)
	expect_cqes 1 "SUCCESS,RECV_RDMA_WITH_IMM,len=5,imm=0xcafef00d,*"
	crafted "WRITE First, Middle, Last: one ACK" \
		"rx_data_pkts=3 acks_sent=1" \
		--expect ack:syn=0x1f:msn=3:psn=@4 --cack @4 \
		"op=0xc6 psn=@2 msn=3 va=@2048 len=256 dmalen=612 seed=3" \
		"op=0xc7 psn=@3 msn=3 va=@2304 len=256 dmalen=612 seed=4" \
		"op=0xc8 psn=@4 msn=3 va=@2560 len=100 dmalen=612 seed=5"
	MR_WRITES+=(2048:256:3 2304:256:4 2560:100:5)
	crafted "TOS, TTL and BTH byte 4 changed after the ICRC (masked)" \
		"rx_data_pkts=1 acks_sent=1" \
		--expect ack:syn=0x1f:msn=4:psn=@5 --cack @5 \
		"psn=@5 msn=4 va=@4096 len=32 seed=6 x_tos=0x20 x_ttl=7 x_byte4=0x5a"
	MR_WRITES+=(4096:32:6)
	crafted "CE set after the ICRC (masked): SACK M=SKIP_ONCE with its EV" \
		"rx_data_pkts=1 acks_sent=1 sacks_sent=1 ecn_marked=1" \
		--expect sack:m=1:pr=0:ev=0xc0a50000:cack=@6:ackoff=0 \
		--expect ack:syn=0x1f:msn=5:psn=@6 --cack @6 \
		"psn=@6 msn=5 va=@8000 len=16 seed=7 sport=0xc0a5 x_tos=0x03"
	MR_WRITES+=(8000:16:7)
	# Reassembled from IP fragments, the packet reaches the driver with
	# its payload in fragments of the skb, not in its head.
	crafted "WRITE Only of 1000 bytes in 4 IP fragments (a non-linear packet): placed" \
		"rx_data_pkts=1 acks_sent=1" \
		--expect ack:syn=0x1f:msn=6:psn=@7 --cack @7 \
		"psn=@7 msn=6 va=@9000 len=1000 seed=8 df=0 frag=256"
	MR_WRITES+=(9000:1000:8)
	expect_mr
	expect_cqes 0
	expect_state RTS
	# The canary check can fail: one byte after the MR, then put back.
	target_cmd poke "${TGT[LEN]}" 0x00
	kv_parse "$TGT_LINE"
	local old=${KV[old]:-}
	[ -n "$old" ] || fail "poke: $TGT_LINE"
	target_cmd check
	[[ $TGT_LINE == *" canaries=bad first_bad=${TGT[LEN]} "* ]] ||
		fail "a poked canary byte not detected: $TGT_LINE"
	target_cmd poke "${TGT[LEN]}" "0x$old"
	target_cmd check
	[[ $TGT_LINE == *" canaries=ok "* ]] || fail "canary not restored: $TGT_LINE"
	log "ok: a changed canary byte is detected"
}

# The packet group_dropped's variants change.
DROPPED_BASE="op=0xcb tsh=1 psn=@0 msn=1 rqmsn=1 va=@0 len=16 seed=9"

# Cut or truncated packets: too short for their headers, or for the ICRC.
dropped_length() {
	local base=$DROPPED_BASE c n what
	# BTH 0-11, METH 12-15, TSETH 16-19, RETH 20-35, ImmDt 36-39,
	# payload 40-55, ICRC 56-59.
	# Cut without a new ICRC: shorter than UDP + BTH + ICRC is "short";
	# longer, the last four bytes are not the ICRC of the rest.
	for c in "0:UDP header only" "6:mid-BTH" "12:BTH, no ICRC" \
		"15:BTH + 3 bytes"; do
		n=${c%%:*} what=${c#*:}
		crafted "cut to $n bytes ($what): short" "drop_short=1" \
			--cack @-1 "$base cut=$n"
	done
	for c in "16:after METH" "18:mid-TSETH" "20:after TSETH" \
		"28:mid-RETH" "36:after RETH" "38:mid-ImmDt" "40:after ImmDt" \
		"48:mid-payload" "56:no ICRC" "59:ICRC cut by a byte"; do
		n=${c%%:*} what=${c#*:}
		crafted "cut to $n bytes ($what): bad ICRC" "drop_bad_icrc=1" \
			--cack @-1 "$base cut=$n"
	done
	# Truncated with a fresh ICRC: the ICRC fits, the headers do not.
	for c in "0:ICRC only" "6:mid-BTH" "11:BTH - 1"; do
		n=${c%%:*} what=${c#*:}
		crafted "$n bytes + ICRC ($what): short" "drop_short=1" \
			--cack @-1 "$base trunc=$n"
	done
	for c in "12:BTH only" "14:mid-METH" "16:after METH, tsh set" \
		"18:mid-TSETH" "20:after TSETH" "28:mid-RETH" \
		"36:after RETH, no ImmDt" "38:mid-ImmDt"; do
		n=${c%%:*} what=${c#*:}
		crafted "$n bytes + ICRC ($what): bad header" "drop_bad_header=1" \
			--cack @-1 "$base trunc=$n"
	done
	crafted "PadCnt 3 with no payload: bad header" "drop_bad_header=1" \
		--cack @-1 "psn=@0 msn=1 len=0 dmalen=0 pad=3"
}

# A bit changed after the ICRC was computed: what the ICRC covers.
dropped_icrc() {
	local c
	for c in "icrcxor=0x1:ICRC bit 0" "icrcxor=0x80000000:ICRC bit 31" \
		"flip=50:0x01:a payload bit" "flip=8:0x40:BTH R bit" \
		"flip=8:0x01:BTH byte 8 reserved bit" "flip=1:0x80:BTH SE bit" \
		"flip=2:0x01:P_Key" "flip=0:0x01:opcode" \
		"x_ipidxor=0x4242:the IP ID" "x_sport=0xc999:the UDP source port"; do
		crafted "${c##*:} changed after the ICRC: bad ICRC" \
			"drop_bad_icrc=1" --cack @-1 "$DROPPED_BASE ${c%:*}"
	done
}

# Opcodes outside the defined MRC ones and outside the RC space.
dropped_opcode() {
	local -a ops=()
	local n
	for n in 0xc0 0xc1 0xc2 0xc3 0xc4 0xc5 0xcc 0xcd 0xce 0xcf 0xd0 \
		0xd2 0xd3 0xd4 0xd5 0xd6 0xd7 0xda 0xdb 0xdf; do
		ops+=("$DROPPED_BASE op=$n")
	done
	crafted "the ${#ops[@]} undefined MRC opcodes: bad opcode" \
		"drop_bad_opcode=${#ops[@]}" --cack @-1 "${ops[@]}"
	ops=()
	for n in 0x20 0x2a 0x40 0x64 0x81 0xa0 0xe0 0xff; do
		ops+=("$DROPPED_BASE op=$n")
	done
	crafted "${#ops[@]} opcodes of neither space: bad opcode" \
		"drop_bad_opcode=${#ops[@]}" --cack @-1 "${ops[@]}"
}

# No such QP, or not from the peer the QP is connected to.
dropped_addressing() {
	local base=$DROPPED_BASE n
	for n in @1 0 1 2 0xffffff; do
		crafted "DestQP $n: bad QPN" "drop_bad_qpn=1" --cack @-1 \
			"$base qpn=$n"
	done
	crafted "RC opcode to DestQP @1: bad QPN" "drop_bad_qpn=1" --cack @-1 \
		"op=0x0a qpn=@1 psn=@0 va=@0 len=16"

	crafted "WRITE from $STRANGER_IP: bad source" "drop_bad_source=1" \
		--cack @-1 "$base src=$STRANGER_IP"
	crafted "RC opcode from $STRANGER_IP: bad source" "drop_bad_source=1" \
		--cack @-1 "op=0x0a psn=@0 va=@0 len=16 src=$STRANGER_IP"
	crafted "PROBE from $STRANGER_IP: bad source, no SACK" \
		"drop_bad_source=1" --cack @-1 \
		"op=0xde psn=0x77 probeid=0x77 src=$STRANGER_IP"
}

# Control packets shorter than their header (probe: responder; SACK,
# NACK, ACK: the requester's completer).
dropped_short_control() {
	crafted "PROBE without its full PETH: bad header" "drop_bad_header=1" \
		--cack @-1 "op=0xde psn=0x78 probeid=0x78 trunc=27"
	crafted "SACK without its CC_STATE: bad header" "drop_bad_header=1" \
		--cack @-1 "op=0xdc trunc=40"
	crafted "NACK without its full NETH: bad header" "drop_bad_header=1" \
		--cack @-1 "op=0xdd trunc=31"
	crafted "ACK without its AETH: bad header" "drop_bad_header=1" \
		--cack @-1 "op=0xd1 trunc=12"
}

# Dropped before any QP state changes: nothing placed, no PSN consumed.
group_dropped() {
	dropped_length
	dropped_icrc
	dropped_opcode
	dropped_addressing
	dropped_short_control

	expect_mr
	expect_cqes 0
	expect_state RTS
}

# Control packets for the requester, which has nothing in flight: each
# names a PSN, probe id or MSN the QP never sent, so none may change
# anything (the window, an EV, the QP's state): dropped and counted.
group_stray() {
	crafted "stray SACK (PR, full bitmap, mpr 255): names nothing sent" \
		"drop_unmatched_ack=1" --cack @-1 \
		"op=0xdc psn=@100 cack=@100 bitmap=0xffffffffffffffff mpr=255 sflags=0x2 ackoff=7"
	crafted "stray SACK (M=ALWAYS_SKIP): names nothing sent" \
		"drop_unmatched_ack=1" --cack @-1 \
		"op=0xdc psn=@100 cack=@100 sflags=0x40 ev=0xc1230000"
	crafted "stray ACK: for a message never sent" "drop_unmatched_ack=1" \
		--cack @-1 "op=0xd1 syn=0x1f amsn=5"
	crafted "stray NAK: for a message never sent" "drop_unmatched_ack=1" \
		--cack @-1 "op=0xd1 syn=0x62 amsn=5"
	crafted "stray NACK PSN_OOR_WINDOW: for a PSN never sent" \
		"drop_unmatched_ack=1" --cack @-1 "op=0xdd reason=0x0b psn=@7"
	crafted "stray NACK TRIMMED: for a PSN never sent" \
		"drop_unmatched_ack=1" --cack @-1 "op=0xdd reason=0x01 psn=@7"
	crafted "stray NACK with an unknown reason" "drop_unmatched_ack=1" \
		--cack @-1 "op=0xdd reason=0x55 psn=@7"
	crafted "stray NACK UNEXP_EVENT: for a PSN never sent, the QP runs on" \
		"drop_unmatched_ack=1" --cack @-1 "op=0xdd reason=0x19 psn=@7"
	expect_state RTS
	expect_cqes 0
	# An RC opcode in the window errors the QP (group_rc); then nothing
	# is taken.
	crafted "RC RDMA WRITE Only in the window: QP to error" \
		"nacks_sent=1 nack_unexp_event=1" --nofence \
		--expect nack:reason=0x19:nackpsn=@0 \
		"op=0x0a psn=@0 va=@0 len=16 seed=71"
	expect_state ERR
	expect_error_event
	expect_flushed
	crafted "ACK to a QP in error: bad state" "drop_bad_state=1" --nofence \
		"op=0xd1 amsn=1"
	crafted "WRITE to a QP in error: bad state, not placed" \
		"drop_bad_state=1" --nofence "psn=@0 msn=1 va=@0 len=64 seed=2"
	expect_mr
}

# The receive window and duplicates, across the PSN wrap (rq_psn 0xfffffe).
group_sequence() {
	local mpr=$MPR
	crafted "in order: accepted" "rx_data_pkts=1 acks_sent=1" \
		--expect ack:msn=1:psn=@0 --cack @0 \
		"psn=@0 msn=1 va=@0 len=32 seed=11"
	MR_WRITES+=(0:32:11)
	# d: the distance from cack_psn (wire-format.rst, "Receive window").
	crafted "d = MPR + 1: beyond the window, NACK PSN_OOR_WINDOW" \
		"rx_data_pkts=1 out_of_window=1 nacks_sent=1" \
		--expect "nack:reason=0x0b:nackpsn=@$((1 + mpr)):ev=0xc1230000" \
		--cack @0 "psn=@$((1 + mpr)) msn=2 va=@64 len=32 seed=12"
	crafted "d = 2^23 - 1: beyond the window, NACK" \
		"rx_data_pkts=1 out_of_window=1 nacks_sent=1" \
		--expect "nack:reason=0x0b:nackpsn=@$((PSN_HALF - 1))" \
		--cack @0 "psn=@$((PSN_HALF - 1)) msn=2 va=@64 len=32 seed=12"
	# A duplicate is answered by a SACK and, once a message has been
	# executed, the ACK again (it may be the ACK that was lost).
	crafted "d = 2^23 + 1: old, duplicate, SACK and ACK again" \
		"rx_data_pkts=1 duplicates=1 sacks_sent=1 acks_sent=1" \
		--expect sack:cack=@0:pr=0 --expect ack:msn=1:psn=@0 --cack @0 \
		"psn=@$((PSN_HALF + 1)) msn=2 va=@64 len=32 seed=12"
	crafted "the PSN again, other bytes: duplicate, not placed" \
		"rx_data_pkts=1 duplicates=1 sacks_sent=1 acks_sent=1" \
		--expect sack:cack=@0:pr=0 --expect ack:msn=1:psn=@0 --cack @0 \
		"psn=@0 msn=1 va=@0 len=32 seed=99"
	crafted "PSN before rq_psn (d = 2^24 - 1): duplicate" \
		"rx_data_pkts=1 duplicates=1 sacks_sent=1 acks_sent=1" \
		--expect sack:cack=@0:pr=0 --expect ack:msn=1:psn=@0 --cack @0 \
		"psn=@-1 msn=1 va=@0 len=32 seed=98"
	expect_mr
	crafted "METH MSN $MSN_AHEAD_MAX ahead: bad header, PSN not consumed" \
		"rx_data_pkts=1 drop_bad_header=1" --cack @0 \
		"psn=@1 msn=$((2 + MSN_AHEAD_MAX)) va=@64 len=32 seed=13"
	crafted "METH MSN already executed: bad header" \
		"rx_data_pkts=1 drop_bad_header=1" --cack @0 \
		"psn=@1 msn=1 va=@64 len=32 seed=13"
	crafted "that PSN, right MSN: accepted" "rx_data_pkts=1 acks_sent=1" \
		--expect ack:msn=2:psn=@1 --cack @1 \
		"psn=@1 msn=2 va=@64 len=32 seed=14"
	MR_WRITES+=(64:32:14)
	crafted "a hole at the PSN wrap: SACK shows it" \
		"rx_data_pkts=1 sacks_sent=1" \
		--expect sack:cack=@1:sackoff=1:bitmap=0x2 --cack @1 \
		"psn=@3 msn=4 va=@192 len=32 seed=16"
	crafted "the hole filled: both messages executed, one ACK" \
		"rx_data_pkts=1 acks_sent=1" \
		--expect ack:msn=4:psn=@3 --cack @3 \
		"psn=@2 msn=3 va=@128 len=32 seed=15"
	MR_WRITES+=(192:32:16 128:32:15)
	expect_mr
	expect_state RTS
	# Last, as it checks a field of the SACK beyond the bad input itself:
	# wire-format.rst, SETH: ack_psn_offset = trigger PSN - cack_psn.
	crafted "another hole: the SACK's ack_psn_offset names its trigger" \
		"rx_data_pkts=1 sacks_sent=1" \
		--expect sack:cack=@3:sackoff=1:bitmap=0x2:ackoff=2 --cack @3 \
		"psn=@5 msn=6 va=@256 len=32 seed=17"
	MR_WRITES+=(256:32:17)
}

# Where a SACK's bitmap starts (wire-format.rst, "Where the bitmap
# starts"): with sack_follow, it ends at the PSN that triggered the SACK
# when that lies more than 64 past cack_psn, but starts no later than the
# lowest PSN that arrived since the previous SACK; without, at cack_psn + 1.
# Every packet here is a one-packet message whose MSN is its PSN + 1, none
# executed (PSN 0 never comes), so there is no ACK.
group_sack_follow() {
	param_set sack_follow Y
	crafted "PSN 80 opens the first gap: the bitmap ends at it" \
		"rx_data_pkts=1 sacks_sent=1" \
		--expect sack:cack=@-1:sackoff=18:ackoff=81:bitmap=0x8000000000000000 \
		--cack @-1 "psn=@80 msn=81 va=@0 len=32 seed=41"
	crafted "PSN 5 asks: within 64 of cack_psn, the bitmap starts there" \
		"rx_data_pkts=1 sacks_sent=1" \
		--expect sack:cack=@-1:sackoff=1:ackoff=6:bitmap=0x20 \
		--cack @-1 "psn=@5 msn=6 va=@64 len=32 seed=42 ackreq=1"
	crafted "PSN 90 asks: the 64 ending at it, PSN 80 too" \
		"rx_data_pkts=1 sacks_sent=1" \
		--expect sack:cack=@-1:sackoff=28:ackoff=91:bitmap=0x8020000000000000 \
		--cack @-1 "psn=@90 msn=91 va=@128 len=32 seed=43 ackreq=1"
	crafted "PSN 7 unasked, then 95 asks: the bitmap starts at 7" \
		"rx_data_pkts=2 sacks_sent=1" \
		--expect sack:cack=@-1:sackoff=8:ackoff=96:bitmap=0x1 \
		--cack @-1 "psn=@7 msn=8 va=@192 len=32 seed=44" \
		"psn=@95 msn=96 va=@256 len=32 seed=45 ackreq=1"
	MR_WRITES+=(0:32:41 64:32:42 128:32:43 192:32:44 256:32:45)
	param_set sack_follow N
	crafted "without sack_follow, PSN 100 asks: the bitmap starts at 0" \
		"rx_data_pkts=1 sacks_sent=1" \
		--expect sack:cack=@-1:sackoff=1:ackoff=101:bitmap=0xa0 \
		--cack @-1 "psn=@100 msn=101 va=@320 len=32 seed=46 ackreq=1"
	MR_WRITES+=(320:32:46)
	param_restore
	expect_mr
	expect_state RTS
}

# The exact edges of the receive window as wire-format.rst states them:
# with d the distance from cack_psn, "1 <= d < MPR: inside the window;
# MPR <= d < 2^23: beyond the window; NACKed PSN_OOR_WINDOW; d = 0 or
# d >= 2^23: old".  Two groups, each with its doubtful edge last.
group_edge_old() {
	crafted "d = 0 (the cack_psn itself): old, duplicate" \
		"rx_data_pkts=1 duplicates=1 sacks_sent=1" \
		--expect sack:cack=@-1:pr=0 --cack @-1 \
		"psn=@-1 msn=1 va=@0 len=32 seed=91"
	crafted "d = 2^23 - 1: beyond the window" \
		"rx_data_pkts=1 out_of_window=1 nacks_sent=1" \
		--expect "nack:reason=0x0b:nackpsn=@$((PSN_HALF - 2))" \
		--cack @-1 "psn=@$((PSN_HALF - 2)) msn=1 va=@0 len=32 seed=91"
	crafted "d = 2^23: old, duplicate" \
		"rx_data_pkts=1 duplicates=1 sacks_sent=1" \
		--expect sack:cack=@-1:pr=0 --cack @-1 \
		"psn=@$((PSN_HALF - 1)) msn=1 va=@0 len=32 seed=91"
	expect_mr
}

# Trimmed packets (trimming.rst): a DSCP of dscp_trimmed (24, tos 0x60)
# or dscp_trimmed_lasthop (26, tos 0x68), the payload and ICRC cut off
# after RETH (36 bytes from the BTH on, TSETH included).  Nothing of one
# is placed; only an awaited PSN is NACKed.
TRIMMED_TOS=0x60
TRIMMED_LASTHOP_TOS=0x68
TRIMMED_KEEP=36
group_trimmed() {
	local base="psn=@0 msn=1 va=@0 len=32 seed=94 cut=$TRIMMED_KEEP"
	crafted "trimmed WRITE Only, PSN awaited: NACK TRIMMED" \
		"trimmed_rcvd=1 nacks_sent=1" \
		--expect nack:reason=0x01:nackpsn=@0 --cack @-1 \
		"$base tos=$TRIMMED_TOS"
	crafted "trimmed at the last hop: NACK TRIMMED_LASTHOP" \
		"trimmed_rcvd=1 nacks_sent=1" \
		--expect nack:reason=0x02:nackpsn=@0 --cack @-1 \
		"$base tos=$TRIMMED_LASTHOP_TOS"
	crafted "trimmed, its PSN the cack_psn (arrived): counted, not NACKed" \
		"trimmed_stale=1" --cack @-1 \
		"psn=@-1 msn=1 va=@0 len=32 seed=94 cut=$TRIMMED_KEEP tos=$TRIMMED_TOS"
	crafted "trimmed mid-RETH: malformed" "drop_bad_trimmed=1" --cack @-1 \
		"psn=@0 msn=1 va=@0 len=32 seed=94 cut=28 tos=$TRIMMED_TOS"
	crafted "a PROBE marked trimmed: not a data packet" "drop_bad_trimmed=1" \
		--cack @-1 "op=0xde psn=0x79 probeid=0x79 tos=$TRIMMED_TOS"
	expect_mr
}

group_edge_far() {
	local mpr=$MPR
	crafted "d = MPR - 1: inside the window, accepted (a hole before it)" \
		"rx_data_pkts=1 sacks_sent=1 acks_sent=1" \
		--expect sack:cack=@-1:pr=0 --expect ack:msn=1 --cack @-1 \
		"psn=@$((mpr - 2)) msn=1 va=@0 len=32 seed=92"
	MR_WRITES+=(0:32:92)
	expect_mr
	crafted "d = MPR: beyond the window, NACK PSN_OOR_WINDOW" \
		"rx_data_pkts=1 out_of_window=1 nacks_sent=1" \
		--expect "nack:reason=0x0b:nackpsn=@$((mpr - 1))" --cack @-1 \
		"psn=@$((mpr - 1)) msn=2 va=@64 len=32 seed=93"
	expect_mr
}

# A bad R_Key: the packet is SACKed (it arrived) and NAKed remote access
# error (it failed), the QP goes to error, nothing is placed.
group_rkey() {
	crafted "WRITE Only with a wrong R_Key tag: NAK, QP to error" \
		"rx_data_pkts=1 remote_access_errors=1 sacks_sent=1 naks_sent=1" \
		--nofence --expect sack:cack=@0:pr=0 \
		--expect nak:syn=0x62:msn=0:psn=@0 \
		"psn=@0 msn=1 va=@256 len=64 seed=21 rkey=^0x80"
	expect_state ERR
	expect_error_event
	expect_flushed
	crafted "WRITE to the QP in error: bad state" "drop_bad_state=1" \
		--nofence "psn=@1 msn=2 va=@256 len=64 seed=22"
	crafted "PROBE to the QP in error: no SACK" "" --nofence \
		"op=0xde psn=0x79 probeid=0x79"
	expect_mr
}

# A bad R_Key in the middle of a message: the error waits for the message.
group_midmsg() {
	crafted "WRITE First, good R_Key" "rx_data_pkts=1" --cack @0 \
		"op=0xc6 psn=@0 msn=1 va=@0 len=256 dmalen=612 seed=31"
	crafted "WRITE Middle, wrong R_Key: refused, message not done yet" \
		"rx_data_pkts=1 remote_access_errors=1" --cack @1 \
		"op=0xc7 psn=@1 msn=1 va=@256 len=256 dmalen=612 seed=32 rkey=^0x80"
	expect_state RTS
	crafted "WRITE Last: the message executes, NAK, QP to error" \
		"rx_data_pkts=1 sacks_sent=1 naks_sent=1" --nofence \
		--expect sack:cack=@2:pr=0 --expect nak:syn=0x62:msn=0 \
		"op=0xc8 psn=@2 msn=1 va=@512 len=100 dmalen=612 seed=33"
	expect_state ERR
	expect_error_event
	expect_flushed
	# The Middle's bytes never land; the First's and Last's may have.
	expect_mr --maybe 0:256:31 --maybe 512:100:33
}

# MR bounds: each packet opens its own message and is refused; the
# first message then completes, and its NAK puts the QP in error.
group_bounds() {
	local len=${TGT[LEN]} i=0 c
	for c in "va=0xfffffffffffffff8:VA + length wraps past 2^64" \
		"va=0xfffffffffffffff0:VA + length = 2^64" \
		"va=@$((len - 8)):across the MR end" \
		"va=@-8:across the MR start" \
		"va=@-4096:in the page before the MR" \
		"va=@$len:right after the MR" \
		"va=0:at address 0" \
		"rkey=0:R_Key 0" \
		"rkey=^0x80:R_Key with another tag" \
		"rkey=^0x100:R_Key of another MR index"; do
		crafted "WRITE First ${c#*:}: refused" \
			"rx_data_pkts=1 remote_access_errors=1" --cack @$i \
			"op=0xc6 psn=@$i msn=$((i + 1)) va=@0 len=16 dmalen=32 seed=$((40 + i)) ${c%%:*}"
		i=$((i + 1))
	done
	expect_state RTS
	expect_mr
	crafted "WRITE Last of the first message: NAK, QP to error" \
		"rx_data_pkts=1 sacks_sent=1 naks_sent=1" --nofence \
		--expect sack:cack=@$i:pr=0 --expect nak:syn=0x62:msn=0 \
		"op=0xc8 psn=@$i msn=1 va=@16 len=16 dmalen=32 seed=60"
	expect_state ERR
	expect_error_event
	expect_mr --maybe 16:16:60
}

# The simplest wrap: one WRITE Only.
group_wrap() {
	crafted "WRITE Only, VA + length wraps past 2^64: NAK, QP to error" \
		"rx_data_pkts=1 remote_access_errors=1 sacks_sent=1 naks_sent=1" \
		--nofence --expect sack:cack=@0:pr=0 \
		--expect nak:syn=0x62:msn=0:psn=@0 \
		"psn=@0 msn=1 va=0xfffffffffffffff8 len=16 seed=61"
	expect_state ERR
	expect_error_event
	expect_flushed
	expect_mr
}

# What the driver checks of a packet against the QP's path and partition
# (Documentation/mrc/security.rst): that it was sent to the QP's own
# address (not another one of its host's, not a broadcast), with TVer 0,
# and (data) a P_Key of the QP's partition (0xffff): 0x7fff, a limited
# member of the same partition, matches it.
group_peer() {
	run ip -n "$TGT_NS" addr add "$TGT_IP2/24" dev "$HOST_NETDEV"
	crafted "WRITE to another address of the target's host: bad destination" \
		"drop_bad_dest=1" --cack @-1 \
		"psn=@0 msn=1 va=@0 len=16 seed=90 dst=$TGT_IP2"
	crafted "WRITE to the subnet's broadcast address: not unicast" \
		"drop_not_unicast=1" --cack @-1 \
		"psn=@0 msn=1 va=@0 len=16 seed=91 dst=$TGT_BCAST"
	crafted "WRITE with TVer 1: bad header" "drop_bad_header=1" --cack @-1 \
		"psn=@0 msn=1 va=@0 len=16 seed=92 tver=1"
	crafted "WRITE with P_Key 0x1234: not the QP's partition" \
		"drop_bad_pkey=1" --cack @-1 "psn=@0 msn=1 va=@0 len=16 seed=93 pkey=0x1234"
	crafted "WRITE with P_Key 0x7fff: the same partition, placed" \
		"rx_data_pkts=1 acks_sent=1" \
		--expect ack:syn=0x1f:msn=1:psn=@0 --cack @0 \
		"psn=@0 msn=1 va=@0 len=16 seed=94 pkey=0x7fff"
	MR_WRITES+=(0:16:94)
	run ip -n "$TGT_NS" addr del "$TGT_IP2/24" dev "$HOST_NETDEV"
	expect_mr
	expect_state RTS
}

# IBTA RC opcodes to an MRC QP.
group_rc() {
	local -a ops=() n
	for n in 0x00 0x04 0x0a 0x0c 0x11 0x1f; do
		ops+=("op=$n psn=@$MPR va=@0 len=16 seed=70")
	done
	crafted "${#ops[@]} RC opcodes beyond the window: bad opcode" \
		"drop_bad_opcode=${#ops[@]}" --cack @-1 "${ops[@]}"
	crafted "RC opcodes behind the window: bad opcode" \
		"drop_bad_opcode=1" --cack @-1 "op=0x0a psn=@-1 va=@0 len=16"
	expect_state RTS
	crafted "RC RDMA WRITE Only in the window: NACK UNEXP_EVENT, QP to error" \
		"nacks_sent=1 nack_unexp_event=1" --nofence \
		--expect nack:reason=0x19:nackpsn=@0 \
		"op=0x0a psn=@0 va=@0 len=16 seed=71"
	expect_state ERR
	expect_error_event
	expect_flushed
	expect_mr
}

# Requests inconsistent in themselves: wire-format.rst, AETH: "a payload
# beyond its RETH DMALen: 0x61" (NAK invalid request, QP to error).
group_inconsistent() {
	crafted "WRITE Only with 64 bytes, DMALen 16: NAK invalid request" \
		"rx_data_pkts=1 sacks_sent=1 naks_sent=1" --nofence \
		--expect sack:cack=@0:pr=0 --expect nak:syn=0x61:msn=0:psn=@0 \
		"psn=@0 msn=1 va=@0 len=64 dmalen=16 seed=81"
	expect_state ERR
	expect_mr --maybe 0:64:81
}

# The NACK a packet beyond the window gets (wire-format.rst, NETH): the
# entropy of the packet NACKed, its PSN, its TSETH tx_timestamp or 0.
group_nack_fields() {
	crafted "beyond the window with a TSETH: NACK echoes EV and timestamp" \
		"rx_data_pkts=1 out_of_window=1 nacks_sent=1" \
		--expect "nack:reason=0x0b:nackpsn=@$MPR:psn=@$MPR:ev=0xc0a60000:ts=0x4321" \
		--cack @-1 "psn=@$MPR msn=1 tsh=1 ts=0x4321 sport=0xc0a6 va=@0 len=16"
	crafted "beyond the window without a TSETH: NACK timestamp 0" \
		"rx_data_pkts=1 out_of_window=1 nacks_sent=1" \
		--expect "nack:reason=0x0b:nackpsn=@$MPR:ts=0" \
		--cack @-1 "psn=@$MPR msn=1 va=@0 len=16"
	expect_mr
}

# A WRITE Only carries its whole message: fewer bytes than its DMALen is
# as inconsistent as more (else the message never completes and every
# later one waits behind it).
group_inconsistent_short() {
	crafted "WRITE Only with 16 bytes, DMALen 64: NAK invalid request" \
		"rx_data_pkts=1 sacks_sent=1 naks_sent=1" --nofence \
		--expect sack:cack=@0:pr=0 --expect nak:syn=0x61:msn=0:psn=@0 \
		"psn=@0 msn=1 va=@0 len=16 dmalen=64 seed=82"
	expect_state ERR
	expect_mr --maybe 0:16:82
}

# --- run ------------------------------------------------------------------

# With dynamic debug on, the receive path names each packet it drops and
# the counter it went to (user-guide.rst, "Why a packet was dropped").
group_drop_log() {
	local ctl=/sys/kernel/debug/dynamic_debug/control
	local base="op=0xcb tsh=1 psn=@0 msn=1 rqmsn=1 va=@0 len=16 seed=9"
	local want="dropped WRITE_ONLY_IMM (opcode 0xcb) for QP 0xfffffe: drop_bad_qpn"
	[ -w "$ctl" ] || fail "no $ctl (CONFIG_DYNAMIC_DEBUG)"
	echo "module $MRC_MODULE +p" >"$ctl"
	crafted "DestQP 0xfffffe, dynamic debug on: bad QPN" "drop_bad_qpn=1" \
		--cack @-1 "$base qpn=0xfffffe"
	echo "module $MRC_MODULE -p" >"$ctl"
	if dmesg | grep -F -- "$want" >/dev/null; then
		ok "the kernel log says: $want"
	else
		dmesg | tail -n 20 | sed 's/^/    /'
		fail "no '$want' in the kernel log"
	fi
}

# case_group WHAT FUNCTION [mrc_target options]: a fresh target, the
# group's packets, the target's exit with its canaries intact.
case_group() {
	local what=$1 func=$2
	shift 2
	case_what "$what"
	target_start "$@"
	model_sync
	MR_WRITES=()
	"$func"
	target_stop || fail "mrc_target did not end well"
}

# The end of the setup: the counters agree with rdma(8), crafted_pkt.py
# serve and the device end cleanly, no kernel warning since the test
# began.  In the test's own shell: it holds the packet server's FIFO.
teardown() {
	counters_vs_rdma_tool
	pkt_server_stop
	link_del "$DEV"
	run "$FABRIC" clean
	mrc_unload

	kern=$(dmesg | awk -v mark="$KMSG_MARK" 'index($0, mark) { n = 0; delete l; next }
		{ l[n++] = $0 } END { for (i = 0; i < n; i++) print l[i] }')
	if grep -qE "$KERNEL_BAD" <<<"$kern"; then
		printf '%s\n' "$kern" | sed 's/^/    /'
		fail "kernel warnings since the test began"
	fi
	log "ok: no kernel warning since the test began"
}

# --- main -----------------------------------------------------------------

# Each group is a case with a target of its own.
mrc_case valid case_group "valid packets" group_valid
mrc_case dropped case_group "dropped before the QP" group_dropped
mrc_case stray case_group "stray control packets" group_stray
mrc_case peer case_group "peer and partition" group_peer
mrc_case sequence case_group "window and duplicates" group_sequence --rq-psn 0xfffffe
mrc_case sack_follow case_group "where the SACK bitmap starts" group_sack_follow
mrc_case edge_old case_group "receive window, old edge" group_edge_old
mrc_case edge_far case_group "receive window, far edge" group_edge_far
mrc_case trimmed case_group "trimmed packets" group_trimmed
mrc_case rkey case_group "bad R_Key" group_rkey
mrc_case midmsg case_group "bad R_Key mid-message" group_midmsg
mrc_case bounds case_group "MR bounds" group_bounds
mrc_case wrap case_group "VA wrap" group_wrap
mrc_case rc case_group "RC opcodes" group_rc
mrc_case nack_fields case_group "NACK fields" group_nack_fields
mrc_case inconsistent case_group "inconsistent requests" group_inconsistent
mrc_case inconsistent_short case_group "inconsistent requests: short" group_inconsistent_short
mrc_case drop_log case_group "drop log" group_drop_log
mrc_cases_args "$@"

mrc_test_init
[ -x "$PYTHON" ] || fail "$PYTHON missing"
[ -r "$PKT_TOOL" ] || fail "$PKT_TOOL missing"
[ -x "$FABRIC" ] || fail "$FABRIC missing"
TARGET_BIN=$(helper_path mrc_target)

echo "$KMSG_MARK" >/dev/kmsg

log "== crafted_pkt.py against the worked examples of wire-format.rst"
run "$PYTHON" "$PKT_TOOL" selftest
sed 's/^/    /' "$BOUNDED_OUT"

# shellcheck disable=SC2119
mrc_load
run "$FABRIC" hosts 2
cleanup_push "$FABRIC" clean
link_add "$DEV" "$HOST_NETDEV" "$TGT_NS"
wait_until "port of $DEV ACTIVE" "$WAIT_TIMEOUT" \
	port_state_is "$DEV" "$PORT_STATE_ACTIVE"
wait_until "GID of $TGT_IP on $DEV" "$WAIT_TIMEOUT" \
	gid_present "$DEV" "$(gid_of_ipv4 "$TGT_IP")"
[ -d "$HWC" ] || fail "no $HWC"
pkt_server_start
# The module's parameters the packets and the checks depend on.
params=/sys/module/$MRC_MODULE/parameters
read -r mpr_units <"$params/mpr_units"
MPR=$((mpr_units * MPR_UNIT))
MODULE_INFO=()
for p in udp_port:UDP_PORT dscp_control:DSCP_CONTROL \
	control_pkey:CONTROL_PKEY; do
	read -r v <"$params/${p%%:*}"
	MODULE_INFO+=("${p#*:}=$v")
done
log "MPR $MPR PSNs; ${MODULE_INFO[*]}"
counters_vs_rdma_tool

mrc_cases_final teardown
mrc_cases_run
