#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The OCP MRC API examples of tools/mrc/examples/, as a user of the
# installed library builds and runs them:
#
#   build  `cc PROG.c -lmrc -libverbs` for each, against what `make
#          install` put in /usr/include and the system's library directory,
#          nothing of the repository on the include path
#   sweep  mrc_bw between two namespace hosts (scripts/fabric hosts): the
#          server on h2, the client on h1, every size from 1 byte doubling
#          to SWEEP_MAX, ITERS WRITEs each; the server checks every byte of
#          each size and its immediate, the client prints a line per size:
#          all of them must read "intact", both exit 0, and h2's device
#          received at least the data packets the WRITEs need
#   walk   mrc_qp_walk on h1's device with an EV profile (generated, UDP
#          source ports) and a CC profile (NSCC) the controller made: its
#          WRITE arrives intact, it reports the attributes it set, and
#          while it holds its QPs the kernel shows both bound to those
#          profiles, explicitly (mrcctl qp show); the profiles count them
#   ctl_gen    mrc_ctl_ev gen on h1's device: a generated EV profile
#              ONLINE with the EVs past the links in use denied; while it
#              holds, mrcctl shows the profile ONLINE with the count it
#              printed and exactly the EVs it denied DENIED; then both its
#              profiles are back in INIT
#   ctl_exp    mrc_ctl_ev exp: an explicit profile filled, 13..42 denied
#              and replaced by value + 128 while ONLINE; mrcctl shows
#              those values GOOD, and none of the old ones
#   ctl_events mrc_ctl_ev events on the walk's EV profile while mrcctl
#              denies and allows one of its EVs: exactly one event (GOOD)
#              of that EV, no drops
#   ctl_probe  mrc_ctl_ev probe from h1 to h2 on two EVs: both answered
#              with an RTT; to an address nobody holds: a timeout line
#
# Runs as root in a test guest, after `make -C <repo> install`.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
EXAMPLES_DIR=$MRC_REPO/tools/mrc/examples
EXAMPLES=(mrc_bw mrc_qp_walk mrc_ctl_ev)
SWEEP_MAX=$((1024 * 1024))
ITERS=8
DEPTH=16
PATH_MTU=1024		# what mrc_bw connects with
BW_PORT=18531
BUILD_SECS=$((120 * TIME_SCALE))
SWEEP_SECS=$((300 * TIME_SCALE))
BW=
WALK=
CTL=
# What mrc_ctl_ev gen and exp make (the OCP walk-throughs' ids).
GEN_FMT_ID=13
GEN_EVP_ID=1
EXP_EVP_ID=2
EXP_DENY_FIRST=13
EXP_DENY_LAST=42
EXP_ADD=128
# How long probe answers may take: the OCP example's 2 ms is a hardware
# round trip; a TCG guest's vCPU is sometimes away for longer.
PROBE_WAIT_MS=1000
PROBE_EVS=(0x5678 0x9abc)	# no flow-label half: IPv4
PROBE_ABSENT_IP=192.0.2.1	# TEST-NET-1: nobody answers
# The walk's profiles on h1's device: a UDP-mode format, a generated EV
# profile of EV_COUNT source ports from EV_BASE, an NSCC CC profile.
FMT_ID=7
EVP_ID=7
CC_ID=9
EV_COUNT=8
EV_BASE=0xc100
# NSCC's thirteen parameters, as mrcctl.rst's example gives them.
NSCC=(disable-qa 0 adjust-bytes-threshold 32768 adjust-period-threshold 20000
	base-rtt 10000 eta 4096 "fi" 8192 fi-scale 250000 gamma 800000
	max-md-jump 500000 max-cwnd 1048576 qa-gate 3 qa-threshold 40000
	target-delay 20000)
WALK_MPR=8		# what mrc_qp_walk sets
WALK_TIMEOUT=8

case_build() {
	local prog
	for prog in "${EXAMPLES[@]}"; do
		# An include path of nothing ours: only the installed headers.
		bounded "$BUILD_SECS" cc -std=c11 -D_GNU_SOURCE -O2 -Wall \
			-Wextra -Werror -o "$MRC_TMP/$prog" \
			"$EXAMPLES_DIR/$prog.c" -lmrc -libverbs ||
			fail "cc $prog.c did not finish in ${BUILD_SECS}s"
		if [ "$BOUNDED_RC" != 0 ]; then
			bounded_output
			fail "cc $prog.c -lmrc -libverbs failed ($BOUNDED_RC)"
		fi
		ok "$prog built with the installed <mrc.h> and -lmrc"
		bounded 30 "$MRC_TMP/$prog" --help || fail "$prog --help hangs"
		check "$prog --help exits 0" [ "$BOUNDED_RC" = 0 ]
	done
	BW=$MRC_TMP/mrc_bw
	WALK=$MRC_TMP/mrc_qp_walk
	CTL=$MRC_TMP/mrc_ctl_ev
}

