#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Forged endpoint operations (QP 0x2) on a multi-plane fabric
# (scripts/fabric planes 4: h1 and h2 joined by 4 planes, mrcA on h1 and
# mrcB on h2 with a port per plane).  A verified transfer mrcA -> mrcB
# runs throughout (it ends on the test's cue); mrcA is the target:
#
#   third   A Port Status Update "every port down" from the plane-1 router
#           p1a (no QP of mrcA is connected to it): ep_port_status_no_peer
#           moves, the QP's usable EVs stay as they were, every plane keeps
#           carrying the transfer.
#   peer    From h2's address (the peer's), on a port of its own choosing:
#           an update naming a port mrcA does not have (5) is dropped as
#           malformed and changes nothing; "every port down" takes the
#           ports down but the one it arrived on, whose EVs carry the
#           transfer alone (never a single EV); "none down" brings them
#           back.
#   rsp     mrcA's controller probes an EV towards p1a, which has no MRC
#           device (the probe goes unanswered); meanwhile p1a sends EV
#           probe responses for it: every request id on the wrong EV, then
#           the right id on the right EV with the wrong timestamp.  Every
#           one is dropped (ep_drop_unmatched), the probe times out.
#   flood   100,000 Port Status Updates ("none down") from h2's address
#           (a TIME_SCALE-th under a slower kernel) while the transfer
#           runs: mrcA answers at most ep_rate a second and drops the
#           rest (ep_drop_rate); each one that reached it is accounted for
#           (requests received + rate drops = updates sent,
#           less what the guest's own backlog queues dropped on the way:
#           /proc/net/softnet_stat, counted and printed), the transfer
#           verifies, and its goodput with and without the flood is
#           printed (a figure, not a test: performance.rst).
#
# Each assertion prints "ok: ..." or "not ok: ..."; the test exits non-zero
# if any failed.  Runs as root in a test guest, after make install.

# Most helpers run through wait_for or check.
# shellcheck disable=SC2317

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
PKT_TOOL=$SELF_DIR/crafted_pkt.py
PYTHON=/usr/bin/python3

NPLANES=4
HOST_A=198.18.100.1	# scripts/fabric planes: h1's address on every plane
HOST_B=198.18.100.2
MGMT_B=198.18.101.2
THIRD_NS=p1a
THIRD_IP=198.19.11.254	# p1a's address on h1's plane-1 link
FABRIC_TIMEOUT=$((240 * TIME_SCALE))
XFER_SIZE=$((256 * 1024))
# The transfer runs until case_transfer stops it: its deadline must outlast
# every case, on a debug kernel too (forging, the flood: many minutes there).
XFER_SECS=$((600 * TIME_SCALE))
CARRY_PKTS=200
CARRY_WAIT=$((60 * TIME_SCALE))
EV_MIN_ACTIVE=8		# rdma_mrc's ev_min_active: the default
# The module as loaded by default, but under a slower kernel with the
# transfers' lossless RTO floor (xfer_lib.sh): there the flood holds the
# vCPU for seconds at a time, which a 1 ms floor's retries do not outlast
# (the transfer ended in RETRY_EXC mid-flood, 2026-12-07).
MODULE_PARAMS=()
[ "$TIME_SCALE" = 1 ] || MODULE_PARAMS=("${XFER_LOSSLESS_PARAMS[@]}")

# ERTH / EETH (wire-format.rst), as crafted_pkt.py's hex bodies.
OP_EP_REQUEST=0xd8
OP_EP_RESPONSE=0xd9
QPN_EP=2
EP_PSU=0
EP_PROBE=1
TS_FLAGS=8001		# TSR | ftype 1
ALL_DOWN=0x1e		# ports 1-4
PROBE_EV=0xc123
PROBE_IDS=8
PROBE_TIMEOUT_NS=3000000000
# Under a slower kernel (TIME_SCALE > 1, the debug kernel) a TIME_SCALE-th
# of the flood, as other tests scale their sizes: the whole flood took 22
# minutes there (2026-12-07), which is no more test of the rate limit.
FLOOD=$((100000 / TIME_SCALE))
RATE_PKTS=2000
EP_RATE=1000		# rdma_mrc's ep_rate: the default
# The flood crosses three veth hops, each a per-CPU backlog queue that a
# loaded guest may let overflow (netdev_max_backlog, 1000 by default) when
# ksoftirqd does not get the CPU: raised to hold the whole flood.
FLOOD_BACKLOG=$((FLOOD + 10000))

