#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "mrc" generic netlink family, read-only part (dev-get, port-get),
# driven by the kernel's own YNL CLI from Documentation/netlink/specs/mrc.yaml
# (so the spec and the kernel must agree on every attribute):
#  - a dev-get dump lists exactly the mrc devices we created, with the index
#    `rdma dev` shows, their netdev's ifindex, port mask and default
#    profiles 0; a do by name and a do by index return the same device;
#  - refusals: an unknown name or index is ENODEV with the extack message and
#    the bad attribute; index and name of two devices, or neither, EINVAL;
#  - port-get (dump, dump filtered by device, do) agrees with `rdma link`:
#    netdev name and index, state; a netdev going down shows as "down" (so
#    the state is read, not constant); port 2 is ENOENT, port 0 is refused by
#    the policy (ERANGE);
#  - after `rdma link delete` the device is gone from both dumps.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
mrc_test_init

TOP=$(cd "$SELF_DIR/../../../.." && pwd)
SPEC=$TOP/Documentation/netlink/specs/mrc.yaml

SECOND_DEV=mrc1
MISSING_DEV=mrcnosuch0
MISSING_INDEX=4000
MISSING_PORT=2
BAD_PORT=0
# Attribute values YNL prints for the port enums.
STATE_ACTIVE=active
STATE_DOWN=down
ADMIN_ENABLED=enabled
# strerror() texts YNL prints.
ERR_ENOENT="No such file or directory"
ERR_ERANGE="Numerical result out of range"

# --- YNL --------------------------------------------------------------------


# ynl ARG...: the YNL CLI on our spec, JSON output.  --no-schema: the spec's
# validity is scripts/check-netlink-spec's job, and jsonschema is slow.
# shellcheck disable=SC2317 # run through bounded
ynl() {
	python3 "$YNL_CLI" --spec "$SPEC" --no-schema --output-json "$@"
}

# ynl_ok ARG...: must succeed; its JSON output in $BOUNDED_OUT.
ynl_ok() {
	run ynl "$@"
}

# ynl_refused ERRTEXT EXTACK_MSG ARG...: must fail with ERRTEXT (strerror)
# and carry EXTACK_MSG as the extack message.
ynl_refused() {
	local errtext=$1 msg=$2
	shift 2
	run_fails "$errtext" ynl "$@"
	grep -qF "'msg': '$msg'" "$BOUNDED_OUT" || {
		bounded_output
		fail "no extack message '$msg' in the error of: ynl $*"
	}
}

# assert_bad_attr PATH: the ack in $BOUNDED_OUT names attribute PATH as
# the offending one (YNL turns the ack's offset into the attribute's name).
assert_bad_attr() {
	grep -qF "'bad-attr': '$1'" "$BOUNDED_OUT" ||
		fail "the ack does not name $1: $(cat "$BOUNDED_OUT")"
}

# --- expected values ----------------------------------------------------------

# The index `rdma dev` shows for device NAME ("N: NAME: node_type ...").
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

# The state of DEV's port as `rdma link show` prints it, lower case.
rdma_link_state() {
	rdma link show "$1/$MRC_PORT" | awk '
		$1 == "link" {
			for (i = 3; i < NF; i++)
				if ($i == "state")
					print tolower($(i + 1))
		}'
}

# Expected dev-get message of DEV on NETDEV: the attributes that exist
# today (no profiles yet: defaults 0).
dev_expect() {
	jq -cn --arg name "$1" --argjson index "$(rdma_dev_index "$1")" \
		--argjson ifindex "$(netdev_ifindex "$2")" \
		--argjson mask $((1 << MRC_PORT)) \
		'{"dev-name": $name, "dev-index": $index,
		  "netdev-ifindex": [$ifindex], "port-mask": $mask,
		  "default-ev-profile": 0, "default-cc-profile": 0,
		  "protocol-version": ["v1"]}'
}

