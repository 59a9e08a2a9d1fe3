#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a hostile process can do to rdma_mrc with what it has: its own
# shared rings, and an ordinary UDP socket on a peer host.  Two hosts h1,
# h2 (scripts/fabric hosts 2), mrcA on h1, mrcB on h2.
#
#   ring   A process writes its own send queue ring (mrc_ring_attack):
#          with WR0 (8 packets) in flight and every SACK from h2 held back
#          by a tc filter (so WR0 stays outstanding and only its RTO
#          resends go out), it fills the other slots and rewrites WR0's
#          slot with another WQE, and publishes a producer index one
#          beyond what the ring has room for.  After a few RTOs the SACKs
#          pass again.  Every WR completes, B's MR holds exactly what was
#          posted, and every data packet a capture on h1 saw carries
#          exactly the bytes the application posted at the address it
#          names (mrc_pcap.py payload): no resend built from a slot
#          reused while its WQE was in flight, no byte of a fresh buffer.
#   acks   A verified transfer mrcA -> mrcB runs; meanwhile a process on
#          h2 (the peer's address, its own UDP port) sends, from an
#          ordinary UDP socket, correctly ICRC'd control packets to
#          mrcA's QP that name nothing it has outstanding: a NACK
#          UNEXP_EVENT, and a SACK with M = ALWAYS_SKIP for each of the
#          QP's EVs (learnt from a capture), a SACK reporting DUPS_FORGED
#          duplicates (SETH.dups, which widens the reordering window),
#          then the same with a NAK and an ACK for messages never sent.  The QP keeps running: the
#          transfer verifies, no QP error, mrcA's drop_unmatched_ack moves
#          by exactly the packets forged, its EV profile sends no event
#          with reason always-skip (mrcctl monitor), and it counts no
#          more spurious resends than it resent.
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
# shellcheck source=SCRIPTDIR/cap_lib.sh
. "$SELF_DIR/cap_lib.sh"

MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
PKT_TOOL=$SELF_DIR/crafted_pkt.py
PYTHON=/usr/bin/python3
# Captures (cap_lib.sh): whole packets of the filter only, no markers.
SNAPLEN=0
CAPTURE_BUFFER_KIB=16384
CAP_MARKERS=0

# ring: mrc_ring_attack's layout (see its header).
RING_PSN=0x00abcd
RING_WR0_LEN=8192
RING_TAIL_OFF=49152
RING_TAIL_LEN=4
RING_PAT_MUL=31
RING_PAT_ADD=7
RING_RTO_MIN_US=200000	# room for the process to write its ring
RING_RTOS=2		# RTO resends of WR0 before the SACKs may pass
RING_SECS=$((300 * TIME_SCALE))

# acks: the EV profile of mrcA (events on assumed-bad), the forger's port.
EVP=1
EV_COUNT=16
EV_BASE=$((0xc000))
FORGE_SPORT=40404
PSN_HALF=$((1 << 23))
PSN_MASK=$(((1 << 24) - 1))
XFER_SIZE=$((256 * 1024))
# The transfer runs until the case stops it; its deadline must outlast
# the case on a debug kernel too (learning, forging: minutes there).
XFER_SECS=$((300 * TIME_SCALE))
LEARN_PKTS=300

# BTH opcodes (the u32 match in the filters), SETH M=ALWAYS_SKIP.
OP_ACK=0xd1
OP_SACK=0xdc
OP_NACK=0xdd
BTH_OP_OFF=28		# IP 20 + UDP 8
SETH_M_ALWAYS_SKIP=0x40
DUPS_FORGED=0x7f	# the most SETH.dups can grow by in one SACK

# h2's egress filter that holds back what mrcB sends to mrcA's QP: its
# SACKs, NACKs and ACKs.
hold_acks() {
	run ip netns exec "$XFER_NS_B" tc qdisc add dev "$XFER_NETDEV" clsact
	for op in $OP_SACK $OP_NACK $OP_ACK; do
		run ip netns exec "$XFER_NS_B" tc filter add dev "$XFER_NETDEV" \
			egress protocol ip prio 1 u32 \
			match u8 "$IPV4_VIHL" 0xff at 0 \
			match u8 "$IPPROTO_UDP" 0xff at "$IP_PROTO_OFF" \
			match u16 "$MRC_DEFAULT_UDP_PORT" 0xffff at "$UDP_DPORT_OFF" \
			match u8 "$op" 0xff at "$BTH_OP_OFF" action drop
	done
}

