#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcctl, the controller CLI (tools/mrc, Documentation/mrc/mrcctl.rst),
# against the kernel's "mrc" netlink family:
#  - help: the tool's and every object's, --help, -V; bad command lines
#    exit 2 without asking the kernel;
#  - every show with -j parsed (python3 json) and checked against what the
#    system says (rdma dev / rdma link / sysfs): device names and indexes,
#    port netdevs, states; -p pretty JSON is the same data; text output;
#  - refusals exit 1 with the kernel's extack message and errno name
#    (unknown device -> ENODEV, missing port -> ENOENT, port 0 -> ERANGE by
#    policy), and changes without CAP_NET_ADMIN -> EPERM (setpriv drops
#    every capability of a root process);
#  - the set commands: port admin state, device settings, multi-plane
#    dev add / del, the format / EV / CC profile life cycle with its EINVAL
#    / EBUSY / ENOENT / E2BIG rules, EV arrays (dump, query-array sized
#    right after E2BIG, E2BIG with the needed size), query / deny / allow /
#    replace, an EV event seen by `mrcctl monitor`, QPs, an EV probe that
#    times out.
#
# Each part runs when the kernel registers the commands it needs (the genl
# controller lists them); a part whose commands are not registered is
# a failure (MRC_MRCCTL_STRICT=0, for a kernel of an older tree, reports
# it as not run instead).

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

MRCCTL=${MRC_MRCCTL:-${MRC_BUILD:-$MRC_REPO/build}/tools/mrcctl}
STRICT=${MRC_MRCCTL_STRICT:-1}

SECOND_DEV=mrc1
MP_DEV=mrcmp0
MP_NETDEV_A=mrct2
MP_NETDEV_B=mrct3
MISSING_DEV=mrcnosuch0
MISSING_PORT=2
BAD_PORT=0
MISSING_PROFILE=4242
FMT_ID=13
FMT_UDP_ID=14
EVP_ID=21
EVP_EXP_ID=22
CC_ID=31
GEN_COUNT=32	# more than mrcctl's first query-array size (16)
GEN_SMALL_SIZE=4
SKIP_HOLD_US=2500
CC_ALGO=uet-1.0-nscc
# An address nobody answers on (TEST-NET-2): probes to it time out.
SILENT_GID=198.51.100.77
PROBE_TIMEOUT_NS=200000000
EXIT_REFUSED=1
EXIT_USAGE=2
NO_KERNEL_MSG="(no message from the kernel)"

# Command numbers (include/uapi/linux/mrc_netlink.h).
CMD_DEV_GET=1
CMD_DEV_SET=2
CMD_DEV_NEW=3
CMD_DEV_DEL=4
CMD_PORT_GET=5
CMD_PORT_SET=6
CMD_FMT_GET=7
CMD_FMT_SET=8
CMD_EVP_GET=9
CMD_EVP_SET=10
CMD_EV_GET=11
CMD_CC_GET=12
CMD_CC_SET=13
CMD_QP_GET=14
CMD_EP_OP=15

# --- running mrcctl -------------------------------------------------------------

# mrcctl_cmd ARG...: mrcctl with stderr apart, in $MRC_TMP/stderr.
# shellcheck disable=SC2317 # run through bounded
mrcctl_cmd() {
	"$MRCCTL" "$@" 2>"$MRC_TMP/stderr"
}

# Like mrcctl_cmd, without any capability (root's bounding set emptied).
# shellcheck disable=SC2317
mrcctl_unpriv() {
	setpriv --inh-caps=-all --bounding-set=-all -- "$MRCCTL" "$@" \
		2>"$MRC_TMP/stderr"
}

# Under TCG every exec costs up to a second or two: the checks below read
# files and match text with bash builtins only.

# slurp FILE: its whole text into $TEXT.
TEXT=
slurp() {
	TEXT=
	IFS= read -r -d '' TEXT <"$1" || true
}

# has FILE PATTERN: FILE's text matches the bash PATTERN (glob).
has() {
	slurp "$1"
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $TEXT == $2 ]]
}

stderr_text() {
	slurp "$MRC_TMP/stderr"
	printf '%s' "$TEXT"
}

# The first line of FILE.
first_line() {
	local line=
	IFS= read -r line <"$1" || true
	printf '%s\n' "$line"
}

# json_file FILE: a -j output, validated by python3's json in the json
# case (a list in a file: every case runs in a subshell of its own).
json_file() {
	printf '%s\n' "$1" >>"$MRC_TMP/json.files"
}

# mc ARG...: must succeed; stdout in $BOUNDED_OUT.
mc() {
	bounded "$CMD_TIMEOUT" mrcctl_cmd "$@" || fail "hung: mrcctl $*"
	if [ "$BOUNDED_RC" -ne 0 ]; then
		stderr_text
		fail "exit $BOUNDED_RC: mrcctl $*"
	fi
}

# mj ARG...: mrcctl -j ARG... must succeed and print valid JSON (python3);
# the JSON in $BOUNDED_OUT.
mj() {
	mc -j "$@"
	json_file "$BOUNDED_OUT"
}

# jqo FILTER: FILTER applied to the last JSON output, compact, keys sorted.
jqo() {
	jq -cS "$1" "$BOUNDED_OUT" || fail "jq $1 failed on: $(first_line "$BOUNDED_OUT")"
}

# refused_with RUNNER ENAME MSG ARG...: RUNNER (mrcctl_cmd or
# mrcctl_unpriv) ARG... must exit 1 with "(ENAME)" on stderr, the kernel's
# message MSG ("*": any message, "-": none expected) and nothing on stdout.
refused_with() {
	local runner=$1 ename=$2 msg=$3
	shift 3
	bounded "$CMD_TIMEOUT" "$runner" "$@" || fail "hung: mrcctl $*"
	if [ "$BOUNDED_RC" -ne "$EXIT_REFUSED" ]; then
		stderr_text
		fail "mrcctl $*: exit $BOUNDED_RC, expected $EXIT_REFUSED"
	fi
	slurp "$MRC_TMP/stderr"
	[[ $TEXT == *"($ename)"* ]] ||
		fail "mrcctl $*: no ($ename) in: $TEXT"
	case $msg in
	-) ;;
	\*)
		[[ $TEXT != *"$NO_KERNEL_MSG"* ]] ||
			fail "mrcctl $*: no extack message: $TEXT"
		;;
	*)
		[[ $TEXT == "Error: $msg: "* ]] ||
			fail "mrcctl $*: no message '$msg' in: $TEXT"
		;;
	esac
	[ ! -s "$BOUNDED_OUT" ] ||
		fail "mrcctl $*: printed on stdout: $(first_line "$BOUNDED_OUT")"
	log "ok: refused: mrcctl $*: ${TEXT%%$'\n'*}"
}

