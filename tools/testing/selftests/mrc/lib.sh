# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers of the rdma_mrc selftests.  Source it; it sets no shell
# options.  A test calls mrc_test_init first: strict mode, a scratch
# directory and an EXIT trap that undoes, in reverse order, everything
# registered with cleanup_push.
#
# Every command that reaches into the driver runs under `bounded`: a buggy
# driver makes a test fail with a timeout, never hang.  Output of such
# commands goes to files, never to an inherited pipe, so that a process
# stuck in the kernel cannot keep the runner waiting for EOF either.

MRC_SELFTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MRC_REPO=${MRC_REPO:-$(cd "$MRC_SELFTEST_DIR/../../../.." && pwd)}
MRC_SELFTEST_BIN=${MRC_SELFTEST_BIN:-${OUTPUT:-${MRC_BUILD:-$MRC_REPO/build}/selftests}}
export MRC_REPO MRC_SELFTEST_BIN
PATH=$PATH:/usr/sbin:/sbin

# Constants for the tests that source this file.
# shellcheck disable=SC2034
{
# kselftest exit codes.
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

MRC_MODULE=rdma_mrc
MRC_LINK_TYPE=mrc
MRC_DEFAULT_UDP_PORT=4791
MRC_PORT=1
PORT_STATE_ACTIVE="4: ACTIVE"
PORT_STATE_DOWN="1: DOWN"
GID_TYPE_V2="RoCE v2"
GID_TYPE_V1="IB/RoCE v1"
ZERO_GID=0000:0000:0000:0000:0000:0000:0000:0000

# Seconds.  TCG guests are slow: generous, but bounded.  MRC_TIMEOUT_SCALE
# (run_tests.sh's per-test multiplier: 4 under the debug kernels, whose
# every packet costs several times more) stretches these bounds and every
# time a test asserts against (TIME_SCALE), never what it asserts.
TIME_SCALE=${MRC_TIMEOUT_SCALE:-1}
WAIT_TIMEOUT=${MRC_WAIT_TIMEOUT:-$((20 * TIME_SCALE))}	# for a condition to become true
CMD_TIMEOUT=${MRC_CMD_TIMEOUT:-$((60 * TIME_SCALE))}	# for one command to finish
POLL_INTERVAL=0.1
POLL_FIRST=0.02

# strerror() texts, as rdma(8) prints them.
ERR_ENODEV="No such device"
ERR_EEXIST="File exists"
ERR_ENFILE="Too many open files in system"
ERR_EINVAL="Invalid argument"

# Netdevs and addresses the tests create in the init namespace.
TEST_NETDEV=mrct0
TEST_NETDEV2=mrct1
TEST_NETDEV_PREFIX=mrct
TEST_IPV4=198.18.1.1
TEST_IPV4_2=198.18.2.1
TEST_IPV4_PLEN=24
TEST_IPV6=fd00:198:19::1
TEST_IPV6_PLEN=64
TEST_DEV=mrc0
}

# A function that ends up calling itself for ever fails with bash's
# "maximum function nesting level exceeded", not with a stack overflow
# (SIGSEGV, no EXIT trap, nothing cleaned up).
FUNCNEST=100

MRC_CLEANUPS=()
MRC_TMP=
MRC_SLEEP_FD=
BOUNDED_SEQ=0
BOUNDED_RC=0
BOUNDED_OUT=/dev/null

log() { printf '%s\n' "$*"; }

# Print a failure and leave the test (the EXIT trap cleans up).
fail() {
	log "FAIL: $*"
	exit "$KSFT_FAIL"
}

# mrc_tmp_init: the scratch directory $MRC_TMP, and a FIFO that nobody
# writes, for sleeping with the `read -t` builtin: under TCG every exec
# costs a few hundred milliseconds, so polling loops use builtins only.
mrc_tmp_init() {
	[ -z "$MRC_TMP" ] || return 0
	MRC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mrc-selftest.XXXXXX")
	mkfifo "$MRC_TMP/sleep.fifo"
	exec {MRC_SLEEP_FD}<>"$MRC_TMP/sleep.fifo"
}

# The scratch directory, for scripts.
mrc_tmp() {
	printf '%s\n' "$MRC_TMP"
}

# nap SECONDS: sleep without starting a process.
nap() {
	read -r -t "$1" -u "$MRC_SLEEP_FD" _ || true
}

# file_has_line FILE LINE: FILE has exactly LINE as a line (builtins only).
file_has_line() {
	local line
	[ -r "$1" ] || return 1
	while IFS= read -r line; do
		[ "$line" = "$2" ] && return 0
	done <"$1"
	return 1
}

# cleanup_push CMD [ARG...]: run CMD at exit, before earlier entries.
cleanup_push() {
	local quoted
	printf -v quoted '%q ' "$@"
	MRC_CLEANUPS+=("$quoted")
}

