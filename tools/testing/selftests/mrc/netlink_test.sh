#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "mrc" generic netlink family, every command, driven by the kernel's
# own YNL from Documentation/netlink/specs/mrc.yaml (so the spec and the
# kernel must agree on every attribute):
#  - YNL's CLI dumps dev-get: exactly the mrc devices we created, with the
#    index `rdma dev` shows, their netdev's ifindex and port mask;
#  - everything else goes through ynl_serve.py, YNL's library (what the CLI
#    drives) in one process: Python and the spec take tens of seconds to
#    load in a TCG guest, a request then takes milliseconds.  Each request
#    carries the outcome it must have (errno, extack message, bad or
#    missing attribute, ack cookie, or the reply's values), checked there;
#  - dev-get/port-get by name and index, limits and capabilities, and their
#    refusals (ENODEV, EINVAL, ENOENT, ERANGE from the policy);
#  - every change is EPERM without CAP_NET_ADMIN (a second ynl_serve.py
#    under setpriv, which also may not join group ev), gets are allowed,
#    qp-get only for the caller's own QPs;
#  - the life cycle of format, EV (exp, gen, auto, an SRv6 one stored) and
#    CC profiles: INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT, bad
#    transitions and attributes (EINVAL), EBUSY (a format in use, a device
#    default, a bound QP), ENOENT, E2BIG with the needed size in the
#    message and the cookie, ENOSPC past the profile limit;
#  - the EV array after REPLACE, MODIFY_STATE and GEN expansion, value by
#    value, by query-array, query-state and the ev-get dump;
#  - dev-set defaults: a QP created afterwards (mrc_target) is bound to
#    them (qp-get, qp-count), keeps its profile ONLINE (EBUSY) until it is
#    destroyed; an SRv6 default is EOPNOTSUPP;
#  - explicit binding through the create QP command's driver input
#    (mrc_bind_qp): qp-get shows it explicit; ENOENT, EINVAL, EOPNOTSUPP;
#  - dev-new / dev-del, port-set (the port goes DOWN and back), ep-op
#    refusals, a probe nobody answers (timed-out) and a probe of the
#    device's own GID (answered through loopback, on port 1, with an RTT,
#    counted once on each side); group ev gets the controller's
#    deny/allow events and nothing from the datapath;
#  - after `rdma link delete` the device is gone from the dumps, profiles
#    and all.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

TOP=$(cd "$SELF_DIR/../../../.." && pwd)
SPEC=$TOP/Documentation/netlink/specs/mrc.yaml
SERVE=$SELF_DIR/ynl_serve.py

SECOND_DEV=mrc1
NEW_DEV=mrc2
NEW_NETDEV=mrct2
MISSING_DEV=mrcnosuch0
MISSING_INDEX=4000
MISSING_PORT=2
MISSING_IFINDEX=40000
BAD_PORT=0
TARGET_TIMEOUT=600	# mrc_target's own bound
SERVE_TIMEOUT=240	# for ynl_serve.py to load YNL and the spec
# Attribute values YNL prints for the port enums.
STATE_ACTIVE=active
STATE_DOWN=down
ADMIN_ENABLED=enabled
# errno values of the answers.
EPERM=1
ENOENT=2
E2BIG=7
EBUSY=16
EEXIST=17
ENODEV=19
EINVAL=22
ENOSPC=28
ERANGE=34
EOPNOTSUPP=95
# The driver's limits (mrc_param.h).
MAX_CC_PROFILES=64
EP_MAX_REQS=64

# --- YNL --------------------------------------------------------------------

# ynl_serve.py servers by name: their input fd and output file.
declare -A NL_FD=() NL_OUT=()
NL_TAG=0
NL_SEQ=0
# nl_tag_next: a new request tag in NL_TAG, unique over the case
# subshells (each counts from the same NL_SEQ), as the servers outlive
# them.
nl_tag_next() {
	NL_SEQ=$((NL_SEQ + 1))
	NL_TAG=$((BASHPID * 100000 + NL_SEQ))
}
NL_LINE=

# In bg_spawn's subshell: WRAPPER... python3 ynl_serve.py <fifo.
# shellcheck disable=SC2317 # run through bg_start
nl_exec() {
	local fifo=$1
	shift
	"$@" python3 "$SERVE" --ynl "$YNL_DIR" --spec "$SPEC" <"$fifo"
}

# nl_start NAME [WRAPPER...]: start a server (under WRAPPER, e.g. setpriv).
nl_start() {
	local name=$1 fifo fd
	shift
	fifo=$MRC_TMP/$name.in
	mkfifo "$fifo"
	exec {fd}<>"$fifo"
	NL_FD[$name]=$fd
	bg_start "$name" nl_exec "$fifo" "$@"
	NL_OUT[$name]=$(bg_out "$name")
}

# nl_ready NAME: it printed its ready line (fails if it exited).
# shellcheck disable=SC2317 # run through wait_until
nl_ready() {
	grep -qF '{"tag": "ready"' "${NL_OUT[$1]}" && return 0
	if bg_done "$1"; then
		sed 's/^/    /' "${NL_OUT[$1]}"
		fail "ynl_serve.py $1 exited (status $(bg_rc "$1"))"
	fi
	return 1
}

NL_WANT=
NL_NAME=
# shellcheck disable=SC2317 # run through wait_until
nl_answered() {
	NL_LINE=$(grep -m1 -F "{\"tag\": $NL_WANT," "${NL_OUT[$NL_NAME]}") &&
		return 0
	if bg_done "$NL_NAME"; then
		sed 's/^/    /' "${NL_OUT[$NL_NAME]}"
		fail "ynl_serve.py $NL_NAME exited (status $(bg_rc "$NL_NAME"))"
	fi
	return 1
}

# nl_on NAME WHAT FIELDS: send {"tag": N, FIELDS} to server NAME; the
# request's "expect" must hold.
nl_on() {
	local name=$1 what=$2 fields=$3
	# One request per line.
	fields=${fields//$'\n'/ }
	what=${what//$'\n'/ }
	what=${what//$'\t'/}
	nl_tag_next
	printf '{"tag": %d, %s}\n' "$NL_TAG" "$fields" >&"${NL_FD[$name]}"
	NL_WANT=$NL_TAG
	NL_NAME=$name
	wait_until "ynl_serve.py $name answers $what" "$CMD_TIMEOUT" nl_answered
	case $NL_LINE in
	*'"check": "ok"'*) log "ok: $what" ;;
	*) fail "$what: $NL_LINE" ;;
	esac
}

# nl WHAT FIELDS: on the privileged server.
nl() { nl_on root "$@"; }

# ok_do OP ATTRS [REPLY]: a do request that succeeds (and whose reply
# matches REPLY, a JSON object).
ok_do() {
	nl "$1 $2" "\"do\": \"$1\", \"attrs\": $2, \"expect\": {\"reply\": ${3:-null}}"
}

ok_dump() {
	nl "dump $1 $2" "\"dump\": \"$1\", \"attrs\": $2, \"expect\": {\"reply\": ${3:-null}}"
}

# err_do ERRNO MSG OP ATTRS [MORE]: a do request refused with ERRNO and
# extack message MSG (MORE: further "expect" items, e.g. "bad-attr").
err_do() {
	local errno=$1 msg=$2 op=$3 attrs=$4 more=${5:+, $5}
	nl "$op $attrs refused ($errno: $msg)" \
		"\"do\": \"$op\", \"attrs\": $attrs, \"expect\": {\"errno\": $errno, \"msg\": \"$msg\"$more}"
}

# eperm_do OP ATTRS: refused without CAP_NET_ADMIN.
eperm_do() {
	nl_on user "$1 without CAP_NET_ADMIN" \
		"\"do\": \"$1\", \"attrs\": $2, \"expect\": {\"errno\": $EPERM}"
}

# --- expected values ----------------------------------------------------------

# The state of DEV's port as `rdma link show` prints it, lower case.
rdma_link_state() {
	rdma link show "$1/$MRC_PORT" | awk '
		$1 == "link" {
			for (i = 3; i < NF; i++)
				if ($i == "state")
					print tolower($(i + 1))
		}'
}

# Expected dev-get message of DEV on NETDEV.
dev_get_reply() {
	printf '{"dev-name": "%s", "dev-index": %s, "netdev-ifindex": [%s], "port-mask": %d, "protocol-version": ["v1"]}' \
		"$1" "$(rdma_dev_index "$1")" "$(netdev_ifindex "$2")" \
		$((1 << MRC_PORT))
}

# Expected port-get message of port 1 of DEV on NETDEV in STATE.
port_get_reply() {
	printf '{"dev-name": "%s", "dev-index": %s, "port-index": %d, "ifname": "%s", "ifindex": %s, "admin-state": "%s", "state": "%s"}' \
		"$1" "$(rdma_dev_index "$1")" "$MRC_PORT" "$2" \
		"$(netdev_ifindex "$2")" "${4:-$ADMIN_ENABLED}" "$3"
}

# --- dev-get ------------------------------------------------------------------

# dev-get
case_dev_get() {
	ok_do dev-get "{$D0}" "$DEV0"
	ok_do dev-get "{\"dev-index\": $INDEX1}" "$DEV1"
	ok_do dev-get "{$D0}" '{"ev-max-fmt-profiles": 64, "ev-max-profiles": 64,
		"ev-max-count": 65536, "ev-free-count": 65536,
		"ev-max-count-profile": 4096, "ev-count-align": 1,
		"ev-max-width": 256, "ev-fmt-modes": ["srv6", "stev", "udp"],
		"ev-modes": ["auto", "exp", "gen"], "ev-op-max-entries": 1024,
		"cc-max-profiles": 64, "cc-algorithm": [{"name": "uet-1.0-nscc"}],
		"caps": ["cc-profile-modify-online", "ep-op-ev-probe",
			 "ep-op-port-status-update", "ev-event",
			 "ev-event-precise-drop-cnt", "ev-profile-modify-online",
			 "multi-plane"],
		"default-ev-profile": 0, "default-cc-profile": 0,
		"ev-skip-hold-us": 1000, "ep-max-reqs": 64, "ev-event-drops": 0}'
	ok_dump dev-get '{}' "[$DEV0, $DEV1]"
	err_do $ENODEV "no such MRC device" dev-get "{\"dev-name\": \"$MISSING_DEV\"}" \
		'"bad-attr": ".dev-name"'
	err_do $ENODEV "no such MRC device" dev-get "{\"dev-index\": $MISSING_INDEX}" \
		'"bad-attr": ".dev-index"'
	err_do $EINVAL "dev-index and dev-name name different devices" dev-get \
		"{\"dev-index\": $INDEX0, \"dev-name\": \"$SECOND_DEV\"}"
	err_do $EINVAL "dev-index or dev-name is required" dev-get '{}' \
		'"miss-type": "dev-index"'
}