refused() {
	refused_with mrcctl_cmd "$@"
}

# usage_error ARG...: exit 2, a message on stderr, nothing on stdout.
usage_error() {
	bounded "$CMD_TIMEOUT" mrcctl_cmd "$@" || fail "hung: mrcctl $*"
	assert_eq "exit status of mrcctl $*" "$EXIT_USAGE" "$BOUNDED_RC"
	[ -s "$MRC_TMP/stderr" ] || fail "mrcctl $*: no message"
	[ ! -s "$BOUNDED_OUT" ] || fail "mrcctl $*: printed on stdout"
	log "ok: usage error: mrcctl $*: $(first_line "$MRC_TMP/stderr")"
}

# --- what the kernel serves ---------------------------------------------------------

SERVED=" "
MCGRPS=" "
# not_run PART: a part the kernel does not serve (a file, as json_file).
not_run() {
	printf '%s\n' "$1" >>"$MRC_TMP/not_run"
}

# The family's commands and multicast groups, from the genl controller.
read_family() {
	local line id in_cmds=0 in_grps=0
	run genl ctrl get name mrc
	while IFS= read -r line; do
		case $line in
		*"commands supported"*) in_cmds=1; in_grps=0 ;;
		*"multicast groups"*) in_cmds=0; in_grps=1 ;;
		*"#"*"ID-0x"*)
			if [ $in_cmds = 1 ]; then
				id=${line#*ID-0x}
				id=${id%% *}
				SERVED+="$((16#$id)) "
			elif [ $in_grps = 1 ] && [[ $line == *"name: "* ]]; then
				id=${line#*name: }
				MCGRPS+="${id%% *} "
			fi
			;;
		esac
	done <"$BOUNDED_OUT"
	log "commands the kernel registers:$SERVED; groups:$MCGRPS"
}

# part NAME CMD...: true (and a header) if every CMD is registered.
part() {
	local name=$1 cmd
	shift
	for cmd in "$@"; do
		if [[ $SERVED != *" $cmd "* ]]; then
			[ "$STRICT" = 1 ] &&
				fail "$name: command $cmd is not registered"
			log "-- $name: NOT RUN (command $cmd not registered)"
			not_run "$name"
			return 1
		fi
	done
	log "== $name"
	return 0
}

# mc_or_unsupported NAME ARG...: mrcctl ARG... must succeed (0), or the
# kernel refuses it as not supported yet (EOPNOTSUPP, 1: part NAME not run).
mc_or_unsupported() {
	local name=$1
	shift
	bounded "$CMD_TIMEOUT" mrcctl_cmd "$@" || fail "hung: mrcctl $*"
	[ "$BOUNDED_RC" -eq 0 ] && return 0
	if has "$MRC_TMP/stderr" "*(EOPNOTSUPP)*"; then
		[ "$STRICT" = 1 ] && fail "$name: $TEXT"
		log "-- $name: NOT RUN (the kernel: ${TEXT%%$'\n'*})"
		not_run "$name"
		return 1
	fi
	fail "exit $BOUNDED_RC: mrcctl $*: $(stderr_text)"
}

has_group() {
	if [[ $MCGRPS == *" $1 "* ]]; then
		return 0
	fi
	[ "$STRICT" = 1 ] && fail "no multicast group $1"
	log "-- monitor $1: NOT RUN (no multicast group $1)"
	not_run "monitor $1"
	return 1
}

# --- expected values ------------------------------------------------------------------

# dev_expect NAME NETDEV...: the device as dev show -j must print it.
dev_expect() {
	local name=$1 nd mask=0 port=1
	local -a names=() idx=()
	shift
	for nd in "$@"; do
		names+=("\"$nd\"")
		idx+=("$(netdev_ifindex "$nd")")
		mask=$((mask | (1 << port)))
		port=$((port + 1))
	done
	jq -cSn --arg name "$name" --argjson index "$(rdma_dev_index "$name")" \
		--argjson netdev "[$(IFS=,; echo "${names[*]}")]" \
		--argjson ifindex "[$(IFS=,; echo "${idx[*]}")]" \
		--argjson mask "$mask" \
		'{"dev-name": $name, "dev-index": $index, netdev: $netdev,
		  "netdev-ifindex": $ifindex, "port-mask": $mask,
		  "protocol-version": ["v1"]}'
}

DEV_SUMMARY='[.[] | {"dev-name", "dev-index", netdev, "netdev-ifindex",
	"port-mask", "protocol-version"}] | sort_by(."dev-index")'

# port_expect DEV PORT NETDEV ADMIN STATE
port_expect() {
	jq -cSn --arg dev "$1" --argjson index "$(rdma_dev_index "$1")" \
		--argjson port "$2" --arg ifname "$3" \
		--argjson ifindex "$(netdev_ifindex "$3")" \
		--arg admin "$4" --arg state "$5" \
		'{"dev-name": $dev, "dev-index": $index, "port-index": $port,
		  ifname: $ifname, ifindex: $ifindex, "admin-state": $admin,
		  state: $state}'
}

PORT_SUMMARY='sort_by(."dev-index", ."port-index")'