# sizes_sent MAX: the data packets 1, 2, 4 ... MAX bytes x ITERS need.
sizes_sent() {
	local size=1 n=0
	while [ "$size" -le "$1" ]; do
		n=$((n + ITERS * ((size + PATH_MTU - 1) / PATH_MTU)))
		size=$((size * 2))
	done
	printf '%s\n' "$n"
}

case_sweep() {
	local client server lines intact want rx
	[ -x "$BW" ] || fail "needs the build case"
	counters_snap sweep.0
	bg_start bw.server ip netns exec "$XFER_NS_B" "$BW" -d "$XFER_DEV_B" \
		-g "$XFER_GID_B" -p "$BW_PORT" -M "$SWEEP_MAX" -n "$ITERS" \
		-w "$DEPTH"
	bg_start bw.client ip netns exec "$XFER_NS_A" "$BW" -d "$XFER_DEV_A" \
		-g "$XFER_GID_A" -p "$BW_PORT" -M "$SWEEP_MAX" -n "$ITERS" \
		-w "$DEPTH" "$XFER_SERVER_IP"
	client=$(bg_out bw.client)
	server=$(bg_out bw.server)
	bg_wait bw.client "$SWEEP_SECS" || {
		sed 's/^/    client: /' "$client"
		fail "the client still runs after ${SWEEP_SECS}s"
	}
	bg_wait bw.server 30 || fail "the server still runs after the client"
	counters_snap sweep.1
	sed 's/^/    /' "$client"
	[ ! -s "$server" ] || sed 's/^/    server: /' "$server"
	expect_eq "client exit status" 0 "$(bg_rc bw.client)"
	expect_eq "server exit status" 0 "$(bg_rc bw.server)"
	# 1 .. SWEEP_MAX doubling: log2(SWEEP_MAX) + 1 sizes.
	lines=0
	for ((want = SWEEP_MAX; want; want /= 2)); do lines=$((lines + 1)); done
	intact=$(awk '$1 ~ /^[0-9]+$/ && $2 == '"$ITERS"' && $5 == "intact"' \
		"$client" | wc -l)
	expect_eq "sizes received intact" "$lines" "$intact"
	want=$(sizes_sent "$SWEEP_MAX")
	rx=$(counter_delta sweep.0 sweep.1 "$XFER_DEV_B" rx_data_pkts)
	expect_num "$XFER_DEV_B rx_data_pkts (the WRITEs need $want)" "$rx" -ge "$want"
}

mrcctl_a() { ip netns exec "$XFER_NS_A" "$MRCCTL" "$@"; }

walk_profiles() {
	run mrcctl_a fmt set "$XFER_DEV_A" id "$FMT_ID" state offline mode udp field 16
	run mrcctl_a fmt set "$XFER_DEV_A" id "$FMT_ID" state online
	run mrcctl_a evp set "$XFER_DEV_A" id "$EVP_ID" state offline mode gen \
		fmt "$FMT_ID" count "$EV_COUNT" field width 16 init "$EV_BASE" \
		min 0 max $((EV_COUNT - 1)) mask 0xff
	run mrcctl_a evp set "$XFER_DEV_A" id "$EVP_ID" min-active 1 \
		event-mask assumed-bad state online
	run mrcctl_a cc set "$XFER_DEV_A" id "$CC_ID" state offline algorithm uet-1.0-nscc \
		"${NSCC[@]}"
	run mrcctl_a cc set "$XFER_DEV_A" id "$CC_ID" state online
}

# walk_profiles_made: the walk's EV profile is ONLINE on h1's device.
walk_profiles_made() {
	bounded "$CMD_TIMEOUT" mrcctl_a -j evp show "$XFER_DEV_A" id "$EVP_ID" ||
		return 1
	[ "$BOUNDED_RC" = 0 ] &&
		jq -e '[.. | objects | select(has("state"))][0].state == "online"' \
			"$BOUNDED_OUT" >/dev/null
}