# --- port-get / port-set ------------------------------------------------------

# port-get agrees with rdma link
case_port_get() {
	assert_eq "rdma link state of $TEST_DEV" "$STATE_ACTIVE" \
		"$(rdma_link_state "$TEST_DEV")"
	ok_dump port-get '{}' "[$PORT0, $PORT1]"
	ok_dump port-get "{\"dev-name\": \"$SECOND_DEV\"}" "[$PORT1]"
}

# port-get follows the netdev going down
case_port_down() {
	run ip link set dev "$TEST_NETDEV2" down
	wait_until "port of $SECOND_DEV DOWN" "$WAIT_TIMEOUT" \
		port_state_is "$SECOND_DEV" "$PORT_STATE_DOWN"
	assert_eq "rdma link state of $SECOND_DEV" "$STATE_DOWN" \
		"$(rdma_link_state "$SECOND_DEV")"
	ok_do port-get "{\"dev-index\": $INDEX1, \"port-index\": $MRC_PORT}" \
		"$(port_get_reply "$SECOND_DEV" "$TEST_NETDEV2" "$STATE_DOWN")"
	run ip link set dev "$TEST_NETDEV2" up
	wait_until "port of $SECOND_DEV ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$SECOND_DEV" "$PORT_STATE_ACTIVE"
}

# port-get / port-set refusals
case_port_refusals() {
	err_do $ENOENT "the device has no such port" port-get \
		"{$D0, \"port-index\": $MISSING_PORT}" '"bad-attr": ".port-index"'
	nl "port-get port-index $BAD_PORT refused by the policy" \
		"\"do\": \"port-get\", \"attrs\": {$D0, \"port-index\": $BAD_PORT}, \"expect\": {\"errno\": $ERANGE, \"bad-attr\": \".port-index\"}"
	err_do $ENOENT "the device has no such port" port-set \
		"{$D0, \"port-index\": $MISSING_PORT, \"admin-state\": \"disabled\"}"
	err_do $EINVAL "admin-state is required" port-set \
		"{$D0, \"port-index\": $MRC_PORT}" '"miss-type": "admin-state"'
}

# port-set admin-state
case_port_set() {
	nl_tag_next
	printf '{"tag": %d, "do": "port-set", "attrs": {%s, "port-index": %d, "admin-state": "disabled"}}\n' \
		"$NL_TAG" "$D0" "$MRC_PORT" >&"${NL_FD[root]}"
	NL_WANT=$NL_TAG NL_NAME=root
	wait_until "port-set answered" "$CMD_TIMEOUT" nl_answered
	case $NL_LINE in
	*'"ok": true'*)
		wait_until "port of $TEST_DEV DOWN (admin disabled)" "$WAIT_TIMEOUT" \
			port_state_is "$TEST_DEV" "$PORT_STATE_DOWN"
		ok_do port-get "{$D0, \"port-index\": $MRC_PORT}" \
			"$(port_get_reply "$TEST_DEV" "$TEST_NETDEV" "$STATE_DOWN" disabled)"
		ok_do port-set "{$D0, \"port-index\": $MRC_PORT, \"admin-state\": \"enabled\"}"
		wait_until "port of $TEST_DEV ACTIVE (admin enabled)" \
			"$WAIT_TIMEOUT" port_state_is "$TEST_DEV" "$PORT_STATE_ACTIVE"
		ok_do port-get "{$D0, \"port-index\": $MRC_PORT}" "$PORT0"
		;;
	*) fail "port-set: $NL_LINE" ;;
	esac
}

# --- CAP_NET_ADMIN ------------------------------------------------------------

# every change needs CAP_NET_ADMIN
case_cap_net_admin() {
	eperm_do dev-set "{$D0, \"ev-skip-hold-us\": 5}"
	eperm_do dev-new "{\"dev-name\": \"$NEW_DEV\", \"netdev-ifindex\": [$(netdev_ifindex "$NEW_NETDEV")]}"
	eperm_do dev-del "{$D0}"
	eperm_do port-set "{$D0, \"port-index\": 1, \"admin-state\": \"disabled\"}"
	eperm_do ev-fmt-profile-set "{$D0, \"id\": 13, \"state\": \"offline\", \"mode\": \"stev\"}"
	eperm_do ev-profile-set "{$D0, \"id\": 1, \"state\": \"offline\", \"mode\": \"auto\", \"ev-count\": 4}"
	eperm_do cc-profile-set "{$D0, \"id\": 1, \"state\": \"offline\", \"algorithm\": \"none\"}"
	eperm_do ep-op "{$D0, \"op-type\": \"ev-probe\", \"timeout\": 1000, \"req\": []}"
	nl_on user "dev-get without CAP_NET_ADMIN" \
		"\"do\": \"dev-get\", \"attrs\": {$D0}, \"expect\": {\"reply\": $DEV0}"
	# Nothing was changed by the refused requests.
	ok_do dev-get "{$D0}" '{"ev-skip-hold-us": 1000}'
	ok_dump ev-fmt-profile-get "{$D0}" '[]'
}

# --- EV format profiles ----------------------------------------------------------