# assert_json WHAT FILTER EXPECTED_OBJECT...: FILTER of the last output is
# the list of the expected objects (sorted the same way).
assert_json() {
	local what=$1 filter=$2 expected
	shift 2
	if [ $# -eq 0 ]; then
		expected=$(jq -cSn "[] | $filter")
	else
		expected=$(printf '%s\n' "$@" | jq -cSs "$filter")
	fi
	assert_eq "$what" "$expected" "$(jqo "$filter")"
	log "ok: $what"
}

# assert_js WHAT EXPECTED ACTUAL: the same JSON (EXPECTED's keys need not
# be sorted; ACTUAL comes from jqo, sorted).
assert_js() {
	assert_eq "$1" "$(jq -cS . <<<"$2")" "$3"
}

# The value of KEY of the first object of the last output.
first() {
	jq -r ".[0].\"$1\"" "$BOUNDED_OUT"
}

# --- help and command lines ----------------------------------------------------------------

# help of the tool and of every object, -V
case_help() {
	mc help
	OBJECTS=(dev port fmt evp ev cc qp ep monitor)
	has "$BOUNDED_OUT" "Usage: mrcctl *" || fail "mrcctl help: $TEXT"
	for obj in "${OBJECTS[@]}"; do
		[[ $TEXT == *$'\n'"  $obj "* ]] || fail "mrcctl help does not list $obj"
	done
	mc --help
	has "$BOUNDED_OUT" "Usage: mrcctl *" || fail "mrcctl --help: $TEXT"
	for obj in "${OBJECTS[@]}"; do
		mc "$obj" help
		has "$BOUNDED_OUT" "Usage: mrcctl $obj *" || fail "mrcctl $obj help: $TEXT"
	done
	mc help evp
	has "$BOUNDED_OUT" "Usage: mrcctl evp *" || fail "mrcctl help evp: $TEXT"
	mc -V
	has "$BOUNDED_OUT" "mrcctl [0-9]*" || fail "mrcctl -V: $TEXT"
	log "ok: help of the tool and of every object, -V"
}

# bad command lines: exit EXIT_USAGE
case_usage() {
	usage_error
	usage_error frob
	usage_error --frob dev show
	usage_error dev frob
	usage_error port set "$TEST_DEV" admin down
	usage_error port set "$TEST_DEV/1" admin sideways
	usage_error fmt set "$TEST_DEV" state offline
	usage_error evp set "$TEST_DEV" id 1 mode sideways
	usage_error ev deny "$TEST_DEV" id 1 ev 0xzz port 1
	usage_error dev add "$MP_DEV" netdev nosuchnetdev0
	usage_error ep port-status "$TEST_DEV" sgid "$TEST_IPV4" dgid "$SILENT_GID" \
		port 1 ev 0xc000
	usage_error ep probe "$TEST_DEV" sgid "$TEST_IPV4" port 1 ev 0xc000
}

# --- dev show ---------------------------------------------------------------------------------

case_dev_show() {
	part "dev show" "$CMD_DEV_GET"
	mj dev show
	assert_json "dev show -j: our two devices" "$DEV_SUMMARY" "$DEV0" "$DEV1"
	assert_eq "default profiles of $TEST_DEV" "0 0" \
		"$(jq -r '.[0] | "\(."default-ev-profile") \(."default-cc-profile")"' \
			"$BOUNDED_OUT")"
	mj dev show "$SECOND_DEV"
	assert_json "dev show -j $SECOND_DEV" "$DEV_SUMMARY" "$DEV1"
	mj -p dev show "$TEST_DEV"
	assert_json "dev show -j -p $TEST_DEV" "$DEV_SUMMARY" "$DEV0"
	has "$BOUNDED_OUT" "*"$'\n'"*"$'\n'"*"$'\n'"*" || fail "-p printed one line"
	mj dev show "$(rdma_dev_index "$TEST_DEV")"
	assert_json "dev show -j by index" "$DEV_SUMMARY" "$DEV0"
	mc dev show "$TEST_DEV"
	has "$BOUNDED_OUT" "$TEST_DEV: *netdev $TEST_NETDEV*" ||
		fail "dev show text: $TEXT"
	refused ENODEV "no such MRC device" dev show "$MISSING_DEV"
	refused ENODEV "no such MRC device" -j dev show "$MISSING_DEV"
}

# --- port show --------------------------------------------------------------------------------

case_port_show() {
	part "port show" "$CMD_PORT_GET"
	mj port show
	assert_json "port show -j" "$PORT_SUMMARY" "$PORT0" "$PORT1"
	mj port show "$SECOND_DEV"
	assert_json "port show -j $SECOND_DEV" "$PORT_SUMMARY" "$PORT1"
	mj port show "$TEST_DEV/1"
	assert_json "port show -j $TEST_DEV/1" "$PORT_SUMMARY" "$PORT0"
	mc port show "$TEST_DEV/1"
	has "$BOUNDED_OUT" "$TEST_DEV/1: ifname $TEST_NETDEV *state active"$'\n' ||
		fail "port show text: $TEXT"

	run ip link set dev "$TEST_NETDEV2" down
	wait_until "port of $SECOND_DEV DOWN" "$WAIT_TIMEOUT" \
		port_state_is "$SECOND_DEV" "$PORT_STATE_DOWN"
	mj port show "$SECOND_DEV/1"
	assert_json "port show -j with the netdev down" "$PORT_SUMMARY" \
		"$(port_expect "$SECOND_DEV" 1 "$TEST_NETDEV2" enabled down)"
	run ip link set dev "$TEST_NETDEV2" up
	wait_until "port of $SECOND_DEV ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$SECOND_DEV" "$PORT_STATE_ACTIVE"

	refused ENOENT "the device has no such port" port show "$TEST_DEV/$MISSING_PORT"
	refused ERANGE "*" port show "$TEST_DEV/$BAD_PORT"
	refused ENODEV "no such MRC device" port show "$MISSING_DEV"
}

# --- port set -----------------------------------------------------------------------------------

case_port_set() {
	if part "port set" "$CMD_PORT_SET"; then
		refused_with mrcctl_unpriv EPERM - port set "$TEST_DEV/1" admin down
		mj port show "$TEST_DEV/1"
		assert_json "port unchanged by the refused set" "$PORT_SUMMARY" "$PORT0"
		if mc_or_unsupported "port set admin" \
			port set "$TEST_DEV/1" admin down; then
			wait_until "admin-down port of $TEST_DEV DOWN" "$WAIT_TIMEOUT" \
				port_state_is "$TEST_DEV" "$PORT_STATE_DOWN"
			mj port show "$TEST_DEV/1"
			assert_json "port show -j admin down" "$PORT_SUMMARY" \
				"$(port_expect "$TEST_DEV" 1 "$TEST_NETDEV" disabled down)"
			mc port set "$TEST_DEV/1" admin up
			wait_until "admin-up port of $TEST_DEV ACTIVE" "$WAIT_TIMEOUT" \
				port_state_is "$TEST_DEV" "$PORT_STATE_ACTIVE"
			mj port show "$TEST_DEV/1"
			assert_json "port show -j admin up" "$PORT_SUMMARY" "$PORT0"
			refused ENOENT "*" port set "$TEST_DEV/$MISSING_PORT" admin down
			refused ENODEV "no such MRC device" \
				port set "$MISSING_DEV/1" admin down
		fi
	fi
}

# --- dev set ---------------------------------------------------------------------------------------

case_dev_set() {
	if part "dev set" "$CMD_DEV_SET"; then
		refused_with mrcctl_unpriv EPERM - dev set "$TEST_DEV" \
			skip-hold-us "$SKIP_HOLD_US"
		mc dev set "$TEST_DEV" skip-hold-us "$SKIP_HOLD_US"
		mj dev show "$TEST_DEV"
		assert_eq "ev-skip-hold-us after dev set" "$SKIP_HOLD_US" \
			"$(first ev-skip-hold-us)"
		# A profile in INIT cannot be a default (ENOENT or EINVAL: the
		# guide names both; either way with the kernel's message).
		bounded "$CMD_TIMEOUT" mrcctl_cmd dev set "$TEST_DEV" \
			default-ev-profile "$MISSING_PROFILE"
		assert_eq "exit of dev set default-ev-profile $MISSING_PROFILE" \
			"$EXIT_REFUSED" "$BOUNDED_RC"
		has "$MRC_TMP/stderr" "*(ENOENT)*" ||
			has "$MRC_TMP/stderr" "*(EINVAL)*" ||
			fail "default to a missing profile: $TEXT"
		[[ $TEXT != *"$NO_KERNEL_MSG"* ]] || fail "no extack message: $TEXT"
		mj dev show "$TEST_DEV"
		assert_eq "default-ev-profile unchanged" 0 "$(first default-ev-profile)"
		refused ENODEV "no such MRC device" dev set "$MISSING_DEV" \
			skip-hold-us "$SKIP_HOLD_US"
	fi
}

# --- dev add / del (multi-plane) ----------------------------------------------------------------

case_dev_add_del() {
	if part "dev add / del" "$CMD_DEV_NEW" "$CMD_DEV_DEL"; then
		netdev_add_dummy "$MP_NETDEV_A"
		netdev_add_dummy "$MP_NETDEV_B"
		refused_with mrcctl_unpriv EPERM - dev add "$MP_DEV" \
			netdev "$MP_NETDEV_A" netdev "$MP_NETDEV_B"
		refused EINVAL "*" dev add "$MP_DEV" netdev "$MP_NETDEV_A" \
			netdev "$MP_NETDEV_A"
		refused EEXIST "*" dev add "$MP_DEV" netdev "$TEST_NETDEV"
		# One plane first, then two.
		mj dev add "$MP_DEV" netdev "$MP_NETDEV_A"
		cleanup_push link_del_quiet "$MP_DEV"
		assert_eq "dev add -j names the device" "$MP_DEV" "$(first dev-name)"
		link_exists "$MP_DEV" || fail "no /sys/class/infiniband/$MP_DEV"
		assert_eq "dev add -j index" "$(rdma_dev_index "$MP_DEV")" \
			"$(first dev-index)"
		mj dev show "$MP_DEV"
		assert_json "dev show -j of a device made by dev add" "$DEV_SUMMARY" \
			"$(dev_expect "$MP_DEV" "$MP_NETDEV_A")"
		refused_with mrcctl_unpriv EPERM - dev del "$MP_DEV"
		mc dev del "$MP_DEV"
		link_absent "$MP_DEV" || fail "$MP_DEV still there after dev del"
		refused ENODEV "*" dev del "$MP_DEV"
		if mc_or_unsupported "dev add (2 planes)" -j dev add "$MP_DEV" \
			netdev "$MP_NETDEV_A" netdev "$MP_NETDEV_B"; then
			json_file "$BOUNDED_OUT"
			assert_eq "dev add -j names the device" "$MP_DEV" \
				"$(first dev-name)"
			mj dev show "$MP_DEV"
			assert_json "dev show -j of a 2-plane device" "$DEV_SUMMARY" \
				"$(dev_expect "$MP_DEV" "$MP_NETDEV_A" "$MP_NETDEV_B")"
			mj port show "$MP_DEV"
			assert_eq "ports of $MP_DEV and their netdevs" \
				"1 $MP_NETDEV_A,2 $MP_NETDEV_B" \
				"$(jq -r '[sort_by(."port-index")[] |
					"\(."port-index") \(.ifname)"] | join(",")' \
					"$BOUNDED_OUT")"
			mc dev del "$MP_DEV"
			link_absent "$MP_DEV" || fail "$MP_DEV still there after dev del"
		fi
		mj dev show
		assert_json "dev show -j after dev del" "$DEV_SUMMARY" "$DEV0" "$DEV1"
	fi
}

