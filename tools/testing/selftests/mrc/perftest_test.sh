#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The distribution's unmodified perftest over mrc: ib_write_bw and
# ib_write_lat between h1 and h2 (scripts/fabric hosts 2), default flags
# plus -x with the index of the IPv4 RoCE v2 GID (read from sysfs).  Both
# sides must finish and print their result line with the default message
# size and iteration count and non-zero figures.  A run whose result
# perftest lost to its own clock calibration is run again (at most
# PAIR_TRIES times, scripts/perftest-pair): a TCG timing artefact.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/xfer_lib.sh
. "$SELF_DIR/xfer_lib.sh"

PERFTEST_PORT=18515	# perftest's default TCP port
RUN_SECS=$((120 * TIME_SCALE))	# each side of one attempt
PAIR_TRIES=5
PAIR_SECS=$((PAIR_TRIES * (2 * RUN_SECS + 30)))
PERFTEST_PAIR=$MRC_REPO/scripts/perftest-pair
# perftest's defaults; under a slower kernel (TIME_SCALE > 1: the debug
# kernels, where a 64 KiB write moves at well under 1 MB/s) a
# TIME_SCALE-th of the writes, so that the run takes the time it takes on
# the test kernel: what is checked is that perftest runs, not its speed.
BW_BYTES=65536
BW_ITERS=$((5000 / TIME_SCALE))
LAT_BYTES=2
LAT_ITERS=1000

# The result line: the first line after the header line that starts with
# " #bytes", split into RESULT_FIELDS.
RESULT_FIELDS=()
perftest_result() {
	local line header=0
	RESULT_FIELDS=()
	while IFS= read -r line; do
		if [[ $line =~ ^[[:space:]]*#bytes ]]; then
			header=1
		elif [ "$header" = 1 ] && [[ $line =~ ^[[:space:]]*[0-9] ]]; then
			read -r -a RESULT_FIELDS <<<"$line"
			return 0
		fi
	done <"$1"
	return 1
}

# positive NUMBER: a decimal number above zero.
positive() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $1 =~ [1-9] ]]
}

# perftest NAME TOOL [ARG...]: server on h2, client on h1, ARGs to both
# (scripts/perftest-pair: an attempt whose result perftest lost to its own
# clock calibration, a TCG timing artefact, is run again); both must
# finish.  Their outputs: $MRC_TMP/NAME.server, $MRC_TMP/NAME.client.
perftest() {
	local name=$1 tool=$2
	shift 2
	bounded "$PAIR_SECS" "$PERFTEST_PAIR" --tries "$PAIR_TRIES" \
		--timeout "$RUN_SECS" --port "$PERFTEST_PORT" \
		--out "$MRC_TMP/$name" \
		--server-ns "$XFER_NS_B" --client-ns "$XFER_NS_A" \
		"$tool" -d "$XFER_DEV_B" -x "$XFER_GID_B" "$@" -- \
		"$tool" -d "$XFER_DEV_A" -x "$XFER_GID_A" "$@" "$XFER_SERVER_IP" ||
		fail "$name: $tool did not finish in ${PAIR_SECS}s"
	grep '^perftest-pair: attempt' "$BOUNDED_OUT" | sed 's/^/    /' || true
	if [ "$BOUNDED_RC" != 0 ]; then
		bounded_output
		fail "$name: $tool: exit status $BOUNDED_RC"
	fi
}

# ib_write_bw -x GID
case_bw() {
	local side out
	counters_snap bw.0
	perftest bw ib_write_bw -n "$BW_ITERS"
	for side in client server; do
		out=$MRC_TMP/bw.$side
		perftest_result "$out" || { sed 's/^/    /' "$out"; fail "bw $side: no result line"; }
		# #bytes #iterations BW-peak BW-average MsgRate
		log "$side: ${RESULT_FIELDS[*]}"
		assert_eq "bw $side: bytes" "$BW_BYTES" "${RESULT_FIELDS[0]}"
		assert_eq "bw $side: iterations" "$BW_ITERS" "${RESULT_FIELDS[1]}"
		positive "${RESULT_FIELDS[2]}" || fail "bw $side: peak ${RESULT_FIELDS[2]} MB/s"
		positive "${RESULT_FIELDS[3]}" || fail "bw $side: average ${RESULT_FIELDS[3]} MB/s"
		positive "${RESULT_FIELDS[4]}" || fail "bw $side: message rate ${RESULT_FIELDS[4]}"
	done
	log "ok ib_write_bw: ${RESULT_FIELDS[3]} MB/s average"
	counters_snap bw.1
	counters_changed bw.0 bw.1
}

# ib_write_lat -x GID
case_lat() {
	local out i
	counters_snap lat.0
	perftest lat ib_write_lat
	out=$MRC_TMP/lat.client
	perftest_result "$out" || { sed 's/^/    /' "$out"; fail "lat client: no result line"; }
	# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	log "client: ${RESULT_FIELDS[*]}"
	assert_eq "lat: bytes" "$LAT_BYTES" "${RESULT_FIELDS[0]}"
	assert_eq "lat: iterations" "$LAT_ITERS" "${RESULT_FIELDS[1]}"
	for i in 2 3 4 5 7 8; do
		positive "${RESULT_FIELDS[i]:-}" ||
			fail "lat: field $((i + 1)) is '${RESULT_FIELDS[i]:-}'"
	done
	log "ok ib_write_lat: typical ${RESULT_FIELDS[4]} us, 99.9% ${RESULT_FIELDS[8]} us"
	counters_snap lat.1
	counters_changed lat.0 lat.1
}

mrc_case bw case_bw
mrc_case lat case_lat
mrc_cases_args "$@"

mrc_test_init
for tool in ib_write_bw ib_write_lat; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (perftest)"
done

xfer_fabric hosts
mrc_cases_run