# EV format profiles
case_fmt() {
	F13="$D0, \"id\": 13"
	err_do $ENOENT "the format profile is in INIT" ev-fmt-profile-get "{$F13}" \
		'"bad-attr": ".id"'
	err_do $EINVAL "no such transition: INIT and ONLINE go through OFFLINE" \
		ev-fmt-profile-set "{$F13, \"state\": \"online\"}"
	err_do $EINVAL "mode is required to leave INIT" ev-fmt-profile-set \
		"{$F13, \"state\": \"offline\"}" '"miss-type": "mode"'
	err_do $EINVAL "a profile in or going to INIT takes no attributes" \
		ev-fmt-profile-set "{$F13, \"mode\": \"stev\"}"
	err_do $EINVAL "mode must be exactly one format mode" ev-fmt-profile-set \
		"{$F13, \"state\": \"offline\", \"mode\": [\"stev\", \"udp\"]}"
	err_do $E2BIG "the field widths add up to more than the mode allows" \
		ev-fmt-profile-set "{$F13, \"state\": \"offline\", \"mode\": \"stev\",
		\"field\": [{\"width\": 16}, {\"width\": 16}, {\"width\": 8}]}"
	ok_do ev-fmt-profile-set "{$F13, \"state\": \"offline\", \"mode\": \"stev\",
		\"field\": [{\"width\": 16}, {\"width\": 16}]}"
	ok_do ev-fmt-profile-get "{$F13}" '{"id": 13, "state": "offline",
		"mode": ["stev"], "field": [{"width": 16}, {"width": 16}],
		"width": 32, "users": 0}'
	nl "ev-fmt-profile-get array-size 1: E2BIG, needs 2" \
		"\"do\": \"ev-fmt-profile-get\", \"attrs\": {$F13, \"array-size\": 1}, \"expect\": {\"errno\": $E2BIG, \"msg\": \"array-size is too small: need 2 entries\", \"cookie-u32\": 2, \"bad-attr\": \".array-size\"}"
	ok_do ev-fmt-profile-get "{$F13, \"array-size\": 2}" '{"width": 32}'
	err_do $EINVAL "the profile is not in cur-state" ev-fmt-profile-set \
		"{$F13, \"cur-state\": \"online\", \"state\": \"online\"}" \
		'"bad-attr": ".cur-state"'
	ok_do ev-fmt-profile-set "{$F13, \"cur-state\": \"offline\", \"state\": \"online\"}"
	err_do $EINVAL "an ONLINE format profile changes only its state" \
		ev-fmt-profile-set "{$F13, \"mode\": \"udp\"}" '"bad-attr": ".mode"'
	err_do $EINVAL "no such transition: INIT and ONLINE go through OFFLINE" \
		ev-fmt-profile-set "{$F13, \"state\": \"init\"}"
	ok_do ev-fmt-profile-set "{$D0, \"id\": 14, \"state\": \"offline\", \"mode\": \"udp\",
		\"field\": [{\"width\": 16}]}"
	ok_do ev-fmt-profile-set "{$D0, \"id\": 14, \"state\": \"online\"}"
	ok_do ev-fmt-profile-set "{$D0, \"id\": 15, \"state\": \"offline\", \"mode\": \"srv6\",
		\"field\": [{\"width\": 32}, {\"width\": 16}, {\"width\": 16}, {\"width\": 16}, {\"width\": 16}]}"
	ok_do ev-fmt-profile-set "{$D0, \"id\": 15, \"state\": \"online\"}"
	ok_dump ev-fmt-profile-get "{$D0}" '[{"id": 13, "mode": ["stev"]},
		{"id": 14, "mode": ["udp"], "width": 16},
		{"id": 15, "mode": ["srv6"], "width": 96}]'
	ok_dump ev-fmt-profile-get "{\"dev-name\": \"$SECOND_DEV\"}" '[]'
}

# --- EV profiles: explicit --------------------------------------------------------