# snap_h1_planes: TX[p] = what h1's plane netdev p has sent.
declare -A TX=()
snap_h1_planes() {
	local p
	for ((p = 1; p <= NPLANES; p++)); do
		TX[$p]=$(tx_pkts h1 "p$p")
	done
}

# moved: the packets all planes sent since snap_h1_planes, at least N?
moved() {
	local p n=0
	for ((p = 1; p <= NPLANES; p++)); do
		n=$((n + $(tx_pkts h1 "p$p") - TX[$p]))
	done
	[ "$n" -ge "$1" ]
}

# carrying: the planes that sent a share of it (a twentieth or more) since
# snap_h1_planes, once the planes sent N * CARRY_PKTS.
carrying() {
	local p n=0 d out=''
	local -A D=()
	if ! wait_for "$CARRY_WAIT" moved $(($1 * CARRY_PKTS)); then
		# A stalled QP and a client past its deadline look alike here.
		! bg_done x.client ||
			log "    the client has ended: $(result_of "$(bg_out x.client)")" >&2
		return 1
	fi
	for ((p = 1; p <= NPLANES; p++)); do
		D[$p]=$(($(tx_pkts h1 "p$p") - TX[$p]))
		n=$((n + D[$p]))
	done
	for ((p = 1; p <= NPLANES; p++)); do
		d=${D[$p]}
		[ $((d * 20)) -lt "$n" ] || out+=${out:+ }$p
	done
	printf '%s\n' "$out"
}

# carried_by PLANE...: the transfer's packets go over exactly these planes.
carried_by() {
	local got
	snap_h1_planes
	got=$(carrying "$NPLANES") || return 1
	[ "$got" = "$*" ]
}

usable() {
	bounded "$CMD_TIMEOUT" ip netns exec h1 "$MRCCTL" -j qp show "$XFER_DEV_A"
	jq -r '[.[] | ."ev-usable"] | max' "$BOUNDED_OUT"
}

# ev_slots: the EVs the QP has, usable or not (a suspect EV, SKIP for a
# late packet, is one of them all the same).
ev_slots() {
	bounded "$CMD_TIMEOUT" ip netns exec h1 "$MRCCTL" -j qp show "$XFER_DEV_A"
	jq -r '[.[] | (.ev // []) | length] | max' "$BOUNDED_OUT"
}

# erth OP MASK: an ERTH (hex) with timestamp 0x0123.
erth() {
	printf '0000%02x00%08x000000000123%s\n' "$1" "$(($2))" "$TS_FLAGS"
}

# eeth OP ENTROPY TS: an EETH (hex) answering on port 1.
eeth() {
	printf '0000%02x0000000000%08x01000000%04x%s00000000%024d\n' \
		$((0x80 | $1)) "$(($2))" "$(($3))" "$TS_FLAGS" 0
}

# forge NS SRC SPORT COUNT PKT...: from an ordinary UDP socket in NS.
forge() {
	local ns=$1 src=$2 sport=$3 count=$4
	shift 4
	bounded $((CMD_TIMEOUT * 10)) ip netns exec "$ns" "$PYTHON" "$PKT_TOOL" \
		forge --src "$src" --dst "$HOST_A" --qpn "$QPN_EP" \
		--sport "$sport" --count "$count" "$@" ||
		fail "crafted_pkt.py forge did not finish"
	[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "crafted_pkt.py forge: exit $BOUNDED_RC"; }
}

