#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crafted_pkt.py: MRC packets built byte by byte, sent from a raw socket.

Builds IPv4 / UDP / BTH / METH / TSETH / RETH / ImmDt / AETH / SETH /
CC_STATE / NETH / PETH exactly as Documentation/mrc/wire-format.rst lays
them out, with the ICRC as that page says (mrc_pcap.icrc: zlib.crc32 over
8 bytes of 0xFF, the masked IPv4 and UDP headers, the BTH with byte 4
masked and the rest), sends the packets from a raw socket (IP_HDRINCL, so
that the IP ID, TTL and TOS are the ones the ICRC was computed over) and
checks what comes back, decoded by mrc_pcap.py (the wire constants and the
one decoder live there).  Stdlib only: it runs under Debian's
/usr/bin/python3 in the guest.

  crafted_pkt.py selftest
      Known-answer tests: rebuilds the worked examples of wire-format.rst
      byte for byte (ICRC included) and decodes them back.

  crafted_pkt.py send --info FILE --src IP --dst IP [options] PKT...
      Sends each PKT (see below) to the target described by FILE (the
      KEY=VALUE lines mrc_target prints, and optionally the module's
      UDP_PORT, DSCP_CONTROL and CONTROL_PKEY), from a raw socket, and
      captures the replies on a raw UDP socket.  Options:
        --fence             then send a PROBE and wait for its SACK (PR=1,
                            the probe's id): every reply the packets caused
                            has arrived by then (the path is FIFO)
        --expect SPEC       a reply the packets must cause, in order
                            (repeatable); with --fence the replies before
                            the fence's SACK must be exactly these
        --fence-cack PSN    the fence's SACK must report this cack_psn
        --timeout S         how long to wait for replies (default 20)
      Prints "SENT ...", "PKT ..." (each packet in hex), one "REPLY ..."
      per reply, "FENCE ...", "REPLIES ..." and "RESULT ok" (exit 0) or
      "RESULT fail ..." (exit 1; 2 for a bad PKT).

  crafted_pkt.py model --len N [--write OFF:LEN:SEED]... [--maybe OFF:LEN:SEED]...
                       [--region OFF:LEN]
      The CRC-32 ("HASH=") of a target MR of N bytes, initially in
      mrc_target's fill pattern, after the listed writes of payload
      patterns; with --maybe, the CRC-32s of every outcome where each of
      those writes happened or not ("HASHES=", comma-separated); and
      optionally the hex of one region ("REGION=").

  crafted_pkt.py forge --dst IP --src IP --qpn N [--sport N] [--count N]
                       [--wait-file PATH] PKT...
      Sends each PKT (--count times over) from an ordinary UDP socket, as
      an unprivileged process can: bound to --sport (default: a port the
      kernel picks), it has the kernel write the IP and UDP headers, with
      DF set (IP_PMTUDISC_DO) and therefore IP ID 0 on an unconnected
      socket; the ICRC is computed over those headers.  --src is the
      address the kernel sends from (to compute the ICRC); "@N" of qpn is
      relative to --qpn, psn and va have no base; a PKT's own sport= has
      a socket of its own bound to that port.  --wait-file PATH: print
      "ARMED", then send once PATH exists (Python starts slowly in a
      guest).  Prints "FORGED n=N sport=P[,P...]" (exit 0).

  crafted_pkt.py serve
      Runs the commands above without starting Python again for each (a
      TCG guest takes seconds to): reads lines "PREFIX ARGS..." (ARGS
      quoted as by the shell) from stdin, runs each, with its output in
      PREFIX.out and then its exit status in PREFIX.rc (renamed into
      place, so that PREFIX.rc appearing means "done").  Holds the UDP
      port replies go to meanwhile, so that replies arriving between
      commands are not answered with ICMP port unreachable.  Ends at end
      of input.

PKT: one argument of blank-separated KEY=VALUE tokens.  Numbers are C
literals; "@N" means "the target's base plus N" for psn (RQ_PSN), va
(ADDR) and qpn (QPN).  Keys, with defaults that make a valid WRITE Only:

  op=0xca           opcode
  qpn=@0 psn=@0     BTH DestQP and PSN
  se= mbit= tver= pkey=0xffff byte4=0     BTH fields
  pad=              PadCnt in the BTH (default: what the payload needs)
  ackreq=0 rbit=0 rtx=0 tsh=0 low4=0      BTH byte 8
  msn=1 rqmsn=0     METH
  ts=0x1234 tsflags=0x8001                TSETH (when tsh=1)
  va=@0 rkey=RKEY dmalen=LEN              RETH; rkey=^X is RKEY xor X
  imm=0x1234abcd    ImmDt (opcodes 0xc9, 0xcb)
  len=64 seed=1     payload: LEN bytes of pattern SEED (see payload())
  data=HEX          payload: these bytes instead
  body=             for opcodes without an MRC layout: mrcwrite (METH,
                    [TSETH], RETH, payload; the default in the MRC space),
                    rcwrite (IBTA RC WRITE Only: RETH, payload; the default
                    elsewhere), none, hex:BYTES
  syn=0x1f amsn=0   AETH (0xd1)
  cack=@-1 sackoff=1 bitmap=0 mpr=32 sflags=0 ackoff=0 ev=0 ccts=0
  dups=0            SETH + CC_STATE (0xdc); dups: SETH byte 12 (ours)
  reason=0x0b nackpsn=PSN                 NETH (0xdd)
  probeid=1         PETH (0xde)
  src=SRC dst=DST sport=0xc123 dport=4791 tos=0 ttl=64 ipid=AUTO
                    IPv4 / UDP fields covered by (or masked in) the ICRC
  trunc=N           keep N bytes from the BTH on, then a fresh ICRC
  cut=N             keep N bytes of the UDP payload (ICRC not recomputed)
  icrcxor=X         xor the ICRC with X
  df=1              the IP DF flag (df=0: none, for fragments)
  frag=N            send the datagram as IPv4 fragments of N bytes of
                    payload each (a multiple of 8; needs df=0): the
                    receiver reassembles it into a non-linear packet
  flip=OFF:MASK     xor the UDP payload byte at OFF with MASK, after the
                    ICRC was computed
  x_tos= x_ttl= x_sport= x_byte4= x_byte8=
                    set that field after the ICRC was computed
  x_ipidxor=X       xor the IP ID with X after the ICRC was computed
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
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The wire format and its decoder.
from mrc_pcap import (  # noqa: E402  pylint: disable=wrong-import-position
    AETH_ACK, CONTROL_PKEY, DSCP_CONTROL, EV_SHIFT, ICRC_LEN, IMM_OPS,
    IPPROTO_UDP, IPV4_HLEN, OP_ACK, OP_NACK, OP_PROBE, OP_SACK, OP_WRITE_ONLY,
    PSN_MASK, SETH_M_SHIFT, TSETH_DEFAULT_FLAGS, UDP_HLEN, UDP_PORT,
    WRITE_OPS, Decoded, icrc)

IP_DF = 0x4000
IP_MF = 0x2000
# <linux/in.h>: a socket option, and the value that sets DF on every packet.
IP_MTU_DISCOVER = 10
IP_PMTUDISC_DO = 2
DEFAULT_TTL = 64
FENCE_SPORT = 0xC0DE


def payload(seed, length):
    """The payload pattern SEED: deterministic, not periodic in 256."""
    base = (seed * 0x61 + 0x11) & 0xFF
    return bytes((base + i * 0x1D + (i >> 8) * 5) & 0xFF
                 for i in range(length))


def mr_fill(length):
    """mrc_target's initial MR content (mr_fill() there)."""
    return bytearray((i * 7 + (i >> 8) * 13 + 0x3C) & 0xFF
                     for i in range(length))


def pad_of(length):
    return (4 - length % 4) % 4


# --- headers --------------------------------------------------------------

def ipv4_checksum(hdr):
    total = 0
    for (word,) in struct.iter_unpack("!H", bytes(hdr)):
        total += word
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4_header(src, dst, total_len, tos, ipid, ttl, frag_off=IP_DF):
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, total_len, ipid,
                                frag_off, ttl, IPPROTO_UDP, 0,
                                socket.inet_aton(src), socket.inet_aton(dst)))
    struct.pack_into("!H", hdr, 10, ipv4_checksum(hdr))
    return hdr


