#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Decode gen_pcap.py's crafted packets with tools/wireshark/mrc.lua in tshark
# and compare the fields with the values gen_pcap.py encoded.
# Exit 0: all match; 1: a mismatch; 4: tshark (with Lua) is missing (skip).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lua=$here/../mrc.lua
gen=$here/gen_pcap.py
py=/usr/bin/python3

if ! command -v tshark >/dev/null; then
	echo "SKIP: tshark not installed"
	exit 4
fi
if ! tshark -v 2>/dev/null | grep -q "with Lua"; then
	echo "SKIP: tshark without Lua"
	exit 4
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$gen" "$tmp/t.pcap"

failed=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failed=1; }

# tshark over a capture with the dissector; fields separated by '|'.
ts() {
	local pcap=$1
	shift
	tshark -n -r "$pcap" -X lua_script:"$lua" -E separator='|' "$@" 2>"$tmp/err"
	if grep -v '^Running as user' "$tmp/err" | grep -q .; then
		cat "$tmp/err" >&2
		return 1
	fi
}

# expect NAME TSHARK-ARGS... <<EOF expected lines EOF
expect() {
	local name=$1
	shift
	cat >"$tmp/want"
	if ! ts "$tmp/t.pcap" "$@" >"$tmp/got"; then
		fail "$name (tshark failed)"
	elif diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
		pass "$name"
	else
		fail "$name"
		cat "$tmp/diff"
	fi
}

# ---- every frame: BTH, IP class, lengths, verdicts
expect "BTH and verdicts" -Y mrc -T fields \
	-e frame.number -e udp.srcport -e mrc.opcode -e mrc.dqpn -e mrc.psn \
	-e mrc.pkey -e mrc.padcnt -e mrc.ackreq -e mrc.rtx -e mrc.tsh \
	-e ip.dsfield.dscp -e ipv6.tclass.dscp -e mrc.dscp_class \
	-e mrc.payload_len -e mrc.icrc.status -e mrc.not_mrc -e mrc.trimmed \
	-e mrc.malformed <<'EOF'
1|49153|0xc6|0x000011|256|0xffff|0|0|0|0|8||TRIMMABLE|1024|1|||
2|49154|0xc7|0x000011|257|0xffff|0|0|0|1|8||TRIMMABLE|1024|1|||
3|49155|0xc8|0x000011|258|0xffff|3|1|0|0|8||TRIMMABLE|953|1|||
4|49317|0xcb|0x000011|259|0xffff|3|0|0|1|8||TRIMMABLE|5|1|||
5|49318|0xcb|0x000011|259|0xffff|3|0|1|0||16|TRIMMABLE_RETX|5|1|||
6|49319|0xca|0x000011|260|0xffff|0|0|0|0|8||TRIMMABLE|0|1|||
7|49320|0xc9|0x000011|261|0xffff|2|0|0|1|8||TRIMMABLE|6|1|||
8|57345|0xdc|0x000012|259|0xffff|0|0|0|0|46||CONTROL||1|||
9|57346|0xdc|0x000012|261|0xffff|0|0|0|0|46||CONTROL||1|||
10|57347|0xdd|0x000012|4608|0xffff|0|0|0|0|46||CONTROL||1|||
11|49329|0xde|0x000011|66|0xffff|0|0|0|0|8||TRIMMABLE||1|||
12|57348|0xd1|0x000012|261|0xffff|0|0|0|0|46||CONTROL||1|||
13|57349|0xd1|0x000012|262|0xffff|0|0|0|0|46||CONTROL||1|||
14|49344|0x0a|0x000011|512|0xffff|0|0|0|0|0||NO_TRIM|||1||
15|49345|||||||||8||TRIMMABLE|||||BTH truncated (8 of 12 bytes)
16|49346|0xca|0x000011|769|0xffff|0|0|0|0|8||TRIMMABLE|||||RETH truncated (10 of 16 bytes)
17|57350|0xdc|0x000012|259|0xffff|0|0|0|0|46||CONTROL|||||CC_STATE truncated (0 of 8 bytes)
18|49347|0xca|0x000011|770|0xffff|3|0|0|0|8||TRIMMABLE|||||5 bytes left for PadCnt 3 + ICRC
19|49348|0xc6|0x000011|771|0xffff|0|0|0|1|24||TRIMMED||||1|
20|49349|0xd8|0x000002|7|0xffff|0|0|0|0|46||CONTROL||1|||
21|49350|0xc0|0x000011|772|0xffff|0|0|0|0|8||TRIMMABLE|||||
23|49352|0xca|0x000011|774|0xffff|0|0|0|0|8||TRIMMABLE|4|2|||
24|49353|0xcb|0x000011|775|0xffff|0|0|0|0|26||TRIMMED_LASTHOP||||1|
25|49360|0xd8|0x000002|256|0xffff|0|0|0|0||46|CONTROL||1|||
26|49360|0xd9|0x000002|256|0xffff|0|0|0|0||46|CONTROL||1|||
EOF