# walk_bound QPN: mrcctl shows QPN bound to the walk's profiles, explicitly.
walk_bound() {
	bounded "$CMD_TIMEOUT" mrcctl_a -j qp show "$XFER_DEV_A/$1" ||
		fail "mrcctl qp show did not finish"
	jq -e --argjson ev "$EVP_ID" --argjson cc "$CC_ID" \
		'[.. | objects | select(has("qpn"))][0] |
		 .["ev-profile-id"] == $ev and .["cc-profile-id"] == $cc and
		 .explicit == true' "$BOUNDED_OUT" >/dev/null
}

# walk_ready OUT: mrc_qp_walk printed "ready"; a failure if it ended first.
walk_ready() {
	grep -q '^ready ' "$1" && return 0
	if bg_done walk; then
		sed 's/^/    /' "$1"
		fail "mrc_qp_walk ended (status $(bg_rc walk)) before it was ready"
	fi
	return 1
}

# evp_qp_count: the walk's EV profile's qp-count, as mrcctl shows it.
evp_qp_count() {
	bounded "$CMD_TIMEOUT" mrcctl_a -j evp show "$XFER_DEV_A" id "$EVP_ID" ||
		fail "mrcctl evp show did not finish"
	jq '[.. | objects | select(has("qp-count"))][0]["qp-count"]' "$BOUNDED_OUT"
}

case_walk() {
	local out hold=$MRC_TMP/walk.hold qpns qpn
	[ -x "$WALK" ] || fail "needs the build case"
	walk_profiles
	bg_start walk ip netns exec "$XFER_NS_A" "$WALK" -d "$XFER_DEV_A" \
		-g "$XFER_GID_A" -e "$EVP_ID" -c "$CC_ID" --hold "$hold"
	out=$(bg_out walk)
	wait_for "$WAIT_TIMEOUT" walk_ready "$out" ||
		{ sed 's/^/    /' "$out"; fail "mrc_qp_walk never got ready"; }
	qpns=$(sed -n 's/^ready //p' "$out")
	for qpn in $qpns; do
		check "QP $qpn bound to EV profile $EVP_ID and CC profile $CC_ID, explicitly" \
			walk_bound "$qpn"
	done
	expect_eq "EV profile $EVP_ID's qp-count" 2 "$(evp_qp_count)"
	touch "$hold"
	bg_wait walk "$WAIT_TIMEOUT" || fail "mrc_qp_walk did not end"
	sed 's/^/    /' "$out"
	expect_eq "mrc_qp_walk exit status" 0 "$(bg_rc walk)"
	check "its WRITE arrived intact" grep -q '^write .*: intact$' "$out"
	check "it reports the attributes it set" grep -Eq \
		"^qp a [0-9]+: state 3 mpr $WALK_MPR mpr_dest $WALK_MPR .* timeout $WALK_TIMEOUT retry 7/25 ev-profile $EVP_ID cc-profile $CC_ID hint yes" \
		"$out"
	expect_eq "EV profile $EVP_ID's qp-count after teardown" 0 "$(evp_qp_count)"
}

# ctl_ready NAME OUT: mrc_ctl_ev (job NAME) printed "ready"; fails if it
# ended first.
ctl_ready() {
	grep -q '^ready$' "$2" && return 0
	if bg_done "$1"; then
		sed 's/^/    /' "$2"
		fail "mrc_ctl_ev $1 ended (status $(bg_rc "$1")) before it was ready"
	fi
	return 1
}

# ctl_hold NAME ARGS...: run mrc_ctl_ev ARGS on h1's device with --hold
# (job NAME), until it is ready.
ctl_hold() {
	local name=$1 out
	shift
	bg_start "$name" ip netns exec "$XFER_NS_A" "$CTL" -d "$XFER_DEV_A" \
		"$@" --hold "$MRC_TMP/$name.hold"
	out=$(bg_out "$name")
	wait_for "$WAIT_TIMEOUT" ctl_ready "$name" "$out" ||
		{ sed 's/^/    /' "$out"; fail "mrc_ctl_ev $name never got ready"; }
}

# ctl_release NAME: let it tear down; it must exit 0.
ctl_release() {
	touch "$MRC_TMP/$1.hold"
	bg_wait "$1" "$WAIT_TIMEOUT" || fail "mrc_ctl_ev $1 did not end"
	sed 's/^/    /' "$(bg_out "$1")"
	expect_eq "mrc_ctl_ev $1 exit status" 0 "$(bg_rc "$1")"
}