psu() {
	printf 'op=%s qpn=@0 psn=%d pkey=0xffff body=hex:%s\n' "$OP_EP_REQUEST" \
		"$1" "$(erth "$EP_PSU" "$2")"
}

# --- third -------------------------------------------------------------------------

case_third() {
	case_what "every port down, from $THIRD_NS ($THIRD_IP): no QP's peer"
	base=$(hwc "$XFER_DEV_A" ep_port_status_no_peer)
	forge "$THIRD_NS" "$THIRD_IP" 0 1 "$(psu 0x101 "$ALL_DOWN")"
	check "$XFER_DEV_A: ep_port_status_no_peer +1" \
		wait_for "$WAIT_TIMEOUT" hwc_at_least "$XFER_DEV_A" ep_port_status_no_peer $((base + 1))
	check "every plane still carries the transfer" carried_by 1 2 3 4
}

# --- peer --------------------------------------------------------------------------

case_peer() {
	case_what "updates from h2's address ($HOST_B), its own UDP port"
	base=$(hwc "$XFER_DEV_A" ep_drop_malformed)
	forge h2 "$HOST_B" 0 1 "$(psu 0x201 0x20)"
	check "port 5 (mrcA has 4): dropped as malformed" \
		wait_for "$WAIT_TIMEOUT" hwc_at_least "$XFER_DEV_A" ep_drop_malformed $((base + 1))
	check "every plane still carries the transfer" carried_by 1 2 3 4
	base=$(hwc "$XFER_DEV_A" ep_port_status_rcvd)
	forge h2 "$HOST_B" 0 1 "$(psu 0x202 "$ALL_DOWN")"
	wait_until "the update received" "$WAIT_TIMEOUT" \
		hwc_at_least "$XFER_DEV_A" ep_port_status_rcvd $((base + 1))
	# It arrived on the plane h2 routes to h1 by: that port stays up, and
	# its EVs alone carry the transfer.
	snap_h1_planes
	up=$(carrying 1) || fail "the transfer stopped"
	expect_eq "one plane carries the transfer (the one the update came on)" 1 \
		"$(wc -w <<<"$up")"
	left=$(usable)
	expect_num "its EVs, not one: usable EVs" "$left" -ge "$EV_MIN_ACTIVE"
	expect_num "... no more than a plane's" "$left" -le $((all_evs / NPLANES))
	forge h2 "$HOST_B" 0 1 "$(psu 0x203 0)"
	check "every plane carries the transfer again" \
		wait_for "$CARRY_WAIT" carried_by 1 2 3 4
}

# --- rsp ---------------------------------------------------------------------------

case_rsp() {
	case_what "EV probe responses forged by $THIRD_NS for a probe it cannot answer"
	base=$(hwc "$XFER_DEV_A" ep_drop_unmatched)
	sent=$(hwc "$XFER_DEV_A" ep_reqs_sent)
	pkts=()
	for ((id = 1; id <= PROBE_IDS; id++)); do
		pkts+=("op=$OP_EP_RESPONSE qpn=@0 psn=$id body=hex:$(eeth "$EP_PROBE" $((0xc000 << 16)) 0x0123)")
	done
	# The right id on the right EV, with a timestamp the request did not carry.
	pkts+=("op=$OP_EP_RESPONSE qpn=@0 psn=1 sport=$PROBE_EV body=hex:$(eeth "$EP_PROBE" $((PROBE_EV << 16)) 0x7777)")
	# Armed first (Python starts slowly), fired once the probe is out.
	bg_start forger ip netns exec "$THIRD_NS" "$PYTHON" "$PKT_TOOL" forge \
		--src "$THIRD_IP" --dst "$HOST_A" --qpn "$QPN_EP" \
		--wait-file "$MRC_TMP/fire" "${pkts[@]}"
	wait_until "the forger armed" "$CMD_TIMEOUT" file_has_line "$(bg_out forger)" ARMED
	bg_start probe ip netns exec h1 "$MRCCTL" -j ep probe "$XFER_DEV_A" \
		timeout "$PROBE_TIMEOUT_NS" sgid "$HOST_A" dgid "$THIRD_IP" port 1 \
		ev "$PROBE_EV"
	wait_until "the probe sent" "$WAIT_TIMEOUT" \
		hwc_at_least "$XFER_DEV_A" ep_reqs_sent $((sent + 1))
	touch "$MRC_TMP/fire"
	bg_wait forger "$CMD_TIMEOUT" || fail "the forger did not finish"
	bg_wait probe $((PROBE_TIMEOUT_NS / 1000000000 + CMD_TIMEOUT)) ||
		fail "ep probe did not return"
	if bg_done probe && [ "$(bg_rc probe)" = 0 ] &&
	   jq -e 'length == 1 and .[0]."timed-out"' "$(bg_out probe)" >/dev/null; then
		ok "the probe timed out: $(tr -d '\n' <"$(bg_out probe)")"
	else
		sed 's/^/    /' "$(bg_out probe)"
		not_ok "the probe was answered"
	fi
	expect_eq "$XFER_DEV_A dropped every forged response" $((PROBE_IDS + 1)) \
		$(($(hwc "$XFER_DEV_A" ep_drop_unmatched) - base))
}