# ---- request headers: METH, TSETH, RETH, ImmDt, ICRC
expect "METH TSETH RETH ImmDt ICRC" \
	-Y 'mrc.opcode >= 0xc6 && mrc.opcode <= 0xcb' -T fields \
	-e frame.number -e mrc.meth.rqmsn -e mrc.meth.msn -e mrc.tseth.ts \
	-e mrc.tseth.tsr -e mrc.tseth.ftype -e mrc.reth.va -e mrc.reth.rkey \
	-e mrc.reth.dmalen -e mrc.imm -e mrc.icrc <<'EOF'
1|0|1||||0x00007f3a00001000|0x00012a05|3001||0x0df7c97c
2|0|1|65534|0|1|0x00007f3a00001400|0x00012a05|3001||0x7ffd727d
3|0|1||||0x00007f3a00001800|0x00012a05|3001||0x61621331
4|1|2|4660|0|1|0x00007f3a00002000|0x00012a05|5|0xcafef00d|0xa60e32d1
5|1|2||||0x00007f3a00002000|0x00012a05|5|0xcafef00d|0x5d9a23d7
6|1|3||||0x0000000000000000|0x00000000|0||0x0d99f3cc
7|2|4|7|0|1|0x00007f3a00001400|0x00012a05|1030|0x01020304|0x668ac9ee
16|0|5||||||||
18|0|6||||0x00007f3a00001000|0x00012a05|1||
19|0|7|257|0|1|0x00007f3a00001000|0x00012a05|8192||
23|2|9||||0x00007f3a00001000|0x00012a05|4||0x26e5f71c
24|3|10||||0x00007f3a00001000|0x00012a05|4||
EOF

# ---- SACK: SETH + CC_STATE
expect "SETH CC_STATE" -Y 'mrc.opcode == 0xdc' -T fields \
	-e frame.number -e mrc.seth.m -e mrc.seth.pr -e mrc.seth.ack_psn_off \
	-e mrc.seth.ack_psn -e mrc.seth.probe_id -e mrc.seth.entropy \
	-e mrc.seth.cack_psn -e mrc.seth.mpr -e mrc.seth.sack_off \
	-e mrc.seth.sack_base -e mrc.seth.bitmap -e mrc.seth.sacked \
	-e mrc.cc.ts -e mrc.cc.ooo_count -e mrc.cc.rc -e mrc.cc.pen \
	-e mrc.cc.rcvd_bytes <<'EOF'
8|1|0|0|259||0xc0a50000|259|32|1|260|0x0000000000000006|261,262|4660|2|0|0|16
9|1|1|66||0x0042|0xc0b10000|261|32|-2|259|0x8000000000000001|259,322|13107|0|1|5|11259375
17|0|0|0|259||0xc0a50000|259|32|1|260|0x0000000000000000||||||
EOF

# ---- NACK, PROBE, ACK/NAK, endpoint request
expect "NETH PETH AETH ERTH" -Y 'mrc.opcode >= 0xd1 && mrc.opcode != 0xdc' \
	-T fields -e frame.number -e mrc.opcode -e mrc.neth.reason \
	-e mrc.neth.entropy -e mrc.neth.psn -e mrc.neth.ts -e mrc.peth.probe_id \
	-e mrc.peth.ts -e mrc.req_id -e mrc.aeth.syndrome -e mrc.aeth.msn \
	-e mrc.erth.port_status_mask <<'EOF'
10|0xdd|0x0b|0xc0b00000|4608|8738||||||
11|0xde|||||0x0042|13107|0x0042|||
12|0xd1||||||||0x1f|4|
13|0xd1||||||||0x62|4|
20|0xd8|||||||0x0007|||0x00000024
25|0xd8|||||||0x0100|||0x00000000
26|0xd9|||||||0x0100|||
EOF

# ---- endpoint operations: ERTH and EETH
expect "ERTH" -Y 'mrc.opcode == 0xd8' -T fields -e frame.number -e mrc.req_id \
	-e mrc.erth.op -e mrc.erth.vendor -e mrc.erth.port_status_mask \
	-e mrc.erth.ts -e mrc.erth.tsr -e mrc.erth.ftype <<'EOF'