# EV profile 1: explicit (exp) on format 13 (STEV 16/16)
case_evp_exp() {
	E1="$D0, \"id\": 1"
	err_do $ENOENT "the EV profile is in INIT" ev-profile-get "{$E1}"
	err_do $EINVAL "ev-count is required to leave INIT" ev-profile-set \
		"{$E1, \"state\": \"offline\", \"mode\": \"exp\", \"fmt-profile-id\": 13}" \
		'"miss-type": "ev-count"'
	err_do $EINVAL "exp and gen profiles need fmt-profile-id" ev-profile-set \
		"{$E1, \"state\": \"offline\", \"mode\": \"exp\", \"ev-count\": 4}" \
		'"miss-type": "fmt-profile-id"'
	err_do $ENOENT "the format profile is in INIT" ev-profile-set \
		"{$E1, \"state\": \"offline\", \"mode\": \"exp\", \"fmt-profile-id\": 99, \"ev-count\": 4}"
	err_do $E2BIG "ev-count is above ev-max-count-profile" ev-profile-set \
		"{$E1, \"state\": \"offline\", \"mode\": \"exp\", \"fmt-profile-id\": 13, \"ev-count\": 4097}"
	err_do $EINVAL "ev-min-active is above ev-count" ev-profile-set \
		"{$E1, \"state\": \"offline\", \"mode\": \"exp\", \"fmt-profile-id\": 13, \"ev-count\": 4, \"ev-min-active\": 5}"
	ok_do ev-profile-set "{$E1, \"state\": \"offline\", \"mode\": \"exp\",
		\"fmt-profile-id\": 13, \"ev-count\": 4}"
	ok_do ev-profile-get "{$E1}" '{"id": 1, "state": "offline", "mode": ["exp"],
		"fmt-profile-id": 13, "ev-count": 4, "qp-count": 0}'
	ok_do ev-fmt-profile-get "{$F13}" '{"users": 1}'
	ok_do dev-get "{$D0}" '{"ev-free-count": 65532}'
	# After INIT -> OFFLINE every slot is unpopulated.
	UNPOP='"value": "00", "port": 0, "state": ["good"]'
	ok_do ev-profile-get "{$E1, \"ev-op\": \"query-array\"}" "{\"ev\": [
		{\"index\": 0, $UNPOP}, {\"index\": 1, $UNPOP},
		{\"index\": 2, $UNPOP}, {\"index\": 3, $UNPOP}]}"
	err_do $EINVAL "ev-min-active is required to go ONLINE" ev-profile-set \
		"{$E1, \"state\": \"online\"}" '"miss-type": "ev-min-active"'
	err_do $EINVAL "every slot must be populated to go ONLINE" \
		ev-profile-set "{$E1, \"state\": \"online\", \"ev-min-active\": 2,
		\"event-mask\": [\"good\", \"assumed-bad\"]}"
	err_do $EINVAL "ev-profile-set takes replace or modify-state; queries are in ev-profile-get" \
		ev-profile-set "{$E1, \"ev-op\": \"query-array\"}"
	err_do $EINVAL "the device has no such port" ev-profile-set \
		"{$E1, \"ev-op\": \"replace\", \"ev\": [{\"index\": 0,
		\"new-value\": \"c0010001\", \"new-port\": 2, \"state\": \"good\"}]}"
	err_do $EINVAL "the new EV does not fit the fields and format (or gives UDP source port 0)" \
		ev-profile-set "{$E1, \"ev-op\": \"replace\", \"ev\": [{\"index\": 0,
		\"new-value\": \"0000abcd\", \"new-port\": 1, \"state\": \"good\"}]}"
	err_do $EINVAL "the new EV does not fit the fields and format (or gives UDP source port 0)" \
		ev-profile-set "{$E1, \"ev-op\": \"replace\", \"ev\": [{\"index\": 0,
		\"new-value\": \"c001000101\", \"new-port\": 1, \"state\": \"good\"}]}"
	err_do $EINVAL "the controller sets only good or denied" ev-profile-set \
		"{$E1, \"ev-op\": \"replace\", \"ev\": [{\"index\": 0,
		\"new-value\": \"c0010001\", \"new-port\": 1, \"state\": \"skip\"}]}"
	err_do $ENOENT "no such slot" ev-profile-set \
		"{$E1, \"ev-op\": \"replace\", \"ev\": [{\"index\": 4,
		\"new-value\": \"c0010001\", \"new-port\": 1, \"state\": \"good\"}]}"
	# Slot 0 by index, the others as the unpopulated EV (value 0, port 0):
	# each replaces the first unpopulated slot.
	ok_do ev-profile-set "{$E1, \"ev-op\": \"replace\", \"ev\": [
		{\"index\": 0, \"new-value\": \"c0010001\", \"new-port\": 1, \"state\": \"good\"},
		{\"value\": \"00\", \"port\": 0, \"new-value\": \"c0020002\", \"new-port\": 1, \"state\": \"good\"},
		{\"value\": \"00\", \"port\": 0, \"new-value\": \"c0030003\", \"new-port\": 1, \"state\": \"denied\"},
		{\"value\": \"00\", \"port\": 0, \"new-value\": \"c004\", \"new-port\": 1, \"state\": \"good\"}]}"
	ok_do ev-profile-set "{$E1, \"state\": \"online\", \"ev-min-active\": 2,
		\"event-mask\": [\"assumed-bad\", \"good\"]}"
	ok_do ev-profile-get "{$E1, \"ev-op\": \"query-array\"}" '{"state": "online",
		"ev-min-active": 2, "event-mask": ["assumed-bad", "good"],
		"ev-usable": 3, "ev": [
		{"index": 0, "value": "c0010001", "port": 1, "state": ["good"]},
		{"index": 1, "value": "c0020002", "port": 1, "state": ["good"]},
		{"index": 2, "value": "c0030003", "port": 1, "state": ["denied"]},
		{"index": 3, "value": "c004", "port": 1, "state": ["good"]}]}'
	nl "query-array array-size 3: E2BIG, needs 4" \
		"\"do\": \"ev-profile-get\", \"attrs\": {$E1, \"ev-op\": \"query-array\", \"array-size\": 3}, \"expect\": {\"errno\": $E2BIG, \"msg\": \"array-size is too small: need 4 entries\", \"cookie-u32\": 4, \"bad-attr\": \".array-size\"}"
	err_do $EBUSY "an ONLINE EV profile uses this format" ev-fmt-profile-set \
		"{$F13, \"state\": \"offline\"}"
	err_do $EINVAL "this attribute cannot change while the profile is ONLINE" \
		ev-profile-set "{$E1, \"mode\": \"gen\"}" '"bad-attr": ".mode"'
	err_do $EINVAL "this attribute cannot change while the profile is ONLINE" \
		ev-profile-set "{$E1, \"ev-count\": 8}" '"bad-attr": ".ev-count"'
}

# EV profile 1: modify-state, query-state, replace while ONLINE, ev-get
case_evp_exp_ops() {
	ok_do ev-profile-set "{$E1, \"ev-op\": \"modify-state\", \"ev\": [
		{\"value\": \"c0020002\", \"port\": 1, \"state\": \"denied\"},
		{\"value\": \"c0030003\", \"port\": 1, \"state\": \"good\"}]}"
	ok_do ev-profile-get "{$E1, \"ev-op\": \"query-state\", \"ev\": [
		{\"value\": \"c0020002\", \"port\": 1}, {\"value\": \"c0030003\", \"port\": 1}]}" \
		'{"ev": [{"index": 1, "value": "c0020002", "state": ["denied"]},
		{"index": 2, "value": "c0030003", "state": ["good"]}]}'
	err_do $ENOENT "the profile has no such EV" ev-profile-get \
		"{$E1, \"ev-op\": \"query-state\", \"ev\": [{\"value\": \"c0020002\", \"port\": 2}]}"
	err_do $ENOENT "the profile has no such EV" ev-profile-set \
		"{$E1, \"ev-op\": \"modify-state\", \"ev\": [{\"value\": \"c0990099\", \"port\": 1, \"state\": \"denied\"}]}"
	err_do $EINVAL "the controller sets only good or denied" ev-profile-set \
		"{$E1, \"ev-op\": \"modify-state\", \"ev\": [{\"value\": \"c0010001\", \"port\": 1, \"state\": \"assumed-bad\"}]}"
	# Entries apply in order, all or none: the third fails, and the profile
	# is as it was, the first two entries' changes (a value, a state) undone.
	err_do $ENOENT "the profile has no such EV" ev-profile-set \
		"{$E1, \"ev-op\": \"replace\", \"ev\": [
		{\"value\": \"c004\", \"port\": 1, \"new-value\": \"c0040004\", \"new-port\": 1, \"state\": \"good\"},
		{\"value\": \"c0030003\", \"port\": 1, \"new-value\": \"c0030003\", \"new-port\": 1, \"state\": \"denied\"},
		{\"value\": \"c0990099\", \"port\": 1, \"new-value\": \"c0050005\", \"new-port\": 1, \"state\": \"good\"}]}"
	ok_dump ev-get "{$E1}" '[
		{"id": 1, "ev": [{"index": 0, "value": "c0010001", "port": 1, "state": ["good"]}]},
		{"id": 1, "ev": [{"index": 1, "value": "c0020002", "port": 1, "state": ["denied"]}]},
		{"id": 1, "ev": [{"index": 2, "value": "c0030003", "port": 1, "state": ["good"]}]},
		{"id": 1, "ev": [{"index": 3, "value": "c004", "port": 1, "state": ["good"]}]}]'
	ok_do ev-profile-set "{$E1, \"ev-op\": \"replace\", \"ev\": [
		{\"value\": \"c004\", \"port\": 1, \"new-value\": \"c0040004\", \"new-port\": 1, \"state\": \"good\"}]}"
	ok_dump ev-get "{$E1}" '[
		{"id": 1, "ev": [{"index": 0, "value": "c0010001", "port": 1, "state": ["good"]}]},
		{"id": 1, "ev": [{"index": 1, "value": "c0020002", "port": 1, "state": ["denied"]}]},
		{"id": 1, "ev": [{"index": 2, "value": "c0030003", "port": 1, "state": ["good"]}]},
		{"id": 1, "ev": [{"index": 3, "value": "c0040004", "port": 1, "state": ["good"]}]}]'
	nl "ev-get of a profile in INIT: ENOENT" \
		"\"dump\": \"ev-get\", \"attrs\": {$D0, \"id\": 77}, \"expect\": {\"errno\": $ENOENT}"
}

# --- EV profiles: generated, auto, SRv6 --------------------------------------------

# EV profile 2: generated (gen) on format 13
case_evp_gen() {
	# Field 0: 0xc000 plus 4 generated bits (1..2) in mask 0x000f; field 1:
	# 0x0400 plus 2 generated bits (0..3) in mask 0x0300.  The EV is those
	# 6 bits, most significant first: f0 << 4 | f1 << 2 in one byte; the last
	# field varies fastest.  8 values exist, ev-count 100 is cut to 8.
	E2="$D0, \"id\": 2"
	GEN_FIELDS='[{"width": 16, "init-val": 49152, "mask": 15, "min-val": 1, "max-val": 2},
		{"width": 16, "init-val": 1024, "mask": 768, "min-val": 0, "max-val": 3}]'
	err_do $EINVAL "gen profiles need fields" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 13, \"ev-count\": 4}" \
		'"miss-type": "field"'
	err_do $EINVAL "init-val does not fit the width" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 13, \"ev-count\": 4,
		\"field\": [{\"width\": 4, \"init-val\": 16, \"mask\": 1, \"max-val\": 1}]}"
	err_do $EINVAL "mask bits lie outside the width" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 13, \"ev-count\": 4,
		\"field\": [{\"width\": 4, \"mask\": 16, \"max-val\": 1}]}"
	err_do $EINVAL "max-val is above 2^popcount(mask) - 1" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 13, \"ev-count\": 4,
		\"field\": [{\"width\": 16, \"mask\": 257, \"max-val\": 4}]}"
	err_do $EINVAL "min-val is above max-val" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 13, \"ev-count\": 4,
		\"field\": [{\"width\": 16, \"mask\": 3, \"min-val\": 3, \"max-val\": 2}]}"
	err_do $E2BIG "more fields than the format profile has" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 13, \"ev-count\": 4,
		\"field\": [{\"width\": 8, \"mask\": 1, \"max-val\": 1}, {\"width\": 8}, {\"width\": 8}]}"
	err_do $EINVAL "a field is wider than its format field" ev-profile-set \
		"{$E2, \"state\": \"offline\", \"mode\": \"gen\", \"fmt-profile-id\": 14, \"ev-count\": 4,
		\"field\": [{\"width\": 17, \"mask\": 1, \"max-val\": 1}]}"
	ok_do ev-profile-set "{$E2, \"state\": \"offline\", \"mode\": \"gen\",
		\"fmt-profile-id\": 13, \"ev-count\": 100, \"field\": $GEN_FIELDS}"
	GEN_ARRAY='[
		{"index": 0, "value": "10", "port": 1, "state": ["good"]},
		{"index": 1, "value": "14", "port": 1, "state": ["good"]},
		{"index": 2, "value": "18", "port": 1, "state": ["good"]},
		{"index": 3, "value": "1c", "port": 1, "state": ["good"]},
		{"index": 4, "value": "20", "port": 1, "state": ["good"]},
		{"index": 5, "value": "24", "port": 1, "state": ["good"]},
		{"index": 6, "value": "28", "port": 1, "state": ["good"]},
		{"index": 7, "value": "2c", "port": 1, "state": ["good"]}]'
	ok_do ev-profile-get "{$E2, \"ev-op\": \"query-array\", \"array-size\": 8}" \
		"{\"mode\": [\"gen\"], \"ev-count\": 8, \"field\": [
		{\"width\": 16, \"init-val\": 49152, \"min-val\": 1, \"max-val\": 2, \"mask\": 15},
		{\"width\": 16, \"init-val\": 1024, \"min-val\": 0, \"max-val\": 3, \"mask\": 768}],
		\"ev\": $GEN_ARRAY}"
	nl "ev-profile-get fields, array-size 1: E2BIG, needs 2" \
		"\"do\": \"ev-profile-get\", \"attrs\": {$E2, \"array-size\": 1}, \"expect\": {\"errno\": $E2BIG, \"msg\": \"array-size is too small: need 2 entries\", \"cookie-u32\": 2}"
	ok_do ev-profile-set "{$E2, \"state\": \"online\", \"ev-min-active\": 4, \"event-mask\": []}"
	ok_do dev-get "{$D0}" '{"ev-free-count": 65524}'
	# New fields while ONLINE (ev-profile-modify-online): generated again, 6
	# values now (f1 0..2), the DENIED state of the old array gone.
	ok_do ev-profile-set "{$E2, \"ev-op\": \"modify-state\", \"ev\": [{\"value\": \"10\", \"port\": 1, \"state\": \"denied\"}]}"
	ok_do ev-profile-get "{$E2, \"ev-op\": \"query-state\", \"ev\": [{\"index\": 0}]}" \
		'{"ev-usable": 7, "ev": [{"index": 0, "value": "10", "state": ["denied"]}]}'
	ok_do ev-profile-set "{$E2, \"field\": [{\"width\": 16, \"init-val\": 49152, \"mask\": 15, \"min-val\": 1, \"max-val\": 2},
		{\"width\": 16, \"init-val\": 1024, \"mask\": 768, \"min-val\": 0, \"max-val\": 2}]}"
	ok_do ev-profile-get "{$E2, \"ev-op\": \"query-array\"}" '{"ev-count": 6, "ev-usable": 6, "ev": [
		{"index": 0, "value": "10", "state": ["good"]},
		{"index": 1, "value": "14"}, {"index": 2, "value": "18"},
		{"index": 3, "value": "20"}, {"index": 4, "value": "24"},
		{"index": 5, "value": "28"}]}'
	ok_do dev-get "{$D0}" '{"ev-free-count": 65526}'
}

# EV profile 3: generated on UDP format 14, source port 0 left out
case_evp_udp() {
	# One 16-bit field, 2 generated bits (0..3) at the bottom: value 0 would be
	# source port 0, so 3 EVs: 0x40, 0x80, 0xc0 (the 2 bits at the top of the
	# EV byte).
	ok_do ev-profile-set "{$D0, \"id\": 3, \"state\": \"offline\", \"mode\": \"gen\",
		\"fmt-profile-id\": 14, \"ev-count\": 10,
		\"field\": [{\"width\": 16, \"mask\": 3, \"max-val\": 3}]}"
	ok_do ev-profile-get "{$D0, \"id\": 3, \"ev-op\": \"query-array\"}" '{"ev-count": 3,
		"ev": [{"index": 0, "value": "40"}, {"index": 1, "value": "80"},
		       {"index": 2, "value": "c0"}]}'
	ok_do ev-profile-set "{$D0, \"id\": 3, \"state\": \"init\"}"
	err_do $ENOENT "the EV profile is in INIT" ev-profile-get "{$D0, \"id\": 3}"
}

# EV profile 4: auto
case_evp_auto() {
	ok_do ev-profile-set "{$D0, \"id\": 4, \"state\": \"offline\", \"mode\": \"auto\", \"ev-count\": 16}"
	ok_do ev-profile-set "{$D0, \"id\": 4, \"state\": \"online\", \"ev-min-active\": 4, \"event-mask\": \"good\"}"
	err_do $EINVAL "an auto profile has no EV array" ev-profile-get \
		"{$D0, \"id\": 4, \"ev-op\": \"query-array\"}"
	err_do $EINVAL "an auto profile has no format" ev-profile-set \
		"{$D0, \"id\": 5, \"state\": \"offline\", \"mode\": \"auto\", \"ev-count\": 4, \"fmt-profile-id\": 13}"
}

# EV profile 6: SRv6, stored only
case_evp_srv6() {
	SRV6_EV=20010db8000100020003000400000000
	ok_do ev-profile-set "{$D0, \"id\": 6, \"state\": \"offline\", \"mode\": \"exp\",
		\"fmt-profile-id\": 15, \"ev-count\": 1}"
	ok_do ev-profile-set "{$D0, \"id\": 6, \"ev-op\": \"replace\", \"ev\": [{\"index\": 0,
		\"new-value\": \"$SRV6_EV\", \"new-port\": 1, \"state\": \"good\"}]}"
	ok_do ev-profile-set "{$D0, \"id\": 6, \"state\": \"online\", \"ev-min-active\": 1, \"event-mask\": []}"
	ok_do ev-profile-get "{$D0, \"id\": 6, \"ev-op\": \"query-array\"}" \
		"{\"ev\": [{\"index\": 0, \"value\": \"$SRV6_EV\", \"port\": 1}]}"
	err_do $EOPNOTSUPP "SRv6 EV profiles cannot be used yet" dev-set \
		"{$D0, \"default-ev-profile\": 6}" '"bad-attr": ".default-ev-profile"'
	ok_dump ev-profile-get "{$D0}" '[{"id": 1}, {"id": 2}, {"id": 4}, {"id": 6}]'
	# EV values of 1 to 32 bytes: an empty one fails the (generated) policy,
	# a longer one the driver's own check (YNL's policy has no maximum).
	EV33=$(printf '%066d' 1)
	nl "empty ev value refused by the policy" \
		"\"do\": \"ev-profile-set\", \"attrs\": {$D0, \"id\": 6, \"ev-op\": \"modify-state\", \"ev\": [{\"value\": \"\", \"port\": 1, \"state\": \"denied\"}]}, \"expect\": {\"errno\": $ERANGE}"
	err_do $ERANGE "an EV is at most ev-max-bytes (32) bytes" ev-profile-set \
		"{$D0, \"id\": 6, \"ev-op\": \"modify-state\", \"ev\": [{\"value\": \"$EV33\", \"port\": 1, \"state\": \"denied\"}]}"
	err_do $ERANGE "an EV is at most ev-max-bytes (32) bytes" ev-profile-set \
		"{$D0, \"id\": 6, \"ev-op\": \"replace\", \"ev\": [{\"index\": 0, \"new-value\": \"$EV33\", \"new-port\": 1, \"state\": \"good\"}]}"
}

# --- CC profiles ---------------------------------------------------------------------

# CC profiles
case_cc() {
	C1="$D0, \"id\": 1"
	NSCC='{"disable-qa": 0, "adjust-bytes-threshold": 32768,
		"adjust-period-threshold": 100000, "base-rtt": 10000, "eta": 4096,
		"fi": 4096, "fi-scale": 250000, "gamma": 500000, "max-md-jump": 500000,
		"max-cwnd": 1048576, "qa-gate": 3, "qa-threshold": 40000,
		"target-delay": 20000}'
	err_do $ENOENT "the CC profile is in INIT" cc-profile-get "{$C1}"
	err_do $EINVAL "algorithm is required to leave INIT" cc-profile-set \
		"{$C1, \"state\": \"offline\"}" '"miss-type": "algorithm"'
	err_do $EINVAL "unknown algorithm (uet-1.0-nscc or none)" cc-profile-set \
		"{$C1, \"state\": \"offline\", \"algorithm\": \"cubic\"}"
	ok_do cc-profile-set "{$C1, \"state\": \"offline\", \"algorithm\": \"uet-1.0-nscc\"}"
	err_do $EINVAL "nscc parameters are required to go ONLINE" cc-profile-set \
		"{$C1, \"state\": \"online\"}" '"miss-type": "nscc"'
	err_do $EINVAL "the first nscc nest must hold every parameter" cc-profile-set \
		"{$C1, \"nscc\": {\"disable-qa\": 1}}"
	err_do $EINVAL "target-delay is above qa-threshold" cc-profile-set \
		"{$C1, \"nscc\": $(jq -c '.["target-delay"] = 50000' <<<"$NSCC")}"
	nl "nscc gamma above 1.0 refused by the policy" \
		"\"do\": \"cc-profile-set\", \"attrs\": {$C1, \"nscc\": $(jq -c '.gamma = 1000001' <<<"$NSCC")}, \"expect\": {\"errno\": $ERANGE}"
	ok_do cc-profile-set "{$C1, \"nscc\": $NSCC}"
	ok_do cc-profile-set "{$C1, \"state\": \"online\"}"
	err_do $EINVAL "the algorithm cannot change while the profile is ONLINE" \
		cc-profile-set "{$C1, \"algorithm\": \"none\"}"
	# A later nest may hold a subset (cc-profile-modify-online).
	ok_do cc-profile-set "{$C1, \"nscc\": {\"max-cwnd\": 65536}}"
	ok_do cc-profile-get "{$C1}" "{\"state\": \"online\", \"algorithm\": \"uet-1.0-nscc\",
		\"nscc\": $(jq -c '.["max-cwnd"] = 65536' <<<"$NSCC"), \"qp-count\": 0}"
	ok_do cc-profile-set "{$D0, \"id\": 2, \"state\": \"offline\", \"algorithm\": \"none\"}"
	ok_do cc-profile-set "{$D0, \"id\": 2, \"state\": \"online\"}"
	ok_dump cc-profile-get "{$D0}" '[{"id": 1, "state": "online"},
		{"id": 2, "algorithm": "none"}]'
}

# ENOSPC past MAX_CC_PROFILES CC profiles
case_cc_enospc() {
	batch=
	for ((i = 3; i <= MAX_CC_PROFILES; i++)); do
		batch+="${batch:+, }{\"do\": \"cc-profile-set\", \"attrs\": {$D0, \"id\": $((100 + i)), \"state\": \"offline\", \"algorithm\": \"none\"}, \"expect\": {\"reply\": null}}"
	done
	nl "CC profiles 3..$MAX_CC_PROFILES" "\"batch\": [$batch]"
	err_do $ENOSPC "the device has no room for another CC profile" \
		cc-profile-set "{$D0, \"id\": 999, \"state\": \"offline\", \"algorithm\": \"none\"}"
	batch=
	for ((i = 3; i <= MAX_CC_PROFILES; i++)); do
		batch+="${batch:+, }{\"do\": \"cc-profile-set\", \"attrs\": {$D0, \"id\": $((100 + i)), \"state\": \"init\"}, \"expect\": {\"reply\": null}}"
	done
	nl "CC profiles 3..$MAX_CC_PROFILES back to INIT" "\"batch\": [$batch]"
	ok_do cc-profile-set "{$D0, \"id\": 999, \"state\": \"offline\", \"algorithm\": \"none\"}"
	ok_do cc-profile-set "{$D0, \"id\": 999, \"state\": \"init\"}"
}

# --- defaults and QP binding ------------------------------------------------------------

# dev-set: default profiles, SKIP hold time
case_defaults() {
	err_do $ENOENT "the EV profile is in INIT" dev-set "{$D0, \"default-ev-profile\": 99}"
	ok_do ev-profile-set "{$D0, \"id\": 7, \"state\": \"offline\", \"mode\": \"auto\", \"ev-count\": 4}"
	err_do $EINVAL "the EV profile is not ONLINE" dev-set "{$D0, \"default-ev-profile\": 7}"
	# Everything is checked before anything applies.
	err_do $ENOENT "the CC profile is in INIT" dev-set \
		"{$D0, \"default-ev-profile\": 1, \"default-cc-profile\": 77}" \
		'"bad-attr": ".default-cc-profile"'
	ok_do dev-get "{$D0}" '{"default-ev-profile": 0, "default-cc-profile": 0}'
	nl "ev-skip-hold-us 0 refused by the policy" \
		"\"do\": \"dev-set\", \"attrs\": {$D0, \"ev-skip-hold-us\": 0}, \"expect\": {\"errno\": $ERANGE}"
	ok_do dev-set "{$D0, \"default-ev-profile\": 1, \"default-cc-profile\": 1,
		\"ev-skip-hold-us\": 250}"
	ok_do dev-get "{$D0}" '{"default-ev-profile": 1, "default-cc-profile": 1,
		"ev-skip-hold-us": 250}'
	ok_do dev-get "{\"dev-name\": \"$SECOND_DEV\"}" '{"default-ev-profile": 0,
		"ev-skip-hold-us": 1000}'
	err_do $EBUSY "the profile is the device's default" ev-profile-set \
		"{$E1, \"state\": \"offline\"}"
	err_do $EBUSY "the profile is the device's default" cc-profile-set \
		"{$C1, \"state\": \"offline\"}"
}

# a QP created now is bound to the defaults
case_qp_defaults() {
	TARGET_BIN=$(helper_path mrc_target)
	mkfifo "$MRC_TMP/target.in"
	exec {TGT_FD}<>"$MRC_TMP/target.in"
	bg_start target target_exec "$MRC_TMP/target.in" \
		env MRC_DEV="$TEST_DEV" MRC_IPV4="$TEST_IPV4" "$TARGET_BIN" \
		--peer-ip "$TEST_IPV4" --peer-qpn 16 --pages 1 --timeout "$TARGET_TIMEOUT"
	wait_until "mrc_target READY" "$WAIT_TIMEOUT" target_ready target
	QPN=$(sed -n 's/^QPN=//p' "$(bg_out target)")
	[ -n "$QPN" ] || fail "mrc_target printed no QPN"
	QPN=$((QPN))	# it prints hex
	log "target QP $QPN"
	nl "qp-get $QPN: the default profiles, not explicit" \
		"\"do\": \"qp-get\", \"attrs\": {$D0, \"qpn\": $QPN}, \"expect\": {\"reply\": {\"qpn\": $QPN, \"ev-profile-id\": 1, \"cc-profile-id\": 1}, \"absent\": [\"explicit\"]}"
	ok_dump qp-get "{$D0}" "[{\"qpn\": $QPN, \"ev-profile-id\": 1}]"
	ok_dump qp-get "{\"dev-name\": \"$SECOND_DEV\"}" '[]'
	err_do $ENOENT "no such QP" qp-get "{$D0, \"qpn\": 1}"
	# Without CAP_NET_ADMIN a process sees its own QPs only: not mrc_target's.
	nl_on user "qp-get $QPN without CAP_NET_ADMIN: another process's QP" \
		"\"do\": \"qp-get\", \"attrs\": {$D0, \"qpn\": $QPN}, \"expect\": {\"errno\": $ENOENT}"
	nl_on user "dump qp-get without CAP_NET_ADMIN: no QP of its own" \
		"\"dump\": \"qp-get\", \"attrs\": {$D0}, \"expect\": {\"reply\": []}"
	ok_do ev-profile-get "{$E1, \"ev-op\": \"query-array\"}" '{"qp-count": 1, "ev": [
		{"state": ["good"]}, {"state": ["denied"]}, {"state": ["good"]},
		{"state": ["good"]}]}'
	ok_do cc-profile-get "{$C1}" '{"qp-count": 1}'
	# The default changes; the QP keeps its profiles, which stay busy.
	ok_do dev-set "{$D0, \"default-ev-profile\": 0, \"default-cc-profile\": 0}"
	err_do $EBUSY "QPs are bound to the profile" ev-profile-set "{$E1, \"state\": \"offline\"}"
	err_do $EBUSY "QPs are bound to the profile" cc-profile-set "{$C1, \"state\": \"offline\"}"
	printf 'quit\n' >&"$TGT_FD"
	bg_wait target "$CMD_TIMEOUT" || fail "mrc_target did not quit"
	[ "$(bg_rc target)" = 0 ] || fail "mrc_target exit status $(bg_rc target)"
	ok_dump qp-get "{$D0}" '[]'
	ok_do ev-profile-get "{$E1}" '{"qp-count": 0}'
}