# --- flood -------------------------------------------------------------------------

case_flood() {
	case_what "$FLOOD Port Status Updates from h2's address"
	# mrcA's rate before: over its next RATE_PKTS data packets.
	t0=$(date +%s%N)
	b0=$(hwc "$XFER_DEV_A" tx_bytes)
	wait_until "$RATE_PKTS data packets" "$CARRY_WAIT" hwc_at_least "$XFER_DEV_A" \
		tx_data_pkts $(($(hwc "$XFER_DEV_A" tx_data_pkts) + RATE_PKTS))
	rate0=$((($(hwc "$XFER_DEV_A" tx_bytes) - b0) * 1000 / (($(date +%s%N) - t0) / 1000000)))
	backlog0=$(sysctl -n net.core.netdev_max_backlog)
	cleanup_push sysctl -q -w "net.core.netdev_max_backlog=$backlog0"
	[ "$backlog0" -ge "$FLOOD_BACKLOG" ] ||
		sysctl -q -w "net.core.netdev_max_backlog=$FLOOD_BACKLOG"
	req0=$(hwc "$XFER_DEV_A" ep_reqs_rcvd)
	drop0=$(hwc "$XFER_DEV_A" ep_drop_rate)
	rsp0=$(hwc "$XFER_DEV_A" ep_rsps_sent)
	sn0=$(softnet_drops)
	t0=$(date +%s%N)
	b0=$(hwc "$XFER_DEV_A" tx_bytes)
	forge h2 "$HOST_B" 0 "$FLOOD" "$(psu 0x301 0)"
	ms=$((($(date +%s%N) - t0) / 1000000))
	rate1=$((($(hwc "$XFER_DEV_A" tx_bytes) - b0) * 1000 / (ms > 0 ? ms : 1)))
	secs=$(((ms + 999) / 1000))
	# What reached mrcA: the flood less what the backlog queues dropped (they
	# may also have dropped some of the transfer's packets: a lower bound).
	counted() {
		stack=$(($(softnet_drops) - sn0))
		got=$(($(hwc "$XFER_DEV_A" ep_reqs_rcvd) - req0 +
			$(hwc "$XFER_DEV_A" ep_drop_rate) - drop0))
		[ "$got" -ge $((FLOOD - stack)) ]
	}
	wait_until "every update that reached mrcA counted" "$WAIT_TIMEOUT" counted
	sysctl -q -w "net.core.netdev_max_backlog=$backlog0"
	answered=$(($(hwc "$XFER_DEV_A" ep_reqs_rcvd) - req0))
	dropped=$(($(hwc "$XFER_DEV_A" ep_drop_rate) - drop0))
	log "    the guest's backlog queues dropped $stack packets during the flood"
	expect_num "answered + rate-dropped: no more than the updates sent" \
		$((answered + dropped)) -le "$FLOOD"
	expect_num "answered + rate-dropped: every update the stack delivered" \
		$((answered + dropped)) -ge $((FLOOD - stack))
	expect_num "answered at most ep_rate a second (+ one second's worth)" \
		"$answered" -le $((EP_RATE * (secs + 1)))
	expect_eq "one response per answered update" "$answered" \
		$(($(hwc "$XFER_DEV_A" ep_rsps_sent) - rsp0))
	log "    $FLOOD updates in $ms ms: $answered answered, $dropped dropped;" \
		"mrcA sent $rate0 B/s before, $rate1 B/s during the flood"
}

