#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel memory an unprivileged process makes rdma_mrc allocate is
# charged to the process's memory cgroup, so that a cgroup's memory.max
# bounds it and it cannot eat the memory of the rest of the system: the
# rings a QP's caps size (send and receive queues, the requester's copies
# of send WQEs, CQs) when the QP is created, and the windows' state (a
# message slot per PSN of the responder's window at INIT -> RTR, a packet
# record per PSN the requester may have in flight at RTR -> RTS), which
# exists only while the QP is connected and is freed in RESET.
#
# mrc_memcg_helper runs as nobody (setpriv; /dev/infiniband/uverbs* is
# 0666) alone in a child cgroup with memory.max = 64M, with QPs of 4096
# send and 4096 receive WRs (about 1 MiB of rings each):
#
#   1. 32 QPs: memory.current grows by at least 256 KiB per QP (what two
#      rings of 4096 WQEs of at least 32 bytes need);
#   2. INIT -> RTR of those 32 (mpr_units=32: a 4096-PSN window): it grows
#      by at least 1 MiB; RTR -> RTS (max_inflight=4096): again; RESET:
#      it falls back to what it was with the QPs in RESET, within 1 MiB
#      (the kernel's per-CPU charge batches make it move in steps of up to
#      256 KiB a CPU);
#   3. QPs until one cannot be created: ibv_create_qp fails with ENOMEM
#      well before the device's max_qp (the helper has oom_score_adj
#      -1000, so that the memcg OOM killer, which a charge at the limit
#      invokes before it fails, finds nobody to kill and the charge fails);
#      memory.events "max" and "oom" moved, "oom_kill" did not;
#      memory.peak reached memory.max (within 1 MiB) and memory.current,
#      with the QPs held, is within 4 MiB plus the helper's ballast of it;
#      MemAvailable dropped by no more than memory.current grew, plus 16
#      MiB for what is not charged (the core's own per-object structures,
#      this shell's work);
#   4. the helper exits: its objects are gone and memory.current is back
#      to (at most) what it was when the helper was READY, within 1 MiB;
#   5. the same fill with the default oom_score_adj: the memcg OOM killer
#      kills the helper (SIGKILL, memory.events "oom_kill" +1, a report
#      constrained to this cgroup, never a global OOM), and the kernel
#      releases everything it held.
#   6. per_qp: what one QP costs, at scale: in a cgroup of its own with
#      no limit, the helper creates 1,000 QPs of 128 send and 128 receive
#      WRs, then moves them to RTR and RTS (each connected to itself);
#      each step's growth of memory.current per QP, and memory.stat's
#      slab and vmalloc where the kernel has them, are printed, and the
#      growth must be at least security.rst's formula ("What one QP
#      costs") and at most twice it plus two pages (the allocators'
#      rounding: kmalloc's powers of two, vmalloc's page tables).
#
# Reaching memory.max makes the kernel log its memcg OOM report (with a
# stack dump): the test announces it to run_tests.sh first, which then
# does not count such reports as warnings (see run_tests.sh).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

MIB=1048576
KIB=1024
MEMCG_MAX_MIB=64
QP_WR=4096
# A driver that charged nothing would let the helper go on; stop it there
# (about 400 MiB, well inside the guest's memory).
MAX_QPS=400
WINDOW_QPS=32
BALLAST_MIB=4
# Lower bounds of what each step must be charged (see above).
MIN_QP_BYTES=$((2 * QP_WR * 32))
MIN_WINDOW_BYTES=$MIB
STEP_SLACK=$MIB
HOLD_SLACK=$((4 * MIB))
PEAK_SLACK=$MIB
UNCHARGED_SLACK_MIB=16
MPR_UNITS=32
MAX_INFLIGHT=4096
NOBODY=65534
OOM_SCORE_ADJ_MIN=-1000
EXIT_SIGKILL=137
# The marker run_tests.sh looks for (KMSG_TAG there).
KMSG_EXPECT_OOM="mrc-selftest: expect memcg oom"
QPS_IBV_RESET=0
QPS_IBV_RTR=2
QPS_IBV_RTS=3
# 6: QPs, their WRs (one SGE, no inline data: G = g = 1, I = 0).
PER_QP_QPS=1000
PER_QP_WR=128
# security.rst's formula: ring header, WQE sizes, the bytes of a
# requester's copy beyond its WQE, of a responder's message slot and of a
# requester's packet record, the PSNs of an MPR unit, the windows the
# requester spans.
RING_HDR=128
SEND_WQE_BASE=40
RECV_WQE_BASE=16
SGE_BYTES=16
SWQE_EXTRA=16
RMSG_BYTES=28
TXPKT_BYTES=20
MPR_UNIT_PSNS=128
SPAN_WINDOWS=4
MAX_WINDOW_PSNS=4096