# --- EV format profiles ----------------------------------------------------------------------------

case_fmt() {
	if part "fmt life cycle" "$CMD_FMT_GET" "$CMD_FMT_SET"; then
		mj fmt show
		assert_eq "fmt show -j with no profile" "[]" "$(jqo '.')"
		refused ENOENT "*" fmt show "$TEST_DEV" id "$FMT_ID"
		refused_with mrcctl_unpriv EPERM - fmt set "$TEST_DEV" id "$FMT_ID" \
			state offline mode stev
		refused EINVAL "*" fmt set "$TEST_DEV" id "$FMT_ID" state online \
			mode stev field 16 field 16
		mc fmt set "$TEST_DEV" id "$FMT_ID" state offline mode stev
		mj fmt show "$TEST_DEV" id "$FMT_ID"
		assert_js "fmt offline" '{"id":13,"mode":"stev","state":"offline"}' \
			"$(jqo ".[0] | {id, mode, state}")"
		mc fmt set "$TEST_DEV" id "$FMT_ID" field 16 field 16
		mc fmt set "$TEST_DEV" id "$FMT_ID" cur-state offline state online
		mj fmt show "$TEST_DEV" id "$FMT_ID"
		assert_js "fmt online" \
			'{"field":[{"width":16},{"width":16}],"id":13,"mode":"stev","state":"online","width":32}' \
			"$(jqo ".[0] | {id, mode, state, width, field}")"
		mj fmt show "$TEST_DEV"
		assert_eq "fmt dump of $TEST_DEV" "[$FMT_ID]" "$(jqo '[.[].id]')"
		mj fmt show "$SECOND_DEV"
		assert_eq "fmt dump of $SECOND_DEV" "[]" "$(jqo '[.[].id]')"
		refused EINVAL "*" fmt set "$TEST_DEV" id "$FMT_ID" mode udp
		refused EINVAL "*" fmt set "$TEST_DEV" id "$FMT_ID" state init
		refused EINVAL "*" fmt set "$TEST_DEV" id "$FMT_ID" cur-state offline \
			state online
		# UDP: 16 bits at most.
		refused E2BIG "*" fmt set "$TEST_DEV" id "$FMT_UDP_ID" state offline \
			mode udp field 16 field 8
		refused ENOENT "*" fmt show "$TEST_DEV" id "$FMT_UDP_ID"
		mc fmt set "$TEST_DEV" id "$FMT_UDP_ID" state offline mode udp field 16
		mc fmt set "$TEST_DEV" id "$FMT_UDP_ID" state init
		refused ENOENT "*" fmt show "$TEST_DEV" id "$FMT_UDP_ID"
	fi
}

