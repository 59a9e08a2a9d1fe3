#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# with_device.sh PROGRAM [ARG...]
#
# Run PROGRAM with an mrc device to test: loads rdma_mrc, creates the dummy
# netdev mrct0 (198.18.1.1/24, fd00:198:19::1/64) and the device mrc0 on
# it, waits for its port to be ACTIVE with the IPv4 GID present, runs
# PROGRAM with MRC_DEV, MRC_NETDEV, MRC_IPV4 and MRC_IPV6 set, then removes
# the device and the netdev.  Exits with PROGRAM's status (or 1 if setup
# or teardown fails).  run_tests.sh runs every C test this way.

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SELF_DIR/lib.sh"
mrc_test_init

[ $# -ge 1 ] || fail "usage: $0 PROGRAM [ARG...]"
[ -x "$1" ] || fail "$1 is not an executable (run make?)"

mrc_dev_setup "$TEST_DEV" "$TEST_NETDEV"
export MRC_DEV=$TEST_DEV MRC_NETDEV=$TEST_NETDEV
export MRC_IPV4=$TEST_IPV4 MRC_IPV6=$TEST_IPV6

before=$(res_counts "$TEST_DEV")
log "rdma res before the program: $before"

# The program's output goes straight through: it is bounded by the
# runner's per-test timeout.
set +e
"$@"
rc=$?
set -e

# Objects of the program must all be gone with it.
after=$(res_counts "$TEST_DEV")
log "rdma res after the program:  $after"
if [ "$before" != "$after" ]; then
	log "FAIL: objects left on $TEST_DEV after the program exited"
	rc=$KSFT_FAIL
fi

link_del "$TEST_DEV"
link_absent "$TEST_DEV" || fail "$TEST_DEV still there after link delete"
exit "$rc"
