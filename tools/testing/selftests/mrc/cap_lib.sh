# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Packet captures and their decoding, for the tests that check the wire
# (ev_test.sh, path_test.sh, failover_test.sh, forge_test.sh, ep_test.sh,
# semantic_test.sh, wireshark_test.sh).  Source lib.sh first, and
# xfer_lib.sh before it for marker_ping and caps_stop.
#
#   cap_start NAME NS DEV FILTER   tcpdump of FILTER (and of the marker
#                             pings, ICMP, unless CAP_MARKERS=0) on DEV of
#                             NS, background job cap.NAME, into NAME.pcap
#   marker_ping, caps_stop NAME...  a marker h1 -> h2; stop the captures
#                             once each has written it (cap_end)
#   cap_halt NAME, cap_end NAME     stop a capture (cap_end: not_ok if it
#                             dropped packets)
#   ws_fields PCAP FILTER ARG...    tshark with the project's dissector:
#                             one '|'-separated line per frame of FILTER
#   decode NAME CAP...        the captures merged, decoded into NAME.fields
#                             (TSHARK_FIELDS, TSHARK_FILTER, AWK_LIB);
#                             every MRC frame decodes with a good ICRC
#   pcap CMD ARG...           mrc_pcap.py, bounded
#
# The test may set, after sourcing: SNAPLEN, CAPTURE_BUFFER_KIB and
# CAP_TCPDUMP_OPTS (tcpdump's), CAP_MARKERS, CAPTURE_SECS (for a marker to
# reach a capture), PING_WAIT, TSHARK_SECS, PCAP_SECS, PYTHON.

# Defaults for the tests that source this file.
# shellcheck disable=SC2034
{
WS_DIR=$MRC_REPO/tools/wireshark
MRC_PCAP=$MRC_SELFTEST_DIR/mrc_pcap.py
SNAPLEN=0		# tcpdump's default: whole packets
CAPTURE_BUFFER_KIB=16384
CAP_TCPDUMP_OPTS=()
CAP_MARKERS=1
CAPTURE_SECS=60
PING_WAIT=5
TSHARK_SECS=240
TSHARK_FILTER="udp.port == $MRC_DEFAULT_UDP_PORT"
}

# --- capturing ----------------------------------------------------------------

# A test marks the end of what a capture must hold with pings it counts in
# MARKERS (its capture filters let ICMP through); case_begin resets it.
MARKERS=0

# capturing JOB: the tcpdump of background job JOB is listening.
capturing() { grep -q 'listening on' "$(bg_out "$1")"; }

# cap_start NAME NS DEV FILTER: tcpdump of FILTER (or ICMP, the markers,
# unless CAP_MARKERS=0) on DEV of NS into NAME.pcap, background job
# cap.NAME.  Packet-buffered and immediate, so that a marker seen in the
# file means everything before it is there too.  The snapshot length sizes
# the slots of the capture ring; a large buffer keeps a TCG tcpdump from
# dropping.
cap_start() {
	local name=$1 ns=$2 dev=$3 filter=$4
	[ "$CAP_MARKERS" = 0 ] || filter="($filter) or icmp"
	bg_start "cap.$name" ip netns exec "$ns" tcpdump -i "$dev" -n \
		-s "$SNAPLEN" -B "$CAPTURE_BUFFER_KIB" --immediate-mode -U \
		"${CAP_TCPDUMP_OPTS[@]}" -w "$MRC_TMP/$name.pcap" "$filter"
	wait_until "tcpdump listening on $ns $dev" "$WAIT_TIMEOUT" \
		capturing "cap.$name"
}

# markers_in PCAP: the file holds every marker ping sent so far.
markers_in() {
	local n
	bounded "$CMD_TIMEOUT" tcpdump -n -r "$1" 'icmp[icmptype] = icmp-echo' ||
		return 1
	n=$(grep -c 'ICMP echo request' "$BOUNDED_OUT" || true)
	[ "$n" -ge "$MARKERS" ]
}

# marker_written PCAP: the file holds a marker ping (one at least).
marker_written() {
	bounded "$CMD_TIMEOUT" tcpdump -n -r "$1" icmp &&
		grep -q 'ICMP echo request' "$BOUNDED_OUT"
}

# marker_ping: an ICMP echo request h1 -> h2 (xfer_lib.sh's fabric); it
# passes h1's and h2's eth0.
marker_ping() {
	run ip netns exec "$XFER_NS_A" ping -c 1 -W "$PING_WAIT" "$XFER_SERVER_IP"
	MARKERS=$((MARKERS + 1))
}