mrc_run_cleanups() {
	local i
	local -a cmd
	for ((i = ${#MRC_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "cmd=(${MRC_CLEANUPS[i]})"
		if ! bounded "$CMD_TIMEOUT" "${cmd[@]}"; then
			log "cleanup timed out: ${cmd[*]}"
		fi
	done
	MRC_CLEANUPS=()
}

# With MRC_SELFTEST_DUMP=1, a test ends by printing its scratch directory
# (captures, outputs) as a base64 tar.gz between a line "MRC-DUMP-BEGIN"
# and a line "MRC-DUMP-END": a guest's files are gone when it powers off
# (scripts/selftest-undump LOG DIR unpacks it on the host).
mrc_tmp_dump() {
	[ -n "$MRC_TMP" ] || return 0
	echo "MRC-DUMP-BEGIN"
	tar -C "$MRC_TMP" -cz --exclude=sleep.fifo . | base64
	echo "MRC-DUMP-END"
}

mrc_exit_trap() {
	local rc=$?
	set +e
	mrc_run_cleanups
	[ -n "${MRC_SELFTEST_DUMP:-}" ] && mrc_tmp_dump
	[ -n "$MRC_TMP" ] && rm -rf "$MRC_TMP"
	exit "$rc"
}

mrc_test_init() {
	set -euo pipefail
	[ "$EUID" -eq 0 ] || fail "must run as root (inside the test guest)"
	mrc_tmp_init
	trap mrc_exit_trap EXIT
}

# wait_for SECONDS CMD [ARG...]: poll CMD until it succeeds; 1 on timeout.
# The first polls come quickly, then every POLL_INTERVAL.
wait_for() {
	local secs=$1 interval=$POLL_FIRST
	shift
	local deadline=$((SECONDS + secs))
	while :; do
		"$@" && return 0
		((SECONDS >= deadline)) && return 1
		nap "$interval"
		[ "$interval" = "$POLL_INTERVAL" ] || interval=$POLL_INTERVAL
	done
}

# wait_until DESCRIPTION SECONDS CMD [ARG...]: wait_for or fail.
wait_until() {
	local what=$1 secs=$2
	shift 2
	wait_for "$secs" "$@" || fail "$what: not true after ${secs}s"
}

# Kill a process and its descendants (all started by this test).
kill_tree() {
	local pid=$1 child
	for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
		kill_tree "$child"
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# tree_stacks PID: print, for PID and its descendants, the command, the
# state and the kernel stack: why something did not finish.
tree_stacks() {
	local pid=$1 child
	[ -d "/proc/$pid" ] || return 0
	printf '    pid %s (%s) state %s\n' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null)" \
		"$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)"
	sed 's/^/      /' "/proc/$pid/stack" 2>/dev/null || true
	for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
		tree_stacks "$child"
	done
}

# bg_stacks NAME: tree_stacks of a background command.
bg_stacks() {
	[ -n "${BG_PID[$1]:-}" ] && tree_stacks "${BG_PID[$1]}"
	return 0
}

# Background commands, by name: bg_spawn NAME CMD [ARG...] runs CMD (a
# program or a function) with stdin from /dev/null and stdout+stderr into
# the file $MRC_TMP/NAME.out (bg_out NAME prints that path); bg_done NAME
# tells whether it has finished, bg_rc NAME its exit status.  A status
# file, not `kill -0`, tells that it finished: an exited but unreaped child
# still answers to kill -0.
declare -A BG_PID=()

bg_out() { printf '%s/%s.out\n' "$MRC_TMP" "$1"; }

bg_spawn() {
	local name=$1 out rcf
	shift
	out=$MRC_TMP/$name.out
	rcf=$MRC_TMP/$name.rc
	rm -f "$out" "$rcf"
	(
		set +e
		"$@" >"$out" 2>&1 </dev/null
		echo $? >"$rcf"
	) &
	BG_PID[$name]=$!
}

bg_done() { [ -s "$MRC_TMP/$1.rc" ]; }

bg_rc() {
	local rc
	read -r rc <"$MRC_TMP/$1.rc"
	printf '%s\n' "$rc"
}

# bg_kill NAME: kill it and its children if still running.
bg_kill() {
	local pid=${BG_PID[$1]:-}
	[ -n "$pid" ] || return 0
	bg_done "$1" || kill_tree "$pid"
	wait "$pid" 2>/dev/null || true
}

# bg_start NAME CMD...: bg_spawn, killed at exit if still running.
bg_start() {
	bg_spawn "$@"
	cleanup_push bg_kill "$1"
}

# bg_wait NAME SECONDS: 0 once it finished, 1 if still running after that.
bg_wait() {
	wait_for "$2" bg_done "$1" || return 1
	wait "${BG_PID[$1]}" 2>/dev/null || true
	return 0
}

# bg_printed NAME LINE WHAT: NAME's output has LINE as a line (for
# wait_until); if NAME ended without printing it, its output and a
# failure naming WHAT.
bg_printed() {
	file_has_line "$(bg_out "$1")" "$2" && return 0
	if bg_done "$1"; then
		sed 's/^/    /' "$(bg_out "$1")"
		fail "$3 exited before $2 (status $(bg_rc "$1"))"
	fi
	return 1
}

# bounded SECONDS CMD [ARG...]: run CMD in the background and wait for it;
# its output in the file $BOUNDED_OUT, its exit status in $BOUNDED_RC.
# Returns 1 if it did not finish in time (it is then killed, if it can be,
# and BOUNDED_RC is 124), else 0.
bounded() {
	local secs=$1 name
	shift
	BOUNDED_SEQ=$((BOUNDED_SEQ + 1))
	name=cmd.$BASHPID.$BOUNDED_SEQ	# case subshells count from the same SEQ
	BOUNDED_OUT=$MRC_TMP/$name.out
	bg_spawn "$name" "$@"
	if ! bg_wait "$name" "$secs"; then
		log "$name ($1) did not finish in ${secs}s:"
		bg_stacks "$name"
		bg_kill "$name"
		BOUNDED_RC=124
		return 1
	fi
	read -r BOUNDED_RC <"$MRC_TMP/$name.rc"
	return 0
}

bounded_output() {
	sed 's/^/    /' "$BOUNDED_OUT"
}

# run CMD...: must succeed within CMD_TIMEOUT.
run() {
	bounded "$CMD_TIMEOUT" "$@" || fail "hung (>${CMD_TIMEOUT}s): $*"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		bounded_output
		fail "exit $BOUNDED_RC: $*"
	fi
}

# run_fails ERRTEXT CMD...: must fail within CMD_TIMEOUT; if ERRTEXT is
# not empty, its output must contain it.
run_fails() {
	local errtext=$1
	shift
	bounded "$CMD_TIMEOUT" "$@" || fail "hung (>${CMD_TIMEOUT}s): $*"
	if [ "$BOUNDED_RC" -eq 0 ]; then
		bounded_output
		fail "succeeded but must fail: $*"
	fi
	if [ -n "$errtext" ] && ! grep -qF -- "$errtext" "$BOUNDED_OUT"; then
		bounded_output
		fail "no '$errtext' in the error of: $*"
	fi
	log "ok: refused ($(head -n1 "$BOUNDED_OUT")): $*"
}

assert_eq() {
	local what=$1 expected=$2 actual=$3
	[ "$expected" = "$actual" ] ||
		fail "$what: expected '$expected', got '$actual'"
}

# --- module ---------------------------------------------------------------

mrc_module_loaded() {
	[ -d "/sys/module/$MRC_MODULE" ]
}

# shellcheck disable=SC2120
# mrc_load [PARAM=VALUE...]: load ib_uverbs (no udev in the guest) and the
# driver.
mrc_load() {
	run modprobe ib_uverbs
	run modprobe "$MRC_MODULE" "$@"
	mrc_module_loaded || fail "$MRC_MODULE not loaded after modprobe"
}

mrc_unload() {
	if mrc_module_loaded; then
		run modprobe -r "$MRC_MODULE"
	fi
	! mrc_module_loaded || fail "$MRC_MODULE still loaded after modprobe -r"
}

# --- netdevs --------------------------------------------------------------

netdev_exists() {
	ip link show dev "$1" >/dev/null 2>&1
}

netdev_del_quiet() {
	if netdev_exists "$1"; then
		ip link del dev "$1"
	fi
}

# netdev_add_dummy NAME: a dummy netdev (carrier always on), up.
netdev_add_dummy() {
	run ip link add "$1" type dummy
	cleanup_push netdev_del_quiet "$1"
	run ip link set dev "$1" up
}

# netdev_add_veth NAME PEER: a veth pair, both ends up.
netdev_add_veth() {
	run ip link add "$1" type veth peer name "$2"
	cleanup_push netdev_del_quiet "$1"
	run ip link set dev "$1" up
	run ip link set dev "$2" up
}

# addr_add DEV ADDR/PLEN: IPv6 without DAD, so that it is usable at once;
# IPv6 addresses are kept on link down.
addr_add() {
	case $2 in
	*:*)
		run sysctl -qw "net.ipv6.conf.$1.keep_addr_on_down=1"
		run ip -6 addr add "$2" dev "$1" nodad
		;;
	*) run ip addr add "$2" dev "$1" ;;
	esac
}

