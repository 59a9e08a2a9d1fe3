#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ep_pkt.py: MRC endpoint packets (ERTH / EETH) built byte by byte.

Builds IPv4 / UDP / BTH / ERTH or EETH / ICRC as
Documentation/mrc/wire-format.rst lays them out (the IP, UDP and BTH
builders are crafted_pkt.py's; the layouts, the ICRC and the decoder
mrc_pcap.py's), sends them from a raw socket and, when asked, waits for
the response and checks every field of it.  Stdlib only.

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
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import crafted_pkt as cp  # noqa: E402	the builders
from mrc_pcap import (  # noqa: E402	the wire format and its decoder
    BTH_LEN, CONTROL_PKEY, DSCP_CONTROL, EETH, EETH_LEN, EETH_SV, EP_ID_MASK,
    EP_OP_MASK, ERTH, ERTH_LEN, EV_SHIFT, ICRC_LEN, IPPROTO_UDP, IPV4_HLEN,
    OP_EP_REQUEST, OP_EP_RESPONSE, QPN_ENDPOINT, TSETH_DEFAULT_FLAGS,
    UDP_HLEN, UDP_PORT, Decoded)


def erth(op, mask, ts):
    return ERTH.pack(0, op & EP_OP_MASK, 0, mask, 0, ts, TSETH_DEFAULT_FLAGS)


def eeth(op, mask, entropy, port, ts):
    return EETH.pack(0, EETH_SV | (op & EP_OP_MASK), 0, mask, entropy, port,
                     bytes(3), ts, TSETH_DEFAULT_FLAGS, 0, bytes(12))


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
    udp_len = UDP_HLEN + len(content) + ICRC_LEN
    ip = cp.ipv4_header(a.src, a.dst, IPV4_HLEN + udp_len, 0, ipid,
                        cp.DEFAULT_TTL)
    udp = cp.udp_header(a.sport, UDP_PORT, udp_len)
    crc = cp.icrc(ip, udp, content) ^ a.icrcxor
    return bytes(ip + udp + content + struct.pack("<I", crc)), psn


def check_reply(d, a, psn):
    """Problems with response d (an IPv4 packet) to the request sent."""
    bad = []
    p = Decoded(d)
    f = {"sport": p.sport, "dport": p.dport, "udp_len": p.udp_len,
         "ip_len": len(d), "dscp": p.dscp, "ecn": p.ecn, "src": p.src,
         "dst": p.dst}
    if p.payload_len != BTH_LEN + EETH_LEN + ICRC_LEN:
        bad.append(f"UDP payload of {p.payload_len} bytes, not "
                   f"{BTH_LEN + EETH_LEN + ICRC_LEN}")
        return f, bad
    eeth_f = p.ext()
    f.update(icrc="ok" if p.icrc_ok else "bad",
             opcode=f"{p.bth['op']:#x}", pkey=f"{p.bth['pkey']:#x}",
             dqpn=p.bth["dqpn"], psn=p.bth["psn"], op=eeth_f["op"],
             sv=eeth_f["sv"], mask=f"{eeth_f['mask']:#x}",
             entropy=f"{eeth_f['entropy']:#x}", req_port=eeth_f["req_port"],
             req_ts=f"{eeth_f['req_ts']:#x}",
             req_ts_flags=f"{eeth_f['req_ts_flags']:#x}",
             svc_ns=eeth_f["svc_ns"])
    want = {
        "icrc": "ok", "opcode": f"{OP_EP_RESPONSE:#x}", "dqpn": QPN_ENDPOINT,
        "psn": psn & EP_ID_MASK, "pkey": f"{a.pkey_control:#x}",
        "sport": a.sport, "dport": UDP_PORT, "dscp": a.dscp_control,
        "ecn": 0, "src": a.dst, "dst": a.src, "op": a.op, "sv": 1,
        "mask": f"{a.mask:#x}", "entropy": f"{a.sport << EV_SHIFT:#x}",
        "req_port": a.want_port, "req_ts": f"{a.ts:#x}",
        "req_ts_flags": f"{TSETH_DEFAULT_FLAGS:#x}",
    }
    for key, value in want.items():
        if f[key] != value:
            bad.append(f"{key} {f[key]}, expected {value}")
    if p.udp_csum:
        bad.append(f"UDP checksum {p.udp_csum:#x}, not 0")
    if p.bth["flags"]:
        bad.append(f"BTH byte 1 {p.bth['flags']:#x}, not 0")
    return f, bad


def cmd_send(a):
    ipid = (os.getpid() * 7 + 1) & 0x7FFF or 1
    pkt, psn = build(a, ipid)
    rx = None
    if a.reply:
        rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, IPPROTO_UDP)
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    tx.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    tx.sendto(pkt, (a.dst, 0))
    tx.close()
    print(f"SENT udp_len={len(pkt) - IPV4_HLEN} ip_len={len(pkt)}")
    print("PKT " + pkt.hex())
    if not a.reply:
        print("RESULT ok")
        return 0
    deadline = time.monotonic() + a.timeout
    while True:
        d = cp.next_from(rx, a.dst, UDP_PORT, deadline)
        if d is None:
            print("RESULT fail no response")
            return 1
        ihl = (d[0] & 15) * 4
        if len(d) < ihl + UDP_HLEN + BTH_LEN or \
                d[ihl + UDP_HLEN] != OP_EP_RESPONSE:
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
    s.add_argument("--pkey", type=num, default=CONTROL_PKEY)
    s.add_argument("--padcnt", type=num, default=0)
    s.add_argument("--tver", type=num, default=0)
    s.add_argument("--ts", type=num, default=0x0123)
    s.add_argument("--hlen", type=num)
    s.add_argument("--icrcxor", type=num, default=0)
    s.add_argument("--reply", action="store_true")
    s.add_argument("--want-port", type=num, default=1)
    s.add_argument("--timeout", type=float, default=10.0)
    s.add_argument("--dscp-control", type=num, default=DSCP_CONTROL)
    s.add_argument("--pkey-control", type=num, default=CONTROL_PKEY)
    sub.add_parser("serve")
    return p


def cmd_serve(parser):
    return cp.serve(lambda argv: cmd_send(parser.parse_args(["send"] + argv)))


def main():
    parser = make_parser()
    args = parser.parse_args()
    if args.cmd == "serve":
        return cmd_serve(parser)
    return cmd_send(args)


if __name__ == "__main__":
    sys.exit(main())
