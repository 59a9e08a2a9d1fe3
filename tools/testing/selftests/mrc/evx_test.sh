#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# EV expansion (Documentation/mrc/libmrc.rst; the OCP description's "EV
# expansion"), checked against what the driver sprays.  For each vector, a
# UDP-mode format (the EV's expansion is the UDP source port) and an EV
# profile on h1's device (scripts/fabric hosts), made the device's default
# EV profile, so that the transfer's QP, created afterwards, sprays over
# it.  evx.py computes, from the description and not from the driver, the
# EVs a generated profile holds and each EV's source port.  Checked: the
# kernel's EV array (mrcctl ev show) is evx.py's, value by value; every
# MRC packet h1 sends (capture on h2) leaves from one of the expected
# ports, and each expected port carries some; the payload is verified.
#
#   gen        two 8-bit fields, values 0..3 and 0..7, the first 24 (the
#              0/0 EV, port 0, left out)
#   fixed      a fixed portion: one 16-bit field, init 0xc000, 4 mask bits
#   noncontig  a non-contiguous mask 0x0f0f inside init 0xa050
#   subset     a format 12/4 and one profile field of 8 bits: narrower
#              than its format field, the second format field unpaired
#   explicit   an explicit profile over fields (8 bits, then 4 bits into
#              init 0x30), its EVs given one by one
#
# SRv6 formats are stored but QPs cannot spray on them (EOPNOTSUPP): their
# expansion is not observable on the wire yet.
# Runs as root in a test guest, after `make -C <repo> install`.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"
# shellcheck source=SCRIPTDIR/cap_lib.sh
. "$SELF_DIR/cap_lib.sh"

MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
EVX="python3 $SELF_DIR/evx.py"
FMT_ID=21
EVP_ID=22
SNAPLEN=128
CAPTURE_BUFFER_KIB=16384
CAP_MARKERS=0
XFER_SECS=$((120 * TIME_SCALE))
XFER_SIZE=$((256 * 1024))
# 4 MiB: thousands of packets over at most 32 EVs.  Under a slower
# kernel (TIME_SCALE > 1) a TIME_SCALE-th, 1024 packets at the debug
# kernel's 4: there each case spent about 370 s decoding its capture of
# 4096 packets, and the test outlasted its timeout (2026-12-07).
XFER_ITERS=$((TIME_SCALE < 16 ? 16 / TIME_SCALE : 1))
# explicit: EVs as bit strings (8 bits, then the 4 of the second field).
EXP_EVS=(0x1270 0x0110 0xfef0 0x8000 0x0010 0x3450)

mrcctl_a() { ip netns exec "$XFER_NS_A" "$MRCCTL" "$@"; }

# strip_hex V: V without trailing zero bytes, lower case.
strip_hex() {
	local v=${1,,}
	while [ "${#v}" -gt 4 ] && [ "${v: -2}" = 00 ]; do v=${v:0:-2}; done
	printf '%s\n' "$v"
}