addr_del() {
	run ip addr del "$2" dev "$1"
}

# --- rdma links -----------------------------------------------------------

# Names of the rdma links (ib devices), one per line.
rdma_link_names() {
	local word name _
	rdma link show | while read -r word name _; do
		[ "$word" = link ] && printf '%s\n' "${name%%/*}"
	done
	return 0
}

# The netdev of link NAME, as `rdma link show` prints it.
rdma_link_netdev() {
	rdma link show | awk -v dev="$1" '
		$1 == "link" && $2 ~ ("^" dev "/") {
			for (i = 3; i < NF; i++)
				if ($i == "netdev")
					print $(i + 1)
		}'
}

link_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

link_absent() {
	! link_exists "$1" && ! rdma_link_names | grep -xF -- "$1" >/dev/null
}

link_del_quiet() {
	if link_exists "$1"; then
		rdma link delete "$1"
	fi
}

# link_add NAME NETDEV [NETNS]: create an mrc device and wait for its port.
link_add() {
	local name=$1 netdev=$2 ns=${3:-}
	local -a pre=()
	[ -n "$ns" ] && pre=(ip netns exec "$ns")
	run "${pre[@]}" rdma link add "$name" type "$MRC_LINK_TYPE" \
		netdev "$netdev"
	cleanup_push link_del_quiet "$name"
	link_exists "$name" || fail "no /sys/class/infiniband/$name after link add"
}

