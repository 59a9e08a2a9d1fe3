#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the rdma_mrc selftests as root inside the test guest (`make check`
# does: scripts/vm-run -- tools/testing/selftests/mrc/run_tests.sh).
#
#   run_tests.sh [--no-install] [TEST[:CASE[,CASE...]]...]
#   run_tests.sh --list
#   TESTS="link_test.sh qp_state" run_tests.sh
#
# TEST:CASE,... runs only those cases of a shell test (its -t CASE; see
# TEST.sh -l for its cases).
#
# 1. `make -C <repo> install` (copies what `make` built: module, provider);
#    skipped with --no-install.
# 2. Runs each test of tests.list but the "extra" ones (or those named)
#    under its timeout and prints TAP 13, the test's own output indented as "# " comments.  C
#    tests run inside with_device.sh, which gives them an mrc device.
# 3. After each test checks that the system is back to its state from
#    before the first test: no new rdma link, `rdma res` as before, no new
#    netdev or network namespace, rdma_mrc unloadable, no kernel warning in
#    the log.  A leak fails the test (and is cleaned up, for the next one).
# 4. Ends with "N passed, N failed[, N skipped]"; exits 1 if any failed.

set -uo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/../../../.." && pwd)
export MRC_REPO=$REPO
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

TEST_LIST=$SELF_DIR/tests.list
# What scripts/fabric records of the fabric it built.
FABRIC_STATE=/run/mrc-fabric/namespaces
DEFAULT_TIMEOUT=180
MODULE_UNLOAD_TIMEOUT=60
STATE_CMD_TIMEOUT=30
# MRC_TIMEOUT_SCALE (a whole number, default 1) multiplies the per-test
# timeouts and those of the state checks, for slow kernels (the KASAN and
# KCSAN kernels of scripts/debug-kernel under TCG).
TIMEOUT_SCALE=${MRC_TIMEOUT_SCALE:-1}
[[ $TIMEOUT_SCALE =~ ^[1-9][0-9]*$ ]] || {
	echo "MRC_TIMEOUT_SCALE must be a whole number >= 1, not '$TIMEOUT_SCALE'" >&2
	exit 2
}
MODULE_UNLOAD_TIMEOUT=$((MODULE_UNLOAD_TIMEOUT * TIMEOUT_SCALE))
STATE_CMD_TIMEOUT=$((STATE_CMD_TIMEOUT * TIMEOUT_SCALE))
# What in the kernel log fails a test.
KERNEL_BAD='BUG|Oops|WARNING|refcount|general protection|KASAN|UBSAN|'
KERNEL_BAD+='Call Trace|blocked for more than|circular locking|'
KERNEL_BAD+='list_(add|del) corruption|unregister_netdevice: waiting|'
KERNEL_BAD+='kernel BUG|stack-protector|soft lockup|hard LOCKUP|RCU stall'
KMSG_TAG=mrc-selftest
# A process of a test that dies of a signal leaves a core (up to this many
# KiB) in $MRC_TMP/cores; its backtrace is printed under the test when gdb
# is installed: a crash is reported with where it happened, not only as an
# exit status of 128 + N.
CORE_LIMIT_KB=262144
CORE_GDB_TIMEOUT=120

usage() {
	sed -n '7,12p' "$0" | sed 's/^# \{0,1\}//'
}

# --- the list -------------------------------------------------------------

declare -a ALL_NAMES=() DEFAULT_NAMES=()
declare -A TIMEOUT_OF=()
while read -r name timeout kind _; do
	[ -n "$name" ] || continue
	ALL_NAMES+=("$name")
	# "extra": run only when named (tests.list says why).
	[ "${kind:-}" = extra ] || DEFAULT_NAMES+=("$name")
	TIMEOUT_OF[$name]=$((${timeout:-$DEFAULT_TIMEOUT} * TIMEOUT_SCALE))
done <<<"$(sed -e 's/#.*//' "$TEST_LIST")"

