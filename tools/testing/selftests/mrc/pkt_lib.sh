# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The packet server of the tests that send crafted packets (crafted_test.sh,
# ep_test.sh, path_test.sh): one Python process for the whole test, since
# a TCG guest takes seconds to start Python.  PKT_TOOL serve (crafted_pkt.py
# or ep_pkt.py) reads one command a line from a FIFO, "PREFIX ARG...",
# and writes PREFIX.out, then PREFIX.rc.  Source lib.sh first.
#
# The test sets PKT_TOOL, PKT_NS (the namespace it runs in) and PYTHON;
# PKT_ARGS, words that go before the arguments of every pkt.
#
#   pkt_server_start          start it and wait until it serves
#   pkt_server_spawn          start it (pkt_server_ready: it serves)
#   pkt_server_stop           end its input, wait for it: exit status 0
#   pkt_server_kill           end its input and kill it (processes started
#                             after it hold the FIFO open too: no end of
#                             input)
#   pkt ARG...                one command; output file PKT_OUT, status PKT_RC

PKT_FD=
PKT_SEQ=0
PKT_WAIT=
PKT_OUT=
PKT_RC=
PKT_ARGS=()

# In bg_spawn's subshell.
pkt_server_exec() {
	local fifo=$1
	exec {PKT_FD}>&-
	ip netns exec "$PKT_NS" "$PYTHON" "$PKT_TOOL" serve <"$fifo"
}

pkt_server_ready() {
	bg_printed pkt_server SERVING "${PKT_TOOL##*/} serve"
}

pkt_server_spawn() {
	local fifo=$MRC_TMP/pkt.in
	mkfifo "$fifo"
	exec {PKT_FD}<>"$fifo"
	bg_start pkt_server pkt_server_exec "$fifo"
}

pkt_server_start() {
	pkt_server_spawn
	wait_until "${PKT_TOOL##*/} serving in $PKT_NS" "$WAIT_TIMEOUT" \
		pkt_server_ready
}

pkt_server_stop() {
	exec {PKT_FD}>&-
	bg_wait pkt_server "$WAIT_TIMEOUT" ||
		fail "${PKT_TOOL##*/} serve did not end"
	[ "$(bg_rc pkt_server)" = 0 ] || {
		sed 's/^/    /' "$(bg_out pkt_server)"
		fail "${PKT_TOOL##*/} serve: exit status $(bg_rc pkt_server)"
	}
}

pkt_server_kill() {
	exec {PKT_FD}>&-
	bg_kill pkt_server
}

pkt_done() {
	[ -s "$PKT_WAIT" ] && return 0
	if bg_done pkt_server; then
		sed 's/^/    /' "$(bg_out pkt_server)"
		fail "${PKT_TOOL##*/} serve exited"
	fi
	return 1
}

# pkt ARG...: PKT_TOOL PKT_ARGS... ARG... (in PKT_NS); output file PKT_OUT,
# status PKT_RC.  Files are named by the (sub)shell's pid: groups run in
# subshells that each count from the same PKT_SEQ.
# shellcheck disable=SC2034 # PKT_RC, PKT_OUT: the test's
pkt() {
	local prefix line
	PKT_SEQ=$((PKT_SEQ + 1))
	prefix=$MRC_TMP/pkt.$BASHPID.$PKT_SEQ
	printf -v line '%q ' "$prefix" "${PKT_ARGS[@]}" "$@"
	printf '%s\n' "$line" >&"$PKT_FD"
	PKT_WAIT=$prefix.rc
	wait_for "$CMD_TIMEOUT" pkt_done ||
		fail "${PKT_TOOL##*/}: no answer within ${CMD_TIMEOUT}s to: $*"
	read -r PKT_RC <"$PKT_WAIT"
	PKT_OUT=$prefix.out
}
