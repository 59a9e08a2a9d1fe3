#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ep_events.py: wait for one notification of a generic netlink family.

  ep_events.py CLI_PY SPEC GROUP EVENT SECONDS

Loads the kernel's YNL library next to CLI_PY (tools/net/ynl/cli.py),
subscribes to GROUP of the family SPEC describes, prints "SUBSCRIBED" once
it is (so that a test knows when to trigger the event), then waits up to
SECONDS for a notification named EVENT and prints it as "EVENT <json>"
(exit 0), or exits 1 at the deadline.
"""

import json
import os
import select
import sys
import time


def main():
    cli, spec, group, event, secs = sys.argv[1:6]
    sys.path.insert(0, os.path.dirname(os.path.abspath(cli)))
    from lib import YnlFamily  # pylint: disable=import-outside-toplevel

    ynl = YnlFamily(spec, "")
    ynl.ntf_subscribe(group)
    print("SUBSCRIBED", flush=True)
    deadline = time.monotonic() + float(secs)
    while True:
        ynl.check_ntf()
        for msg in ynl.async_msg_queue:
            if msg.get("name") == event:
                print("EVENT " + json.dumps(msg, default=lambda o: o.hex()
                                            if isinstance(o, bytes) else
                                            list(o)), flush=True)
                return 0
        ynl.async_msg_queue.clear()
        left = deadline - time.monotonic()
        if left <= 0:
            print("TIMEOUT", flush=True)
            return 1
        select.select([ynl.sock], [], [], left)


if __name__ == "__main__":
    sys.exit(main())