# evx_profile FMT MODE COUNT FIELD...: format FMT_ID (UDP mode, widths
# FMT comma-separated) and profile EVP_ID (MODE gen or exp, COUNT EVs,
# FIELD "width:init:min:max:mask" each).  Leaves it OFFLINE.
evx_profile() {
	local fmt=$1 mode=$2 count=$3 w f args=()
	shift 3
	for w in ${fmt//,/ }; do args+=(field "$w"); done
	run mrcctl_a fmt set "$XFER_DEV_A" id "$FMT_ID" state offline mode udp "${args[@]}"
	run mrcctl_a fmt set "$XFER_DEV_A" id "$FMT_ID" state online
	args=()
	for f in "$@"; do
		IFS=: read -r -a w <<<"$f"
		args+=(field width "${w[0]}" init "${w[1]}" min "${w[2]}" \
			max "${w[3]}" mask "${w[4]}")
	done
	run mrcctl_a evp set "$XFER_DEV_A" id "$EVP_ID" state offline mode "$mode" \
		fmt "$FMT_ID" count "$count" "${args[@]}"
}

# evx_online: profile EVP_ID ONLINE and the device's default.
evx_online() {
	run mrcctl_a evp set "$XFER_DEV_A" id "$EVP_ID" min-active 1 \
		event-mask assumed-bad state online
	run mrcctl_a dev set "$XFER_DEV_A" default-ev-profile "$EVP_ID"
}

# evx_down: the default back to the built-in one, the profiles to INIT.
evx_down() {
	run mrcctl_a dev set "$XFER_DEV_A" default-ev-profile 0
	run mrcctl_a evp set "$XFER_DEV_A" id "$EVP_ID" state offline
	run mrcctl_a evp set "$XFER_DEV_A" id "$EVP_ID" state init
	run mrcctl_a fmt set "$XFER_DEV_A" id "$FMT_ID" state offline
	run mrcctl_a fmt set "$XFER_DEV_A" id "$FMT_ID" state init
}

# kernel_evs: the values of profile EVP_ID's array, in slot order.
kernel_evs() {
	local v
	bounded "$CMD_TIMEOUT" mrcctl_a -j ev show "$XFER_DEV_A" id "$EVP_ID" ||
		fail "mrcctl ev show did not finish"
	[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "mrcctl ev show failed"; }
	jq -r '[.. | objects | select(has("index"))] | sort_by(.index) |
		.[].value' "$BOUNDED_OUT" | while read -r v; do strip_hex "$v"; done
}

# evx_spray NAME FMT FIELDS EV...: the transfer, captured on h2; its
# source ports against evx.py's for EV...
evx_spray() {
	local name=$1 fmt=$2 fields=$3 want got missing stray
	shift 3
	want=$MRC_TMP/$name.want
	got=$MRC_TMP/$name.got
	$EVX sports "$fmt" "$fields" "$@" | sort -u >"$want" ||
		fail "evx.py sports failed"
	cap_start "$name" "$XFER_NS_B" "$XFER_NETDEV" \
		"udp dst port $MRC_DEFAULT_UDP_PORT and src host $XFER_SERVER_IP_A"
	xfer "$name" "$XFER_SECS" --size "$XFER_SIZE" --iters "$XFER_ITERS"
	ok "transfer verified: $XFER_CLIENT_RESULT"
	cap_end "$name"
	bounded "$CMD_TIMEOUT" tcpdump -nn -r "$MRC_TMP/$name.pcap" ||
		fail "tcpdump -r did not finish"
	sed -n 's/^.* IP [0-9.]*\.\([0-9]*\) > .*/\1/p' "$BOUNDED_OUT" |
		sort -un | while read -r p; do printf '0x%04x\n' "$p"; done |
		sort -u >"$got"
	stray=$(comm -13 "$want" "$got" | tr '\n' ' ')
	missing=$(comm -23 "$want" "$got" | tr '\n' ' ')
	expect_num "packets captured" "$(wc -l <"$BOUNDED_OUT")" -gt 0
	expect_eq "source ports not of the profile's EVs" "" "$stray"
	expect_eq "the profile's ports that carried nothing" "" "$missing"
	log "  $(wc -l <"$want") ports expected, $(wc -l <"$got") seen"
}

# evx_gen NAME FMT COUNT FIELD...: a generated vector.
evx_gen() {
	local name=$1 fmt=$2 count=$3 fields evs kevs
	shift 3
	fields=$(IFS=,; printf '%s' "$*")
	evx_profile "$fmt" gen "$count" "$@"
	evx_online
	mapfile -t evs < <($EVX gen "$fmt" "$fields" "$count" |
		while read -r v; do strip_hex "$v"; done)
	mapfile -t kevs < <(kernel_evs)
	expect_eq "the kernel's EVs are the description's" \
		"${evs[*]}" "${kevs[*]}"
	evx_spray "$name" "$fmt" "$fields" "${evs[@]}"
	evx_down
}

case_gen() { evx_gen gen 8,8 24 8:0:0:3:0xff 8:0:0:7:0xff; }
case_fixed() { evx_gen fixed 16 16 16:0xc000:0:15:0x000f; }
case_noncontig() { evx_gen noncontig 16 32 16:0xa050:0:31:0x0f0f; }
case_subset() { evx_gen subset 12,4 16 8:0x80:0:15:0x0f; }

case_explicit() {
	local fields=8:0:0:0:0xff,8:0x30:0:0:0x0f i kevs want=()
	evx_profile 8,8 exp "${#EXP_EVS[@]}" 8:0:0:0:0xff 8:0x30:0:0:0x0f
	for i in "${!EXP_EVS[@]}"; do
		run mrcctl_a ev replace "$XFER_DEV_A" id "$EVP_ID" index "$i" \
			new "${EXP_EVS[$i]}" new-port 1 state good
		want+=("$(strip_hex "${EXP_EVS[$i]}")")
	done
	evx_online
	mapfile -t kevs < <(kernel_evs)
	expect_eq "the kernel's EVs are those given" \
		"${want[*]}" "${kevs[*]}"
	evx_spray explicit 8,8 "$fields" "${EXP_EVS[@]}"
	evx_down
}

mrc_case gen case_gen
mrc_case fixed case_fixed
mrc_case noncontig case_noncontig
mrc_case subset case_subset
mrc_case explicit case_explicit
mrc_cases_args "$@"

mrc_test_init
command -v jq >/dev/null || fail "jq is not installed"
command -v tcpdump >/dev/null || fail "tcpdump is not installed"
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"
XFER_MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")
xfer_fabric hosts
XFER_SERVER_IP_A=$XFER_HOSTS_IP_A
mrc_cases_run