release_acks() {
	ip netns exec "$XFER_NS_B" tc qdisc del dev "$XFER_NETDEV" clsact \
		2>/dev/null || true
}

# --- ring --------------------------------------------------------------------------

case_ring() {
	local bin out base dst
	case_what "a process writes its own send ring beyond its room"
	bin=$(helper_path mrc_ring_attack)
	param_set rto_min_us "$RING_RTO_MIN_US"
	cap_start ring "$XFER_NS_A" "$XFER_NETDEV" "udp dst port $MRC_DEFAULT_UDP_PORT and src host $XFER_HOSTS_IP_A"
	mkfifo "$MRC_TMP/ring.in"
	exec {RING_FD}<>"$MRC_TMP/ring.in"
	# Its stdin is the FIFO (bg_start gives /dev/null): the "go"s.
	ring_exec() {
		ip netns exec "$XFER_NS_A" "$bin" --dev-a "$XFER_DEV_A" \
			--ip-a "$XFER_HOSTS_IP_A" --dev-b "$XFER_DEV_B" \
			--ip-b "$XFER_HOSTS_IP_B" --psn "$RING_PSN" \
			--timeout "$RING_SECS" <"$MRC_TMP/ring.in"
	}
	bg_start ring ring_exec
	out=$(bg_out ring)
	wait_until "mrc_ring_attack READY" "$WAIT_TIMEOUT" file_has_line "$out" READY
	cleanup_push release_acks
	hold_acks
	base=$(hwc "$XFER_DEV_A" timeouts)
	printf 'go\n' >&"$RING_FD"
	wait_until "mrc_ring_attack ATTACKED" "$WAIT_TIMEOUT" file_has_line "$out" ATTACKED
	# WR0's resends after the ring was rewritten: built from its copy.
	wait_until "$RING_RTOS RTO resends of WR0" "$CMD_TIMEOUT" \
		hwc_at_least "$XFER_DEV_A" timeouts $((base + RING_RTOS))
	release_acks
	printf 'go\n' >&"$RING_FD"
	if ! bg_wait ring "$RING_SECS"; then
		bg_stacks ring
		fail "mrc_ring_attack did not finish"
	fi
	if [ "$(result_of "$out")" = "RESULT ok" ]; then
		ok "every WR completed, B's MR holds exactly what was posted"
	else
		sed 's/^/    /' "$out"
		not_ok "mrc_ring_attack: $(result_of "$out")"
	fi
	cap_end ring
	dst=$(sed -n 's/^DST=//p' "$out")
	pcap payload --cap "$MRC_TMP/ring.pcap" --src "$XFER_HOSTS_IP_A" \
		--mul "$RING_PAT_MUL" --add "$RING_PAT_ADD" \
		--region "$dst:$RING_WR0_LEN:0" \
		--region "$((dst + RING_TAIL_OFF)):$RING_TAIL_LEN:0"
	results "$BOUNDED_OUT"
	log "    capture: ${R[data]} data packets, ${R[rtx]} resends, ${R[bytes]} payload bytes"
	expect_num "WR0's packets were resent" "${R[rtx]}" -ge "$RING_RTOS"
	expect_eq "no data packet carries a byte the application did not post there" \
		0 "${R[bad]}"
	expect_eq "no data packet to an address nothing was posted to" 0 "${R[stray]}"
	param_restore
}

# --- acks --------------------------------------------------------------------------