link_del() {
	run rdma link delete "$1"
}

# res_counts DEV: "pd N cq N ..." from `rdma res show DEV`, without the
# index and name in front.
res_counts() {
	rdma res show "$1" | sed -n "s/^[0-9]*: $1: //p"
}

# res_back COUNTS: res_counts of TEST_DEV is COUNTS again.
res_back() {
	[ "$(res_counts "$TEST_DEV")" = "$1" ]
}

# rdma_dev_index DEV: the RDMA device's index, as `rdma dev` prints it.
rdma_dev_index() {
	local line
	line=$(rdma dev show "$1") || fail "rdma dev show $1"
	printf '%s\n' "${line%%:*}"
}

netdev_ifindex() {
	local ifindex
	read -r ifindex <"/sys/class/net/$1/ifindex" || fail "no netdev $1"
	printf '%s\n' "$ifindex"
}

# tx_pkts NS NETDEV: NETDEV's tx_packets, in namespace NS.
tx_pkts() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"
}

# udp_sockets_on PORT [NS]: UDP sockets bound to PORT in NS (default: this
# namespace), one per line.
udp_sockets_on() {
	if [ -n "${2:-}" ]; then
		ip netns exec "$2" ss -H -u -l -n "sport = :$1"
	else
		ss -H -u -l -n "sport = :$1"
	fi
}

udp_listening() {
	[ -n "$(udp_sockets_on "$@")" ]
}

udp_not_listening() {
	[ -z "$(udp_sockets_on "$@")" ]
}

port_state() {
	local state=
	read -r state 2>/dev/null \
		<"/sys/class/infiniband/$1/ports/$MRC_PORT/state" || true
	printf '%s\n' "$state"
}

port_state_is() {
	local state=
	read -r state 2>/dev/null \
		<"/sys/class/infiniband/$1/ports/$MRC_PORT/state" || return 1
	[ "$state" = "$2" ]
}

# --- assertions a test goes on after ----------------------------------------

# ok / not_ok log "ok: [CASE: ]..." or "not ok: [CASE: ]..." (CASE: the
# case running, see mrc_cases_run); not_ok counts into NOT_OK, and a case
# that counted any fails once it has run to its end.
NOT_OK=0
CASE=

ok() { log "ok: ${CASE:+$CASE: }$*"; }

# case_begin NAME [WHAT]: the current case is NAME (ok, not_ok print it),
# with no marker ping sent yet (cap_lib.sh); logs "== NAME[: WHAT]" and
# the time into the test if it set START.  mrc_cases_run calls it.
case_begin() {
	CASE=$1
	# shellcheck disable=SC2034 # cap_lib.sh's
	MARKERS=0
	log "== $CASE${2:+: $2}${START:+ (at $((SECONDS - START)) s)}"
}

# case_what WHAT: say what the current case does, under its "== NAME".
case_what() {
	log "   $*"
}

not_ok() {
	log "not ok: ${CASE:+$CASE: }$*"
	NOT_OK=$((NOT_OK + 1))
}

# check DESCRIPTION CMD...: ok if CMD succeeds, not ok otherwise.
check() {
	local what=$1
	shift
	if "$@"; then
		ok "$what"
	else
		not_ok "$what"
	fi
}

# expect_eq WHAT WANT GOT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1 ($3)"
	else
		not_ok "$1: expected $2, got '$3'"
	fi
}

# expect_num WHAT A OP B: the integer comparison A OP B (-gt, -ge, ...).
expect_num() {
	if [[ $2 =~ ^-?[0-9]+$ ]] && test "$2" "$3" "$4"; then
		ok "$1 ($2)"
	else
		not_ok "$1: '$2' $3 $4 is false"
	fi
}