# The attributes dev_expect covers, of each message YNL printed (a list for
# a dump, an object for a do), sorted by index.
DEV_SUMMARY='[if type == "array" then .[] else . end |
	{"dev-name", "dev-index", "netdev-ifindex", "port-mask",
	 "default-ev-profile", "default-cc-profile", "protocol-version"}] |
	sort_by(."dev-index")'

# Expected port-get message of port 1 of DEV on NETDEV.
port_expect() {
	jq -cn --arg name "$1" --argjson index "$(rdma_dev_index "$1")" \
		--argjson port "$MRC_PORT" --arg ifname "$2" \
		--argjson ifindex "$(netdev_ifindex "$2")" \
		--arg admin "$ADMIN_ENABLED" --arg state "$3" \
		'{"dev-name": $name, "dev-index": $index, "port-index": $port,
		  ifname: $ifname, ifindex: $ifindex, "admin-state": $admin,
		  state: $state}'
}

PORT_SUMMARY='[if type == "array" then .[] else . end] |
	sort_by(."dev-index", ."port-index")'

# assert_json WHAT JQ_FILTER EXPECTED_OBJECTS...: the filter applied to
# $BOUNDED_OUT gives the array of the expected objects, sorted as the
# filter sorts (keys sorted: YNL prints attributes in message order).
assert_json() {
	local what=$1 filter=$2 expected actual
	shift 2
	expected=$(printf '%s\n' "$@" | jq -cSs "$filter")
	actual=$(jq -cS "$filter" "$BOUNDED_OUT") ||
		fail "$what: YNL printed no JSON: $(cat "$BOUNDED_OUT")"
	assert_eq "$what" "$expected" "$actual"
	log "ok: $what: $actual"
}

# --- setup --------------------------------------------------------------------

[ -r "$SPEC" ] || fail "no spec $SPEC"
command -v jq >/dev/null || fail "jq is needed"
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is needed"

log "== YNL"
# The selftests' build extracts YNL on the host (make -C
# tools/testing/selftests/mrc); MRC_YNL_CLI names another copy.
YNL_CLI=${MRC_YNL_CLI:-$MRC_SELFTEST_BIN/ynl/tools/net/ynl/cli.py}
[ -r "$YNL_CLI" ] ||
	fail "no YNL CLI at $YNL_CLI: run make -C tools/testing/selftests/mrc"
log "ok: $YNL_CLI"

mrc_load
netdev_add_dummy "$TEST_NETDEV"
netdev_add_dummy "$TEST_NETDEV2"
link_add "$TEST_DEV" "$TEST_NETDEV"
link_add "$SECOND_DEV" "$TEST_NETDEV2"
for dev in "$TEST_DEV" "$SECOND_DEV"; do
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
done
rdma dev show
rdma link show

DEV0=$(dev_expect "$TEST_DEV" "$TEST_NETDEV")
DEV1=$(dev_expect "$SECOND_DEV" "$TEST_NETDEV2")
INDEX0=$(rdma_dev_index "$TEST_DEV")
INDEX1=$(rdma_dev_index "$SECOND_DEV")

# --- dev-get ------------------------------------------------------------------

log "== dev-get dump: exactly our two devices"
ynl_ok --dump dev-get
assert_json "dev-get dump" "$DEV_SUMMARY" "$DEV0" "$DEV1"

log "== dev-get do, by name and by index"
ynl_ok --do dev-get --json "{\"dev-name\": \"$SECOND_DEV\"}"
assert_json "dev-get $SECOND_DEV" "$DEV_SUMMARY" "$DEV1"
ynl_ok --do dev-get --json "{\"dev-index\": $INDEX0}"
assert_json "dev-get index $INDEX0" "$DEV_SUMMARY" "$DEV0"

log "== dev-get refusals"
ynl_refused "$ERR_ENODEV" "no such MRC device" \
	--do dev-get --json "{\"dev-name\": \"$MISSING_DEV\"}"