# --- EV profiles and their EVs -------------------------------------------------------------------

# ev_values: the EV values of the last output (a list of EVs), trailing
# zero bytes dropped (a value is a bit string padded with zeros), sorted.
EV_VALUES='[.[].value | sub("(00)+$"; "")] | sort'

# evp_part NAME: part NAME, needing the commands of the EV profile cases.
evp_part() {
	part "$1" "$CMD_FMT_GET" "$CMD_FMT_SET" "$CMD_EVP_GET" "$CMD_EVP_SET" \
		"$CMD_EV_GET"
}

# A generated profile: OFFLINE, then ONLINE once it has what that needs.
case_evp() {
	evp_part "evp life cycle" || return 0
	# Generated: field 1 = 0xc000 + 0..31 in its low 5 bits (the UDP
	# source ports 0xc000-0xc01f), field 2 = 0.
	GEN=(mode gen fmt "$FMT_ID" count "$GEN_COUNT"
		field width 16 init 0xc000 min 0 max 31 mask 0x1f
		field width 16 init 0 mask 0)
	refused_with mrcctl_unpriv EPERM - evp set "$TEST_DEV" id "$EVP_ID" \
		state offline "${GEN[@]}"
	mc evp set "$TEST_DEV" id "$EVP_ID" state offline "${GEN[@]}"
	mj evp show "$TEST_DEV" id "$EVP_ID"
	assert_js "evp offline" \
		"{\"ev-count\":$GEN_COUNT,\"fmt-profile-id\":$FMT_ID,\"id\":$EVP_ID,\"mode\":\"gen\",\"state\":\"offline\"}" \
		"$(jqo '.[0] | {id, state, mode, "fmt-profile-id", "ev-count"}')"
	assert_js "evp fields" \
		'[{"init-val":49152,"mask":31,"width":16},{"init-val":0,"mask":0,"width":16}]' \
		"$(jqo '.[0].field | map({width, "init-val", mask})')"
	# Going ONLINE needs ev-min-active and event-mask.
	refused EINVAL "*" evp set "$TEST_DEV" id "$EVP_ID" state online
	refused EINVAL "*" evp set "$TEST_DEV" id "$EVP_ID" \
		min-active $((GEN_COUNT + 1))
	mc evp set "$TEST_DEV" id "$EVP_ID" min-active 2 \
		event-mask good,denied state online
	mj evp show "$TEST_DEV"
	assert_js "evp dump" \
		"[{\"event-mask\":[\"good\",\"denied\"],\"ev-min-active\":2,\"id\":$EVP_ID,\"state\":\"online\"}]" \
		"$(jqo '[.[] | {id, state, "ev-min-active", "event-mask"}]')"
}