# results FILE: its "key value" lines (an analysis script's) into R[].
declare -A R=()
# shellcheck disable=SC2034 # R is read by the tests that source this file
results() {
	local key value
	R=()
	while read -r key value; do
		R[$key]=$value
	done <"$1"
}

# --- module parameters -----------------------------------------------------------

MRC_PARAMS=/sys/module/$MRC_MODULE/parameters
declare -A PARAM_SAVED=()

param_write() {
	printf '%s\n' "$2" >"$MRC_PARAMS/$1"
}

# param_set NAME VALUE: rdma_mrc's parameter NAME (for QPs set up from now
# on); the first value is restored at exit and by param_restore.
param_set() {
	local old
	if [ -z "${PARAM_SAVED[$1]:-}" ]; then
		read -r old <"$MRC_PARAMS/$1" || fail "no module parameter $1"
		PARAM_SAVED[$1]=$old
		cleanup_push param_write "$1" "$old"
	fi
	param_write "$1" "$2"
	log "    $MRC_MODULE $1=$2"
}

param_get() {
	local v
	read -r v <"$MRC_PARAMS/$1" || fail "no module parameter $1"
	printf '%s\n' "$v"
}

param_restore() {
	local name
	for name in "${!PARAM_SAVED[@]}"; do
		param_write "$name" "${PARAM_SAVED[$name]}"
	done
}

# hwc DEV NAME: DEV's device counter NAME.
hwc() {
	cat "/sys/class/infiniband/$1/ports/$MRC_PORT/hw_counters/$2"
}

# hwc_at_least DEV NAME N: DEV's device counter NAME is at least N.
hwc_at_least() {
	local v
	read -r v <"/sys/class/infiniband/$1/ports/$MRC_PORT/hw_counters/$2" ||
		return 1
	[ "$v" -ge "$3" ]
}

# --- GIDs -----------------------------------------------------------------

# The GID of an IPv4 address, as sysfs prints it (%pI6: 8 full groups).
gid_of_ipv4() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
		"$a" "$b" "$c" "$d"
}

