#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ep_pkt.py: MRC endpoint packets (ERTH / EETH) built byte by byte.

Builds IPv4 / UDP / BTH / ERTH or EETH / ICRC as
Documentation/mrc/wire-format.rst lays them out (the IP, UDP, BTH and ICRC
helpers are crafted_pkt.py's), sends them from a raw socket and, when
asked, waits for the response and checks every field of it.  Stdlib only.

  ep_pkt.py send --src IP --dst IP [options]
      --opcode N     BTH opcode (default 0xd8, Endpoint Request)
      --qpn N        BTH DestQP (default 2)
      --id N         request id, BTH PSN[15:0] (default 1); --psn N sets
                     the whole 24-bit PSN instead
      --op N         ERTH / EETH op: 0 Port Status Update, 1 EV probe
      --mask N       port_status_mask
      --sport N      UDP source port: the EV (default 0xc5a1)
      --pkey N --padcnt N --tver N      BTH fields
      --ts N         ERTH timestamp (default 0x0123)
      --hlen N       bytes after the BTH (default: 16 for ERTH, 36 for
                     EETH); cut or zero-extended, ICRC over what is sent
      --icrcxor X    xor the ICRC with X
      --reply        wait for the response and check it; prints REPLY
      --want-port N  the responder's port the EETH must name (default 1)
      --timeout S    how long to wait for the response (default 10)
  Prints "SENT udp_len=N ip_len=N", with --reply "REPLY key=value ...",
  then "RESULT ok" (exit 0) or "RESULT fail WHY" (exit 1).

  ep_pkt.py serve
      Reads lines "PREFIX ARGS..." and runs each "send ARGS..." with its
      output in PREFIX.out and its exit status in PREFIX.rc (renamed into
      place when done), so that a TCG guest starts Python once.
"""

import argparse
import contextlib
import os
import select
import shlex
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crafted_pkt as cp  # noqa: E402  pylint: disable=wrong-import-position

OP_EP_REQUEST = 0xD8
OP_EP_RESPONSE = 0xD9
QPN_ENDPOINT = 2
ERTH_LEN = 16
EETH_LEN = 36
EP_OP_MASK = 0x03
EETH_SV = 0x80
TS_FLAGS = 0x8001		# TSR (coarse units) | ftype 1
EV_SHIFT = 16
ID_MASK = 0xFFFF


def erth(op, mask, ts):
    return struct.pack("!HBBIIHH", 0, op & EP_OP_MASK, 0, mask, 0, ts, TS_FLAGS)


def eeth(op, mask, entropy, port, ts):
    return struct.pack("!HBBIIB3sHHI12s", 0, EETH_SV | (op & EP_OP_MASK), 0,
                       mask, entropy, port, bytes(3), ts, TS_FLAGS, 0, bytes(12))


def build(a, ipid):
    if a.opcode == OP_EP_RESPONSE:
        body = eeth(a.op, a.mask, a.sport << EV_SHIFT, a.want_port, a.ts)
        hlen = EETH_LEN
    else:
        body = erth(a.op, a.mask, a.ts)
        hlen = ERTH_LEN
    if a.hlen is not None:
        hlen = a.hlen
    body = (body + bytes(max(0, hlen - len(body))))[:hlen]
    psn = a.psn if a.psn is not None else a.id
    content = cp.bth(a.opcode, a.qpn, psn, padcnt=a.padcnt, tver=a.tver,
                     pkey=a.pkey) + body
    udp_len = cp.UDP_HLEN + len(content) + cp.ICRC_LEN
    ip = cp.ipv4_header(a.src, a.dst, cp.IPV4_HLEN + udp_len, 0, ipid,
                        cp.DEFAULT_TTL)
    udp = cp.udp_header(a.sport, cp.UDP_PORT, udp_len)
    crc = cp.icrc(ip, udp, content) ^ a.icrcxor
    return bytes(ip + udp + content + struct.pack("<I", crc)), psn


def check_reply(d, a, psn):
    """Problems with response d (an IPv4 packet) to the request sent."""
    bad = []
    f = {}
    ihl = (d[0] & 15) * 4
    udp = d[ihl:ihl + cp.UDP_HLEN]
    sport, dport, udp_len, csum = struct.unpack("!HHHH", udp)
    rest = d[ihl + cp.UDP_HLEN:ihl + udp_len]
    f.update(sport=sport, dport=dport, udp_len=udp_len, ip_len=len(d),
             dscp=d[1] >> 2, ecn=d[1] & 3, src=socket.inet_ntoa(d[12:16]),
             dst=socket.inet_ntoa(d[16:20]))
    if len(rest) != cp.BTH_LEN + EETH_LEN + cp.ICRC_LEN:
        bad.append(f"UDP payload of {len(rest)} bytes, not 52")
        return f, bad
    content, wire = rest[:-cp.ICRC_LEN], rest[-cp.ICRC_LEN:]
    f["icrc"] = "ok" if struct.unpack("<I", wire)[0] == \
        cp.icrc(d[:ihl], udp, content) else "bad"
    op_b, flags, pkey, _b4, dqpn, _b8, rpsn = struct.unpack(
        "!BBHB3sB3s", content[:cp.BTH_LEN])
    f.update(opcode=f"{op_b:#x}", pkey=f"{pkey:#x}",
             dqpn=int.from_bytes(dqpn, "big"), psn=int.from_bytes(rpsn, "big"))
    (_r0, opb, _v, rmask, entropy, port, _r1, rts, rtsf, svc,
     _r2) = struct.unpack("!HBBIIB3sHHI12s", content[cp.BTH_LEN:])
    f.update(op=opb & EP_OP_MASK, sv=opb >> 7, mask=f"{rmask:#x}",
             entropy=f"{entropy:#x}", req_port=port, req_ts=f"{rts:#x}",
             req_ts_flags=f"{rtsf:#x}", svc_ns=svc)
    want = {
        "icrc": "ok", "opcode": f"{OP_EP_RESPONSE:#x}", "dqpn": QPN_ENDPOINT,
        "psn": psn & ID_MASK, "pkey": f"{a.pkey_control:#x}",
        "sport": a.sport, "dport": cp.UDP_PORT, "dscp": a.dscp_control,
        "ecn": 0, "src": a.dst, "dst": a.src, "op": a.op, "sv": 1,
        "mask": f"{a.mask:#x}", "entropy": f"{a.sport << EV_SHIFT:#x}",
        "req_port": a.want_port, "req_ts": f"{a.ts:#x}",
        "req_ts_flags": f"{TS_FLAGS:#x}",
    }
    for key, value in want.items():
        if f[key] != value:
            bad.append(f"{key} {f[key]}, expected {value}")
    if csum:
        bad.append(f"UDP checksum {csum:#x}, not 0")
    if flags:
        bad.append(f"BTH byte 1 {flags:#x}, not 0")
    return f, bad


def cmd_send(a):
    ipid = (os.getpid() * 7 + 1) & 0x7FFF or 1
    pkt, psn = build(a, ipid)
    rx = None
    if a.reply:
        rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, cp.IPPROTO_UDP)
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    tx.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    tx.sendto(pkt, (a.dst, 0))
    tx.close()
    print(f"SENT udp_len={len(pkt) - cp.IPV4_HLEN} ip_len={len(pkt)}")
    print("PKT " + pkt.hex())
    if not a.reply:
        print("RESULT ok")
        return 0
    deadline = time.monotonic() + a.timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            print("RESULT fail no response")
            return 1
        ready, _, _ = select.select([rx], [], [], left)
        if not ready:
            continue
        d = rx.recv(65535)
        if len(d) < cp.IPV4_HLEN + cp.UDP_HLEN or d[9] != cp.IPPROTO_UDP:
            continue
        ihl = (d[0] & 15) * 4
        if socket.inet_ntoa(d[12:16]) != a.dst or \
                struct.unpack_from("!H", d, ihl + 2)[0] != cp.UDP_PORT:
            continue
        if len(d) < ihl + cp.UDP_HLEN + cp.BTH_LEN or \
                d[ihl + cp.UDP_HLEN] != OP_EP_RESPONSE:
            continue
        f, bad = check_reply(d, a, psn)
        print("REPLY " + " ".join(f"{k}={v}" for k, v in f.items()))
        if bad:
            print("RESULT fail " + "; ".join(bad))
            return 1
        print("RESULT ok")
        return 0


def num(text):
    return int(text, 0)


def make_parser():
    p = argparse.ArgumentParser(description="MRC endpoint packets")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--src", required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--opcode", type=num, default=OP_EP_REQUEST)
    s.add_argument("--qpn", type=num, default=QPN_ENDPOINT)
    s.add_argument("--id", type=num, default=1)
    s.add_argument("--psn", type=num)
    s.add_argument("--op", type=num, default=1)
    s.add_argument("--mask", type=num, default=0)
    s.add_argument("--sport", type=num, default=0xC5A1)
    s.add_argument("--pkey", type=num, default=cp.CONTROL_PKEY)
    s.add_argument("--padcnt", type=num, default=0)
    s.add_argument("--tver", type=num, default=0)
    s.add_argument("--ts", type=num, default=0x0123)
    s.add_argument("--hlen", type=num)
    s.add_argument("--icrcxor", type=num, default=0)
    s.add_argument("--reply", action="store_true")
    s.add_argument("--want-port", type=num, default=1)
    s.add_argument("--timeout", type=float, default=10.0)
    s.add_argument("--dscp-control", type=num, default=cp.DSCP_CONTROL)
    s.add_argument("--pkey-control", type=num, default=cp.CONTROL_PKEY)
    sub.add_parser("serve")
    return p


def cmd_serve(parser):
    print("SERVING", flush=True)
    for line in sys.stdin:
        try:
            words = shlex.split(line)
        except ValueError as exc:
            print(f"serve: bad line ({exc}): {line!r}", flush=True)
            continue
        if not words:
            continue
        prefix, argv = words[0], words[1:]
        with open(prefix + ".out", "w", encoding="utf-8") as out:
            with contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(out):
                try:
                    rc = cmd_send(parser.parse_args(["send"] + argv))
                except SystemExit as exc:	# argparse
                    rc = exc.code if isinstance(exc.code, int) else 2
                except Exception as exc:	# pylint: disable=broad-except
                    print(f"RESULT fail {type(exc).__name__}: {exc}")
                    rc = 2
        with open(prefix + ".rc.tmp", "w", encoding="ascii") as f:
            f.write(f"{rc}\n")
        os.rename(prefix + ".rc.tmp", prefix + ".rc")
    return 0


def main():
    parser = make_parser()
    args = parser.parse_args()
    if args.cmd == "serve":
        return cmd_serve(parser)
    return cmd_send(args)


if __name__ == "__main__":
    sys.exit(main())