# evs_json ID: the EV array of h1's profile ID (mrcctl's ev-get dump).
evs_json() {
	bounded "$CMD_TIMEOUT" mrcctl_a -j ev show "$XFER_DEV_A" id "$1" ||
		fail "mrcctl ev show did not finish"
	[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "mrcctl ev show failed"; }
	cp "$BOUNDED_OUT" "$MRC_TMP/evs.$1.json"
	printf '%s\n' "$MRC_TMP/evs.$1.json"
}

# evp_field ID KEY: a field of h1's EV profile ID as mrcctl shows it.
evp_field() {
	bounded "$CMD_TIMEOUT" mrcctl_a -j evp show "$XFER_DEV_A" id "$1" ||
		fail "mrcctl evp show did not finish"
	jq -r --arg k "$2" '[.. | objects | select(has($k))][0][$k]' \
		"$BOUNDED_OUT"
}

# in_init OBJ ID: h1's profile ID (mrcctl object fmt or evp) is back in
# INIT (mrcctl finds nothing to show).
in_init() {
	bounded "$CMD_TIMEOUT" mrcctl_a -j "$1" show "$XFER_DEV_A" id "$2" ||
		fail "mrcctl $1 show did not finish"
	[ "$BOUNDED_RC" != 0 ]
}

case_ctl_gen() {
	local out count denied links evs
	[ -x "$CTL" ] || fail "needs the build case"
	ctl_hold gen gen
	out=$(bg_out gen)
	count=$(sed -n 's/^ev profile [0-9]* online: generated, \([0-9]*\) EVs.*/\1/p' "$out")
	denied=$(sed -n 's/^denied \([0-9]*\) EVs: T0 >= \([0-9]*\)$/\1/p' "$out")
	links=$(sed -n 's/^denied [0-9]* EVs: T0 >= \([0-9]*\)$/\1/p' "$out")
	if [ -z "$count" ] || [ -z "$denied" ] || [ -z "$links" ]; then
		sed 's/^/    /' "$out"
		fail "mrc_ctl_ev gen printed no counts"
	fi
	expect_eq "EV profile $GEN_EVP_ID's state" online "$(evp_field "$GEN_EVP_ID" state)"
	expect_eq "EV profile $GEN_EVP_ID's ev-count" "$count" \
		"$(evp_field "$GEN_EVP_ID" ev-count)"
	expect_num "EVs denied" "$denied" -gt 0
	evs=$(evs_json "$GEN_EVP_ID")
	expect_eq "EVs in the kernel's array" "$count" \
		"$(jq '[.. | objects | select(has("index"))] | length' "$evs")"
	# T0 is the value's first byte ("0xTT...").
	expect_eq "DENIED EVs are those with T0 >= $links" "$denied" \
		"$(jq --argjson l "$links" '[.. | objects | select(has("index")) |
			select(.state == "denied") |
			select((.value[2:4] | ascii_downcase | explode |
				map(if . >= 97 then . - 87 else . - 48 end) |
				.[0] * 16 + .[1]) >= $l)] | length' "$evs")"
	expect_eq "DENIED EVs in all" "$denied" \
		"$(jq '[.. | objects | select(.state? == "denied")] | length' "$evs")"
	ctl_release gen
	check "it found every EV in the state it set" \
		grep -q "^array: $count EVs, 0 in the wrong state$" "$(bg_out gen)"
	check "EV profile $GEN_EVP_ID back in INIT" in_init evp "$GEN_EVP_ID"
	check "format $GEN_FMT_ID back in INIT" in_init fmt "$GEN_FMT_ID"
}

# The explicit walk-through's value of slot i: (i << 16) | i, little-endian
# as the example copies a host u32 (mrcctl prints the bytes in order, and
# the zero bytes after them up to the 32 the API passes: ev_state_of).
exp_hex() {
	printf '0x%02x%02x%02x%02x' $(($1 & 255)) $(($1 >> 8)) \
		$(($1 & 255)) $(($1 >> 8))
}