# The GID of an IPv6 address: the address with all 8 groups written out.
gid_of_ipv6() {
	local addr=$1 head tail g missing
	local -a h=() t=() groups=()
	if [[ $addr == *::* ]]; then
		head=${addr%%::*}
		tail=${addr#*::}
	else
		head=$addr
		tail=
	fi
	[ -n "$head" ] && IFS=: read -r -a h <<<"$head"
	[ -n "$tail" ] && IFS=: read -r -a t <<<"$tail"
	missing=$((8 - ${#h[@]} - ${#t[@]}))
	groups=("${h[@]}")
	for ((g = 0; g < missing; g++)); do
		groups+=(0)
	done
	groups+=("${t[@]}")
	local out='' sep=''
	for g in "${groups[@]}"; do
		out+=$(printf '%s%04x' "$sep" "$((16#$g))")
		sep=:
	done
	printf '%s\n' "$out"
}

# gid_rows DEV: the port's GID table into the array GID_ROWS, one
# "INDEX|GID|TYPE|NDEV" per non-empty entry, in index order.  Builtins
# only: it runs in polling loops.
GID_ROWS=()
gid_rows() {
	local port=/sys/class/infiniband/$1/ports/$MRC_PORT
	local f idx gid type ndev
	GID_ROWS=()
	for f in "$port"/gids/*; do
		gid=
		read -r gid 2>/dev/null <"$f" || continue
		if [ -z "$gid" ] || [ "$gid" = "$ZERO_GID" ]; then
			continue
		fi
		idx=${f##*/}
		type='?'
		ndev='?'
		read -r type 2>/dev/null <"$port/gid_attrs/types/$idx" || true
		read -r ndev 2>/dev/null <"$port/gid_attrs/ndevs/$idx" || true
		GID_ROWS[idx]="$idx|$gid|$type|$ndev"
	done
	GID_ROWS=("${GID_ROWS[@]}")
}

# gid_table DEV: print the rows.
gid_table() {
	gid_rows "$1"
	[ ${#GID_ROWS[@]} -eq 0 ] || printf '%s\n' "${GID_ROWS[@]}"
}

# gid_count DEV GID TYPE: how many entries hold GID with TYPE, into
# GID_COUNT (and printed).
GID_COUNT=0
gid_count_of() {
	local row rest
	GID_COUNT=0
	gid_rows "$1"
	for row in "${GID_ROWS[@]}"; do
		rest=${row#*|}
		[ "$rest" = "$2|$3|${rest##*|}" ] && GID_COUNT=$((GID_COUNT + 1))
	done
	return 0
}

gid_count() {
	gid_count_of "$@"
	printf '%s\n' "$GID_COUNT"
}

gid_present() {
	gid_count_of "$1" "$2" "$GID_TYPE_V2"
	[ "$GID_COUNT" -ge 1 ]
}

gid_absent() {
	gid_count_of "$1" "$2" "$GID_TYPE_V2"
	[ "$GID_COUNT" -eq 0 ]
}

show_gids() {
	log "GID table of $1 (index|gid|type|ndev):"
	gid_table "$1" | sed 's/^/    /'
}

# --- helpers built by the Makefile ---------------------------------------

helper_path() {
	local bin=$MRC_SELFTEST_BIN/$1
	[ -x "$bin" ] || fail "$bin missing: run make -C tools/testing/selftests/mrc"
	printf '%s\n' "$bin"
}

# helper_says LINE [NAME]: the background helper NAME (default: helper)
# printed LINE.
helper_says() {
	file_has_line "$(bg_out "${2:-helper}")" "$1"
}

# helper_ready [NAME]: it printed READY (it fails the test if it exited
# before).
helper_ready() {
	bg_printed "${1:-helper}" READY helper
}

# target_exec FIFO CMD...: in bg_spawn's subshell: CMD (mrc_target,
# perhaps under ip netns exec or env) with FIFO as its input, whose other
# end the test holds open in TGT_FD.
target_exec() {
	local fifo=$1
	shift
	exec {TGT_FD}>&-
	"$@" <"$fifo"
}

# target_ready NAME: the mrc_target of background job NAME printed READY.
target_ready() {
	bg_printed "$1" READY mrc_target
}

# --- the YNL CLI ----------------------------------------------------------

# ynl ARG...: the kernel's YNL CLI (the test sets YNL_CLI) on the spec
# SPEC, JSON output; ynl_in NS ARG... the same inside namespace NS (netdev
# ifindexes are per namespace).  --no-schema: the spec's validity is
# scripts/check-netlink-spec's job, and jsonschema is slow.
ynl() {
	python3 "$YNL_CLI" --spec "$SPEC" --no-schema --output-json "$@"
}

ynl_in() {
	local ns=$1
	shift
	ip netns exec "$ns" python3 "$YNL_CLI" --spec "$SPEC" --no-schema \
		--output-json "$@"
}

# --- the usual setup ------------------------------------------------------

# mrc_dev_setup [DEV] [NETDEV]: module loaded, a dummy netdev with
# TEST_IPV4 and TEST_IPV6, an mrc device on it with an ACTIVE port and the
# IPv4 GID in its table.
mrc_dev_setup() {
	local dev=${1:-$TEST_DEV} netdev=${2:-$TEST_NETDEV}
	# shellcheck disable=SC2119
	mrc_load
	netdev_add_dummy "$netdev"
	addr_add "$netdev" "$TEST_IPV4/$TEST_IPV4_PLEN"
	addr_add "$netdev" "$TEST_IPV6/$TEST_IPV6_PLEN"
	link_add "$dev" "$netdev"
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
	wait_until "GID of $TEST_IPV4 on $dev" "$WAIT_TIMEOUT" \
		gid_present "$dev" "$(gid_of_ipv4 "$TEST_IPV4")"
}

# --- cases ----------------------------------------------------------------
#
# Every shell test is a list of named cases:
#
#	mrc_case NAME FUNCTION [ARG...] [--after OTHER]...
#	...
#	mrc_cases_args "$@"	# -t NAME, -l, -h: before anything needs root
#	mrc_test_init
#	<the setup every case shares>
#	[mrc_cases_final FUNCTION]
#	mrc_cases_run
#
# The cases are registered first so that -l and -h can list them on the
# host; their functions run only in mrc_cases_run.  It runs the selected
# cases (all, by default) in registration order, each logged "== NAME"
# then "ok case NAME (Ns)" or "not ok case NAME (Ns)".  A case fails if
# it exits (fail, errexit) or counted a not_ok.  Each case runs in a
# subshell with cleanups of its own (run when it ends), so that a failing
# case does not stop the ones after it; the test exits non-zero if any
# case failed.  Shell state a case changes is gone after it; what the
# system holds (a device, an address, files in MRC_TMP) stays.
#
# A case that needs what an earlier case left behind (a device, a
# variable) names it with --after: `-t NAME` then runs OTHER first, and
# OTHER, NAME and the cases registered between them run in one subshell
# (so they share state), in a full run as in a selective one; once one of
# them fails, the ones after it there are not run (not ok).  A case
# between them that needs neither runs alone when it is selected alone.
# Prefer a case that sets up what it needs itself; --after is for steps of
# one story (create, use, delete) that cannot honestly run apart.

MRC_CASE_NAMES=()
MRC_CASE_CMDS=()	# FUNCTION [ARG...], quoted with %q
MRC_CASE_AFTER=()	# the --after cases' indexes, space-separated
MRC_CASES_SEL=()	# -t names
declare -A MRC_CASE_INDEX=()

mrc_case_usage() {
	local prog=${0##*/}
	printf 'usage: %s [-t CASE]... [-l] [-h]\n' "$prog"
	printf '  -t CASE   run CASE (and the cases it needs); repeatable; default: all\n'
	printf '  -l        list the cases\n'
	printf '  -h, --help  this help\n'
}

mrc_case_list() {
	[ ${#MRC_CASE_NAMES[@]} -eq 0 ] || printf '%s\n' "${MRC_CASE_NAMES[@]}"
}

# mrc_case_help: the test's header comment (after the SPDX line), usage,
# the cases.
mrc_case_help() {
	local i a names
	awk 'NR == 1 && /^#!/ { next }
	     /SPDX-License-Identifier/ { next }
	     /^#/ { sub(/^# ?/, ""); if (seen || $0 != "") print; seen = 1; next }
	     { exit }' "$0"
	echo
	mrc_case_usage
	echo "cases:"
	for ((i = 0; i < ${#MRC_CASE_NAMES[@]}; i++)); do
		names=
		for a in ${MRC_CASE_AFTER[i]}; do
			names+=" ${MRC_CASE_NAMES[a]}"
		done
		printf '  %s%s\n' "${MRC_CASE_NAMES[i]}" \
			"${names:+ (after$names)}"
	done
}

# mrc_case NAME FUNCTION [ARG...] [--after OTHER]...: register a case;
# OTHER must be registered already.
mrc_case() {
	local name=$1 i after='' quoted
	local -a mrc_ccmd=()
	shift
	if [ $# -eq 0 ] || ! [[ $name =~ ^[a-z0-9_-]+$ ]]; then
		echo "mrc_case: bad case '$name' (need NAME FUNCTION, NAME of [a-z0-9_-])" >&2
		exit 2
	fi
	if [ -n "${MRC_CASE_INDEX[$name]+set}" ]; then
		echo "mrc_case: case '$name' registered twice" >&2
		exit 2
	fi
	while [ $# -gt 0 ]; do
		if [ "$1" = --after ]; then
			i=${MRC_CASE_INDEX[${2:-}]:-}
			if [ -z "$i" ]; then
				echo "mrc_case $name: --after '${2:-}': no such case before it" >&2
				exit 2
			fi
			after+=" $i"
			shift 2
		else
			mrc_ccmd+=("$1")
			shift
		fi
	done
	printf -v quoted '%q ' "${mrc_ccmd[@]}"
	MRC_CASE_INDEX[$name]=${#MRC_CASE_NAMES[@]}
	MRC_CASE_NAMES+=("$name")
	MRC_CASE_CMDS+=("$quoted")
	MRC_CASE_AFTER+=("${after# }")
}

# mrc_cases_args "$@": the test's arguments.  -l and -h exit 0, a bad
# argument or an unknown case exits 2; nothing here needs root.
mrc_cases_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-t)
			[ $# -ge 2 ] || {
				mrc_case_usage >&2
				exit 2
			}
			if [ -z "${MRC_CASE_INDEX[$2]+set}" ]; then
				echo "${0##*/}: no case '$2'; the cases are:" >&2
				mrc_case_list | sed 's/^/  /' >&2
				exit 2
			fi
			MRC_CASES_SEL+=("$2")
			shift 2
			;;
		-l)
			mrc_case_list
			exit 0
			;;
		-h | --help)
			mrc_case_help
			exit 0
			;;
		*)
			mrc_case_usage >&2
			exit 2
			;;
		esac
	done
}

# mrc_case_one INDEX: one case, in its chain's subshell; "ok NAME" or
# "not_ok NAME" into the chain's status file.
mrc_case_one() {
	# Names no case function uses: it sees them (dynamic scope).
	local mrc_cname=${MRC_CASE_NAMES[$1]} mrc_cstart=$SECONDS mrc_cbefore=$NOT_OK
	local -a mrc_case_cmd
	echo "begin $mrc_cname" >>"$MRC_TMP/cases.status"
	case_begin "$mrc_cname"
	eval "mrc_case_cmd=(${MRC_CASE_CMDS[$1]})"
	"${mrc_case_cmd[@]}"
	if [ "$NOT_OK" -ne "$mrc_cbefore" ]; then
		log "not ok case $mrc_cname ($((SECONDS - mrc_cstart))s): $((NOT_OK - mrc_cbefore)) not ok"
		echo "not_ok $mrc_cname" >>"$MRC_TMP/cases.status"
	else
		log "ok case $mrc_cname ($((SECONDS - mrc_cstart))s)"
		echo "ok $mrc_cname" >>"$MRC_TMP/cases.status"
	fi
	CASE=
}

# mrc_cases_chain INDEX...: the cases of one chain in one subshell; their
# failures into MRC_CASES_FAILED.  errexit holds inside: the subshell is
# not in a condition.
MRC_CASES_FAILED=()
MRC_CASES_SKIPPED=0
mrc_cases_chain() {
	local rc i word name current='' start=$SECONDS
	local -A status=()
	: >"$MRC_TMP/cases.status"
	set +e
	(
		set -e
		MRC_CLEANUPS=()
		trap mrc_run_cleanups EXIT
		for i in "$@"; do
			mrc_case_one "$i"
		done
	)
	rc=$?
	set -e
	while read -r word name; do
		status[$name]=$word
		[ "$word" != begin ] || current=$name
	done <"$MRC_TMP/cases.status"
	for i in "$@"; do
		name=${MRC_CASE_NAMES[i]}
		case ${status[$name]:-} in
		ok) ;;
		not_ok) MRC_CASES_FAILED+=("$name") ;;
		begin)
			if [ "$rc" -eq "$KSFT_SKIP" ]; then
				log "skip case $name ($((SECONDS - start))s)"
				MRC_CASES_SKIPPED=$((MRC_CASES_SKIPPED + 1))
			else
				log "not ok case $name ($((SECONDS - start))s): exit status $rc"
				MRC_CASES_FAILED+=("$name")
			fi
			;;
		*)
			log "not ok case $name: not run, $current before it in its chain did not finish"
			MRC_CASES_FAILED+=("$name")
			;;
		esac
		start=$SECONDS
	done
}

# mrc_cases_final FUNCTION: mrc_cases_run ends with FUNCTION, in the
# test's own shell, whichever cases ran and whatever became of them: the
# end of the setup's story that must be checked there (what the setup
# holds open, the state after everything).  Its failure fails the test.
MRC_CASES_FINAL=
mrc_cases_final() {
	MRC_CASES_FINAL=$1
}

# mrc_cases_run: the selected cases and the cases they need (all, without
# -t), chain by chain, then the final function if any; fails the test if
# any case (or the final function, or the setup) failed, exits KSFT_SKIP
# if every case that ran skipped.
mrc_cases_run() {
	local final=$MRC_CASES_FINAL i j k n=${#MRC_CASE_NAMES[@]} name ran=0
	local -a mrc_want=() mrc_joined=() chain=()
	[ "$n" -gt 0 ] || fail "no cases registered"
	for ((i = 0; i < n; i++)); do
		mrc_want[i]=$((${#MRC_CASES_SEL[@]} == 0))
		mrc_joined[i]=0
	done
	for name in "${MRC_CASES_SEL[@]}"; do
		mrc_want[${MRC_CASE_INDEX[$name]}]=1
	done
	# The cases a wanted case is --after, and theirs (they come earlier);
	# a case from OTHER + 1 to NAME runs in the subshell of the one
	# before it.
	for ((i = n - 1; i >= 0; i--)); do
		[ "${mrc_want[i]}" -eq 1 ] || continue
		for j in ${MRC_CASE_AFTER[i]}; do
			mrc_want[j]=1
			for ((k = j + 1; k <= i; k++)); do
				mrc_joined[k]=1
			done
		done
	done
	for ((i = 0; i < n; i++)); do
		[ "${mrc_want[i]}" -eq 1 ] || continue
		if [ ${#chain[@]} -gt 0 ] && [ "${mrc_joined[i]}" -eq 0 ]; then
			mrc_cases_chain "${chain[@]}"
			chain=()
		fi
		ran=$((ran + 1))
		chain+=("$i")
	done
	mrc_cases_chain "${chain[@]}"
	if [ -n "$final" ]; then
		[ ${#MRC_CASES_FAILED[@]} -eq 0 ] ||
			log "not ok: cases failed: ${MRC_CASES_FAILED[*]}; now $final"
		CASE=$final
		"$final"
		CASE=
	fi
	# The setup's own checks (expect_*, check) count too.
	[ "$NOT_OK" -eq 0 ] || MRC_CASES_FAILED+=("(setup${final:+ or $final}: $NOT_OK not ok)")
	[ ${#MRC_CASES_FAILED[@]} -eq 0 ] ||
		fail "cases failed: ${MRC_CASES_FAILED[*]}"
	if [ "$MRC_CASES_SKIPPED" -eq "$ran" ]; then
		log "SKIP: every case skipped"
		exit "$KSFT_SKIP"
	fi
	if [ "$MRC_CASES_SKIPPED" -eq 0 ]; then
		log "PASS: $ran cases"
	else
		log "PASS: $((ran - MRC_CASES_SKIPPED)) cases, $MRC_CASES_SKIPPED skipped"
	fi
}
