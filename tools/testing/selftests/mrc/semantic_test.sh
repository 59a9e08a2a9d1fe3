#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The semantic layer of MRC, kept apart from the packet delivery layer
# (scripts/fabric hosts 2: mrcA on h1 is the requester, mrcB on h2 the
# responder; mrc_xfer checks every byte on the server):
#
# 1. bad rkey in the middle: mrc_xfer --bad-rkey-middle posts WR1 (good
#    rkey), WR2 (wrong rkey), WR3 (good) back to back.  WR1 must complete
#    IBV_WC_SUCCESS, WR2 IBV_WC_REM_ACCESS_ERR, WR3 IBV_WC_WR_FLUSH_ERR,
#    and WR2's target bytes must be untouched on the server.  A capture on
#    h1's eth0, decoded by tshark with tools/wireshark/mrc.lua, must show a
#    semantic NAK (opcode 0xD1, AETH syndrome 0x62, remote access error)
#    for a PSN of WR2 whose AETH MSN counts WR1 only, and every PSN of WR2
#    covered by some SACK (its cack_psn or its bitmap): the packets
#    arrived, so the delivery layer acknowledges them although the
#    operation failed.  As a control that the coverage computation can say
#    "no", WR3's PSNs (sent after the responder QP went to error, dropped
#    there) must be covered by no SACK.  Counters: mrcB
#    remote_access_errors +1 and naks_sent +1, mrcA naks_rcvd +1.
# 1b. the NAK overtakes the SACKs: the same three WRs while a filter on
#    h2 drops every SACK mrcB sends (its semantic ACKs and NAKs pass).  A
#    NAK for MSN m says every message before m executed, so their packets
#    were delivered: WR1 must still complete IBV_WC_SUCCESS (its PSNs were
#    never SACKed), WR2 REM_ACCESS_ERR, WR3 WR_FLUSH_ERR; the filter
#    dropped SACKs, and mrcA received none.
# 2. straddle: one write that starts inside the target MR and runs past
#    its end.  It must complete IBV_WC_REM_ACCESS_ERR, no byte past the MR
#    end (the rest of its page and the whole canary page after it) and no
#    byte before the write's start may change, and inside the MR only
#    whole in-bounds packets may have landed.  Twice: the MR ending in the
#    middle of a page, and on a page boundary (the overflow is then
#    exactly the canary page).  Same counter deltas as case 1.
# 3. counters stay zero when lossless: 16 MiB of RDMA WRITE, then 16 MiB of
#    WRITE WITH IMMEDIATE.  Every loss-recovery and error counter of both
#    devices (retransmits, timeouts, NACKs, NAKs, duplicates, drops, ...)
#    must be unchanged, and the data packets must be counted: tx_data_pkts
#    of mrcA = rx_data_pkts of mrcB = the packets the writes need at the
#    path MTU.  The fabric neither drops nor reorders, so any recovery
#    here is the driver's doing.  Probes are loss recovery too, but for
#    tail loss probes (a flight's last SACK later than two smoothed RTTs,
#    as TCG's timing allows): probes_sent = tlp_probes_sent, each one
#    received and answered.  The module is loaded with the RTO floor
#    of lossless tests (XFER_LOSSLESS_PARAMS, design.rst "Spurious expiries
#    in guests"): with the default 1 ms floor a loaded TCG host makes a few
#    spurious expiries per 10^4 packets.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"
# shellcheck source=SCRIPTDIR/cap_lib.sh
. "$SELF_DIR/cap_lib.sh"

WS_DIR=$MRC_REPO/tools/wireshark
KIB=1024
MIB=$((1024 * KIB))
PSN_SPACE=$((1 << 24))
PSN_HALF=$((1 << 23))
XFER_SECS=60		# bound of one mrc_xfer run
TSHARK_SECS=180
CAPTURE_SECS=60
SNAPLEN=2048		# whole frames (MTU 1500)
CAPTURE_BUFFER_KIB=32768