def udp_header(sport, dport, length):
    return bytearray(struct.pack("!HHHH", sport, dport, length, 0))


def bth(op, dqpn, psn, padcnt=0, se=0, mbit=0, tver=0, pkey=0xFFFF, byte4=0,
        ackreq=0, rbit=0, rtx=0, tsh=0, low4=0):
    flags = (se & 1) << 7 | (mbit & 1) << 6 | (padcnt & 3) << 4 | (tver & 15)
    ackf = ((ackreq & 1) << 7 | (rbit & 1) << 6 | (rtx & 1) << 5 |
            (tsh & 1) << 4 | (low4 & 15))
    return struct.pack("!BBHB3sB3s", op, flags, pkey, byte4,
                       (dqpn & PSN_MASK).to_bytes(3, "big"), ackf,
                       (psn & PSN_MASK).to_bytes(3, "big"))


def meth(rqmsn, msn):
    return struct.pack("!HH", rqmsn & 0xFFFF, msn & 0xFFFF)


def tseth(ts, flags):
    return struct.pack("!HH", ts & 0xFFFF, flags & 0xFFFF)


def reth(va, rkey, dmalen):
    return struct.pack("!QII", va & (2**64 - 1), rkey & 0xFFFFFFFF,
                       dmalen & 0xFFFFFFFF)


def immdt(imm):
    return struct.pack("!I", imm & 0xFFFFFFFF)


def aeth(syn, msn):
    return struct.pack("!I", (syn & 0xFF) << 24 | (msn & PSN_MASK))