# The EV array: dump, query-array, E2BIG with the needed size.
case_ev_array() {
	evp_part "the EV array" || return 0
	mj ev show "$TEST_DEV" id "$EVP_ID"
	assert_eq "EVs in the dump" "$GEN_COUNT" "$(jqo 'length')"
	assert_js "EV slots, ports, states" \
		"$(jq -cn "[range($GEN_COUNT) | {index: ., port: 1, state: \"good\"}]")" \
		"$(jqo 'sort_by(.index) | map({index, port, state})')"
	# An EV of a generated profile holds the bits of the fields' masks,
	# from bit 7 of byte 0 on: 5 bits here, so 0x00, 0x08, ... 0xf8
	# (compared without trailing zero bytes: 0x00 is "0x").
	EXPECT_VALUES=
	for ((i = 0; i < GEN_COUNT; i++)); do
		printf -v v '"0x%02x"' $((i << 3))
		EXPECT_VALUES+="${EXPECT_VALUES:+,}${v/0x00/0x}"
	done
	EXPECT_VALUES=$(jq -c 'sort' <<<"[$EXPECT_VALUES]")
	assert_eq "generated EV values" "$EXPECT_VALUES" "$(jqo "$EV_VALUES")"
	EV0=$(jq -r 'sort_by(.index) | .[0].value' "$BOUNDED_OUT")
	EV1=$(jq -r 'sort_by(.index) | .[1].value' "$BOUNDED_OUT")
	DUMP=$(jqo 'sort_by(.index)')
	# mrcctl asks for 16 first, then again with the size E2BIG names.
	mj ev show "$TEST_DEV" id "$EVP_ID" array
	assert_eq "query-array (sized by mrcctl) = the dump" "$DUMP" \
		"$(jqo 'sort_by(.index)')"
	mj ev show "$TEST_DEV" id "$EVP_ID" array size "$GEN_COUNT"
	assert_eq "query-array size $GEN_COUNT = the dump" "$DUMP" \
		"$(jqo 'sort_by(.index)')"
	refused E2BIG "*" ev show "$TEST_DEV" id "$EVP_ID" array \
		size "$GEN_SMALL_SIZE"
	has "$MRC_TMP/stderr" "*"$'\n'"needed size: $GEN_COUNT"$'\n'"*" ||
		fail "E2BIG without the needed size $GEN_COUNT: $TEXT"
}

# monitor_ev_start: `mrcctl -j monitor ev count 1` in the background, once
# it has subscribed (MONITOR=1), if the family has the ev group.
monitor_ev_start() {
	MONITOR=0
	has_group ev || return 0
	MONITOR=1
	refused_with mrcctl_unpriv EPERM - monitor ev count 1
	bg_start monitor sh -c "exec '$MRCCTL' -j monitor ev count 1 \
		>'$MRC_TMP/monitor.json' 2>'$MRC_TMP/monitor.err'"
	wait_until "monitor subscribed" "$WAIT_TIMEOUT" \
		file_has_line "$MRC_TMP/monitor.err" "mrcctl: monitoring ev"
}

# monitor_ev_deny T0 T1: the monitor printed the controller's deny of EV0,
# with the kernel's time of the change between T0 and T1 (ns).
monitor_ev_deny() {
	[ "$MONITOR" = 1 ] || return 0
	if ! bg_wait monitor "$WAIT_TIMEOUT"; then
		# netlink.rst: a controller's change sends an event too
		# (without qpn).
		[ "$STRICT" = 1 ] && fail "no EV event for the deny"
		log "-- monitor ev: NOT RUN (no ev-event for a controller deny)"
		not_run "monitor ev: event of a controller deny"
		bg_kill monitor
		return 0
	fi
	assert_eq "monitor exit" 0 "$(bg_rc monitor)"
	json_file "$MRC_TMP/monitor.json"
	assert_eq "the EV event" \
		"$(jq -cSn --arg v "$EV0" --arg dev "$TEST_DEV" \
			"{event: \"ev-event\", \"dev-name\": \$dev,
			  \"profile-id\": $EVP_ID, value: \$v, port: 1,
			  state: \"denied\", \"prev-state\": \"good\",
			  reason: \"controller\"}")" \
		"$(jq -cS '{event, "dev-name", "profile-id", value, port,
			state, "prev-state", reason}' "$MRC_TMP/monitor.json")"
	assert_eq "the event's timestamp is within the deny command" true \
		"$(jq --argjson a "$1" --argjson b "$2" \
			'.timestamp >= $a and .timestamp <= $b' "$MRC_TMP/monitor.json")"
	log "ok: monitor -j printed the deny"
}

# Query, deny, allow; the EV event on the monitor.
case_ev_deny() {
	local t0 t1
	evp_part "query, deny, allow" || return 0
	mj ev query "$TEST_DEV" id "$EVP_ID" ev "$EV0" port 1 ev "$EV1" port 1
	assert_eq "query-state" '["good","good"]' "$(jqo '[.[].state]')"
	refused_with mrcctl_unpriv EPERM - ev deny "$TEST_DEV" id "$EVP_ID" \
		ev "$EV0" port 1
	monitor_ev_start
	t0=$(date +%s%N)
	mc ev deny "$TEST_DEV" id "$EVP_ID" ev "$EV0" port 1
	t1=$(date +%s%N)
	mj ev query "$TEST_DEV" id "$EVP_ID" ev "$EV0" port 1 ev "$EV1" port 1
	assert_eq "query-state after deny" '["denied","good"]' \
		"$(jqo '[.[].state]')"
	mj evp show "$TEST_DEV" id "$EVP_ID"
	assert_eq "ev-usable after deny" $((GEN_COUNT - 1)) "$(first ev-usable)"
	monitor_ev_deny "$t0" "$t1"
	mc ev allow "$TEST_DEV" id "$EVP_ID" ev "$EV0" port 1
	mj ev query "$TEST_DEV" id "$EVP_ID" ev "$EV0" port 1
	assert_eq "query-state after allow" '["good"]' "$(jqo '[.[].state]')"
	# An EV the profile does not have.
	refused ENOENT "*" ev query "$TEST_DEV" id "$EVP_ID" ev 0xdead port 1
}

# EBUSY: a default profile, a used format.
case_evp_busy() {
	evp_part "EBUSY: a default profile, a used format" || return 0
	if [[ $SERVED == *" $CMD_DEV_SET "* ]]; then
		mc dev set "$TEST_DEV" default-ev-profile "$EVP_ID"
		mj dev show "$TEST_DEV"
		assert_eq "default-ev-profile" "$EVP_ID" "$(first default-ev-profile)"
		refused EBUSY "*" evp set "$TEST_DEV" id "$EVP_ID" state offline
		mc dev set "$TEST_DEV" default-ev-profile 0
	fi
	refused EBUSY "*" fmt set "$TEST_DEV" id "$FMT_ID" state offline
	mc evp set "$TEST_DEV" id "$EVP_ID" state offline
	# An OFFLINE EV profile still holds its format out of INIT.
	mc fmt set "$TEST_DEV" id "$FMT_ID" cur-state online state offline
	refused EBUSY "*" fmt set "$TEST_DEV" id "$FMT_ID" state init
	mc fmt set "$TEST_DEV" id "$FMT_ID" state online
	refused EINVAL "*" evp set "$TEST_DEV" id "$EVP_ID" state online \
		cur-state online
}

# An explicit profile: REPLACE into unpopulated slots, then by value.
case_evp_exp() {
	evp_part "explicit profile" || return 0
	mc evp set "$TEST_DEV" id "$EVP_EXP_ID" state offline mode exp \
		fmt "$FMT_ID" count 2
	mj ev show "$TEST_DEV" id "$EVP_EXP_ID"
	assert_js "unpopulated slots" '[{"port":0,"value":""},{"port":0,"value":""}]' \
		"$(jqo 'sort_by(.index) |
			map({port, value: (.value // "0x0" | sub("^0x0*"; ""))})')"
	refused EINVAL "*" evp set "$TEST_DEV" id "$EVP_EXP_ID" min-active 1 \
		event-mask none state online
	mc ev replace "$TEST_DEV" id "$EVP_EXP_ID" \
		index 0 new 0xc1000000 new-port 1 state good \
		index 1 new 0xc1010000 new-port 1 state denied
	mj ev show "$TEST_DEV" id "$EVP_EXP_ID" array
	assert_js "replaced slots" \
		'[{"port":1,"state":"good","value":"0xc1"},{"port":1,"state":"denied","value":"0xc101"}]' \
		"$(jqo 'sort_by(.index) | map({port, state, value: (.value | sub("(00)+$"; ""))})')"
	mc evp set "$TEST_DEV" id "$EVP_EXP_ID" min-active 1 event-mask none \
		state online
	refused EINVAL "*" ev replace "$TEST_DEV" id "$EVP_EXP_ID" \
		ev 0xc1000000 port 1 new 0xc1020000 new-port 1
	mc ev replace "$TEST_DEV" id "$EVP_EXP_ID" ev 0xc1000000 port 1 \
		new 0xc1020000 new-port 1 state good
	mj ev query "$TEST_DEV" id "$EVP_EXP_ID" ev 0xc1020000 port 1
	assert_eq "the replacement EV" '["good"]' "$(jqo '[.[].state]')"
	refused ENOENT "*" ev query "$TEST_DEV" id "$EVP_EXP_ID" \
		ev 0xc1000000 port 1
}

# Back to INIT: the profiles and the format are gone.
case_evp_init() {
	evp_part "back to INIT" || return 0
	mc evp set "$TEST_DEV" id "$EVP_EXP_ID" state offline
	mc evp set "$TEST_DEV" id "$EVP_EXP_ID" state init
	mc evp set "$TEST_DEV" id "$EVP_ID" state init
	refused ENOENT "*" evp show "$TEST_DEV" id "$EVP_ID"
	mj evp show
	assert_eq "evp dump after INIT" "[]" "$(jqo '.')"
	mc fmt set "$TEST_DEV" id "$FMT_ID" state offline
	mc fmt set "$TEST_DEV" id "$FMT_ID" state init
	mj fmt show
	assert_eq "fmt dump after INIT" "[]" "$(jqo '.')"
}

# --- CC profiles ---------------------------------------------------------------------------------

NSCC=(disable-qa 0 adjust-bytes-threshold 32768 adjust-period-threshold 20000
	base-rtt 10000 eta 4096 "fi" 8192 fi-scale 250000 gamma 800000
	max-md-jump 500000 max-cwnd 1048576 qa-gate 3 qa-threshold 40000
	target-delay 20000)

case_cc() {
	if part "cc life cycle" "$CMD_CC_GET" "$CMD_CC_SET"; then
		refused_with mrcctl_unpriv EPERM - cc set "$TEST_DEV" id "$CC_ID" \
			state offline algorithm "$CC_ALGO"
		refused EINVAL "*" cc set "$TEST_DEV" id "$CC_ID" state offline \
			algorithm no-such-algorithm
		mc cc set "$TEST_DEV" id "$CC_ID" state offline algorithm "$CC_ALGO"
		# The first nscc nest must hold all thirteen.
		refused EINVAL "*" cc set "$TEST_DEV" id "$CC_ID" base-rtt 10000
		refused EINVAL "*" cc set "$TEST_DEV" id "$CC_ID" state online
		mc cc set "$TEST_DEV" id "$CC_ID" "${NSCC[@]}"
		# target-delay at most qa-threshold.
		refused EINVAL "*" cc set "$TEST_DEV" id "$CC_ID" target-delay 50000
		mc cc set "$TEST_DEV" id "$CC_ID" state online
		mj cc show "$TEST_DEV" id "$CC_ID"
		EXPECT_NSCC=$(printf '%s\n' "${NSCC[@]}" | jq -cSRn \
			'[inputs] | [range(0; length; 2) as $i |
			 {key: .[$i], value: (.[$i + 1] | tonumber)}] | from_entries')
		assert_js "cc profile" \
			"{\"algorithm\":\"$CC_ALGO\",\"id\":$CC_ID,\"nscc\":$EXPECT_NSCC,\"state\":\"online\"}" \
			"$(jqo '.[0] | {id, state, algorithm, nscc}')"
		mj cc show
		assert_eq "cc dump" "[$CC_ID]" "$(jqo '[.[].id]')"
		mc cc set "$TEST_DEV" id "$CC_ID" base-rtt 12000
		mj cc show "$TEST_DEV" id "$CC_ID"
		assert_eq "nscc base-rtt changed online" 12000 \
			"$(jqo '.[0].nscc."base-rtt"')"
		refused EINVAL "*" cc set "$TEST_DEV" id "$CC_ID" state init
		mc cc set "$TEST_DEV" id "$CC_ID" state offline
		mc cc set "$TEST_DEV" id "$CC_ID" state init
		refused ENOENT "*" cc show "$TEST_DEV" id "$CC_ID"
	fi
}

# --- QPs ----------------------------------------------------------------------------------------------

case_qp() {
	if part "qp show" "$CMD_QP_GET"; then
		mj qp show
		assert_eq "qp show -j with no QP" "[]" "$(jqo '.')"
		mj qp show "$TEST_DEV"
		assert_eq "qp show -j $TEST_DEV with no QP" "[]" "$(jqo '.')"
		refused ENODEV "no such MRC device" qp show "$MISSING_DEV"
	fi
}

# --- endpoint operations ---------------------------------------------------------------------------

case_ep() {
	if part "ep probe" "$CMD_EP_OP"; then
		addr_add "$TEST_NETDEV" "$TEST_IPV4/$TEST_IPV4_PLEN"
		wait_until "GID of $TEST_IPV4 on $TEST_DEV" "$WAIT_TIMEOUT" \
			gid_present "$TEST_DEV" "$(gid_of_ipv4 "$TEST_IPV4")"
		# The silent peer is reached through the dummy, which drops it all.
		run ip route add "$SILENT_GID/32" dev "$TEST_NETDEV"
		PROBE=(timeout "$PROBE_TIMEOUT_NS" sgid "$TEST_IPV4" dgid "$SILENT_GID"
			port 1 ev 0xc000)
		refused_with mrcctl_unpriv EPERM - ep probe "$TEST_DEV" "${PROBE[@]}"
		if mc_or_unsupported "ep probe" -j ep probe "$TEST_DEV" "${PROBE[@]}" \
			req ev 0xc001; then
			json_file "$BOUNDED_OUT"
			assert_js "two probes to a silent GID time out" \
				'[{"req-id":1,"timed-out":true},{"req-id":2,"timed-out":true}]' \
				"$(jqo 'sort_by(."req-id") | map({"req-id", "timed-out"})')"
			# A source GID the device does not have; a duplicate req-id.
			refused EINVAL "*" ep probe "$TEST_DEV" timeout "$PROBE_TIMEOUT_NS" \
				sgid "$TEST_IPV4_2" dgid "$SILENT_GID" port 1 ev 0xc000
			refused EINVAL "*" ep probe "$TEST_DEV" "${PROBE[@]}" id 7 req id 7
			# A Port Status Update (our port 1 down) to the silent peer.
			mj ep port-status "$TEST_DEV" "${PROBE[@]}" status 0x2
			assert_js "a Port Status Update to a silent GID times out" \
				'[{"req-id":1,"timed-out":true}]' \
				"$(jqo 'map({"req-id", "timed-out"})')"
		fi
	fi
}

# --- after deletion -----------------------------------------------------------------------------------

# after rdma link delete SECOND_DEV
case_after_delete() {
	link_del "$SECOND_DEV"
	mj dev show
	assert_json "dev show -j after delete" "$DEV_SUMMARY" "$DEV0"
	mj port show
	assert_json "port show -j after delete" "$PORT_SUMMARY" "$PORT0"
}

# --- the -j outputs -------------------------------------------------------------------------------

# Every -j output of the cases before is JSON to python3 (if none ran,
# this case's own).
case_json() {
	local -a files=()
	[ ! -s "$MRC_TMP/json.files" ] || mapfile -t files <"$MRC_TMP/json.files"
	if [ ${#files[@]} -eq 0 ]; then
		mj dev show
		mj port show
		mapfile -t files <"$MRC_TMP/json.files"
	fi
	log "    ${#files[@]} outputs"
	run python3 -c '
import json, sys
for name in sys.argv[1:]:
    with open(name) as f:
        text = f.read()
    try:
        # monitor -j: one object per line; the others: one document.
        if name.endswith("monitor.json"):
            for line in text.splitlines():
                json.loads(line)
        else:
            json.loads(text)
    except ValueError as e:
        sys.exit(f"{name}: {e}: {text[:200]!r}")
	' "${files[@]}"
	log "ok: all parsed"
}

# --- abbreviations ---------------------------------------------------------------------------

# Objects and commands by unique prefix; an exact name wins; a prefix of
# several is a usage error naming them.
case_abbrev() {
	local full
	part "abbreviations" "$CMD_DEV_GET" "$CMD_PORT_GET" "$CMD_EVP_GET"
	mj dev sh "$TEST_DEV"
	assert_json "dev sh = dev show" "$DEV_SUMMARY" "$DEV0"
	mj dev list
	full=$(jqo .)
	mj d l
	assert_eq "d l = dev list" "$full" "$(jqo .)"
	mj po sh "$TEST_DEV/1"
	assert_json "po sh = port show" "$PORT_SUMMARY" "$PORT0"
	mj evp show "$TEST_DEV"
	full=$(jqo .)
	mj ev-p sh "$TEST_DEV"
	assert_eq "ev-p sh = evp show" "$full" "$(jqo .)"
	refused ENODEV "no such MRC device" dev sh "$MISSING_DEV"
	mc help ev-p
	has "$BOUNDED_OUT" "Usage: mrcctl evp *" || fail "mrcctl help ev-p: $TEXT"
	# "ev" is a name: it wins over evp, ev-fmt-profile and ev-profile.
	mc ev
	has "$BOUNDED_OUT" "Usage: mrcctl ev show *" || fail "mrcctl ev: $TEXT"
	usage_error dev s
	has "$MRC_TMP/stderr" 'mrcctl: ambiguous dev command "s": show, set (try "mrcctl dev help")'$'\n' ||
		fail "mrcctl dev s: $TEXT"
	usage_error ep p "$TEST_DEV"
	has "$MRC_TMP/stderr" 'mrcctl: ambiguous ep command "p": probe, port-status *' ||
		fail "mrcctl ep p: $TEXT"
	usage_error e show
	has "$MRC_TMP/stderr" 'mrcctl: ambiguous object "e": ev-fmt-profile, evp, ev, ep *' ||
		fail "mrcctl e: $TEXT"
	usage_error help ev-
	has "$MRC_TMP/stderr" 'mrcctl: ambiguous object "ev-": ev-fmt-profile, ev-profile *' ||
		fail "mrcctl help ev-: $TEXT"
	log "ok: unique prefixes, exact names first, ambiguity names the candidates"
}

# --- main ------------------------------------------------------------------------------------

# The cases share the setup's two devices; evp uses fmt's format profile.
mrc_case help case_help
mrc_case usage case_usage
mrc_case dev_show case_dev_show
mrc_case port_show case_port_show
mrc_case port_set case_port_set
mrc_case dev_set case_dev_set
mrc_case dev_add_del case_dev_add_del
mrc_case fmt case_fmt
mrc_case evp case_evp --after fmt
mrc_case ev_array case_ev_array --after evp
mrc_case ev_deny case_ev_deny --after ev_array
mrc_case evp_busy case_evp_busy --after evp
mrc_case evp_exp case_evp_exp --after evp_busy
mrc_case evp_init case_evp_init --after evp_exp
mrc_case cc case_cc
mrc_case qp case_qp
mrc_case ep case_ep
mrc_case abbrev case_abbrev
mrc_case after_delete case_after_delete
mrc_case json case_json
mrc_cases_args "$@"

mrc_test_init
[ -x "$MRCCTL" ] || fail "no $MRCCTL: run make (the tools target)"
command -v jq >/dev/null || fail "jq is needed"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"
command -v genl >/dev/null || fail "genl (iproute2) is needed"

mrc_load
netdev_add_dummy "$TEST_NETDEV"
netdev_add_dummy "$TEST_NETDEV2"
link_add "$TEST_DEV" "$TEST_NETDEV"
link_add "$SECOND_DEV" "$TEST_NETDEV2"
for dev in "$TEST_DEV" "$SECOND_DEV"; do
	wait_until "port of $dev ACTIVE" "$WAIT_TIMEOUT" \
		port_state_is "$dev" "$PORT_STATE_ACTIVE"
done
read_family

DEV0=$(dev_expect "$TEST_DEV" "$TEST_NETDEV")
DEV1=$(dev_expect "$SECOND_DEV" "$TEST_NETDEV2")
PORT0=$(port_expect "$TEST_DEV" 1 "$TEST_NETDEV" enabled active)
PORT1=$(port_expect "$SECOND_DEV" 1 "$TEST_NETDEV2" enabled active)
mrc_cases_run
if [ -s "$MRC_TMP/not_run" ]; then
	log "parts NOT RUN (the kernel does not serve them yet):"
	sed 's/^/    /' "$MRC_TMP/not_run"
fi