# acks_profile: mrcA's default EV profile: EV_COUNT EVs from EV_BASE, its
# events on a monitor.
acks_profile() {
	run "$MRCCTL" fmt set "$XFER_DEV_A" id "$EVP" state offline mode udp field 16
	run "$MRCCTL" fmt set "$XFER_DEV_A" id "$EVP" state online
	run "$MRCCTL" evp set "$XFER_DEV_A" id "$EVP" state offline mode gen \
		fmt "$EVP" count "$EV_COUNT" field width 16 init "$EV_BASE" min 0 \
		max $((EV_COUNT - 1)) mask 0xff
	run "$MRCCTL" evp set "$XFER_DEV_A" id "$EVP" min-active 1 \
		event-mask assumed-bad state online
	run "$MRCCTL" dev set "$XFER_DEV_A" default-ev-profile "$EVP"
	cleanup_push "$MRCCTL" dev set "$XFER_DEV_A" default-ev-profile 0
	bg_start monitor ip netns exec "$XFER_NS_A" "$MRCCTL" -j monitor ev
	wait_until "mrcctl monitor subscribed" "$WAIT_TIMEOUT" \
		grep -q 'mrcctl: monitoring ev' "$(bg_out monitor)"
}

# acks_transfer_start: an open-ended verified transfer mrcA -> mrcB,
# captured at h1 until it has sent LEARN_PKTS packets.
acks_transfer_start() {
	cap_start learn "$XFER_NS_A" "$XFER_NETDEV" "udp dst port $MRC_DEFAULT_UDP_PORT and src host $XFER_HOSTS_IP_A"
	counters_snap acks.0
	rm -f "$MRC_TMP/acks.stop"
	bg_start acks.server ip netns exec "$XFER_NS_B" "$(helper_path mrc_xfer)" \
		-d "$XFER_DEV_B" -g "$XFER_GID_B" -p "$XFER_TCP_PORT" \
		--timeout "$XFER_SECS"
	bg_start acks.client ip netns exec "$XFER_NS_A" "$(helper_path mrc_xfer)" \
		-d "$XFER_DEV_A" -g "$XFER_GID_A" -p "$XFER_TCP_PORT" \
		--timeout "$XFER_SECS" --size "$XFER_SIZE" --iters 100000 \
		--stop-file "$MRC_TMP/acks.stop" "$XFER_SERVER_IP"
	wait_until "the transfer runs" "$WAIT_TIMEOUT" \
		hwc_at_least "$XFER_DEV_A" tx_data_pkts \
		$(($(counter_at acks.0 "$XFER_DEV_A" tx_data_pkts) + LEARN_PKTS))
}

# acks_learn: the QP (ACKS_QPN), the EVs it uses (ACKS_EVS) and a
# cack_psn half the PSN space from what it sent (ACKS_CACK).
acks_learn() {
	local psn n
	# A sample: which EVs the QP uses, a PSN it sent.
	cap_halt learn
	run "$MRCCTL" -j qp show "$XFER_DEV_A"
	ACKS_QPN=$(jq -r '.[0].qpn' "$BOUNDED_OUT")
	[[ $ACKS_QPN =~ ^[0-9]+$ ]] || { bounded_output; fail "no QP of $XFER_DEV_A"; }
	pcap sports --src "$XFER_HOSTS_IP_A" "$MRC_TMP/learn.pcap"
	ACKS_EVS=$(awk '$1 == "sport" { print $2 }' "$BOUNDED_OUT")
	psn=$(awk '$1 == "psn_last" { print $2 }' "$BOUNDED_OUT")
	[ -n "$psn" ] || fail "no data PSN in the capture"
	# Half the PSN space away from what the QP sends: never outstanding.
	ACKS_CACK=$(((psn + PSN_HALF) & PSN_MASK))
	n=$(wc -w <<<"$ACKS_EVS")
	log "    QP $ACKS_QPN of $XFER_DEV_A sprays over $n EVs"
	expect_eq "the QP uses its profile's $EV_COUNT EVs" "$EV_COUNT" "$n"
}