# --- the cgroup ---------------------------------------------------------

subtree_control() {
	echo "$2" >"$1/cgroup.subtree_control"
}

# The value of KEY in the flat-keyed file FILE.
keyed() {
	local key value
	while read -r key value; do
		if [ "$key" = "$2" ]; then
			printf '%s\n' "$value"
			return 0
		fi
	done <"$1"
	return 1
}

cg_current() {
	local v
	read -r v <"$CG/memory.current"
	printf '%s\n' "$v"
}

mem_available_kib() {
	local key value _
	while read -r key value _; do
		if [ "$key" = MemAvailable: ]; then
			printf '%s\n' "$value"
			return 0
		fi
	done </proc/meminfo
	return 1
}

mib() {
	awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'
}

# --- the helper -----------------------------------------------------------

# in_cgroup ADJ FIFO CMD...: CMD as nobody, alone in $CG (its sh moves
# itself there before it execs anything), with oom_score_adj ADJ (set
# while still root), stdin from FIFO (and no other end of it open).
in_cgroup() {
	[ -z "$CMD_FD" ] || exec {CMD_FD}>&-
	# shellcheck disable=SC2016 # expanded by sh
	sh -c 'cg=$1 adj=$2 fifo=$3; shift 3
		echo $$ >"$cg/cgroup.procs" &&
		echo "$adj" >/proc/self/oom_score_adj &&
		exec setpriv --reuid='"$NOBODY"' --regid='"$NOBODY"' \
			--clear-groups "$@" <"$fifo"' \
		in_cgroup "$CG" "$@"
}

CMD_FD=
HELPER=
# helper_start NAME ADJ BALLAST_MIB: the helper in the background, its
# commands through a FIFO held open here (closing it is its EOF).
helper_start() {
	local fifo=$MRC_TMP/$1.cmd
	HELPER=$1
	mkfifo "$fifo"
	exec {CMD_FD}<>"$fifo"
	bg_start "$1" in_cgroup "$2" "$fifo" "$helper" "$QP_WR" "$MAX_QPS" "$3"
	helper_wait READY 0 || fail "helper did not start: $(cat "$(bg_out "$1")")"
}

helper_stop_input() {
	[ -z "$CMD_FD" ] || exec {CMD_FD}>&-
	CMD_FD=
}