def seth(flags, ackoff, entropy, cack, mpr, sackoff, bitmap, dups=0):
    return struct.pack("!HHIHHB3sBBHQ", flags & 0xFFFF, ackoff & 0xFFFF,
                       entropy & 0xFFFFFFFF, 0, 0, dups & 0xFF,
                       (cack & PSN_MASK).to_bytes(3, "big"), 0, mpr & 0xFF,
                       sackoff & 0xFFFF, bitmap & (2**64 - 1))


def cc_state(ts, ooo=0, rcv=0):
    return struct.pack("!HHI", ts & 0xFFFF, ooo & 0x7FFF, rcv & 0xFFFFFFFF)


def neth(reason, entropy, psn, ts):
    return struct.pack("!HBBIHHB3sBBH", 0, reason & 0xFF, 0,
                       entropy & 0xFFFFFFFF, 0, 0, 0,
                       (psn & PSN_MASK).to_bytes(3, "big"), 0, 0, ts & 0xFFFF)


def peth(probe_id, ts, flags=TSETH_DEFAULT_FLAGS):
    return struct.pack("!3sBHHHHHH", b"\0\0\0", 0, probe_id & 0xFFFF, 0, 0, 0,
                       ts & 0xFFFF, flags & 0xFFFF)


# --- packet specs ---------------------------------------------------------

class SpecError(Exception):
    pass


def parse_num(text, base=None, what="value"):
    """A C literal, or "@N" (base + N) when base is given."""
    try:
        if text.startswith("@"):
            if base is None:
                raise SpecError(f"{what}: '@' has no base here")
            return base + int(text[1:], 0)
        return int(text, 0)
    except ValueError as exc:
        raise SpecError(f"{what}: bad number '{text}'") from exc


class Target:
    """The KEY=VALUE lines mrc_target printed."""

    def __init__(self, path):
        self.kv = {}
        if path:
            with open(path, encoding="ascii") as f:
                for line in f:
                    key, sep, value = line.strip().partition("=")
                    if sep and key.isupper():
                        self.kv[key] = value

    def num(self, key, default=0):
        return int(self.kv[key], 0) if key in self.kv else default


class Packet:
    """One crafted packet: the bytes from the IP header on, and its sizes;
    frags: the IP fragments that are sent instead, if any."""

    def __init__(self, data, note, frags=None):
        self.data = bytes(data)
        self.note = note
        self.frags = frags or [self.data]

    @property
    def udp_len(self):
        return len(self.data) - IPV4_HLEN


KNOWN_KEYS = {
    "op", "qpn", "psn", "se", "mbit", "tver", "pkey", "byte4", "pad",
    "ackreq", "rbit", "rtx", "tsh", "low4", "msn", "rqmsn", "ts", "tsflags",
    "va", "rkey", "dmalen", "imm", "len", "seed", "data", "body", "syn", "amsn",
    "cack", "sackoff", "bitmap", "mpr", "sflags", "ackoff", "ev", "ccts",
    "dups",
    "reason", "nackpsn", "probeid", "src", "dst", "sport", "dport", "tos",
    "ttl", "ipid", "trunc", "cut", "icrcxor", "flip", "x_tos", "x_ttl",
    "x_ipidxor", "x_sport", "x_byte4", "x_byte8", "df", "frag",
}


def parse_spec(text):
    spec = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep or key not in KNOWN_KEYS:
            raise SpecError(f"unknown token '{token}'")
        spec[key] = value
    return spec


def body_of(op, spec, num, tgt):
    """Headers after the BTH, payload and pad; and the PadCnt they need."""
    if "data" in spec:
        data = bytes.fromhex(spec["data"])
        length = len(data)
    else:
        length = num("len", 64)
        data = payload(num("seed", 1), length)
    pad = pad_of(length)
    kind = spec.get("body")
    if kind is None:
        if op in WRITE_OPS or (op & 0xE0) == 0xC0 and op not in (
                OP_ACK, OP_SACK, OP_NACK, OP_PROBE):
            kind = "mrcwrite"
        elif op in (OP_ACK, OP_SACK, OP_NACK, OP_PROBE):
            kind = "control"
        else:
            kind = "rcwrite"
    rkey_text = spec.get("rkey", "")
    rkey = tgt.num("RKEY")
    if rkey_text.startswith("^"):
        rkey ^= parse_num(rkey_text[1:], what="rkey")
    elif rkey_text:
        rkey = parse_num(rkey_text, what="rkey")
    va = num("va", 0, base=tgt.num("ADDR"))
    dmalen = num("dmalen", length)
    if kind == "mrcwrite":
        out = meth(num("rqmsn", 0), num("msn", 1))
        if num("tsh", 0):
            out += tseth(num("ts", 0x1234), num("tsflags",
                                                TSETH_DEFAULT_FLAGS))
        out += reth(va, rkey, dmalen)
        if op in IMM_OPS:
            out += immdt(num("imm", 0x1234ABCD))
        return out + data + bytes(pad), pad
    if kind == "rcwrite":
        return reth(va, rkey, dmalen) + data + bytes(pad), pad
    if kind == "none":
        return b"", 0
    if kind.startswith("hex:"):
        return bytes.fromhex(kind[4:]), 0
    if kind != "control":
        raise SpecError(f"unknown body '{kind}'")
    rq_psn = tgt.num("RQ_PSN")
    if op == OP_ACK:
        return aeth(num("syn", AETH_ACK), num("amsn", 0)), 0
    if op == OP_SACK:
        return (seth(num("sflags", 0), num("ackoff", 0), num("ev", 0),
                     num("cack", -1, base=rq_psn), num("mpr", 32),
                     num("sackoff", 1), num("bitmap", 0), num("dups", 0)) +
                cc_state(num("ccts", 0))), 0
    if op == OP_NACK:
        psn = num("psn", 0, base=rq_psn)
        return neth(num("reason", 0x0B), num("ev", 0),
                    num("nackpsn", psn, base=rq_psn), 0), 0
    return peth(num("probeid", 1), num("ts", 0x1234)), 0