# The transfer that ran through every case before: verified, no QP error.
case_transfer() {
	touch "$MRC_TMP/x.stop"
	bg_wait x.client "$XFER_SECS" || not_ok "client still running"
	bg_wait x.server "$XFER_SLACK" || not_ok "server still running"
	cres=$(result_of "$(bg_out x.client)")
	if [[ $cres == "RESULT ok "* ]] &&
	   [[ $(result_of "$(bg_out x.server)") == "RESULT ok "* ]]; then
		ok "the transfer verified through it all, no QP error: ${cres#RESULT }"
	else
		sed 's/^/    /' "$(bg_out x.client)" "$(bg_out x.server)"
		not_ok "the transfer failed: $cres"
	fi
}

# --- main ------------------------------------------------------------------------

# The cases share the setup's transfer; each leaves the planes as it
# found them.
mrc_case third case_third
mrc_case peer case_peer
mrc_case rsp case_rsp
mrc_case flood case_flood
mrc_case transfer case_transfer
mrc_cases_args "$@"

mrc_test_init
for tool in jq "$PYTHON"; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"

mrc_load "${MODULE_PARAMS[@]}"
cleanup_push "$FABRIC" clean
bounded "$FABRIC_TIMEOUT" "$FABRIC" planes "$NPLANES" ||
	fail "scripts/fabric planes: not done after ${FABRIC_TIMEOUT}s"
[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "scripts/fabric planes failed"; }
netdevs=()
for ((p = 1; p <= NPLANES; p++)); do
	netdevs+=(netdev "p$p")
done
run ip netns exec h1 "$MRCCTL" dev add "$XFER_DEV_A" "${netdevs[@]}"
cleanup_push link_del_quiet "$XFER_DEV_A"
run ip netns exec h2 "$MRCCTL" dev add "$XFER_DEV_B" "${netdevs[@]}"
cleanup_push link_del_quiet "$XFER_DEV_B"
wait_until "a GID of $HOST_A" "$WAIT_TIMEOUT" has_gid "$XFER_DEV_A" "$HOST_A"
wait_until "a GID of $HOST_B" "$WAIT_TIMEOUT" has_gid "$XFER_DEV_B" "$HOST_B"
XFER_GID_A=$(gid_index_of "$XFER_DEV_A" "$HOST_A")
XFER_GID_B=$(gid_index_of "$XFER_DEV_B" "$HOST_B")

rm -f "$MRC_TMP/x.stop"
bg_start x.server ip netns exec h2 "$(helper_path mrc_xfer)" -d "$XFER_DEV_B" \
	-g "$XFER_GID_B" -p "$XFER_TCP_PORT" --timeout "$XFER_SECS"
bg_start x.client ip netns exec h1 "$(helper_path mrc_xfer)" -d "$XFER_DEV_A" \
	-g "$XFER_GID_A" -p "$XFER_TCP_PORT" --timeout "$XFER_SECS" \
	--size "$XFER_SIZE" --iters 1000000 --stop-file "$MRC_TMP/x.stop" "$MGMT_B"
check "every plane carries the transfer" carried_by 1 2 3 4
all_evs=$(ev_slots)
log "    the QP sprays over $all_evs EVs ($(usable) usable now)"
[ "$all_evs" -ge $((NPLANES * EV_MIN_ACTIVE)) ] ||
	fail "too few EVs to tell a plane's from a single EV"

mrc_cases_run