# explicit binding: the driver-specific input of create QP
case_qp_bind() {
	BIND_BIN=$(helper_path mrc_bind_qp)
	# bind_refused EV_ID CC_ID ERRNO [FLAGS]: create QP refused with ERRNO.
	bind_refused() {
		run_fails "" env MRC_DEV="$TEST_DEV" "$BIND_BIN" "$1" "$2" ${4:+"$4"}
		if [ "$BOUNDED_RC" != 2 ] || ! grep -qx "ERRNO=$3" "$BOUNDED_OUT"; then
			bounded_output
			fail "create QP bound to EV $1 CC $2 (flags ${4:-1}): want errno $3"
		fi
		log "ok: create QP bound to EV $1 CC $2 (flags ${4:-1}): errno $3"
	}
	bind_refused 99 0 $ENOENT
	bind_refused 7 0 $EINVAL
	bind_refused 6 0 $EOPNOTSUPP
	bind_refused 0 77 $ENOENT
	bind_refused 2 2 $EOPNOTSUPP 3
	# In bg_spawn's subshell.
	# shellcheck disable=SC2317 # run through bg_start
	bind_exec() {
		MRC_DEV=$TEST_DEV "$BIND_BIN" "$@" <"$MRC_TMP/bind.in"
	}
	# shellcheck disable=SC2317 # run through wait_until
	bind_ready() {
		file_has_line "$(bg_out bind)" READY && return 0
		if bg_done bind; then
			sed 's/^/    /' "$(bg_out bind)"
			fail "mrc_bind_qp exited before READY (status $(bg_rc bind))"
		fi
		return 1
	}
	mkfifo "$MRC_TMP/bind.in"
	exec {BIND_FD}<>"$MRC_TMP/bind.in"
	bg_start bind bind_exec 2 2
	wait_until "mrc_bind_qp READY" "$WAIT_TIMEOUT" bind_ready
	BQPN=$(sed -n 's/^QPN=//p' "$(bg_out bind)")
	ok_do qp-get "{$D0, \"qpn\": $BQPN}" "{\"qpn\": $BQPN, \"ev-profile-id\": 2,
		\"cc-profile-id\": 2, \"explicit\": true}"
	ok_do ev-profile-get "{$E2}" '{"qp-count": 1}'
	ok_do cc-profile-get "{$D0, \"id\": 2}" '{"qp-count": 1}'
	err_do $EBUSY "QPs are bound to the profile" ev-profile-set "{$E2, \"state\": \"offline\"}"
	printf 'quit\n' >&"$BIND_FD"
	bg_wait bind "$CMD_TIMEOUT" || fail "mrc_bind_qp did not quit"
	[ "$(bg_rc bind)" = 0 ] || fail "mrc_bind_qp exit status $(bg_rc bind)"
	ok_do ev-profile-get "{$E2}" '{"qp-count": 0}'
}