ANSWER=
# answered FROM WORD: a line at or after line FROM of the helper's output
# starts with WORD or FAIL (into ANSWER); or the helper has exited.
answered() {
	local -a lines
	local i
	mapfile -t lines <"$(bg_out "$HELPER")"
	for ((i = $2; i < ${#lines[@]}; i++)); do
		case ${lines[i]} in
		"$1"* | FAIL*)
			ANSWER=${lines[i]}
			ANSWER_LINE=$((i + 1))
			return 0
			;;
		esac
	done
	if bg_done "$HELPER"; then
		ANSWER="(exited with status $(bg_rc "$HELPER"))"
		# Died of a signal: what the kernel said about it.
		[ "$(bg_rc "$HELPER")" -lt 128 ] ||
			while read -r line; do log "    kernel: $line"; done \
				< <(dmesg | tail -n 30)
		return 0
	fi
	return 1
}

ANSWER_LINE=0
helper_wait() {
	ANSWER=
	wait_for "$CMD_TIMEOUT" answered "$1" "$2"
}

# ask WANT CMD...: send CMD, wait for its answer (ANSWER: the next line
# that starts with CMD's answer word, or FAIL), which must start with WANT.
ask() {
	local want=$1
	shift
	printf '%s\n' "$*" >&"$CMD_FD"
	helper_wait "${want%% *}" "$ANSWER_LINE" ||
		fail "helper did not answer '$*' in ${CMD_TIMEOUT}s"
	log "    $* -> $ANSWER"
	[[ $ANSWER == "$want"* ]] || fail "'$*': $ANSWER, not $want..."
}

helper_gone() {
	bg_wait "$HELPER" "$CMD_TIMEOUT" || fail "helper still running"
}

current_at_most() {
	[ "$(cg_current)" -le "$1" ]
}

no_line_matching() {
	! grep -q -- "$1" "$2"
}

# Page cache is charged to the cgroup that reads a page first, and reclaim
# at memory.max takes such pages back: had the helper's cgroup been the
# first to read its code, or a library's, reclaim would evict it there and
# the refault, from the guest's shared root, could fail for want of memory
# (once on 6.12 the helper died of SIGBUS at the limit).  Every file it
# maps is read first from here, outside the cgroup.
# (The provider is dlopen()ed by libibverbs: ldd does not show it.)
warm_page_cache() {
	local f
	local -a files=("$helper" "$(command -v setpriv)") libs=()
	files+=(/usr/lib/*/libibverbs/libmrc-rdmav*.so)
	for f in "${files[@]}"; do
		[ -e "$f" ] || fail "no $f to read"
		mapfile -t -O "${#libs[@]}" libs < <(ldd "$f" |
			awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
	done
	for f in "${files[@]}" "${libs[@]}"; do
		cat -- "$f" >/dev/null || fail "cannot read $f"
	done
}

# --- 1-4: charged, sized when used, freed in RESET, bounded ---------------

# The helper's QPs are charged to its cgroup, their windows sized when
# used (RTR, RTS) and given back in RESET.
case_windows() {
	log "cgroup $CG, memory.max $(mib "$memcg_max"); QPs of $QP_WR WRs"
	avail_start=$(mem_available_kib)
	current_start=$(cg_current)
	warm_page_cache
	helper_start memcg "$OOM_SCORE_ADJ_MIN" "$BALLAST_MIB"
	current_ready=$(cg_current)
	log "memory.current: $(mib "$current_start") before the helper, $(mib "$current_ready") READY"

	ask created create "$WINDOW_QPS"
	current_qps=$(cg_current)
	per_qp=$(((current_qps - current_ready) / WINDOW_QPS))
	log "$WINDOW_QPS QPs: memory.current $(mib "$current_qps"), $((per_qp / KIB)) KiB a QP"
	expect_num "charge of a QP with $QP_WR-WR rings (bytes)" "$per_qp" -ge "$MIN_QP_BYTES"

	ask "rtr ok" rtr "$WINDOW_QPS"
	ask "state $QPS_IBV_RTR" state 1
	current_rtr=$(cg_current)
	log "INIT -> RTR: memory.current $(mib "$current_rtr")"
	expect_num "responder windows of $WINDOW_QPS QPs charged at RTR (bytes)" \
		$((current_rtr - current_qps)) -ge "$MIN_WINDOW_BYTES"

	ask "rts ok" rts "$WINDOW_QPS"
	ask "state $QPS_IBV_RTS" state 1
	current_rts=$(cg_current)
	log "RTR -> RTS: memory.current $(mib "$current_rts")"
	expect_num "requester windows of $WINDOW_QPS QPs charged at RTS (bytes)" \
		$((current_rts - current_rtr)) -ge "$MIN_WINDOW_BYTES"

	ask "reset ok" reset "$WINDOW_QPS"
	ask "state $QPS_IBV_RESET" state 1
	current_reset=$(cg_current)
	log "RESET: memory.current $(mib "$current_reset")"
	expect_num "windows given back in RESET (bytes freed)" \
		$((current_rts - current_reset)) -ge $((current_rts - current_qps - STEP_SLACK))
	expect_num "memory.current in RESET vs. before RTR (bytes over)" \
		$((current_reset - current_qps)) -le "$STEP_SLACK"
}

# The helper creates QPs until the cgroup's limit: ENOMEM, far below the
# device's max_qp, with the cgroup at its limit and nothing charged
# elsewhere.
case_fill() {
	events_max=$(keyed "$CG/memory.events" max)
	events_oom=$(keyed "$CG/memory.events" oom)
	events_kill=$(keyed "$CG/memory.events" oom_kill)
	echo "$KMSG_EXPECT_OOM in $CG" >/dev/kmsg
	ask created fill
	read -r created _ errno_num errno_name <<<"${ANSWER#created }"
	log "creation stopped after $created QPs: errno $errno_num $errno_name"
	expect_eq "errno of the ibv_create_qp that failed" ENOMEM "$errno_name"
	expect_num "QPs created before the limit" "$created" -lt "$MAX_QPS"
	expect_num "QPs created, far below the device's max_qp $max_qp" \
		"$created" -lt $((max_qp / 4))
	current_hold=$(cg_current)
	avail_hold=$(mem_available_kib)
	expect_num "memory.events max moved" "$(keyed "$CG/memory.events" max)" -gt "$events_max"
	expect_num "memory.events oom moved" "$(keyed "$CG/memory.events" oom)" -gt "$events_oom"
	expect_eq "memory.events oom_kill (nobody killable)" "$events_kill" \
		"$(keyed "$CG/memory.events" oom_kill)"
	if [ -r "$CG/memory.peak" ]; then
		read -r peak <"$CG/memory.peak"
		log "memory.peak $(mib "$peak")"
		expect_num "memory.peak reached memory.max (bytes short)" \
			$((memcg_max - peak)) -le "$PEAK_SLACK"
		expect_num "memory.peak within memory.max (bytes over)" \
			$((peak - memcg_max)) -le 0
	else
		log "no memory.peak in this kernel"
	fi
	log "holding: memory.current $(mib "$current_hold")"
	expect_num "memory.current with the QPs held, short of memory.max (bytes)" \
		$((memcg_max - current_hold)) -le $((HOLD_SLACK + BALLAST_MIB * MIB))
	drop=$(((avail_start - avail_hold) * KIB))
	charged=$((current_hold - current_start))
	log "MemAvailable dropped $(mib "$drop"), the cgroup was charged $(mib "$charged")"
	expect_num "MemAvailable drop beyond what the cgroup was charged (MiB)" \
		$(((drop - charged) / MIB)) -le "$UNCHARGED_SLACK_MIB"
}

# The helper quits: its objects and its memory given back.
case_release() {
	ask BYE quit
	helper_stop_input
	helper_gone
	expect_eq "helper exit status" 0 "$(bg_rc memcg)"
	check "objects of the helper released" wait_for "$WAIT_TIMEOUT" res_back "$res_before"
	if wait_for "$WAIT_TIMEOUT" current_at_most $((current_ready + STEP_SLACK)); then
		ok "memory.current back to $(mib "$(cg_current)") (READY: $(mib "$current_ready"))"
	else
		not_ok "memory.current $(mib "$(cg_current)") after the exit, READY: $(mib "$current_ready")"
	fi
}

# At the limit with the OOM killer: a killable helper is killed, by the
# cgroup's OOM, and its objects and memory are given back.
case_oom_kill() {
	events_kill=$(keyed "$CG/memory.events" oom_kill)
	current_start=$(cg_current)
	echo "$KMSG_EXPECT_OOM in $CG" >/dev/kmsg
	helper_start killed 0 0
	printf 'fill\n' >&"$CMD_FD"
	bg_wait killed "$CMD_TIMEOUT" || fail "helper at the limit neither failed nor was killed"
	helper_stop_input
	log "    fill -> exit status $(bg_rc killed)"
	expect_eq "helper killed by SIGKILL (exit status)" "$EXIT_SIGKILL" "$(bg_rc killed)"
	expect_eq "memory.events oom_kill" $((events_kill + 1)) \
		"$(keyed "$CG/memory.events" oom_kill)"
	run dmesg
	check "the OOM kill was the cgroup's (CONSTRAINT_MEMCG, oom_memcg=${CG#"$cg_root"})" \
		grep -q "oom-kill:constraint=CONSTRAINT_MEMCG,.*oom_memcg=${CG#"$cg_root"}," "$BOUNDED_OUT"
	check "no global OOM" no_line_matching 'oom-kill:constraint=CONSTRAINT_NONE' "$BOUNDED_OUT"
	check "objects of the killed helper released" wait_for "$WAIT_TIMEOUT" res_back "$res_before"
	if wait_for "$WAIT_TIMEOUT" current_at_most $((current_start + STEP_SLACK)); then
		ok "memory.current back to $(mib "$(cg_current)") (before: $(mib "$current_start"))"
	else
		not_ok "memory.current $(mib "$(cg_current)") after the kill, before: $(mib "$current_start")"
	fi
}

# --- 6: what one QP costs -------------------------------------------------

align_up() { echo $((($1 + $2 - 1) / $2 * $2)); }

pow2_up() {
	local v=1
	while [ "$v" -lt "$1" ]; do v=$((v * 2)); done
	echo "$v"
}

# memcg_stat KEY: KEY of $CG/memory.stat, 0 when the kernel has no such key.
memcg_stat() { keyed "$CG/memory.stat" "$1" || echo 0; }

# per_qp_step NAME FORMULA BEFORE: memory.current's growth since BEFORE,
# a QP's share of it against FORMULA bytes a QP.
per_qp_step() {
	local name=$1 formula=$2 before=$3 now per page
	page=$(getconf PAGESIZE)
	now=$(cg_current)
	per=$(((now - before) / PER_QP_QPS))
	log "    $name: $per bytes a QP (formula $formula; slab $(memcg_stat slab)," \
		"vmalloc $(memcg_stat vmalloc) bytes in the cgroup)"
	expect_num "$name: bytes a QP, at least the formula's" "$per" -ge "$formula"
	expect_num "$name: bytes a QP, at most twice the formula's and two pages" \
		"$per" -le $((2 * formula + 2 * page))
	STEP_NOW=$now
}

case_per_qp() {
	local QP_WR=$PER_QP_WR MAX_QPS=$PER_QP_QPS
	local CG=$cg_root/mrc-memcg-per-qp.$$
	local page es er create rtr rts c0
	page=$(getconf PAGESIZE)
	es=$(align_up $((SEND_WQE_BASE + SGE_BYTES)) 64)
	er=$(align_up $((RECV_WQE_BASE + SGE_BYTES)) 64)
	create=$(($(align_up $((RING_HDR + QP_WR * es)) "$page") +
		$(align_up $((RING_HDR + QP_WR * er)) "$page") +
		QP_WR * (es + SWQE_EXTRA)))
	rtr=$((MPR_UNITS * MPR_UNIT_PSNS))
	rtr=$((rtr / 8 + RMSG_BYTES * rtr))
	rts=$(pow2_up $((SPAN_WINDOWS * MAX_INFLIGHT)))
	[ "$rts" -le "$MAX_WINDOW_PSNS" ] || rts=$MAX_WINDOW_PSNS
	rts=$((TXPKT_BYTES * rts))
	mkdir "$CG"
	cleanup_push rmdir "$CG"
	warm_page_cache
	helper_start per_qp 0 0
	c0=$(cg_current)
	ask "created $PER_QP_QPS errno 0" create "$PER_QP_QPS"
	per_qp_step "create ($QP_WR-WR queues)" "$create" "$c0"
	ask "rtr ok" rtr "$PER_QP_QPS"
	per_qp_step "INIT -> RTR (responder window)" "$rtr" "$STEP_NOW"
	ask "rts ok" rts "$PER_QP_QPS"
	per_qp_step "RTR -> RTS (requester window)" "$rts" "$STEP_NOW"
	log "    $PER_QP_QPS connected QPs: $(mib $((STEP_NOW - c0))) charged"
	ask BYE quit
	helper_stop_input
	helper_gone
	expect_eq "helper exit status" 0 "$(bg_rc per_qp)"
}

# windows, fill and release are one helper's life.
mrc_case windows case_windows
mrc_case fill case_fill --after windows
mrc_case release case_release --after fill
mrc_case oom_kill case_oom_kill
mrc_case per_qp case_per_qp
mrc_cases_args "$@"

mrc_test_init
helper=$(helper_path mrc_memcg_helper)
# shellcheck disable=SC2119
mrc_dev_setup
param_set mpr_units "$MPR_UNITS"
param_set max_inflight "$MAX_INFLIGHT"
export MRC_DEV=$TEST_DEV MRC_IPV4=$TEST_IPV4
res_before=$(res_counts "$TEST_DEV")
run ibv_devinfo -v -d "$TEST_DEV"
max_qp=$(awk '$1 == "max_qp:" { print $2 }' "$BOUNDED_OUT")
expect_num "device max_qp" "${max_qp:-0}" -ge 1

cg_root=/sys/fs/cgroup
if [ "$(stat -f -c %T "$cg_root" 2>/dev/null)" != cgroup2fs ]; then
	cg_root=$MRC_TMP/cgroup2
	mkdir -p "$cg_root"
	run mount -t cgroup2 none "$cg_root"
	cleanup_push umount "$cg_root"
	log "cgroup2 mounted on $cg_root"
fi
grep -qw memory "$cg_root/cgroup.controllers" ||
	{
		log "SKIP: no memory controller in $cg_root/cgroup.controllers"
		exit "$KSFT_SKIP"
	}
if ! grep -qw memory "$cg_root/cgroup.subtree_control"; then
	echo +memory >"$cg_root/cgroup.subtree_control" ||
		fail "cannot enable the memory controller in $cg_root"
	cleanup_push subtree_control "$cg_root" -memory
	log "enabled +memory in $cg_root/cgroup.subtree_control"
fi
CG=$cg_root/mrc-memcg-test.$$
mkdir "$CG"
cleanup_push rmdir "$CG"
echo "${MEMCG_MAX_MIB}M" >"$CG/memory.max"
read -r memcg_max <"$CG/memory.max"
expect_eq "memory.max" $((MEMCG_MAX_MIB * MIB)) "$memcg_max"

mrc_cases_run