# acks_forge: from h2, unprivileged: a NACK UNEXP_EVENT, a SACK with M =
# ALWAYS_SKIP per EV, a NAK and an ACK, none naming anything outstanding;
# mrcA drops them all (ACKS_FORGED) and the transfer goes on.
acks_forge() {
	local ev base base_drop pkts=()
	pkts=("op=$OP_NACK reason=0x19 psn=$ACKS_CACK")
	for ev in $ACKS_EVS; do
		pkts+=("op=$OP_SACK psn=$ACKS_CACK cack=$ACKS_CACK sflags=$SETH_M_ALWAYS_SKIP ev=$((ev << 16))")
	done
	pkts+=("op=$OP_SACK psn=$ACKS_CACK cack=$ACKS_CACK dups=$DUPS_FORGED")
	# MSNs: as far from the few sent as PSNs are.
	pkts+=("op=$OP_ACK syn=0x62 amsn=$PSN_HALF" "op=$OP_ACK syn=0x1f amsn=$PSN_HALF")
	base_drop=$(hwc "$XFER_DEV_A" drop_unmatched_ack)
	run ip netns exec "$XFER_NS_B" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$PYTHON" "$PKT_TOOL" forge --src "$XFER_HOSTS_IP_B" \
		--dst "$XFER_HOSTS_IP_A" --sport "$FORGE_SPORT" --qpn "$ACKS_QPN" "${pkts[@]}"
	ACKS_FORGED=$(sed -n 's/^FORGED n=\([0-9]*\) .*/\1/p' "$BOUNDED_OUT")
	log "    forged $ACKS_FORGED packets from $XFER_HOSTS_IP_B port $FORGE_SPORT (unprivileged)"
	check "$XFER_DEV_A dropped all $ACKS_FORGED as matching nothing outstanding" \
		wait_for "$WAIT_TIMEOUT" hwc_at_least "$XFER_DEV_A" \
		drop_unmatched_ack $((base_drop + ACKS_FORGED))
	base=$(hwc "$XFER_DEV_A" tx_data_pkts)
	check "the transfer goes on" wait_for "$WAIT_TIMEOUT" \
		hwc_at_least "$XFER_DEV_A" tx_data_pkts $((base + LEARN_PKTS))
}

# acks_transfer_end: the transfer verified; the counters moved by the
# forged packets only.
acks_transfer_end() {
	local out
	touch "$MRC_TMP/acks.stop"
	bg_wait acks.client "$XFER_SECS" || not_ok "client still running"
	bg_wait acks.server "$XFER_SLACK" || not_ok "server still running"
	out=$(result_of "$(bg_out acks.client)")
	if [[ $out == "RESULT ok "* ]] &&
	   [[ $(result_of "$(bg_out acks.server)") == "RESULT ok "* ]]; then
		ok "payload verified, no QP error: ${out#RESULT }"
	else
		sed 's/^/    /' "$(bg_out acks.client)" "$(bg_out acks.server)"
		not_ok "the transfer failed: $out"
	fi
	counters_snap acks.1
	counters_show acks.0 acks.1 drop_unmatched_ack nacks_rcvd nack_unexp_event \
		naks_rcvd acks_rcvd ev_assumed_bad retransmits spurious_retransmits \
		reo_wnd_widened
	expect_eq "$XFER_DEV_A drop_unmatched_ack = packets forged" "$ACKS_FORGED" \
		"$(counter_delta acks.0 acks.1 "$XFER_DEV_A" drop_unmatched_ack)"
	expect_eq "$XFER_DEV_A took no NACK UNEXP_EVENT" 0 \
		"$(counter_delta acks.0 acks.1 "$XFER_DEV_A" nack_unexp_event)"
	expect_eq "$XFER_DEV_A took no NAK" 0 \
		"$(counter_delta acks.0 acks.1 "$XFER_DEV_A" naks_rcvd)"
	expect_eq "no EV event with reason always-skip" 0 \
		"$(grep -c '"reason":"always-skip"' "$(bg_out monitor)" || true)"
	# A duplicate report can only prove resends spurious that went out.
	expect_num "$XFER_DEV_A: spurious resends counted <= resends" \
		"$(counter_delta acks.0 acks.1 "$XFER_DEV_A" spurious_retransmits)" -le \
		"$(counter_delta acks.0 acks.1 "$XFER_DEV_A" retransmits)"
}

case_acks() {
	case_what "control packets naming nothing outstanding, from the peer's host"
	acks_profile
	acks_transfer_start
	acks_learn
	acks_forge
	acks_transfer_end
}

mrc_case ring case_ring
mrc_case acks case_acks
mrc_cases_args "$@"

mrc_test_init
for tool in tcpdump jq "$PYTHON"; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ -x "$MRCCTL" ] || fail "no mrcctl at $MRCCTL: run make"

xfer_fabric hosts
START=$SECONDS
mrc_cases_run
log "run time $((SECONDS - START)) s"