case_ctl_exp() {
	local out evs v
	# ev_state_of V: the states of the EVs whose value is V (and zeros),
	# comma-separated; "" if none.
	ev_state_of() {
		jq -r --arg v "$1" '[.. | objects | select(has("value")) |
			select(.value | test("^" + $v + "(00)*$")) | .state] |
			join(",")' "$evs"
	}
	[ -x "$CTL" ] || fail "needs the build case"
	ctl_hold exp exp
	out=$(bg_out exp)
	check "it replaced EVs while ONLINE" grep -q '^replaced EVs ' "$out"
	evs=$(evs_json "$EXP_EVP_ID")
	for v in "$EXP_DENY_FIRST" "$EXP_DENY_LAST"; do
		# Slot v + 127 held that value already: now two slots do.
		expect_eq "EV $v replaced by $((v + EXP_ADD)) (twice now), GOOD" \
			good,good "$(ev_state_of "$(exp_hex $((v + EXP_ADD)))")"
		expect_eq "EV $v gone" "" "$(ev_state_of "$(exp_hex "$v")")"
	done
	expect_eq "EV $((EXP_DENY_LAST + 1)) untouched, GOOD" good \
		"$(ev_state_of "$(exp_hex $((EXP_DENY_LAST + 1)))")"
	expect_eq "DENIED EVs left" 0 \
		"$(jq '[.. | objects | select(.state? == "denied")] | length' "$evs")"
	ctl_release exp
	check "it read back every EV as set" grep -q ' EVs, 0 not as set$' \
		"$(bg_out exp)"
	check "EV profile $EXP_EVP_ID back in INIT" in_init evp "$EXP_EVP_ID"
}

events_listening() { grep -q '^listening: ' "$1"; }

case_ctl_events() {
	local out ev evs
	[ -x "$CTL" ] || fail "needs the build case"
	# The walk's profiles, made by the controller CLI.
	walk_profiles_made || walk_profiles
	evs=$(evs_json "$EVP_ID")
	ev=$(jq -r '[.. | objects | select(has("index"))][0].value' "$evs")
	bg_start events ip netns exec "$XFER_NS_A" "$CTL" -d "$XFER_DEV_A" \
		events -i "$EVP_ID" -n 1 -t "$WAIT_TIMEOUT"
	out=$(bg_out events)
	wait_for "$WAIT_TIMEOUT" events_listening "$out" ||
		{ sed 's/^/    /' "$out"; fail "mrc_ctl_ev events never listened"; }
	run mrcctl_a ev deny "$XFER_DEV_A" id "$EVP_ID" ev "$ev" port 1
	run mrcctl_a ev allow "$XFER_DEV_A" id "$EVP_ID" ev "$ev" port 1
	bg_wait events "$WAIT_TIMEOUT" || fail "mrc_ctl_ev events did not end"
	sed 's/^/    /' "$out"
	expect_eq "mrc_ctl_ev events exit status" 0 "$(bg_rc events)"
	expect_eq "events of profile $EVP_ID: GOOD, no drops" 1 \
		"$(grep -c "^event profile $EVP_ID ev .* port 1 state good drops 0$" "$out")"
}

case_ctl_probe() {
	local out
	[ -x "$CTL" ] || fail "needs the build case"
	bounded "$CMD_TIMEOUT" ip netns exec "$XFER_NS_A" "$CTL" -d "$XFER_DEV_A" \
		probe -s "$XFER_HOSTS_IP_A" -D "$XFER_HOSTS_IP_B" -w "$PROBE_WAIT_MS" \
		-e "${PROBE_EVS[0]}" -e "${PROBE_EVS[1]}" ||
		fail "mrc_ctl_ev probe did not finish"
	bounded_output
	expect_eq "mrc_ctl_ev probe exit status" 0 "$BOUNDED_RC"
	out=$BOUNDED_OUT
	expect_eq "answered probes with an RTT" 2 \
		"$(grep -Ec '^rsp req [12] port 1 rtt [1-9][0-9]* ns' "$out")"
	bounded "$CMD_TIMEOUT" ip netns exec "$XFER_NS_A" "$CTL" -d "$XFER_DEV_A" \
		probe -s "$XFER_HOSTS_IP_A" -D "$PROBE_ABSENT_IP" \
		-e "${PROBE_EVS[0]}" || fail "mrc_ctl_ev probe did not finish"
	bounded_output
	expect_eq "mrc_ctl_ev probe of nobody: exit status" 2 "$BOUNDED_RC"
	check "it says the request timed out" grep -q \
		"^timeout req 1 ev $(printf '0x%08x' $((PROBE_EVS[0])))$" \
		"$BOUNDED_OUT"
}

mrc_case build case_build
mrc_case sweep case_sweep --after build
mrc_case walk case_walk --after build
mrc_case ctl_gen case_ctl_gen --after build
mrc_case ctl_exp case_ctl_exp --after build
mrc_case ctl_events case_ctl_events --after build
mrc_case ctl_probe case_ctl_probe --after build
mrc_cases_args "$@"

mrc_test_init
command -v cc >/dev/null || fail "no C compiler"
command -v jq >/dev/null || fail "jq is not installed"
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric hosts
mrc_cases_run
