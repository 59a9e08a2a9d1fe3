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
#
# Runs as root in a test guest, after `make -C <repo> install`.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
EXAMPLES_DIR=$MRC_REPO/tools/mrc/examples
EXAMPLES=(mrc_bw mrc_qp_walk)
SWEEP_MAX=$((1024 * 1024))
ITERS=8
DEPTH=16
PATH_MTU=1024		# what mrc_bw connects with
BW_PORT=18531
BUILD_SECS=$((120 * TIME_SCALE))
SWEEP_SECS=$((300 * TIME_SCALE))
BW=
WALK=
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

mrc_case build case_build
mrc_case sweep case_sweep --after build
mrc_case walk case_walk --after build
mrc_cases_args "$@"

mrc_test_init
command -v cc >/dev/null || fail "no C compiler"
command -v jq >/dev/null || fail "jq is not installed"
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric hosts
mrc_cases_run