# life cycle back to INIT
case_back_to_init() {
	ok_do ev-profile-set "{$E1, \"state\": \"offline\"}"
	err_do $EINVAL "a profile in or going to INIT takes no attributes" \
		ev-profile-set "{$E1, \"state\": \"init\", \"ev-count\": 2}"
	ok_do ev-profile-set "{$E1, \"state\": \"init\"}"
	ok_do cc-profile-set "{$C1, \"state\": \"offline\"}"
	ok_do cc-profile-set "{$C1, \"state\": \"init\"}"
	err_do $ENOENT "the CC profile is in INIT" cc-profile-get "{$C1}"
	ok_do ev-profile-set "{$E2, \"state\": \"offline\"}"
	ok_do ev-fmt-profile-set "{$F13, \"state\": \"offline\"}"
	err_do $EBUSY "EV profiles out of INIT use this format" ev-fmt-profile-set \
		"{$F13, \"state\": \"init\"}"
	ok_do ev-profile-set "{$E2, \"state\": \"init\"}"
	ok_do ev-fmt-profile-set "{$F13, \"state\": \"init\"}"
	ok_do ev-fmt-profile-get "{$D0, \"id\": 14}" '{"users": 0}'
	ok_do dev-get "{$D0}" '{"ev-free-count": 65515}'
}