# Case 1: three writes of this size, several packets each at MTU 1024.
BADRKEY_SIZE=$((8 * KIB))
BADRKEY_PSN=$((0x100000))	# first PSN: the WRs' PSNs are known
MSN_WR1=1
MSN_WR2=2
MSN_WR3=3
OP_ACK=$((0xd1))
OP_SACK=$((0xdc))
BTH_OP_OFF=28		# IP 20 + UDP 8: the BTH opcode, for u32
OP_DATA_FIRST=$((0xc6))
OP_DATA_LAST=$((0xcb))
SYNDROME_REM_ACCESS=$((0x62))
SYNDROME_ACK=$((0x1f))
ICRC_GOOD=1
CONTROL_FRAMES_SHOWN=20
# ibv_wc_status_str() texts mrc_xfer prints.
WC_SUCCESS="success"
WC_REM_ACCESS_ERR="remote access error"
WC_WR_FLUSH_ERR="Work Request Flushed Error"

# Case 2: "NAME SIZE OFFSET": mrc_xfer writes SIZE bytes into an MR of SIZE
# bytes that starts OFFSET bytes into a page, SIZE/3 of them past its end
# (mrc_xfer's straddle_inside()).  6000 at offset 100: the MR ends 2004
# bytes into a page, the 2000 bytes past it stay inside that page's
# canary bytes.  12288 at 0: the MR ends on a page boundary and the 4096
# bytes past it are exactly the canary page.
STRADDLES=(
	"straddle_mid_page 6000 100"
	"straddle_page_end 12288 0"
)

# Case 3: "NAME SIZE ITERS [OPT...]", 16 MiB each.
LOSSLESS_RUNS=(
	"lossless_write $((16 * MIB)) 1"
	"lossless_write_imm $((1 * MIB)) 16 --imm --extra-recvs 1"
)
# Counters that must not move in a lossless run: loss recovery and errors.
QUIET_RE='^(retransmits|fast_retransmits|timeout_retransmits|timeouts|retry_exceeded|nacks?_.*|naks_.*|duplicates|out_of_window|drop_.*|remote_access_errors|probes?_.*|tx_route_errors)$'
# The ones QUIET_RE must find, so that a renamed counter cannot make the
# check vacuous.
QUIET_REQUIRED=(retransmits fast_retransmits timeout_retransmits timeouts
	retry_exceeded nacks_sent nacks_rcvd naks_sent naks_rcvd duplicates
	out_of_window drop_bad_icrc remote_access_errors probes_sent
	probes_rcvd)

# client_says LINE: mrc_xfer's client printed exactly "mrc_xfer: LINE".
client_says() {
	file_has_line "$XFER_CLIENT_OUT" "mrc_xfer: $1" ||
		{ xfer_show; fail "the client did not print '$1'"; }
	log "    client: $1"
}

# expect_delta TAG DEV COUNTER WANT: DEV's COUNTER moved by exactly WANT
# between snapshots TAG.0 and TAG.1.
expect_delta() {
	local d
	d=$(counter_delta "$1.0" "$1.1" "$2" "$3")
	assert_eq "$1: $2 $3 delta" "$4" "$d"
	log "ok $1: $2 $3 +$d"
}

# The three counter deltas of one NAKed remote access error.
expect_one_nak() {
	expect_delta "$1" "$XFER_DEV_B" remote_access_errors 1
	expect_delta "$1" "$XFER_DEV_B" naks_sent 1
	expect_delta "$1" "$XFER_DEV_A" naks_rcvd 1
}

# --- capture on h1 --------------------------------------------------------

CAPTURE_PCAP=