assert_bad_attr .dev-name
ynl_refused "$ERR_ENODEV" "no such MRC device" \
	--do dev-get --json "{\"dev-index\": $MISSING_INDEX}"
assert_bad_attr .dev-index
ynl_refused "$ERR_EINVAL" "dev-index and dev-name name different devices" \
	--do dev-get \
	--json "{\"dev-index\": $INDEX0, \"dev-name\": \"$SECOND_DEV\"}"
ynl_refused "$ERR_EINVAL" "dev-index or dev-name is required" \
	--do dev-get --json '{}'
grep -qF "'miss-type': 'dev-index'" "$BOUNDED_OUT" ||
	fail "no missing attribute in the ack: $(cat "$BOUNDED_OUT")"

# --- port-get -------------------------------------------------------------------

log "== port-get dump agrees with rdma link"
PORT0=$(port_expect "$TEST_DEV" "$TEST_NETDEV" "$(rdma_link_state "$TEST_DEV")")
PORT1=$(port_expect "$SECOND_DEV" "$TEST_NETDEV2" \
	"$(rdma_link_state "$SECOND_DEV")")
assert_eq "rdma link state of $TEST_DEV" "$STATE_ACTIVE" \
	"$(rdma_link_state "$TEST_DEV")"
ynl_ok --dump port-get
assert_json "port-get dump" "$PORT_SUMMARY" "$PORT0" "$PORT1"
ynl_ok --dump port-get --json "{\"dev-name\": \"$SECOND_DEV\"}"
assert_json "port-get dump of $SECOND_DEV" "$PORT_SUMMARY" "$PORT1"

log "== port-get do follows the netdev going down"
run ip link set dev "$TEST_NETDEV2" down
wait_until "port of $SECOND_DEV DOWN" "$WAIT_TIMEOUT" \
	port_state_is "$SECOND_DEV" "$PORT_STATE_DOWN"
assert_eq "rdma link state of $SECOND_DEV" "$STATE_DOWN" \
	"$(rdma_link_state "$SECOND_DEV")"
ynl_ok --do port-get \
	--json "{\"dev-index\": $INDEX1, \"port-index\": $MRC_PORT}"
assert_json "port-get $SECOND_DEV/$MRC_PORT down" "$PORT_SUMMARY" \
	"$(port_expect "$SECOND_DEV" "$TEST_NETDEV2" "$STATE_DOWN")"
run ip link set dev "$TEST_NETDEV2" up

log "== port-get refusals"
ynl_refused "$ERR_ENOENT" "the device has no such port" --do port-get \
	--json "{\"dev-name\": \"$TEST_DEV\", \"port-index\": $MISSING_PORT}"
# The policy (port-index 1..max-ports) refuses it before the handler runs.
run_fails "$ERR_ERANGE" ynl --do port-get \
	--json "{\"dev-name\": \"$TEST_DEV\", \"port-index\": $BAD_PORT}"
grep -qF "'msg'" "$BOUNDED_OUT" ||
	fail "no extack message for port-index $BAD_PORT: $(cat "$BOUNDED_OUT")"
ynl_refused "$ERR_ENODEV" "no such MRC device" --do port-get \
	--json "{\"dev-name\": \"$MISSING_DEV\", \"port-index\": $MRC_PORT}"

# --- removal --------------------------------------------------------------------

log "== after rdma link delete $SECOND_DEV it is gone from the dumps"
link_del "$SECOND_DEV"
link_absent "$SECOND_DEV" || fail "$SECOND_DEV still there after delete"
ynl_ok --dump dev-get
assert_json "dev-get dump after delete" "$DEV_SUMMARY" "$DEV0"
ynl_ok --dump port-get
assert_json "port-get dump after delete" "$PORT_SUMMARY" "$PORT0"
ynl_refused "$ERR_ENODEV" "no such MRC device" \
	--do dev-get --json "{\"dev-index\": $INDEX1}"

log "PASS"
exit "$KSFT_PASS"