# cap_halt NAME: stop a capture whose completeness does not matter (a
# sample of a flow: which ports it uses).
cap_halt() {
	local name=$1 pid
	pid=$(ps -o pid= --ppid "${BG_PID[cap.$name]}" | tr -d ' ')
	[ -n "$pid" ] || fail "tcpdump of $name is not running"
	kill -INT "$pid"
	bg_wait "cap.$name" "$CMD_TIMEOUT" || fail "tcpdump of $name did not stop"
}

# cap_end NAME: stop tcpdump, the background job cap.NAME (started through
# ip netns exec); ok if it dropped no packet, not_ok (untrustworthy) if it did.
cap_end() {
	local name=$1 out
	cap_halt "$name"
	out=$(bg_out "cap.$name")
	if grep -q '^0 packets dropped by kernel' "$out"; then
		ok "capture $name complete ($(grep 'captured' "$out"))"
	else
		not_ok "capture $name dropped packets: $(tr '\n' ' ' <"$out")"
	fi
}

# caps_stop NAME...: one more marker, then stop each capture once it has
# written it; a capture that dropped packets is not trustworthy.
caps_stop() {
	local name
	marker_ping
	for name in "$@"; do
		wait_until "the marker pings in capture $name" "$CAPTURE_SECS" \
			markers_in "$MRC_TMP/$name.pcap"
		cap_end "$name"
	done
}

# --- decoding -------------------------------------------------------------------

# ws_fields PCAP FILTER ARG...: tshark with the project's dissector
# (tools/wireshark/mrc.lua) on PCAP, one '|'-separated line per frame that
# matches the display filter FILTER; ARG... are tshark's, the fields
# (-e FIELD) among them.
ws_fields() {
	local pcap=$1 filter=$2
	shift 2
	tshark -n -r "$pcap" -X lua_script:"$WS_DIR/mrc.lua" -Y "$filter" \
		-T fields -E separator='|' "$@"
}

# tshark_fields PCAP OUT: the frames of TSHARK_FILTER, the fields
# TSHARK_FIELDS (the first occurrence of each) into OUT.
tshark_fields() {
	local -a args=()
	local f
	for f in "${TSHARK_FIELDS[@]}"; do
		args+=(-e "$f")
	done
	ws_fields "$1" "$TSHARK_FILTER" -E occurrence=f "${args[@]}" >"$2"
}

# decode NAME CAP...: the captures, merged (frame.interface_id = position
# in the list), decoded once into $MRC_TMP/NAME.fields (FIELDS); every MRC
# frame must decode without error and with a good ICRC.  The test's
# AWK_LIB names the columns of TSHARK_FIELDS: C_SPORT, C_ICRC, C_MALF,
# C_LUAERR, and sets op (the opcode, -1 if none).
FIELDS=
decode() {
	local name=$1 merged=$MRC_TMP/$1.pcapng cap bad t0
	local -a files=()
	shift
	for cap in "$@"; do
		files+=("$MRC_TMP/$cap.pcap")
	done
	run mergecap -a -I none -F pcapng -w "$merged" "${files[@]}"
	FIELDS=$MRC_TMP/$name.fields
	t0=$SECONDS
	bounded "$TSHARK_SECS" tshark_fields "$merged" "$FIELDS" ||
		fail "tshark did not finish in ${TSHARK_SECS}s"
	log "    decoded $* in $((SECONDS - t0)) s"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		bounded_output
		fail "tshark exit status $BOUNDED_RC"
	fi
	# shellcheck disable=SC2016 # awk code
	bad=$(awk "$AWK_LIB"'
		$C_SPORT != "" {
			n++
			if (op < 0 || $C_ICRC != 1 || $C_MALF != "" || $C_LUAERR != "")
				bad++
		}
		END { print n + 0, bad + 0 }' "$FIELDS")
	if [ "${bad#* }" = 0 ] && [ "${bad% *}" -gt 0 ]; then
		ok "${bad% *} MRC frames in $* decode with a good ICRC"
	else
		not_ok "MRC frames in $*: ${bad#* } of ${bad% *} malformed or with a bad ICRC"
	fi
}

# pcap CMD ARG...: mrc_pcap.py CMD, bounded by PCAP_SECS (default
# CMD_TIMEOUT); its output in BOUNDED_OUT; fails the test if it fails.
pcap() {
	local secs=${PCAP_SECS:-$CMD_TIMEOUT}
	bounded "$secs" "${PYTHON:-python3}" "$MRC_PCAP" "$@" ||
		fail "mrc_pcap.py $1 did not finish in ${secs}s"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		bounded_output
		fail "mrc_pcap.py $1: exit $BOUNDED_RC"
	fi
}