capture_start() {
	CAPTURE_PCAP=$1
	# Packet-buffered, so that the marker ping seen in the file means
	# every packet before it is there too; a large buffer, since tcpdump
	# under TCG falls behind a burst.
	bg_start capture ip netns exec "$XFER_NS_A" tcpdump -i "$XFER_NETDEV" \
		-n -s "$SNAPLEN" -B "$CAPTURE_BUFFER_KIB" --immediate-mode -U \
		-w "$CAPTURE_PCAP" "udp port $MRC_DEFAULT_UDP_PORT or icmp"
	wait_until "tcpdump listening" "$WAIT_TIMEOUT" capturing capture
}

capture_stop() {
	local pid
	run ip netns exec "$XFER_NS_A" ping -c 1 -W 5 "$XFER_SERVER_IP"
	wait_until "the marker ping in the capture" "$CAPTURE_SECS" \
		marker_written "$CAPTURE_PCAP"
	pid=$(ps -o pid= --ppid "${BG_PID[capture]}" | tr -d ' ')
	[ -n "$pid" ] || fail "tcpdump is not running"
	kill -INT "$pid"
	bg_wait capture "$CAPTURE_SECS" || fail "tcpdump did not stop"
	grep -q '^0 packets dropped by kernel' "$(bg_out capture)" || {
		sed 's/^/    /' "$(bg_out capture)"
		fail "tcpdump dropped packets: the capture is incomplete"
	}
}

# semantic_fields PCAP FIELDS: one '|'-separated line per MRC frame.
semantic_fields() {
	ws_fields "$1" "udp.port == $MRC_DEFAULT_UDP_PORT" \
		-e frame.number -e ip.src -e mrc.opcode -e mrc.psn \
		-e mrc.meth.msn -e mrc.reth.rkey -e mrc.aeth.syndrome \
		-e mrc.aeth.msn -e mrc.seth.cack_psn -e mrc.seth.sacked \
		-e mrc.icrc.status -e mrc.malformed -e _ws.lua.error >"$2"
}

# --- case 1 ---------------------------------------------------------------

