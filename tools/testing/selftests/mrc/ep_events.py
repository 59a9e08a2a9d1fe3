#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ep_events.py: YNL helpers that must be ready before the test goes on.

  ep_events.py wait CLI_PY SPEC GROUP EVENT SECONDS
      Subscribes to GROUP of the family SPEC describes, prints
      "SUBSCRIBED" once it is (so that the test knows when to cause the
      event), then waits up to SECONDS for a notification named EVENT and
      prints it as "EVENT <json>" (exit 0), or "TIMEOUT" (exit 1).

  ep_events.py do CLI_PY SPEC OP JSON
      Loads the family, prints "READY", waits for a line on stdin, then
      sends the do request OP with the attributes JSON at once and prints
      "DONE ok <json>" (exit 0) or "DONE error <strerror>" and the error
      message (exit 1).  A TCG guest takes seconds to start Python and
      parse the spec: this sends the request within milliseconds of the
      test's signal.

The YNL library is the kernel's, loaded from next to CLI_PY
(tools/net/ynl/cli.py).
"""

import json
import os
import select
import sys
import time


def to_json(obj):
    return json.dumps(obj, default=lambda o: o.hex() if isinstance(o, bytes)
                      else list(o))


def cmd_wait(ynl, group, event, secs):
    ynl.ntf_subscribe(group)
    print("SUBSCRIBED", flush=True)
    deadline = time.monotonic() + float(secs)
    while True:
        ynl.check_ntf()
        for msg in ynl.async_msg_queue:
            if msg.get("name") == event:
                print("EVENT " + to_json(msg), flush=True)
                return 0
        ynl.async_msg_queue.clear()
        left = deadline - time.monotonic()
        if left <= 0:
            print("TIMEOUT", flush=True)
            return 1
        select.select([ynl.sock], [], [], left)


def cmd_do(ynl, nl_error, op, attrs):
    attrs = json.loads(attrs)
    print("READY", flush=True)
    sys.stdin.readline()
    try:
        reply = ynl.do(op, attrs, None)
    except nl_error as exc:
        print(f"DONE error {os.strerror(exc.error)}")
        print(exc.nl_msg, flush=True)
        return 1
    print("DONE ok " + to_json(reply), flush=True)
    return 0


def main():
    cmd, cli, spec = sys.argv[1:4]
    sys.path.insert(0, os.path.dirname(os.path.abspath(cli)))
    # pylint: disable=import-outside-toplevel
    from lib import YnlFamily, NlError

    ynl = YnlFamily(spec, "")
    if cmd == "wait":
        return cmd_wait(ynl, *sys.argv[4:7])
    if cmd == "do":
        return cmd_do(ynl, NlError, *sys.argv[4:6])
    print(f"unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