20|0x0007|0|0x00|0x00000024|291|1|1
25|0x0100|1|0x00|0x00000000|1110|1|1
EOF
expect "EETH" -Y 'mrc.opcode == 0xd9' -T fields -e frame.number -e mrc.req_id \
	-e mrc.eeth.sv -e mrc.eeth.op -e mrc.eeth.port_status_mask \
	-e mrc.eeth.entropy -e mrc.eeth.req_port -e mrc.eeth.req_ts \
	-e mrc.eeth.req_tsr -e mrc.eeth.req_ftype -e mrc.eeth.svc_time <<'EOF'
26|0x0100|1|1|0x00000000|0xc0d00000|1|1110|1|1|1500
EOF

# ---- the command line of the brief, verbatim field list
expect "example command" -Y 'mrc && frame.number <= 5' -T fields \
	-e udp.srcport -e mrc.opcode -e mrc.psn -e mrc.rtx -e ip.dsfield.dscp <<'EOF'
49153|0xc6|256|0|8
49154|0xc7|257|0|8
49155|0xc8|258|0|8
49317|0xcb|259|0|8
49318|0xcb|259|1|
EOF

# ---- our dissector owns 4791; a non-MRC opcode goes to RoCE; the rest not
expect "RoCE gets only the RC frame" -Y infiniband -T fields \
	-e frame.number -e infiniband.bth.opcode <<'EOF'
14|10
EOF
expect "no hand-off when disabled" -o mrc.handoff:FALSE -Y infiniband \
	-T fields -e frame.number <<'EOF'
EOF
n=$(tshark -n -r "$tmp/t.pcap" -Y infiniband 2>/dev/null | wc -l)
if [ "$n" -ge 20 ]; then
	pass "without the script RoCE decodes 4791 ($n frames)"
else
	fail "without the script RoCE decodes 4791 ($n frames)"
fi

# ---- port preference
expect "udp_port preference" -o mrc.udp_port:5000 -Y mrc -T fields \
	-e frame.number -e udp.dstport -e mrc.opcode -e mrc.psn \
	-e mrc.payload_len -e mrc.icrc.status <<'EOF'
22|5000|0xca|773|4|1
EOF

# ---- experts
expect "expert: malformed" -Y mrc.expert.malformed -T fields \
	-e frame.number <<'EOF'
15
16
17
18
EOF
expect "expert: bad ICRC" -Y mrc.expert.icrc_bad -T fields \
	-e frame.number -e mrc.icrc -e mrc.icrc.computed <<'EOF'
23|0x26e5f71c|0x26e5f71d
EOF
expect "expert: undefined opcode" -Y mrc.expert.unknown_opcode -T fields \
	-e frame.number <<'EOF'
21
EOF
expect "no Lua errors" -Y '_ws.lua.error' -T fields -e frame.number <<'EOF'
EOF

# ---- every cut of ten frames: malformed exactly where gen_pcap.py says
"$py" "$gen" --cuts "$tmp/cuts.pcap" | tr ' ' '\n' | grep . >"$tmp/want"
if ts "$tmp/cuts.pcap" -Y mrc.malformed -T fields -e frame.number >"$tmp/got" &&
   diff -q "$tmp/want" "$tmp/got" >/dev/null; then
	pass "cuts: $(wc -l <"$tmp/want") malformed frames as expected"
else
	fail "cuts: malformed frames differ"
	diff -u "$tmp/want" "$tmp/got" | head -20 || true
fi
if ts "$tmp/cuts.pcap" -Y '_ws.lua.error || !mrc' -T fields -e frame.number \
	>"$tmp/got" && [ ! -s "$tmp/got" ]; then
	pass "cuts: no Lua error"
else
	fail "cuts: Lua errors in frames $(tr '\n' ' ' <"$tmp/got")"
fi

# ---- a capture cut by the snapshot length is not malformed
"$py" "$gen" --snaplen 60 "$tmp/snap.pcap"
if ts "$tmp/snap.pcap" -Y 'mrc.malformed || _ws.lua.error' -T fields \
	-e frame.number >"$tmp/got" && [ "$(tr '\n' ' ' <"$tmp/got")" = "15 16 " ]; then
	pass "snaplen 60: only the really short frames are malformed"
else
	fail "snaplen 60: frames $(tr '\n' ' ' <"$tmp/got")"
fi

if [ "$failed" -ne 0 ]; then
	echo "check.sh: FAILED"
	exit 1
fi
echo "check.sh: all passed"
