#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ynl_serve.py: requests to a generic netlink family through the kernel's
YNL library (tools/net/ynl/lib, what YNL's cli.py drives), read from stdin,
one JSON object per line, each answered by one JSON line on stdout.

Python and the spec take tens of seconds to load in a TCG guest; a test
that sends many requests pays that once by keeping this process running.

    ynl_serve.py --ynl DIR --spec SPEC

Requests:
    {"tag": T, "do": OP, "attrs": {...}}     a do request
    {"tag": T, "dump": OP, "attrs": {...}}   a dump
    {"tag": T, "subscribe": GROUP}           join a multicast group
    {"tag": T, "notifications": true}        the notifications so far
    {"tag": T, "batch": [REQUEST, ...]}      several, stopping at the first
                                             whose expectation fails
A request may carry "expect", checked here so that the caller needs no
JSON tool:
    {"reply": X}   success, and X matches the reply: objects by the keys X
                   names (recursively), lists element by element and of
                   the same length, everything else by equality;
                   with "absent": [KEY...] the reply lacks those keys
    {"errno": N, "msg": S, "bad-attr": S, "miss-type": S, "cookie-u32": N,
     "exception-has": S}
                   failure with errno N (0: not a netlink error) and each
                   extack item named (msg compared in full)
The answer then carries "check": "ok" or "check": "mismatch: ...".
Answers:
    {"tag": T, "ok": true, "reply": ...}
    {"tag": T, "ok": false, "errno": N, "extack": {"msg": ..., "bad-attr":
     ..., "miss-type": ..., "cookie-u32": N}}
    {"tag": T, "ok": false, "errno": 0, "exception": TEXT} (not netlink)
Bytes are printed as hex strings, as cli.py --output-json does.
"""
import argparse
import json
import sys

NLMSGERR_ATTR_COOKIE = 3


class Encoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, bytes):
            return o.hex()
        if isinstance(o, set):
            return sorted(o)
        return str(o)


def extack_of(err):
    ext = {}
    for key, val in (err.nl_msg.extack or {}).items():
        if key == 'unknown':
            for attr in val:
                if attr.type == NLMSGERR_ATTR_COOKIE and len(attr.raw) == 4:
                    ext['cookie-u32'] = attr.as_scalar('u32')
            continue
        ext[key] = val
    return ext


def match(want, got, path='$'):
    """None if @got matches @want, else where and how it differs."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f'{path}: want an object, got {got!r}'
        for key, val in want.items():
            if key not in got:
                return f'{path}: no {key!r} in {sorted(got)}'
            diff = match(val, got[key], f'{path}.{key}')
            if diff:
                return diff
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f'{path}: want {len(want)} items, got {got!r}'
        for i, (w, g) in enumerate(zip(want, got)):
            diff = match(w, g, f'{path}[{i}]')
            if diff:
                return diff
        return None
    return None if want == got else f'{path}: want {want!r}, got {got!r}'


def check(expect, out):
    if 'reply' in expect:
        if not out['ok']:
            return f'failed: {out}'
        for key in expect.get('absent', []):
            if key in (out['reply'] or {}):
                return f'{key!r} in the reply: {out["reply"]}'
        return match(expect['reply'], out['reply'])
    if out['ok']:
        return f'succeeded: {out["reply"]}'
    if 'errno' in expect and expect['errno'] != out['errno']:
        return f'errno {out["errno"]}, want {expect["errno"]}: {out}'
    if 'exception-has' in expect and \
       expect['exception-has'] not in out.get('exception', ''):
        return f'exception {out.get("exception")!r}'
    ext = out.get('extack', {})
    for key in ('msg', 'bad-attr', 'miss-type', 'cookie-u32'):
        if key in expect and ext.get(key) != expect[key]:
            return f'extack {key} {ext.get(key)!r}, want {expect[key]!r}'
    return None


def handle(ynl, nlerror, req):
    out = {'tag': req.get('tag')}
    if 'batch' in req:
        for i, sub in enumerate(req['batch']):
            res = handle(ynl, nlerror, sub)
            if res.get('check', 'ok') != 'ok':
                out.update(ok=False, check=f'batch[{i}]: {res["check"]}')
                return out
        out.update(ok=True, check='ok', reply=len(req['batch']))
        return out
    try:
        if 'do' in req:
            out['reply'] = ynl.do(req['do'], req.get('attrs', {}))
        elif 'dump' in req:
            out['reply'] = ynl.dump(req['dump'], req.get('attrs', {}))
        elif 'subscribe' in req:
            ynl.ntf_subscribe(req['subscribe'])
            out['reply'] = None
        elif 'notifications' in req:
            ynl.check_ntf()
            out['reply'] = list(ynl.async_msg_queue)
            ynl.async_msg_queue.clear()
        else:
            raise ValueError('no do, dump, subscribe or notifications')
        out['ok'] = True
    except nlerror as err:
        out.update(ok=False, errno=err.error, extack=extack_of(err))
    except Exception as err:  # pylint: disable=broad-except
        out.update(ok=False, errno=0, exception=repr(err))
    # Bytes as hex and sets as sorted lists, as the caller sees them.
    out = json.loads(json.dumps(out, cls=Encoder))
    if 'expect' in req:
        out['check'] = check(req['expect'], out) or 'ok'
    return out


def serve(ynl, nlerror):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as err:
            print(json.dumps({'tag': None, 'ok': False, 'errno': 0,
                              'exception': repr(err), 'line': line}),
                  flush=True)
            continue
        out = handle(ynl, nlerror, req)
        print(json.dumps(out), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--ynl', required=True,
                        help='the directory of cli.py (tools/net/ynl)')
    parser.add_argument('--spec', required=True)
    args = parser.parse_args()

    sys.path.insert(0, args.ynl)
    from lib import YnlFamily, NlError  # pylint: disable=import-outside-toplevel

    ynl = YnlFamily(args.spec, '')
    print(json.dumps({'tag': 'ready', 'ok': True}), flush=True)
    serve(ynl, NlError)


if __name__ == '__main__':
    main()