# --- dev-new / dev-del ---------------------------------------------------------------

# dev-new / dev-del
case_dev_new_del() {
	NEW_IFINDEX=$(netdev_ifindex "$NEW_NETDEV")
	err_do $EINVAL "dev-name is required" dev-new \
		"{\"netdev-ifindex\": [$NEW_IFINDEX]}" '"miss-type": "dev-name"'
	err_do $EINVAL "at least one netdev-ifindex is required" dev-new \
		"{\"dev-name\": \"$NEW_DEV\"}" '"miss-type": "netdev-ifindex"'
	err_do $ENODEV "no such netdev" dev-new \
		"{\"dev-name\": \"$NEW_DEV\", \"netdev-ifindex\": [$MISSING_IFINDEX]}"
	err_do $EINVAL "a netdev is named twice" dev-new \
		"{\"dev-name\": \"$NEW_DEV\", \"netdev-ifindex\": [$NEW_IFINDEX, $NEW_IFINDEX]}"
	nl "dev-new on a netdev that has an mrc device: EEXIST" \
		"\"do\": \"dev-new\", \"attrs\": {\"dev-name\": \"$NEW_DEV\", \"netdev-ifindex\": [$(netdev_ifindex "$TEST_NETDEV")]}, \"expect\": {\"errno\": $EEXIST}"
	ok_do dev-new "{\"dev-name\": \"$NEW_DEV\", \"netdev-ifindex\": [$NEW_IFINDEX]}" \
		"{\"dev-name\": \"$NEW_DEV\"}"
	cleanup_push link_del_quiet "$NEW_DEV"
	link_exists "$NEW_DEV" || fail "dev-new made no $NEW_DEV"
	ok_do dev-get "{\"dev-name\": \"$NEW_DEV\"}" "$(dev_get_reply "$NEW_DEV" "$NEW_NETDEV")"
	ok_do dev-del "{\"dev-name\": \"$NEW_DEV\"}"
	wait_until "$NEW_DEV gone after dev-del" "$WAIT_TIMEOUT" link_absent "$NEW_DEV"
	err_do $ENODEV "no such MRC device" dev-get "{\"dev-name\": \"$NEW_DEV\"}"
}

# --- ep-op -------------------------------------------------------------------------------

# --- ep-op -------------------------------------------------------------------------------

# gid_hex_of_ipv4 ADDR: the IPv4-mapped GID of ADDR in hex (YNL takes
# binary attributes as hex strings).
gid_hex_of_ipv4() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '00000000000000000000ffff%02x%02x%02x%02x\n' "$a" "$b" "$c" "$d"
}

# ep_op_setup: GID0 (the device's own GID), REQ (one probe request of it,
# without its id) and EP (the op's attributes but the requests).
ep_op_setup() {
	GID0=$(gid_hex_of_ipv4 "$TEST_IPV4")
	REQ="\"sgid\": \"$GID0\", \"dgid\": \"$GID0\", \"ev-fmt-mode\": \"udp\", \"ev-value\": \"c123\", \"port\": 1"
	EP="$D0, \"op-type\": \"ev-probe\", \"timeout\": 2000000"
}

# A probe's destination with no MRC peer (TEST-NET-3), and the timeout of a
# probe to our own GID: one second, since a TCG guest may stall for
# milliseconds.
EP_NOBODY_IPV4=203.0.113.9
EP_SELF_TIMEOUT_NS=1000000000

# The endpoint counters of a probe to our own GID: those of the request
# and of the response move by one, the drops and timeouts stay.
EP_COUNTERS=(ep_reqs_sent ep_reqs_rcvd ep_rsps_sent ep_rsps_rcvd ep_timeouts
	ep_drop_malformed ep_drop_unknown_gid ep_drop_unmatched)

# ep_counters: "NAME=VALUE " for each of EP_COUNTERS of TEST_DEV port 1.
ep_counters() {
	local c dir=/sys/class/infiniband/$TEST_DEV/ports/1/hw_counters
	for c in "${EP_COUNTERS[@]}"; do
		printf '%s=%s ' "$c" "$(cat "$dir/$c")"
	done
}

# ep_counters_expect LINE: ep_counters' LINE after one answered probe.
ep_counters_expect() {
	local c line=$1 d
	for c in "${EP_COUNTERS[@]}"; do
		case $c in
		ep_reqs_sent|ep_reqs_rcvd|ep_rsps_sent|ep_rsps_rcvd) d=1 ;;
		*) d=0 ;;
		esac
		[[ $line =~ (^| )$c=([0-9]+) ]] || fail "no counter $c"
		printf '%s=%s ' "$c" $((BASH_REMATCH[2] + d))
	done
}

# ep-op refusals, each with its errno and extack message.
case_ep_op() {
	local reqs i
	ep_op_setup
	err_do $EINVAL "op-type, timeout and at least one req are required" ep-op \
		"{$D0, \"op-type\": \"ev-probe\", \"timeout\": 1000}" '"miss-type": "req"'
	err_do $EINVAL "req-id is not unique in the batch" ep-op \
		"{$EP, \"req\": [{\"req-id\": 1, $REQ}, {\"req-id\": 1, $REQ}]}"
	err_do $EINVAL "the device has no such RoCE v2 GID" ep-op \
		"{$EP, \"req\": [{\"req-id\": 1, \"sgid\": \"$(gid_hex_of_ipv4 192.0.2.9)\", \"dgid\": \"$GID0\", \"ev-fmt-mode\": \"udp\", \"ev-value\": \"c123\", \"port\": 1}]}"
	err_do $EINVAL "the device has no such port" ep-op \
		"{$EP, \"req\": [{\"req-id\": 1, \"sgid\": \"$GID0\", \"dgid\": \"$GID0\", \"ev-fmt-mode\": \"udp\", \"ev-value\": \"c123\", \"port\": 2}]}"
	err_do $EINVAL "the EV does not fit its mode" ep-op \
		"{$EP, \"req\": [{\"req-id\": 1, \"sgid\": \"$GID0\", \"dgid\": \"$GID0\", \"ev-fmt-mode\": \"udp\", \"ev-value\": \"c12301\", \"port\": 1}]}"
	err_do $ERANGE "an EV is at most ev-max-bytes (32) bytes" ep-op \
		"{$EP, \"req\": [{\"req-id\": 1, \"sgid\": \"$GID0\", \"dgid\": \"$GID0\", \"ev-fmt-mode\": \"udp\", \"ev-value\": \"$(printf '%066d' 1)\", \"port\": 1}]}"
	err_do $EOPNOTSUPP "SRv6 endpoint requests are not supported yet" ep-op \
		"{$EP, \"req\": [{\"req-id\": 1, \"sgid\": \"$GID0\", \"dgid\": \"$GID0\", \"ev-fmt-mode\": \"srv6\", \"ev-value\": \"$SRV6_EV\", \"port\": 1}]}"
	reqs=
	for ((i = 0; i <= EP_MAX_REQS; i++)); do
		reqs+="${reqs:+, }{\"req-id\": $i, $REQ}"
	done
	err_do $E2BIG "more requests than ep-max-reqs" ep-op "{$EP, \"req\": [$reqs]}"
}

# ep-op: a probe nobody answers.
case_ep_op_nobody() {
	local nobody rsp
	ep_op_setup
	# A probe nobody answers (TEST-NET-3 has no MRC peer): the batch is sent
	# and its one request comes back timed-out after the timeout.  Answered
	# probes between two hosts are ep_test.sh's.
	nobody=$(gid_hex_of_ipv4 "$EP_NOBODY_IPV4")
	nl_tag_next
	printf '{"tag": %d, "do": "ep-op", "attrs": {%s, "req": [{"req-id": 7, "sgid": "%s", "dgid": "%s", "ev-fmt-mode": "udp", "ev-value": "c123", "port": 1}]}}\n' \
		"$NL_TAG" "$EP" "$GID0" "$nobody" >&"${NL_FD[root]}"
	NL_WANT=$NL_TAG NL_NAME=root
	wait_until "ep-op answered" "$CMD_TIMEOUT" nl_answered
	rsp=$(jq -c '.reply.rsp' <<<"$NL_LINE") || fail "ep-op: $NL_LINE"
	assert_eq "ep-op to nobody" '[{"req-id":7,"timed-out":true}]' "$rsp"
	log "ok: ep-op probe to nobody: $NL_LINE"
}