install=1
declare -a selected=()
while [ $# -gt 0 ]; do
	case $1 in
	--list)
		printf '%s\n' "${ALL_NAMES[@]}"
		exit 0
		;;
	--no-install) install=0 ;;
	-h | --help)
		usage
		exit 0
		;;
	-*)
		usage >&2
		exit 2
		;;
	*) selected+=("$1") ;;
	esac
	shift
done
if [ ${#selected[@]} -eq 0 ] && [ -n "${TESTS:-}" ]; then
	read -r -a selected <<<"$TESTS"
fi
if [ ${#selected[@]} -eq 0 ]; then
	selected=("${DEFAULT_NAMES[@]}")
fi
# TEST:CASE,...: the cases, as -t arguments, in CASES_OF[TEST:CASE,...].
declare -A CASES_OF=()
for sel in "${selected[@]}"; do
	name=${sel%%:*}
	if [ -z "${TIMEOUT_OF[$name]+set}" ]; then
		echo "unknown test '$name'; the tests are:" >&2
		printf '  %s\n' "${ALL_NAMES[@]}" >&2
		exit 2
	fi
	[ "$name" != "$sel" ] || continue
	if [[ $name != *.sh ]]; then
		echo "$name is a C test: it has no cases to select" >&2
		exit 2
	fi
	CASES_OF[$sel]=
	IFS=, read -r -a cases <<<"${sel#*:}"
	for c in "${cases[@]}"; do
		CASES_OF[$sel]+=" -t $c"
	done
	# Unknown cases are refused here, not after the install.
	# shellcheck disable=SC2086 # the -t words
	bash "$SELF_DIR/$name" ${CASES_OF[$sel]} -l >/dev/null || exit 2
done

# --- helpers --------------------------------------------------------------

comment() {
	sed 's/^/# /'
}

# Run CMD bounded; its output as comments.  Returns CMD's status.
state_cmd() {
	bounded "$STATE_CMD_TIMEOUT" "$@" || {
		echo "# hung: $*"
		return 124
	}
	return "$BOUNDED_RC"
}

rdma_res_snapshot() {
	rdma res show 2>&1 | sed 's/[[:space:]]*$//'
}

# cores_setup: where and how big the tests' cores are (the guest's own
# core_pattern: it is a test guest).
cores_setup() {
	mkdir -p "$MRC_TMP/cores"
	ulimit -c "$CORE_LIMIT_KB" 2>/dev/null || return 0
	printf '%s\n' "$MRC_TMP/cores/core.%E.%p.%s" >/proc/sys/kernel/core_pattern ||
		echo "# cannot set core_pattern: a crash will leave no core"
}

# cores_report: one report per core a test left (the program, its pid, the
# signal, its backtrace), then the cores removed.  Returns 1 if there was any.
cores_report() {
	local core base exe pid sig found=0
	for core in "$MRC_TMP"/cores/core.*; do
		[ -e "$core" ] || continue
		found=1
		base=${core##*/core.}
		sig=${base##*.}
		base=${base%.*}
		pid=${base##*.}
		exe=${base%.*}
		exe=${exe//!//}
		echo "# crash: $exe (pid $pid) died of signal $sig, core dumped"
		if command -v gdb >/dev/null; then
			bounded "$CORE_GDB_TIMEOUT" gdb -batch -nx -q \
				-ex "thread apply all bt 30" "$exe" "$core"
			comment <"$BOUNDED_OUT"
		fi
		rm -f "$core"
	done
	return $((found == 0 ? 0 : 1))
}

netdev_names() {
	local _ name
	ip -o link show | while read -r _ name _; do
		name=${name%:}
		printf '%s\n' "${name%%@*}"
	done
}

netns_names() {
	local name _
	ip netns list | while read -r name _; do
		printf '%s\n' "$name"
	done
}

# Lines in $2 and not in $1 (one item per line).  No process
# substitution: the guest may have no /dev/fd.
added() {
	local item
	local -A known=()
	while IFS= read -r item; do
		[ -z "$item" ] || known[$item]=1
	done <<<"$1"
	while IFS= read -r item; do
		[ -z "$item" ] || [ -n "${known[$item]:-}" ] ||
			printf '%s\n' "$item"
	done <<<"$2"
}

kmsg_mark() {
	echo "$KMSG_TAG: $1" >/dev/kmsg 2>/dev/null || true
}

# The kernel log without the memcg OOM reports a test said it would cause:
# after a line "mrc-selftest: expect memcg oom ..." that the test wrote to
# /dev/kmsg (memcg_test.sh drives a memory cgroup to its limit), each
# report from "invoked oom-killer" to its "Memory cgroup out of memory:
# Killed process" or "Out of memory and no killable processes" line is
# left out if it is a memcg one (it holds the cgroup's "memory: usage ...
# limit ..." line).  A global OOM, or any other line, stays.
drop_expected_memcg_oom() {
	awk -v mark="$KMSG_TAG: expect memcg oom" '
		function flush(i) { for (i = 0; i < n; i++) print buf[i]; n = 0 }
		index($0, mark) { expect = 1 }
		expect && /invoked oom-killer:/ { flush(); inrep = 1; memcg = 0 }
		!inrep { print; next }
		{ buf[n++] = $0 }
		/memory: usage [0-9]+kB, limit [0-9]+kB/ { memcg = 1 }
		/Memory cgroup out of memory: Killed process|Out of memory and no killable processes/ {
			if (memcg) n = 0; else flush()
			inrep = 0
		}
		END { flush() }'
}

# Kernel log lines since the last "begin NAME" mark.
kernel_log_since() {
	dmesg 2>/dev/null |
		awk -v mark="$KMSG_TAG: begin $1" '
			index($0, mark) { n = 0; delete lines; next }
			{ lines[n++] = $0 }
			END { for (i = 0; i < n; i++) print lines[i] }'
}

# check_processes SIDFILE: no process left in the test's session (killed
# if there is, by pid).
check_processes() {
	local sid pids pid
	read -r sid 2>/dev/null <"$1" || return 0
	pids=$(ps -o pid= -s "$sid" 2>/dev/null)
	[ -n "$pids" ] || return 0
	echo "# leak: processes still running after the test:"
	ps -o pid=,args= -s "$sid" | comment
	for pid in $pids; do
		kill -KILL "$pid" 2>/dev/null
	done
	return 1
}

# check_clean NAME: print one "# leak: ..." line per problem, clean it up;
# returns 1 if there was any.
check_clean() {
	local name=$1 bad=0 item res kern

	for item in $(added "$BASE_LINKS" "$(rdma_link_names 2>/dev/null)"); do
		echo "# leak: rdma link $item still exists"
		state_cmd rdma link delete "$item"
		bad=1
	done
	res=$(rdma_res_snapshot)
	if [ "$res" != "$BASE_RES" ]; then
		echo "# leak: rdma res differs from the baseline:"
		printf '%s\n' "$res" | comment
		bad=1
	fi
	# A fabric whose builder was killed (a timeout) has its namespaces
	# and its record left: without the record gone too, every later test
	# would find "a fabric exists already".
	if [ -s "$FABRIC_STATE" ]; then
		echo "# leak: a fabric (scripts/fabric) still exists"
		state_cmd "$REPO/scripts/fabric" clean
		bad=1
	fi
	for item in $(added "$BASE_NETNS" "$(netns_names)"); do
		echo "# leak: network namespace $item still exists"
		state_cmd ip netns del "$item"
		bad=1
	done
	for item in $(added "$BASE_NETDEVS" "$(netdev_names)"); do
		echo "# leak: netdev $item still exists"
		state_cmd ip link del dev "$item"
		bad=1
	done
	if mrc_module_loaded; then
		if ! bounded "$MODULE_UNLOAD_TIMEOUT" modprobe -r "$MRC_MODULE"; then
			echo "# leak: modprobe -r $MRC_MODULE hung"
			bad=1
		elif [ "$BOUNDED_RC" -ne 0 ]; then
			echo "# leak: modprobe -r $MRC_MODULE failed:"
			comment <"$BOUNDED_OUT"
			bad=1
		fi
	fi
	kern=$(kernel_log_since "$name" | drop_expected_memcg_oom |
		grep -E "$KERNEL_BAD")
	if [ -n "$kern" ]; then
		echo "# kernel: warnings in the log during $name:"
		kernel_log_since "$name" | comment
		bad=1
	fi
	return "$bad"
}

# --- run ------------------------------------------------------------------

[ "$EUID" -eq 0 ] || {
	echo "Bail out! run_tests.sh must run as root, inside the test guest"
	exit 1
}
mrc_tmp_init
trap 'rm -rf "$MRC_TMP"' EXIT

echo "TAP version 13"
if [ "$install" -eq 1 ]; then
	echo "# make -C $REPO install"
	install_start=$SECONDS
	if ! bounded "$DEFAULT_TIMEOUT" make -C "$REPO" install; then
		echo "Bail out! make install hung"
		exit 1
	fi
	comment <"$BOUNDED_OUT"
	echo "# install took $((SECONDS - install_start))s"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		echo "Bail out! make install failed"
		exit 1
	fi
fi
echo "1..${#selected[@]}"
cores_setup

# ib_core's netlink and sysfs class exist only once it is loaded; the
# verbs tests need ib_uverbs (there is no udev to load it).
if ! state_cmd modprobe ib_uverbs; then
	comment <"$BOUNDED_OUT"
	echo "Bail out! cannot load ib_uverbs"
	exit 1
fi
if mrc_module_loaded && ! state_cmd modprobe -r "$MRC_MODULE"; then
	echo "Bail out! $MRC_MODULE is loaded and cannot be unloaded"
	exit 1
fi
BASE_LINKS=$(rdma_link_names 2>/dev/null)
BASE_RES=$(rdma_res_snapshot)
BASE_NETDEVS=$(netdev_names)
BASE_NETNS=$(netns_names)
if [ -n "$BASE_LINKS" ]; then
	echo "# rdma links before the tests (ignored):"
	printf '%s\n' "$BASE_LINKS" | comment
fi

passed=0
failed=0
skipped=0
num=0
for sel in "${selected[@]}"; do
	num=$((num + 1))
	name=${sel%%:*}
	timeout=${TIMEOUT_OF[$name]}
	if [[ $name == *.sh ]]; then
		cmd=(bash "$SELF_DIR/$name")
		# shellcheck disable=SC2206 # the -t words
		[ -z "${CASES_OF[$sel]:-}" ] || cmd+=(${CASES_OF[$sel]})
	else
		cmd=("$SELF_DIR/with_device.sh" "$MRC_SELFTEST_BIN/$name")
	fi

	# In a session of its own, to find processes it leaves behind.
	sidfile=$MRC_TMP/sid.$num
	# shellcheck disable=SC2016 # expanded by the inner bash
	cmd=(setsid bash -c 'echo $$ >"$0"; exec "$@"' "$sidfile" "${cmd[@]}")

	kmsg_mark "begin $name"
	start=$SECONDS
	if bounded "$timeout" "${cmd[@]}"; then
		rc=$BOUNDED_RC
	else
		rc=124
	fi
	comment <"$BOUNDED_OUT"
	elapsed=$((SECONDS - start))
	kmsg_mark "end $name"
	[ "$rc" -eq 124 ] && echo "# TIMEOUT: $name did not finish in ${timeout}s"

	clean=0
	cores_report || clean=1
	check_start=$SECONDS
	check_processes "$sidfile" || clean=1
	check_clean "$name" || clean=1
	echo "# $name: state checks took $((SECONDS - check_start))s"

	echo "# $name: exit status $rc after ${elapsed}s$([ "$clean" -eq 0 ] ||
		echo ", state not clean afterwards")"
	if [ "$rc" -eq "$KSFT_SKIP" ] && [ "$clean" -eq 0 ]; then
		reason=$(sed -n 's/^.*SKIP: *//p' "$BOUNDED_OUT" | tail -n1)
		echo "ok $num $sel # SKIP ${reason:-no reason given}"
		skipped=$((skipped + 1))
	elif [ "$rc" -eq 0 ] && [ "$clean" -eq 0 ]; then
		echo "ok $num $sel"
		passed=$((passed + 1))
	else
		echo "not ok $num $sel"
		failed=$((failed + 1))
	fi
done

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary+=", $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