# BADRKEY_AWK: badrkey_summary's program, one pass over the frames of
# semantic_fields: the PSNs of each WR (data packets by METH MSN), the PSNs
# any SACK covers (cumulatively, modulo 2^24, or in its bitmap), the NAKs
# and ACKs.  Prints "key value" and "bad: ..." lines.
# shellcheck disable=SC2016 # awk code
BADRKEY_AWK='
	function hex(s,   i, v) {
		s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	BEGIN { split("", psns); split("", cacks); split("", sacked)
		split("", missing2); split("", covered3) }
	function bad(what) { nbad++; if (nbad <= 10) print "bad: frame " $1 ": " what }
	function cover(p,   i) {
		for (i = 1; i <= ncack; i++)
			if ((cacks[i] - p + psn_space) % psn_space < psn_half)
				return 1
		return (p in sacked)
	}
	function list(set,   p, n, out) {
		n = 0; out = ""
		for (p in set) { n++; if (n <= 20) out = out " " p }
		return n ? out : " (none)"
	}
	{
		if ($12 != "" || $13 != "" || $3 == "") {
			bad("not decoded as MRC (malformed \"" $12 "\", lua error \"" $13 "\")")
			next
		}
		if ($11 != icrc_good) bad("ICRC status " $11)
		op = hex($3)
		if (op >= op_first && op <= op_last) {
			if ($2 != client) bad("data from " $2)
			wr = $5 + 0
			if (wr != msn1 && wr != msn2 && wr != msn3) {
				bad("data with MSN " $5)
				next
			}
			psns[wr, $4 + 0] = 1
			if ((hex($6) == hex(bad_rkey)) != (wr == msn2))
				bad("MSN " wr " with rkey " $6)
		} else if (op == op_sack) {
			if ($2 != server) bad("SACK from " $2)
			cacks[++ncack] = $9 + 0
			n = split($10, l, ",")
			for (i = 1; i <= n; i++) sacked[l[i] + 0] = 1
		} else if (op == op_ack) {
			if ($2 != server) bad("ACK/NAK from " $2)
			syn = hex($7)
			if (syn == syn_nak) {
				naks++
				nak_psn = $4 + 0
				nak_msn = $8 + 0
			} else if (syn == syn_ack) {
				acks++
				if ($8 + 0 > ack_msn) ack_msn = $8 + 0
			} else {
				other_naks++
			}
		}
	}
	END {
		for (k in psns) {
			split(k, kk, SUBSEP)
			w = kk[1] + 0; p = kk[2] + 0
			n_wr[w]++
			if (cover(p)) covered[w]++
			else if (w == msn2) missing2[p] = 1
			if (w == msn3 && cover(p)) covered3[p] = 1
			if (w == msn2 && p == nak_psn) nak_in_wr2 = 1
		}
		print "wr1_psns", n_wr[msn1] + 0
		print "wr2_psns", n_wr[msn2] + 0
		print "wr3_psns", n_wr[msn3] + 0
		print "wr1_sacked", covered[msn1] + 0
		print "wr2_sacked", covered[msn2] + 0
		print "wr3_sacked", covered[msn3] + 0
		print "wr2_not_sacked" list(missing2)
		print "wr3_sacked_list" list(covered3)
		print "sacks", ncack + 0
		print "acks", acks + 0
		print "ack_msn", ack_msn + 0
		print "naks", naks + 0
		print "other_naks", other_naks + 0
		print "nak_psn", (naks ? nak_psn : "none")
		print "nak_msn", (naks ? nak_msn : "none")
		print "nak_psn_in_wr2", nak_in_wr2 + 0
		print "bad_count", nbad + 0
	}'

# badrkey_summary FIELDS BAD_RKEY: BADRKEY_AWK over FIELDS, WR2 the one
# whose data packets carry BAD_RKEY.
badrkey_summary() {
	awk -F'|' -v client="$XFER_HOSTS_IP_A" -v server="$XFER_HOSTS_IP_B" \
		-v op_first="$OP_DATA_FIRST" -v op_last="$OP_DATA_LAST" \
		-v op_ack="$OP_ACK" -v op_sack="$OP_SACK" \
		-v syn_nak="$SYNDROME_REM_ACCESS" -v syn_ack="$SYNDROME_ACK" \
		-v bad_rkey="$2" -v msn1="$MSN_WR1" -v msn2="$MSN_WR2" \
		-v msn3="$MSN_WR3" \
		-v psn_space="$PSN_SPACE" -v psn_half="$PSN_HALF" \
		-v icrc_good="$ICRC_GOOD" \
		"$BADRKEY_AWK" "$1"
}

# WR1 good, WR2 with a bad rkey, WR3 good: their completions and the
# counters; the capture on h1 for bad_rkey_wire.
case_bad_rkey() {
	local pcap=$MRC_TMP/badrkey.pcap

	case_what "1. WR1 good, WR2 bad rkey, WR3 good; capture on h1"
	capture_start "$pcap"
	counters_snap badrkey.0
	xfer badrkey "$XFER_SECS" --bad-rkey-middle --size "$BADRKEY_SIZE" \
		--psn "$BADRKEY_PSN"
	counters_snap badrkey.1
	capture_stop
	counters_changed badrkey.0 badrkey.1

	# mrc_xfer itself fails unless the statuses are these and WR2's
	# target on the server is untouched; say what it saw.
	client_says "WR1 status $WC_SUCCESS"
	client_says "WR2 status $WC_REM_ACCESS_ERR"
	client_says "WR3 status $WC_WR_FLUSH_ERR"
	log "    server: ${XFER_SERVER_RESULT#RESULT }"
	expect_one_nak badrkey
}

# The capture of bad_rkey, decoded: one NAK 0x62 for WR2 reporting WR1,
# every PSN of WR1 and WR2 SACKed, none of WR3.
case_bad_rkey_wire() {
	local pcap=$MRC_TMP/badrkey.pcap fields=$MRC_TMP/badrkey.fields
	local bad_rkey summary=$MRC_TMP/badrkey.summary key value
	local -A S=()

	bad_rkey=$(sed -n 's/^mrc_xfer: WR1 rkey .*, WR2 rkey \(0x[0-9a-f]*\) (wrong).*/\1/p' \
		"$XFER_CLIENT_OUT")
	[ -n "$bad_rkey" ] || fail "no 'WR2 rkey' line in the client's output"

	log "    decoding the capture with tshark -X lua_script:mrc.lua"
	bounded "$TSHARK_SECS" semantic_fields "$pcap" "$fields" ||
		fail "tshark did not finish in ${TSHARK_SECS}s"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		bounded_output
		fail "tshark exit status $BOUNDED_RC"
	fi

	badrkey_summary "$fields" "$bad_rkey" >"$summary"

	grep '^bad:' "$summary" | sed 's/^/    /' || true
	# The control packets, as evidence (a handful in this run).
	log "    control frames (frame|src|opcode|psn|syndrome|aeth msn|cack_psn|bitmap PSNs):"
	awk -F'|' '
		{ s = tolower($3); sub(/^0x0*/, "", s) }
		s !~ /^c[6-9ab]$/ { print $1 "|" $2 "|" $3 "|" $4 "|" $7 "|" $8 "|" $9 "|" $10 }' \
		"$fields" | head -n "$CONTROL_FRAMES_SHOWN" | sed 's/^/      /'
	while read -r key value; do
		[ "$key" = bad: ] || S[$key]=$value
	done <"$summary"
	log "    capture: WR1 ${S[wr1_psns]} PSNs (${S[wr1_sacked]} SACKed)," \
		"WR2 ${S[wr2_psns]} (${S[wr2_sacked]} SACKed)," \
		"WR3 ${S[wr3_psns]} (${S[wr3_sacked]} SACKed); ${S[sacks]} SACKs," \
		"${S[acks]} ACKs (up to MSN ${S[ack_msn]}), ${S[naks]} NAK 0x62" \
		"at PSN ${S[nak_psn]} with MSN ${S[nak_msn]}"

	assert_eq "frames that fail to decode or carry a bad ICRC" 0 "${S[bad_count]}"
	local mtu per_wr
	mtu=$(xfer_client_mtu)
	per_wr=$(((BADRKEY_SIZE + mtu - 1) / mtu))
	assert_eq "WR1 PSNs in the capture" "$per_wr" "${S[wr1_psns]}"
	assert_eq "WR2 PSNs in the capture" "$per_wr" "${S[wr2_psns]}"
	[ "${S[wr3_psns]}" -gt 0 ] || fail "no packet of WR3 in the capture"
	# The semantic layer: one NAK remote access error, for a packet of
	# WR2, reporting WR1 as the only completed message; WR1 ACKed.
	assert_eq "NAKs with syndrome 0x62 (remote access error)" 1 "${S[naks]}"
	assert_eq "NAKs with another syndrome" 0 "${S[other_naks]}"
	assert_eq "the NAK's BTH PSN is one of WR2's" 1 "${S[nak_psn_in_wr2]}"
	assert_eq "the NAK's AETH MSN (messages completed before it)" \
		"$MSN_WR1" "${S[nak_msn]}"
	[ "${S[ack_msn]}" -ge "$MSN_WR1" ] ||
		fail "no ACK (0xD1, syndrome 0x1F) covering WR1 (MSN $MSN_WR1)"
	# The control: WR3 came after the NAK and was dropped; no SACK may
	# cover it, or the coverage computation below proves nothing.
	[ "${S[wr3_sacked]}" -eq 0 ] ||
		fail "WR3's PSNs ${S[wr3_sacked_list]} covered by a SACK, but the responder QP was in error when they came"
	# The delivery layer: every packet of WR2 arrived and is SACKed,
	# although WR2 failed.
	[ "${S[wr1_sacked]}" -eq "${S[wr1_psns]}" ] ||
		fail "only ${S[wr1_sacked]} of WR1's ${S[wr1_psns]} PSNs SACKed"
	[ "${S[wr2_sacked]}" -eq "${S[wr2_psns]}" ] ||
		fail "WR2 failed semantically, but its PSNs ${S[wr2_not_sacked]} were never SACKed (${S[wr2_sacked]} of ${S[wr2_psns]} were): the delivery layer must acknowledge every packet that arrived"
	log "ok: WR2's ${S[wr2_psns]} PSNs SACKed and NAKed 0x62 (MSN ${S[nak_msn]})," \
		"WR3's not SACKed"
}

# --- case 2 ---------------------------------------------------------------

# h2's egress: drop every SACK (BTH opcode 0xdc) mrcB sends.
drop_sacks() {
	run ip netns exec "$XFER_NS_B" tc qdisc add dev "$XFER_NETDEV" clsact
	run ip netns exec "$XFER_NS_B" tc filter add dev "$XFER_NETDEV" egress \
		protocol ip prio 1 u32 match u8 "$IPV4_VIHL" 0xff at 0 \
		match u8 "$IPPROTO_UDP" 0xff at "$IP_PROTO_OFF" \
		match u16 "$MRC_DEFAULT_UDP_PORT" 0xffff at "$UDP_DPORT_OFF" \
		match u8 "$OP_SACK" 0xff at "$BTH_OP_OFF" action drop
}

sacks_dropped() {
	run ip netns exec "$XFER_NS_B" tc -s filter show dev "$XFER_NETDEV" egress
	sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' "$BOUNDED_OUT" | head -n 1
}

no_drop_sacks() {
	ip netns exec "$XFER_NS_B" tc qdisc del dev "$XFER_NETDEV" clsact \
		2>/dev/null || true
}

case_nak_first() {
	local dropped
	case_what "1b. WR1 good, WR2 bad rkey, WR3 good; every SACK from $XFER_DEV_B dropped"
	cleanup_push no_drop_sacks
	drop_sacks
	counters_snap nakfirst.0
	xfer nakfirst "$XFER_SECS" --bad-rkey-middle --size "$BADRKEY_SIZE" \
		--psn "$BADRKEY_PSN"
	counters_snap nakfirst.1
	dropped=$(sacks_dropped)
	no_drop_sacks
	counters_changed nakfirst.0 nakfirst.1
	client_says "WR1 status $WC_SUCCESS"
	client_says "WR2 status $WC_REM_ACCESS_ERR"
	client_says "WR3 status $WC_WR_FLUSH_ERR"
	[ "${dropped:-0}" -gt 0 ] || fail "the filter dropped no SACK"
	log "    the filter dropped $dropped SACKs"
	expect_delta nakfirst "$XFER_DEV_A" sacks_rcvd 0
	expect_one_nak nakfirst
}

# case_straddle NAME SIZE OFFSET
case_straddle() {
	local name=$1 size=$2 offset=$3 mtu inside past landed whole
	inside=$((size - size / 3))
	past=$((size / 3))
	case_what "2. $name: $size bytes from MR end - $inside ($past past the end), MR at page offset $offset"
	XFER_SERVER_OPTS=(--offset "$offset")
	counters_snap "$name.0"
	xfer "$name" "$XFER_SECS" --straddle --size "$size"
	counters_snap "$name.1"
	XFER_SERVER_OPTS=()
	counters_changed "$name.0" "$name.1"
	# mrc_xfer has checked the canaries after the MR, the bytes before the
	# write's start and the QPs in error.
	client_says "status $WC_REM_ACCESS_ERR"
	expect_one_nak "$name"
	# MR bounds are checked per packet: the packet that crosses the end is
	# refused whole, so at most the packets before it have landed.
	mtu=$(xfer_client_mtu)
	whole=$((inside / mtu * mtu))
	landed=$(result_field "$XFER_SERVER_RESULT" inside_landed_bytes) ||
		fail "no inside_landed_bytes in the server's result"
	[ "$landed" -le "$whole" ] ||
		fail "$name: $landed bytes landed inside the MR, more than the $whole bytes of its whole in-bounds packets"
	log "ok $name: nothing past the MR end written; $landed of $whole in-bounds bytes landed"
}

# --- case 3 ---------------------------------------------------------------

# case_lossless NAME SIZE ITERS [CLIENT_OPT...]
case_lossless() {
	local name=$1 size=$2 iters=$3 mtu want dev counter d sent rcvd tlp
	local -a quiet=() moved=()
	shift 3
	case_what "3. $name: $iters x $size bytes, lossless ${*:-(plain WRITE)}"
	counters_snap "$name.0"
	xfer "$name" "$XFER_SECS" --size "$size" --iters "$iters" "$@"
	counters_snap "$name.1"
	counters_changed "$name.0" "$name.1"

	for counter in "${COUNTER_NAMES[@]}"; do
		[[ $counter =~ $QUIET_RE ]] && quiet+=("$counter")
	done
	for counter in "${QUIET_REQUIRED[@]}"; do
		[[ " ${quiet[*]} " == *" $counter "* ]] ||
			fail "no counter $counter in rdma statistic"
	done
	tlp=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_A" tlp_probes_sent)
	for dev in "$XFER_DEV_A" "$XFER_DEV_B"; do
		for counter in "${quiet[@]}"; do
			d=$(counter_delta "$name.0" "$name.1" "$dev" "$counter")
			case $dev.$counter in
			"$XFER_DEV_A.probes_sent" | "$XFER_DEV_A.probe_sacks_rcvd" | \
			"$XFER_DEV_B.probes_rcvd") d=$((d - tlp)) ;;
			esac
			[ "$d" -eq 0 ] || moved+=("$dev $counter=$d")
		done
	done
	[ "$tlp" = 0 ] || log "    $tlp tail loss probes (answered)"
	[ ${#moved[@]} -eq 0 ] ||
		fail "$name: loss-recovery/error counters moved on a lossless path: ${moved[*]}"
	log "ok $name: ${#quiet[@]} loss-recovery/error counters unchanged on both devices"

	mtu=$(xfer_client_mtu)
	want=$(((size + mtu - 1) / mtu))
	want=$((want * iters))
	sent=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_A" tx_data_pkts)
	rcvd=$(counter_delta "$name.0" "$name.1" "$XFER_DEV_B" rx_data_pkts)
	assert_eq "$name: $XFER_DEV_A tx_data_pkts (packets at MTU $mtu)" "$want" "$sent"
	assert_eq "$name: $XFER_DEV_B rx_data_pkts (packets at MTU $mtu)" "$want" "$rcvd"
	log "ok $name: $want data packets sent by $XFER_DEV_A, received by $XFER_DEV_B"
}

# --- main -----------------------------------------------------------------

# Each case is one mrc_xfer run (and its capture) on the shared fabric.
for spec in "${LOSSLESS_RUNS[@]}"; do
	# shellcheck disable=SC2086 # the spec's words are the arguments
	mrc_case "${spec%% *}" case_lossless $spec
done
mrc_case bad_rkey case_bad_rkey
mrc_case bad_rkey_wire case_bad_rkey_wire --after bad_rkey
mrc_case nak_first case_nak_first
for spec in "${STRADDLES[@]}"; do
	# shellcheck disable=SC2086
	mrc_case "${spec%% *}" case_straddle $spec
done
mrc_cases_args "$@"

mrc_test_init
for tool in tshark tcpdump; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
# Hermetic: no user preferences, and a writable home for tshark.
export HOME=$MRC_TMP

# Case 3 asserts that nothing is retransmitted: the RTO floor of lossless
# tests (xfer_lib.sh), so that a vCPU the host deschedules for more than
# the default 1 ms does not look like loss.  Cases 1 and 2 use no timer.
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric hosts
mrc_cases_run