# ep-op: a probe of our own GID.
case_ep_op_self() {
	local before rsp
	ep_op_setup
	# A probe of the device's own GID goes through loopback and is answered,
	# on the port it was sent on, with its RTT; the device counts the request
	# and the response on both sides, and drops nothing.
	before=$(ep_counters)
	nl_tag_next
	printf '{"tag": %d, "do": "ep-op", "attrs": {%s, "op-type": "ev-probe", "timeout": %d, "req": [{"req-id": 8, %s}]}}\n' \
		"$NL_TAG" "$D0" "$EP_SELF_TIMEOUT_NS" "$REQ" >&"${NL_FD[root]}"
	NL_WANT=$NL_TAG NL_NAME=root
	wait_until "ep-op answered" "$CMD_TIMEOUT" nl_answered
	rsp=$(jq -c '.reply.rsp | map({"req-id", "timed-out": (."timed-out" // false),
		port, "rtt>0": ((.rtt // 0) > 0)})' <<<"$NL_LINE") ||
		fail "ep-op: $NL_LINE"
	assert_eq "ep-op to our own GID" \
		'[{"req-id":8,"timed-out":false,"port":1,"rtt>0":true}]' "$rsp"
	assert_eq "endpoint counters of a probe to our own GID" \
		"$(ep_counters_expect "$before")" "$(ep_counters)"
	log "ok: ep-op probe to our own GID: $NL_LINE"
}

# --- events, removal ------------------------------------------------------------------------

# group ev: the controller's deny and allow, nothing from the datapath
case_ev_events() {
	# No QP carries traffic here, so every event is a controller's change
	# (reason controller, no qpn) of an EV between good and denied; the
	# modify-state requests above made at least one.
	nl_tag_next
	printf '{"tag": %d, "notifications": true}\n' "$NL_TAG" >&"${NL_FD[evmon]}"
	NL_WANT=$NL_TAG NL_NAME=evmon
	wait_until "group ev notifications" "$CMD_TIMEOUT" nl_answered
	events=$(jq -c '.reply' <<<"$NL_LINE") || fail "no JSON: $NL_LINE"
	n_events=$(jq 'length' <<<"$events")
	[ "$n_events" -ge 1 ] || fail "no ev-event for the controller's changes: $NL_LINE"
	bad=$(jq -c '[.[] | select(.name != "ev-event" or .msg.reason != "controller"
		or (.msg | has("qpn")) or
		([.msg.state[], .msg."prev-state"[]] | sort != ["denied", "good"]))]' \
		<<<"$events")
	assert_eq "events other than the controller's" "[]" "$bad"
	log "ok: $n_events ev-events, all the controller's: $events"
}

# after rdma link delete SECOND_DEV it is gone from the dumps
case_after_delete() {
	link_del "$SECOND_DEV"
	link_absent "$SECOND_DEV" || fail "$SECOND_DEV still there after delete"
	ok_dump dev-get '{}' "[$DEV0]"
	ok_dump port-get '{}' "[$PORT0]"
	err_do $ENODEV "no such MRC device" dev-get "{\"dev-index\": $INDEX1}"
	# Profiles left on $TEST_DEV go with it.
	link_del "$TEST_DEV"
	ok_dump dev-get '{}' '[]'
}

# --- main -----------------------------------------------------------------

# The profile cases are one story on TEST_DEV, each after the one before
# it (from fmt on); ev_events reads the events evp_exp_ops caused.
mrc_case dev_get case_dev_get
mrc_case port_get case_port_get
mrc_case port_down case_port_down
mrc_case port_refusals case_port_refusals
mrc_case port_set case_port_set
mrc_case cap_net_admin case_cap_net_admin
mrc_case fmt case_fmt
mrc_case evp_exp case_evp_exp --after fmt
mrc_case evp_exp_ops case_evp_exp_ops --after evp_exp
mrc_case evp_gen case_evp_gen --after evp_exp_ops
mrc_case evp_udp case_evp_udp --after evp_gen
mrc_case evp_auto case_evp_auto --after evp_udp
mrc_case evp_srv6 case_evp_srv6 --after evp_auto
mrc_case cc case_cc --after evp_srv6
mrc_case cc_enospc case_cc_enospc --after cc
mrc_case defaults case_defaults --after cc_enospc
mrc_case qp_defaults case_qp_defaults --after defaults
mrc_case qp_bind case_qp_bind --after qp_defaults
mrc_case back_to_init case_back_to_init --after qp_bind
mrc_case dev_new_del case_dev_new_del
mrc_case ep_op case_ep_op
mrc_case ep_op_nobody case_ep_op_nobody
mrc_case ep_op_self case_ep_op_self
mrc_case ev_events case_ev_events --after evp_exp_ops
mrc_case after_delete case_after_delete
mrc_cases_args "$@"

mrc_test_init
[ -r "$SPEC" ] || fail "no spec $SPEC"
[ -r "$SERVE" ] || fail "no $SERVE"
command -v jq >/dev/null || fail "jq is needed"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is needed"

log "== YNL"
# The selftests' build extracts YNL on the host (make -C
# tools/testing/selftests/mrc); MRC_YNL_CLI names another copy.
YNL_CLI=${MRC_YNL_CLI:-$MRC_SELFTEST_BIN/ynl/tools/net/ynl/cli.py}
[ -r "$YNL_CLI" ] ||
	fail "no YNL CLI at $YNL_CLI: run make -C tools/testing/selftests/mrc"
YNL_DIR=$(dirname "$YNL_CLI")
log "ok: $YNL_CLI"

mrc_load
netdev_add_dummy "$TEST_NETDEV"
netdev_add_dummy "$TEST_NETDEV2"
netdev_add_dummy "$NEW_NETDEV"
addr_add "$TEST_NETDEV" "$TEST_IPV4/$TEST_IPV4_PLEN"
link_add "$TEST_DEV" "$TEST_NETDEV"
link_add "$SECOND_DEV" "$TEST_NETDEV2"
for dev in "$TEST_DEV" "$SECOND_DEV"; do
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
done
wait_until "GID of $TEST_IPV4 on $TEST_DEV" "$WAIT_TIMEOUT" \
	gid_present "$TEST_DEV" "$(gid_of_ipv4 "$TEST_IPV4")"
rdma dev show
rdma link show

DEV0=$(dev_get_reply "$TEST_DEV" "$TEST_NETDEV")
DEV1=$(dev_get_reply "$SECOND_DEV" "$TEST_NETDEV2")
INDEX0=$(rdma_dev_index "$TEST_DEV")
INDEX1=$(rdma_dev_index "$SECOND_DEV")
D0="\"dev-name\": \"$TEST_DEV\""

# The servers load while the CLI runs.  evmon only listens to group ev:
# YNL's do loop cannot take a notification in the middle of a request.
nl_start root
nl_start user setpriv --inh-caps=-all --bounding-set=-net_admin
nl_start evmon

# The CLI, while the servers load.
log "== YNL's CLI: dev-get dump, exactly our two devices"
bounded "$SERVE_TIMEOUT" ynl --dump dev-get ||
	fail "hung (>${SERVE_TIMEOUT}s): ynl --dump dev-get"
[ "$BOUNDED_RC" = 0 ] || { bounded_output; fail "ynl --dump dev-get: exit $BOUNDED_RC"; }
expected=$(printf '%s\n' "$DEV0" "$DEV1" | jq -cS -s 'sort_by(."dev-index")')
actual=$(jq -cS '[.[] | {"dev-name", "dev-index", "netdev-ifindex",
	"port-mask", "protocol-version"}] | sort_by(."dev-index")' \
	"$BOUNDED_OUT") || fail "YNL printed no JSON: $(cat "$BOUNDED_OUT")"
assert_eq "dev-get dump" "$expected" "$actual"
log "ok: dev-get dump: $actual"

wait_until "ynl_serve.py ready" "$SERVE_TIMEOUT" nl_ready root
wait_until "ynl_serve.py (no CAP_NET_ADMIN) ready" "$SERVE_TIMEOUT" \
	nl_ready user
wait_until "ynl_serve.py (group ev) ready" "$SERVE_TIMEOUT" nl_ready evmon
# Before any request: YNL binds its socket again to subscribe, which
# fails once a request has bound it.
nl_on evmon "join group ev" '"subscribe": "ev", "expect": {"reply": null}'
nl_on user "group ev without CAP_NET_ADMIN" \
	'"subscribe": "ev", "expect": {"errno": 0, "exception-has": "Operation not permitted"}'

PORT0=$(port_get_reply "$TEST_DEV" "$TEST_NETDEV" "$STATE_ACTIVE")
PORT1=$(port_get_reply "$SECOND_DEV" "$TEST_NETDEV2" "$STATE_ACTIVE")
mrc_cases_run