def build(text, tgt, src, dst, ipid):
    """The packet a spec describes (see the module's doc)."""
    spec = parse_spec(text)

    def num(key, default, base=None):
        if key not in spec:
            return base + default if base is not None else default
        return parse_num(spec[key], base, what=key)

    op = num("op", OP_WRITE_ONLY)
    body, padcnt = body_of(op, spec, num, tgt)
    if "pad" in spec:
        padcnt = num("pad", 0)
    hdr = bth(op, num("qpn", 0, base=tgt.num("QPN")),
              num("psn", 0, base=tgt.num("RQ_PSN")), padcnt=padcnt,
              se=num("se", 0), mbit=num("mbit", 0), tver=num("tver", 0),
              pkey=num("pkey", 0xFFFF), byte4=num("byte4", 0),
              ackreq=num("ackreq", 0), rbit=num("rbit", 0), rtx=num("rtx", 0),
              tsh=num("tsh", 0), low4=num("low4", 0))
    content = hdr + body
    if "trunc" in spec:
        content = content[:num("trunc", 0)]

    src = spec.get("src", src)
    dst = spec.get("dst", dst)
    udp_len = UDP_HLEN + len(content) + ICRC_LEN
    ip = ipv4_header(src, dst, IPV4_HLEN + udp_len, num("tos", 0),
                     num("ipid", ipid), num("ttl", DEFAULT_TTL),
                     IP_DF if num("df", 1) else 0)
    udp = udp_header(num("sport", 0xC123),
                     num("dport", tgt.num("UDP_PORT", UDP_PORT)), udp_len)
    crc = icrc(ip, udp, content) ^ num("icrcxor", 0)
    upay = bytearray(content + struct.pack("<I", crc))

    if "cut" in spec:
        upay = upay[:num("cut", 0)]
        struct.pack_into("!H", udp, 4, UDP_HLEN + len(upay))
        struct.pack_into("!H", ip, 2, IPV4_HLEN + UDP_HLEN + len(upay))
    if "flip" in spec:
        off, _, mask = spec["flip"].partition(":")
        off = parse_num(off, what="flip")
        if off >= len(upay):
            raise SpecError("flip beyond the packet")
        upay[off] ^= parse_num(mask or "1", what="flip")
    if "x_tos" in spec:
        ip[1] = num("x_tos", 0)
    if "x_ttl" in spec:
        ip[8] = num("x_ttl", 0)
    if "x_ipidxor" in spec:
        ipid_now = struct.unpack_from("!H", ip, 4)[0]
        struct.pack_into("!H", ip, 4, ipid_now ^ num("x_ipidxor", 0))
    if "x_sport" in spec:
        struct.pack_into("!H", udp, 0, num("x_sport", 0))
    if "x_byte4" in spec:
        upay[4] = num("x_byte4", 0)
    if "x_byte8" in spec:
        upay[8] = num("x_byte8", 0)
    struct.pack_into("!H", ip, 10, 0)
    struct.pack_into("!H", ip, 10, ipv4_checksum(ip))
    if "frag" in spec:
        return Packet(ip + udp + upay, text,
                      fragments(ip, bytes(udp + upay), num("frag", 0)))
    return Packet(ip + udp + upay, text)


