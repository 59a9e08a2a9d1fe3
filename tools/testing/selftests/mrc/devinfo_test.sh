#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The distribution's ibv_devices / ibv_devinfo see an mrc device as it is:
# an InfiniBand-transport CA with an ACTIVE Ethernet port, a RoCE v2 GID of
# its address, and no READ/ATOMIC resources or SRQs; sysfs and rdma(8)
# agree on the node type.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"

NODE_TYPE_CA="1: CA"

# expect_line FILE REGEX: FILE has a line matching REGEX (extended).
expect_line() {
	grep -qE -- "$2" "$1" || {
		sed 's/^/    /' "$1"
		fail "no line matching '$2'"
	}
	log "ok: $(grep -E -m1 -- "$2" "$1" | tr -s '\t' ' ')"
}

case_ibv_devices() {
	run ibv_devices
	cp "$BOUNDED_OUT" "$tmp/devices"
	expect_line "$tmp/devices" "^[[:space:]]*${TEST_DEV}[[:space:]]"
}

# ibv_devinfo -d TEST_DEV
case_devinfo() {
	run ibv_devinfo -d "$TEST_DEV"
	cp "$BOUNDED_OUT" "$tmp/short"
	expect_line "$tmp/short" "^hca_id:[[:space:]]+$TEST_DEV\$"
	expect_line "$tmp/short" "transport:[[:space:]]+InfiniBand \\(0\\)"
	expect_line "$tmp/short" "phys_port_cnt:[[:space:]]+1\$"
	expect_line "$tmp/short" "state:[[:space:]]+PORT_ACTIVE \\(4\\)"
	expect_line "$tmp/short" "link_layer:[[:space:]]+Ethernet\$"
}

# ibv_devinfo -v -d TEST_DEV
case_devinfo_verbose() {
	run ibv_devinfo -v -d "$TEST_DEV"
	cp "$BOUNDED_OUT" "$tmp/verbose"
	# A software device's vendor id, as rdma_rxe's (0 fails rdma-core's tests).
	expect_line "$tmp/verbose" "vendor_id:[[:space:]]+0xffffff\$"
	expect_line "$tmp/verbose" "max_qp_rd_atom:[[:space:]]+0\$"
	expect_line "$tmp/verbose" "max_qp_init_rd_atom:[[:space:]]+0\$"
	expect_line "$tmp/verbose" "atomic_cap:[[:space:]]+ATOMIC_NONE \\(0\\)"
	expect_line "$tmp/verbose" "max_srq:[[:space:]]+0\$"
	expect_line "$tmp/verbose" "state:[[:space:]]+PORT_ACTIVE \\(4\\)"
	expect_line "$tmp/verbose" "link_layer:[[:space:]]+Ethernet\$"
	expect_line "$tmp/verbose" "GID\\[ *[0-9]+\\]:[[:space:]]+::ffff:$TEST_IPV4, $GID_TYPE_V2\$"
	if grep -q "$GID_TYPE_V1" "$tmp/verbose"; then
		fail "a RoCE v1 GID is listed: $(grep "$GID_TYPE_V1" "$tmp/verbose")"
	fi
}

case_node_type() {
	assert_eq "sysfs node_type" "$NODE_TYPE_CA" \
		"$(cat "/sys/class/infiniband/$TEST_DEV/node_type")"
	run rdma dev show "$TEST_DEV"
	cp "$BOUNDED_OUT" "$tmp/rdmadev"
	expect_line "$tmp/rdmadev" "node_type ca"
}

# An unknown device is an error.
case_unknown_device() {
	run_fails "" ibv_devinfo -d mrcnosuch9
}

mrc_case ibv_devices case_ibv_devices
mrc_case devinfo case_devinfo
mrc_case devinfo_verbose case_devinfo_verbose
mrc_case node_type case_node_type
mrc_case unknown_device case_unknown_device
mrc_cases_args "$@"

mrc_test_init
mrc_dev_setup "$TEST_DEV" "$TEST_NETDEV"
tmp=$(mrc_tmp)
mrc_cases_run
