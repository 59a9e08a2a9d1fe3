#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ibv_poll_cq makes no system call: poll_nosyscall_helper polls an empty CQ
# 100000 times between two getppid() calls and strace must show nothing in
# between.  A run with one getuid() injected into the loop proves that the
# check sees a system call there.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

STRACE_TIMEOUT=120
MARKER=getppid
INJECTED=getuid

# syscalls_between_markers TRACE: the calls of the marker's process between
# its two marker calls, one per line (strace -f: "PID call(...) = ret").
syscalls_between_markers() {
	awk -v marker="$MARKER" '
		{
			pid = $1
			call = $0
			sub(/^[0-9]+ +/, "", call)
		}
		call ~ ("^" marker "\\(") {
			if (state == 0) { state = 1; mpid = pid; next }
			if (state == 1 && pid == mpid) { state = 2; next }
		}
		state == 1 && pid == mpid && call !~ /^(\+\+\+|---)/ { print call }
		END { if (state != 2) { print "MARKERS NOT FOUND"; exit 1 } }
	' "$1"
}

# traced MODE [ARG]: run the helper under strace; the calls between the
# markers in $between.
traced() {
	local mode=$1 trace
	shift
	trace=$(mrc_tmp)/trace.$mode
	bounded "$STRACE_TIMEOUT" strace -f -qq -o "$trace" "$helper" "$@" ||
		fail "$mode run hung"
	bounded_output
	assert_eq "$mode run exit status" 0 "$BOUNDED_RC"
	between=$(syscalls_between_markers "$trace") ||
		fail "$mode run: no pair of $MARKER() markers in the trace"
}

# The check sees an injected INJECTED().
case_inject() {
	traced inject --inject
	log "between the markers: ${between:-nothing}"
	if [ "$(wc -l <<<"$between")" -ne 1 ] || [[ $between != "$INJECTED("* ]]; then
		fail "expected exactly one $INJECTED() between the markers"
	fi
}

# ibv_poll_cq on an empty CQ.
case_poll() {
	traced poll
	if [ -n "$between" ]; then
		log "system calls during the poll loop:"
		printf '%s\n' "$between" | sed 's/^/    /'
		fail "ibv_poll_cq made $(wc -l <<<"$between") system call(s)"
	fi
	log "no system call in the poll loop"
}

case_link_delete() {
	link_del "$TEST_DEV"
}

mrc_case inject case_inject
mrc_case poll case_poll
mrc_case link_delete case_link_delete
mrc_cases_args "$@"

mrc_test_init
helper=$(helper_path poll_nosyscall_helper)
command -v strace >/dev/null || fail "strace is not installed"
mrc_dev_setup "$TEST_DEV" "$TEST_NETDEV"
export MRC_DEV=$TEST_DEV
mrc_cases_run