def fragments(ip, data, size):
    """The IPv4 fragments of datagram ip + data, size bytes of data each
    (a multiple of 8); the receiver reassembles them into a packet whose
    header has no DF and no offset, the header the ICRC was computed
    over."""
    if size <= 0 or size % 8 or struct.unpack_from("!H", ip, 6)[0] != 0:
        raise SpecError("frag= needs a multiple of 8 and df=0")
    out = []
    for off in range(0, len(data), size):
        piece = data[off:off + size]
        hdr = bytearray(ip)
        more = IP_MF if off + size < len(data) else 0
        struct.pack_into("!H", hdr, 2, IPV4_HLEN + len(piece))
        struct.pack_into("!H", hdr, 6, more | (off // 8))
        struct.pack_into("!H", hdr, 10, 0)
        struct.pack_into("!H", hdr, 10, ipv4_checksum(hdr))
        out.append(bytes(hdr) + piece)
    return out


# --- replies --------------------------------------------------------------

REPLY_KINDS = {OP_ACK: "ack", OP_SACK: "sack", OP_NACK: "nack"}


class Reply:
    """A packet from the target, decoded."""

    def __init__(self, data, dscp=DSCP_CONTROL, pkey=CONTROL_PKEY):
        self.data = data
        self.want_dscp = dscp
        self.want_pkey = pkey
        self.f = {}
        self.ok = True
        self.problems = []
        self.decode()

    def bad(self, what):
        self.ok = False
        self.problems.append(what)

    def decode(self):
        p = Decoded(self.data)
        self.ip_len, self.tos, self.ttl, self.src = p.ip_len, p.tos, p.ttl, \
            p.src
        self.sport, self.dport, self.udp_len = p.sport, p.dport, p.udp_len
        if p.short:
            self.kind = "short"
            self.bad("shorter than BTH + ICRC")
            return
        if not p.icrc_ok:
            self.bad("bad ICRC")
        if p.udp_csum != 0:
            self.bad(f"UDP checksum {p.udp_csum:#x}, not 0")
        if p.dscp != self.want_dscp or p.ecn:
            self.bad(f"TOS {self.tos:#x}: not DSCP {self.want_dscp}, "
                     "Not-ECT")
        op = p.bth["op"]
        self.f.update(op=op, psn=p.bth["psn"], dqpn=p.bth["dqpn"])
        if p.bth["pkey"] != self.want_pkey:
            self.bad(f"P_Key {p.bth['pkey']:#x}, not {self.want_pkey:#x}")
        if p.bth["flags"] or p.bth["byte8"]:
            self.bad(f"BTH flags {p.bth['flags']:#x} byte 8 "
                     f"{p.bth['byte8']:#x}")
        self.kind = REPLY_KINDS.get(op, f"op{op:#04x}")
        ext = p.ext() if op in REPLY_KINDS else None
        if ext is None:
            self.bad(f"opcode {op:#04x} with {len(p.hdr)} header bytes")
            return
        self.f.update(ext)
        if op == OP_ACK and ext["syn"] != AETH_ACK:
            self.kind = "nak"
        elif op == OP_SACK and ext["cack"] != self.f["psn"]:
            self.bad("SACK: BTH PSN != cack_psn")
        elif op == OP_NACK and ext["nackpsn"] != self.f["psn"]:
            self.bad("NACK: BTH PSN != nack_psn")

    def __str__(self):
        fields = " ".join(f"{k}={v:#x}" for k, v in self.f.items())
        state = "ok" if self.ok else "BAD(" + "; ".join(self.problems) + ")"
        return (f"{self.kind} {fields} sport={self.sport:#x} "
                f"udp_len={self.udp_len} ip_len={self.ip_len} check={state}")


class Expect:
    """--expect KIND[:KEY=VALUE...]; psn-like values may be "@N"."""

    PSN_KEYS = ("psn", "cack", "nackpsn")

    def __init__(self, text, rq_psn):
        parts = text.split(":")
        self.kind = parts[0]
        self.text = text
        if self.kind not in ("ack", "nak", "sack", "nack"):
            raise SpecError(f"--expect: unknown kind '{self.kind}'")
        self.want = {}
        for part in parts[1:]:
            key, sep, value = part.partition("=")
            if not sep:
                raise SpecError(f"--expect: bad '{part}'")
            base = rq_psn if key in self.PSN_KEYS else None
            val = parse_num(value, base, what=key)
            if key in self.PSN_KEYS:
                val &= PSN_MASK
            self.want[key] = val

    def matches(self, reply):
        if reply.kind != self.kind:
            return False
        return all(reply.f.get(k) == v for k, v in self.want.items())


SINKS = {}


def hold_port(port):
    """A listener on the port keeps the kernel from answering the target
    with ICMP port unreachable; nothing reads it.  Kept for the process."""
    if port in SINKS:
        return
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sink.bind(("0.0.0.0", port))
    except OSError:
        sink.close()
        return
    SINKS[port] = sink


def open_capture(port):
    rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, IPPROTO_UDP)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    hold_port(port)
    return rx


def next_from(rx, ip, port, deadline):
    """The next IPv4 packet a raw UDP socket reads from ip to UDP port,
    or None at deadline (time.monotonic())."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([rx], [], [], left)
        if not ready:
            return None
        data = rx.recv(65535)
        if len(data) < IPV4_HLEN + UDP_HLEN or data[9] != IPPROTO_UDP:
            continue
        ihl = (data[0] & 15) * 4
        if socket.inet_ntoa(data[12:16]) != ip:
            continue
        if struct.unpack_from("!H", data, ihl + 2)[0] != port:
            continue
        return data


def capture_one(rx, target_ip, port, deadline, tgt):
    """The next packet from target_ip to port as a Reply, or None."""
    data = next_from(rx, target_ip, port, deadline)
    if data is None:
        return None
    return Reply(data, tgt.num("DSCP_CONTROL", DSCP_CONTROL),
                 tgt.num("CONTROL_PKEY", CONTROL_PKEY))


def cmd_send(args):
    tgt = Target(args.info)
    rq_psn = tgt.num("RQ_PSN")
    expects = [Expect(e, rq_psn) for e in args.expect]
    ipid = (os.getpid() * 7 + 1) & 0x7FFF or 1
    packets = []
    for i, text in enumerate(args.packets):
        packets.append(build(text, tgt, args.src, args.dst, ipid + i + 1))

    port = tgt.num("UDP_PORT", UDP_PORT)
    rx = open_capture(port)
    tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for pkt in packets:
        for frag in pkt.frags:
            tx.sendto(frag, (args.dst, 0))
    print(f"SENT n={len(packets)} "
          f"udp_bytes={sum(p.udp_len for p in packets)} "
          f"ip_bytes={sum(len(p.data) for p in packets)}")
    for pkt in packets:
        print(f"PKT len={len(pkt.data)} {pkt.note} hex={pkt.data.hex()}")

    probe_id = 0
    if args.fence:
        probe_id = ((os.getpid() << 4) ^ time.monotonic_ns()) & 0xFFFF or 1
        fence = build(f"op={OP_PROBE:#x} psn={probe_id} probeid={probe_id} "
                      f"sport={FENCE_SPORT:#x}", tgt, args.src, args.dst,
                      ipid + len(packets) + 1)
        tx.sendto(fence.data, (args.dst, 0))
        print(f"FENCE_SENT id={probe_id:#x} udp_len={fence.udp_len} "
              f"ip_len={len(fence.data)}")

    deadline = time.monotonic() + args.timeout
    replies = []
    fence_reply = None
    problems = []
    while True:
        if not args.fence and len(replies) >= len(expects):
            break
        reply = capture_one(rx, args.dst, port, deadline, tgt)
        if reply is None:
            if args.fence:
                problems.append("no SACK for the fence probe "
                                f"within {args.timeout}s")
            else:
                problems.append(f"{len(replies)} replies within "
                                f"{args.timeout}s, {len(expects)} expected")
            break
        if (args.fence and reply.kind == "sack" and reply.f.get("pr") == 1
                and reply.f.get("ackoff") == probe_id):
            fence_reply = reply
            break
        print(f"REPLY i={len(replies)} {reply}")
        replies.append(reply)

    for i, reply in enumerate(replies):
        if not reply.ok:
            problems.append(f"reply {i} malformed: {reply.problems}")
        if reply.f.get("dqpn") != tgt.num("PEER_QPN"):
            problems.append(f"reply {i} to QPN {reply.f.get('dqpn'):#x}, "
                            f"not the peer's {tgt.num('PEER_QPN'):#x}")
    if len(replies) != len(expects) and not problems:
        problems.append(f"{len(replies)} replies, {len(expects)} expected")
    for i, (want, got) in enumerate(zip(expects, replies)):
        if not want.matches(got):
            problems.append(f"reply {i} is '{got.kind} "
                            f"{ {k: hex(v) for k, v in got.f.items()} }', "
                            f"expected '{want.text}'")
    reply_bytes = sum(r.udp_len for r in replies)
    reply_ip = sum(r.ip_len for r in replies)
    n_replies = len(replies)
    if fence_reply is not None:
        f = fence_reply.f
        print(f"FENCE {fence_reply}")
        if not fence_reply.ok:
            problems.append(f"fence SACK malformed: {fence_reply.problems}")
        if f["ev"] != FENCE_SPORT << EV_SHIFT:
            problems.append(f"fence SACK entropy {f['ev']:#x}, expected "
                            f"{FENCE_SPORT << EV_SHIFT:#x}")
        if args.fence_cack is not None:
            want = parse_num(args.fence_cack, rq_psn, "cack") & PSN_MASK
            if f["cack"] != want:
                problems.append(f"fence SACK cack_psn {f['cack']:#x}, "
                                f"expected {want:#x}")
        reply_bytes += fence_reply.udp_len
        reply_ip += fence_reply.ip_len
        n_replies += 1
    print(f"REPLIES n={n_replies} udp_bytes={reply_bytes} ip_bytes={reply_ip}")
    rx.close()
    tx.close()
    if problems:
        print("RESULT fail " + " | ".join(problems))
        return 1
    print("RESULT ok")
    return 0


def cmd_model(args):
    base = mr_fill(args.len)

    def apply(mr, text):
        off, length, seed = (int(x, 0) for x in text.split(":"))
        if off < 0 or off + length > args.len:
            raise SpecError(f"write {text} outside the MR")
        mr[off:off + length] = payload(seed, length)

    for w in args.write:
        apply(base, w)
    print(f"HASH={zlib.crc32(bytes(base)):08x}")
    if args.maybe:
        hashes = []
        for subset in range(1 << len(args.maybe)):
            mr = bytearray(base)
            for i, w in enumerate(args.maybe):
                if subset >> i & 1:
                    apply(mr, w)
            hashes.append(f"{zlib.crc32(bytes(mr)):08x}")
        print(f"HASHES={','.join(hashes)}")
    if args.region:
        off, length = (int(x, 0) for x in args.region.split(":"))
        print(f"REGION={bytes(base[off:off + length]).hex()}")
    return 0


# --- known answers --------------------------------------------------------

# wire-format.rst, "Worked example: WRITE Only with Immediate over IPv4".
EXAMPLE_WRITE = "".join((
    "45 22 00 50 12 34 40 00 40 11 98 f3 c0 a8 07 01",
    "c0 a8 07 02 c0 a5 12 b7 00 3c 00 00 cb 30 ff ff",
    "00 00 00 11 10 00 01 03 00 01 00 02 12 34 00 01",
    "00 00 7f 3a 00 00 20 00 00 01 2a 05 00 00 00 05",
    "ca fe f0 0d 68 65 6c 6c 6f 00 00 00 d1 32 0e a6",
)).replace(" ", "")
# wire-format.rst, "Worked example: SACK".
EXAMPLE_SACK = "".join((
    "45 b8 00 50 12 34 40 00 40 11 98 5d c0 a8 07 02",
    "c0 a8 07 01 e0 01 12 b7 00 3c 00 00 dc 00 ff ff",
    "00 00 00 12 00 00 01 03 00 20 00 00 c0 a5 00 00",
    "00 00 00 00 00 00 01 03 00 20 00 01 00 00 00 00",
    "00 00 00 06 12 34 00 02 00 00 00 10 60 c3 53 cd",
)).replace(" ", "")


def cmd_selftest(_args):
    failures = 0

    def check(what, cond):
        nonlocal failures
        print(f"{'ok' if cond else 'FAIL'}: {what}")
        failures += 0 if cond else 1

    tgt = Target(None)
    tgt.kv = {"QPN": "0x11", "RQ_PSN": "0x103", "RKEY": "0x12a05",
              "ADDR": "0x7f3a00002000"}
    spec = ("op=0xcb tsh=1 msn=2 rqmsn=1 ts=0x1234 tsflags=0x0001 "
            "data=68656c6c6f imm=0xcafef00d sport=0xc0a5 tos=0x22")
    whole = build(spec, tgt, "192.168.7.1", "192.168.7.2", 0x1234).data
    ip = whole[:IPV4_HLEN]
    udp = whole[IPV4_HLEN:IPV4_HLEN + UDP_HLEN]
    content = whole[IPV4_HLEN + UDP_HLEN:-ICRC_LEN]
    check("WRITE Only with Immediate example, byte for byte",
          whole.hex() == EXAMPLE_WRITE)
    check("its ICRC is 0xA60E32D1",
          icrc(ip, udp, content) == 0xA60E32D1)

    data = bytes.fromhex(EXAMPLE_SACK)
    reply = Reply(data)
    check("SACK example decodes with a good ICRC", reply.ok)
    check("SACK example fields",
          reply.kind == "sack" and reply.f["cack"] == 0x103 and
          reply.f["m"] == 1 and reply.f["pr"] == 0 and
          reply.f["ev"] == 0xC0A50000 and reply.f["mpr"] == 0x20 and
          reply.f["sackoff"] == 1 and reply.f["bitmap"] == 6 and
          reply.f["ccts"] == 0x1234 and reply.f["ooo"] == 2 and
          reply.f["rcv"] == 16)
    rebuilt = ipv4_header("192.168.7.2", "192.168.7.1", 80, 0xB8, 0x1234, 64)
    rebuilt += udp_header(0xE001, UDP_PORT, 60)
    body = (bth(OP_SACK, 0x12, 0x103) +
            seth(1 << SETH_M_SHIFT, 0, 0xC0A50000, 0x103, 0x20, 1, 6) +
            cc_state(0x1234, 2, 16))
    rebuilt += body + struct.pack("<I", icrc(rebuilt[:20], rebuilt[20:28],
                                             body))
    check("SACK example rebuilt byte for byte", rebuilt == data)
    bad = bytearray(data)
    bad[-1] ^= 1
    check("a flipped ICRC bit is detected", not Reply(bytes(bad)).ok)
    masked = bytearray(data)
    masked[1] = 0xB9	# ECN bits: masked by the ICRC (TOS)
    masked[8] = 3	# TTL
    masked[32] = 0x77	# BTH byte 4
    check("TOS, TTL and BTH byte 4 are masked", not any(
        p == "bad ICRC" for p in Reply(bytes(masked)).problems))
    covered = bytearray(data)
    covered[4] ^= 1	# IP ID
    check("the IP ID is covered", "bad ICRC" in Reply(bytes(covered)).problems)
    check("payload pattern is not periodic in 256",
          payload(3, 512)[:256] != payload(3, 512)[256:])
    print(f"RESULT {'ok' if not failures else 'fail'}")
    return 1 if failures else 0


class ForgeTarget(Target):
    """A QP known only by its number (forge): no MR, no PSN base."""

    def __init__(self, qpn, port):
        super().__init__(None)
        self.kv = {"QPN": str(qpn), "UDP_PORT": str(port)}


def forge_socket(src, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
    sock.bind((src, port))
    return sock


def cmd_forge(args):
    tgt = ForgeTarget(args.qpn, args.dport)
    socks = {}
    sends = []
    for text in args.packets:
        # A packet's own sport= gets a socket of its own on that port.
        want = parse_spec(text).get("sport")
        port = parse_num(want, what="sport") if want else args.sport
        if port not in socks:
            socks[port] = forge_socket(args.src, port)
        sock = socks[port]
        real = sock.getsockname()[1]
        # What the kernel will write: ID 0 (DF, unconnected), its port.
        spec = " ".join(t for t in text.split() if not t.startswith("sport="))
        pkt = build(f"{spec} sport={real} ipid=0", tgt, args.src, args.dst, 0)
        sends.append((sock, pkt.data[IPV4_HLEN + UDP_HLEN:]))
    if args.wait_file:
        print("ARMED", flush=True)
        while not os.path.exists(args.wait_file):
            time.sleep(0.01)
    n = 0
    for _ in range(args.count):
        for sock, data in sends:
            sock.sendto(data, (args.dst, args.dport))
            n += 1
    ports = ",".join(str(s.getsockname()[1]) for s in socks.values())
    print(f"FORGED n={n} sport={ports}")
    return 0


def make_parser():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[2:]))
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("selftest")
    sub.add_parser("serve")
    send = sub.add_parser("send")
    send.add_argument("--info", required=True)
    send.add_argument("--src", required=True)
    send.add_argument("--dst", required=True)
    send.add_argument("--fence", action="store_true")
    send.add_argument("--fence-cack")
    send.add_argument("--expect", action="append", default=[])
    send.add_argument("--timeout", type=float, default=20.0)
    send.add_argument("packets", nargs="*")
    forge = sub.add_parser("forge")
    forge.add_argument("--dst", required=True)
    forge.add_argument("--src", required=True)
    forge.add_argument("--qpn", type=lambda x: int(x, 0), required=True)
    forge.add_argument("--sport", type=lambda x: int(x, 0), default=0)
    forge.add_argument("--dport", type=lambda x: int(x, 0), default=UDP_PORT)
    forge.add_argument("--count", type=lambda x: int(x, 0), default=1)
    forge.add_argument("--wait-file")
    forge.add_argument("packets", nargs="+")
    model = sub.add_parser("model")
    model.add_argument("--len", type=lambda x: int(x, 0), required=True)
    model.add_argument("--write", action="append", default=[])
    model.add_argument("--maybe", action="append", default=[])
    model.add_argument("--region")
    return parser


def dispatch(args):
    try:
        if args.cmd == "selftest":
            return cmd_selftest(args)
        if args.cmd == "model":
            return cmd_model(args)
        if args.cmd == "send":
            return cmd_send(args)
        if args.cmd == "forge":
            return cmd_forge(args)
        print(f"RESULT fail '{args.cmd}' cannot run here")
        return 2
    except SpecError as exc:
        print(f"RESULT fail spec: {exc}")
        return 2


def serve(run):
    """The packet server (pkt_lib.sh): reads lines "PREFIX ARG..." from
    stdin, runs run(ARGS) with its output in PREFIX.out and writes its exit
    status to PREFIX.rc (renamed into place, so that PREFIX.rc appearing
    means done), until end of input."""
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
                    rc = run(argv)
                except SystemExit as exc:	# argparse
                    rc = exc.code if isinstance(exc.code, int) else 2
                except Exception as exc:	# pylint: disable=broad-except
                    print(f"RESULT fail {type(exc).__name__}: {exc}")
                    rc = 2
        with open(prefix + ".rc.tmp", "w", encoding="ascii") as f:
            f.write(f"{rc}\n")
        os.rename(prefix + ".rc.tmp", prefix + ".rc")
    return 0


def cmd_serve(parser):
    hold_port(UDP_PORT)
    return serve(lambda argv: dispatch(parser.parse_args(argv)))


def main():
    parser = make_parser()
    args = parser.parse_args()
    if args.cmd == "serve":
        return cmd_serve(parser)
    return dispatch(args)


if __name__ == "__main__":
    sys.exit(main())
