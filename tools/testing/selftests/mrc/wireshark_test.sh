#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Wireshark dissector, tools/wireshark/mrc.lua, on real traffic (its
# own test on crafted packets, tools/wireshark/test/check.sh, needs no
# kernel: `make check` runs it on the host, where tshark starts in a second
# instead of 15): tcpdump on h2's eth0 (scripts/fabric hosts 2) while
# mrc_xfer writes 1 MiB from h1 in one message, decoded by tshark with
# the dissector.  Every frame decodes as MRC without error with a good
# ICRC; the data packets (h1 -> h2) use at least min(64, packets)
# distinct UDP source ports, all in 49152-65535, are ECT(0), DSCP 8
# (16 if retransmitted, with rtx set), and cover every PSN of the
# transfer and no other; the SACKs and ACKs (h2 -> h1) are DSCP 46,
# Not-ECT.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"
# shellcheck source=SCRIPTDIR/cap_lib.sh
. "$SELF_DIR/cap_lib.sh"

WS_DIR=$MRC_REPO/tools/wireshark
TSHARK_SECS=180
CAPTURE_SECS=60
XFER_SECS=60
SNAPLEN=2048		# whole frames (MTU 1500)
CAPTURE_BUFFER_KIB=32768
SIZE=$((1024 * 1024))
FIRST_PSN=$((0x7ff000))
EV_MIN=49152
EV_MAX=65535
EV_WANT=64
DSCP_DATA=8
DSCP_RETX=16
DSCP_CONTROL=46
ECN_NOT_ECT=0
ECN_ECT0=2
ICRC_GOOD=1
OP_DATA_FIRST=$((0xc6))
OP_DATA_LAST=$((0xcb))
OP_ACK=$((0xd1))
OP_SACK=$((0xdc))

transfer_fields() {
	ws_fields "$pcap" "udp.port == $MRC_DEFAULT_UDP_PORT" \
		-e frame.number -e ip.src -e udp.srcport -e mrc.opcode \
		-e mrc.psn -e mrc.rtx -e ip.dsfield.dscp -e ip.dsfield.ecn \
		-e mrc.icrc.status -e mrc.malformed -e _ws.lua.error \
		-e mrc.not_mrc >"$fields"
}

# A 1 MiB transfer, captured on h2's eth0.
case_capture() {
	local tcpdump_pid
	# Packet-buffered and immediate, so that a marker seen in the file means
	# everything before it is there too.  The snapshot length sizes the slots
	# of the capture ring: the default (256 KiB) leaves room for a few dozen
	# packets only, and tcpdump under TCG falls behind a burst.
	bg_start capture ip netns exec "$XFER_NS_B" tcpdump -i "$XFER_NETDEV" -n \
		-s "$SNAPLEN" -B "$CAPTURE_BUFFER_KIB" --immediate-mode -U -w "$pcap" \
		"udp port $MRC_DEFAULT_UDP_PORT or icmp"
	wait_until "tcpdump listening" "$WAIT_TIMEOUT" capturing capture

	xfer capture "$XFER_SECS" --size "$SIZE" --iters 1 --psn "$FIRST_PSN"

	# A ping after the transfer: once tcpdump has written it, it has written
	# every packet of the transfer.
	run ip netns exec "$XFER_NS_A" ping -c 1 -W 5 "$XFER_SERVER_IP"
	wait_until "the marker ping in the capture" "$CAPTURE_SECS" marker_written "$pcap"
	tcpdump_pid=$(ps -o pid= --ppid "${BG_PID[capture]}" | tr -d ' ')
	[ -n "$tcpdump_pid" ] || fail "tcpdump is not running"
	kill -INT "$tcpdump_pid"
	bg_wait capture "$CAPTURE_SECS" || fail "tcpdump did not stop"
	sed 's/^/    /' "$capture_out"
	grep -q '^0 packets dropped by kernel' "$capture_out" ||
		fail "tcpdump dropped packets: the capture is incomplete"
}

# Decoding with tshark -X lua_script:mrc.lua; the summary of one pass.
case_decode() {
	bounded "$TSHARK_SECS" transfer_fields || fail "tshark did not finish in ${TSHARK_SECS}s"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		bounded_output
		fail "tshark exit status $BOUNDED_RC"
	fi

	# One pass over the frames; prints "key value" lines and "bad: ..." lines.
	summary=$MRC_TMP/summary
	awk -F'|' -v client="$XFER_HOSTS_IP_A" -v server="$XFER_HOSTS_IP_B" \
		-v op_first="$OP_DATA_FIRST" -v op_last="$OP_DATA_LAST" \
		-v op_ack="$OP_ACK" -v op_sack="$OP_SACK" \
		-v ev_min="$EV_MIN" -v ev_max="$EV_MAX" \
		-v dscp_data="$DSCP_DATA" -v dscp_retx="$DSCP_RETX" \
		-v dscp_ctl="$DSCP_CONTROL" -v ect0="$ECN_ECT0" -v not_ect="$ECN_NOT_ECT" \
		-v icrc_good="$ICRC_GOOD" '
		function bad(what) { nbad++; if (nbad <= 10) print "bad: frame " $1 ": " what }
		{
			frames++
			if ($10 != "" || $11 != "" || $12 != "" || $4 == "") {
				bad("not decoded as MRC (malformed \"" $10 "\", lua error \"" $11 "\", not_mrc \"" $12 "\")")
				next
			}
			if ($9 != icrc_good) bad("ICRC status " $9)
			op = strtonum_hex($4)
			if (op >= op_first && op <= op_last) {
				data++
				if ($2 != client) bad("data from " $2)
				if ($3 < ev_min || $3 > ev_max) bad("data source port " $3)
				ports[$3] = 1
				psns[$5]++
				if ($6 == 1) { rtx++; want_dscp = dscp_retx } else want_dscp = dscp_data
				if ($7 != want_dscp) bad("data rtx=" $6 " DSCP " $7)
				if ($8 != ect0) bad("data ECN " $8)
			} else if (op == op_sack || op == op_ack) {
				if (op == op_sack) sacks++; else acks++
				if ($2 != server) bad("control from " $2)
				if ($3 < ev_min || $3 > ev_max) bad("control source port " $3)
				if ($7 != dscp_ctl) bad("control opcode " $4 " DSCP " $7)
				if ($8 != not_ect) bad("control ECN " $8)
			} else {
				other++
			}
		}
		function strtonum_hex(s,   i, c, v) {
			s = tolower(s); sub(/^0x/, "", s); v = 0
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", substr(s, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		END {
			np = 0; for (p in ports) np++
			nd = 0; for (p in psns) nd++
			print "frames", frames + 0
			print "data", data + 0
			print "retransmitted", rtx + 0
			print "sacks", sacks + 0
			print "acks", acks + 0
			print "other", other + 0
			print "ports", np
			print "distinct_psns", nd
			print "bad_count", nbad + 0
		}' "$fields" >"$summary"
	# The data PSNs, sorted, one a line.
	awk -F'|' '
		{ s = tolower($4); sub(/^0x/, "", s)
		  if (s ~ /^c[6-9ab]$/) print $5 }' "$fields" | sort -n -u >"$MRC_TMP/psns"
}

# summary_load: the decode case's summary into S[], its bad lines shown.
declare -A S=()
summary_load() {
	local key value
	S=()
	while read -r key value; do
		[ "$key" = bad: ] && continue
		S[$key]=$value
	done <"$summary"
	grep '^bad:' "$summary" | sed 's/^/    /' || true
	log "frames ${S[frames]}: data ${S[data]} (${S[retransmitted]} retransmitted)," \
		"SACKs ${S[sacks]}, ACKs ${S[acks]}, other MRC ${S[other]};" \
		"${S[ports]} data source ports, ${S[distinct_psns]} distinct PSNs"
}

# Every frame decodes as MRC with a good ICRC, from the right host, with
# the DSCP and ECN of its kind and an EV source port.
case_frames() {
	summary_load
	assert_eq "frames that fail a check" 0 "${S[bad_count]}"
}

# xfer_packets: the transfer's data packets at its path MTU, into PACKETS.
PACKETS=
xfer_packets() {
	local mtu
	mtu=$(grep -o 'mtu [0-9]*' "$XFER_CLIENT_OUT" | head -n1 | cut -d' ' -f2)
	[ -n "$mtu" ] || fail "no MTU in mrc_xfer's output"
	PACKETS=$(((SIZE + mtu - 1) / mtu))
}

# The data is spread over EV_WANT source ports (or one per packet).
case_ev_ports() {
	local want_ports
	summary_load
	xfer_packets
	want_ports=$((PACKETS < EV_WANT ? PACKETS : EV_WANT))
	[ "${S[ports]}" -ge "$want_ports" ] ||
		fail "${S[ports]} distinct data source ports, want at least $want_ports"
}

case_control() {
	summary_load
	[ "${S[sacks]}" -gt 0 ] || fail "no SACK in the capture"
	[ "${S[acks]}" -gt 0 ] || fail "no ACK in the capture"
}

# The capture holds exactly the transfer's PSNs.
case_psns() {
	local packets
	xfer_packets
	packets=$PACKETS
	seq "$FIRST_PSN" $((FIRST_PSN + packets - 1)) >"$MRC_TMP/want_psns"
	if ! cmp -s "$MRC_TMP/want_psns" "$MRC_TMP/psns"; then
		log "data PSNs differ from $FIRST_PSN..$((FIRST_PSN + packets - 1)) (want < > got):"
		diff "$MRC_TMP/want_psns" "$MRC_TMP/psns" | head -n 20 | sed 's/^/    /'
		fail "the capture does not hold exactly the transfer's $packets PSNs"
	fi
	log "ok: every PSN $FIRST_PSN..$((FIRST_PSN + packets - 1)) captured"
}

# One capture, decoded once: the checks are the decode case's.
mrc_case capture case_capture
mrc_case decode case_decode --after capture
mrc_case frames case_frames --after decode
mrc_case ev_ports case_ev_ports --after decode
mrc_case control case_control --after decode
mrc_case psns case_psns --after decode
mrc_cases_args "$@"

mrc_test_init
for tool in tshark tcpdump; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
# Hermetic: no user preferences, and a writable home for tshark.
export HOME=$MRC_TMP

pcap=$MRC_TMP/xfer.pcap
capture_out=$(bg_out capture)
fields=$MRC_TMP/fields
summary=$MRC_TMP/summary
xfer_fabric hosts
mrc_cases_run
