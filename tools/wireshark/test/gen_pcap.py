#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write a pcap of crafted MRC packets (layouts: Documentation/mrc/wire-format.rst).

  gen_pcap.py OUT.pcap              the test capture (frames(): numbered list)
  gen_pcap.py --snaplen N OUT.pcap  the same, each frame captured to N bytes
  gen_pcap.py --cuts OUT.pcap       some frames cut at every length; prints the
                                    numbers of the frames that are malformed
  gen_pcap.py --hex                 the worked examples of wire-format.rst

Standard library only.  The ICRC is the RoCEv2 one (see icrc()).
"""

import struct
import sys
import zlib

UDP_PORT = 4791
DSCP_NO_TRIM, DSCP_TRIMMABLE, DSCP_TRIMMABLE_RETX = 0, 8, 16
DSCP_TRIMMED, DSCP_TRIMMED_LASTHOP, DSCP_CONTROL = 24, 26, 46
NOT_ECT, ECT0 = 0, 2

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")
IP4_A, IP4_B = bytes([192, 168, 7, 1]), bytes([192, 168, 7, 2])
IP6_A = bytes.fromhex("fd00000000000000000000000000000a")
IP6_B = bytes.fromhex("fd00000000000000000000000000000b")


# ---- MRC headers ----

def bth(op, dqpn, psn, pkey=0xFFFF, padcnt=0, ackreq=0, r=0, rtx=0, tsh=0,
        se=0, mig=0, tver=0, resv8a=0, low4=0):
    b1 = se << 7 | mig << 6 | padcnt << 4 | tver
    b8 = ackreq << 7 | r << 6 | rtx << 5 | tsh << 4 | low4
    return struct.pack("!BBHB", op, b1, pkey, resv8a) + dqpn.to_bytes(3, "big") + \
        bytes([b8]) + psn.to_bytes(3, "big")


def meth(rqmsn, msn):
    return struct.pack("!HH", rqmsn, msn)


def tseth(ts, tsr=0, ftype=1):
    return struct.pack("!HH", ts, tsr << 15 | ftype)


def reth(va, rkey, dmalen):
    return struct.pack("!QII", va, rkey, dmalen)


def immdt(imm):
    return struct.pack("!I", imm)


def aeth(syndrome, msn):
    return struct.pack("!I", syndrome << 24 | msn)


def seth(cack_psn, entropy, m=0, pr=0, ack_psn_off=0, mpr=32, sack_off=1,
         bitmap=0, scid=0, dcid=0, cc_type=0, cc_flags=0):
    flags = m << 5 | pr << 1
    return struct.pack("!HhIHHB", flags, ack_psn_off, entropy, scid, dcid, 0) + \
        cack_psn.to_bytes(3, "big") + \
        struct.pack("!BBhQ", cc_type << 4 | cc_flags, mpr, sack_off, bitmap)


def cc_state(ts, ooo=0, rc=0, pen=0, rcvd_bytes=0):
    return struct.pack("!HHI", ts, ooo & 0x7FFF, rc << 31 | pen << 24 | rcvd_bytes)


def neth(reason, nack_psn, entropy, vendor=0, ts=0, scid=0, dcid=0, cc=0):
    return struct.pack("!HBBIHHB", 0, reason, vendor, entropy, scid, dcid, 0) + \
        nack_psn.to_bytes(3, "big") + struct.pack("!BBH", cc, 0, ts)


def peth(probe_id, ts=0, vendor=0, scid=0, dcid=0, tsr=0, ftype=1):
    return bytes(3) + struct.pack("!BHHHHHH", vendor, probe_id, 0, scid, dcid, ts,
                                  tsr << 15 | ftype)


def erth(op, port_status_mask, ts=0, vendor=0, tsr=1, ftype=1):
    return struct.pack("!HBBIIHH", 0, op & 3, vendor, port_status_mask, 0, ts,
                       tsr << 15 | ftype)


def eeth(op, port_status_mask, entropy, req_port, req_ts, svc_time, sv=1,
         vendor=0, tsr=1, ftype=1):
    return struct.pack("!HBBIIB3sHHI12s", 0, sv << 7 | (op & 3), vendor,
                       port_status_mask, entropy, req_port, bytes(3), req_ts,
                       tsr << 15 | ftype, svc_time, bytes(12))


def ev(sport, flow_label=0):
    """32-bit EV as SETH/NETH carry it: UDP sport in 31:16, flow label in 15:0."""
    return sport << 16 | (flow_label & 0xFFFF)


# ---- IP / UDP / Ethernet / ICRC ----

def ip_csum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(src, dst, dscp, ecn, payload, ttl=64, ident=0x1234):
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2 | ecn,
                              20 + len(payload), ident, 0x4000, ttl, 17, 0, src, dst))
    h[10:12] = struct.pack("!H", ip_csum(bytes(h)))
    return bytes(h) + payload


def ipv6(src, dst, dscp, ecn, payload, hlim=64, flow=0):
    w0 = 6 << 28 | (dscp << 2 | ecn) << 20 | flow
    return struct.pack("!IHBB", w0, len(payload), 17, hlim) + src + dst + payload


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def icrc(ip_udp_mrc):
    """RoCEv2 ICRC of IP + UDP + MRC bytes (ICRC slot excluded), as 4 wire bytes.

    CRC-32 (zlib's) over 8 x 0xFF, the IP header with IPv4 TOS/TTL/checksum or
    IPv6 traffic class/flow label/hop limit set to ones, UDP with the checksum
    set to ones, BTH with byte 4 set to ones, then the rest; sent LSB first.
    """
    d = bytearray(ip_udp_mrc)
    if d[0] >> 4 == 4:
        hl = (d[0] & 0xF) * 4
        d[1] = 0xFF
        d[8] = 0xFF
        d[10:12] = b"\xff\xff"
    else:
        hl = 40
        d[0] |= 0x0F
        d[1:4] = b"\xff\xff\xff"
        d[7] = 0xFF
    d[hl + 6:hl + 8] = b"\xff\xff"
    d[hl + 8 + 4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(d)))


def packet(mrc, sport, dscp, ecn, v6=False, dport=UDP_PORT, with_icrc=True,
           bad_icrc=False, a_to_b=True):
    """Ethernet frame around MRC bytes (BTH .. pad); appends the ICRC."""
    src, dst = (IP6_A, IP6_B) if v6 else (IP4_A, IP4_B)
    if not a_to_b:
        src, dst = dst, src
    tail = bytes(4) if with_icrc else b""
    mk = ipv6 if v6 else ipv4
    ip = mk(src, dst, dscp, ecn, udp(sport, dport, mrc + tail))
    if with_icrc:
        crc = icrc(ip[:-4])
        if bad_icrc:
            crc = bytes([crc[0] ^ 0x01]) + crc[1:]
        ip = ip[:-4] + crc
    eth = (MAC_B + MAC_A) if a_to_b else (MAC_A + MAC_B)
    return eth + struct.pack("!H", 0x86DD if v6 else 0x0800) + ip


def pad(payload):
    n = -len(payload) % 4
    return payload + bytes(n), n


def write_pkt(op, dqpn, psn, msn, rqmsn, va, rkey, dmalen, payload, sport,
              dscp=DSCP_TRIMMABLE, ecn=ECT0, ts=None, imm=None, rtx=0, ackreq=0,
              v6=False, **kw):
    body, padcnt = pad(payload)
    hdr = bth(op, dqpn, psn, padcnt=padcnt, ackreq=ackreq, rtx=rtx,
              tsh=int(ts is not None)) + meth(rqmsn, msn)
    if ts is not None:
        hdr += tseth(ts)
    hdr += reth(va, rkey, dmalen)
    if imm is not None:
        hdr += immdt(imm)
    return packet(hdr + body, sport, dscp, ecn, v6=v6, **kw)


def ctl_pkt(mrc, sport, v6=False, **kw):
    return packet(mrc, sport, DSCP_CONTROL, NOT_ECT, v6=v6, a_to_b=False, **kw)


# ---- the test capture ----

QP_B = 0x000011      # responder QP on B
QP_A = 0x000012      # requester QP on A
RKEY = 0x00012A05
VA = 0x00007F3A00001000
MSG3 = bytes((i * 7) & 0xFF for i in range(3001))


def example_write_only_imm():
    return write_pkt(0xCB, QP_B, 0x000103, msn=2, rqmsn=1, va=0x00007F3A00002000,
                     rkey=RKEY, dmalen=5, payload=b"hello", sport=0xC0A5,
                     ts=0x1234, imm=0xCAFEF00D)


def example_sack():
    return ctl_pkt(bth(0xDC, QP_A, 0x000103) +
                   seth(0x000103, ev(0xC0A5), m=1, ack_psn_off=0, mpr=32,
                        sack_off=1, bitmap=0x6) +
                   cc_state(0x1234, ooo=2, rcvd_bytes=16), sport=0xE001)


# (frame, description, bytes); check.sh refers to the frame numbers.
def frames():
    f = []
    # 1-3: a 3001-byte WRITE of three packets (PMTU 1024); 2 carries TSETH,
    # 3 has PadCnt 3 and asks for a SACK.
    f.append(write_pkt(0xC6, QP_B, 0x000100, 1, 0, VA, RKEY, 3001, MSG3[:1024], 0xC001))
    f.append(write_pkt(0xC7, QP_B, 0x000101, 1, 0, VA + 1024, RKEY, 3001,
                       MSG3[1024:2048], 0xC002, ts=0xFFFE))
    f.append(write_pkt(0xC8, QP_B, 0x000102, 1, 0, VA + 2048, RKEY, 3001,
                       MSG3[2048:], 0xC003, ackreq=1))
    # 4: worked example, WRITE Only with Immediate, TSETH, IPv4
    f.append(example_write_only_imm())
    # 5: WRITE Only with Immediate, no TSETH, retransmitted, IPv6, RETX class
    f.append(write_pkt(0xCB, QP_B, 0x000103, 2, 1, 0x00007F3A00002000, RKEY, 5,
                       b"hello", 0xC0A6, dscp=DSCP_TRIMMABLE_RETX, imm=0xCAFEF00D,
                       rtx=1, v6=True))
    # 6: zero-length WRITE Only
    f.append(write_pkt(0xCA, QP_B, 0x000104, 3, 1, 0, 0, 0, b"", 0xC0A7))
    # 7: WRITE Last with Immediate
    f.append(write_pkt(0xC9, QP_B, 0x000105, 4, 2, VA + 1024, RKEY, 1030,
                       b"\x01\x02\x03\x04\x05\x06", 0xC0A8, imm=0x01020304, ts=0x0007))
    # 8: worked example SACK
    f.append(example_sack())
    # 9: SACK answering probe 0x0042 (frame 11: its EV and timestamp),
    # M=SKIP_ONCE, negative sack_offset
    f.append(ctl_pkt(bth(0xDC, QP_A, 0x000105) +
                     seth(0x000105, ev(0xC0B1), m=1, pr=1, ack_psn_off=0x0042,
                          mpr=32, sack_off=-2, bitmap=0x8000000000000001) +
                     cc_state(0x3333, rc=1, pen=5, rcvd_bytes=0xABCDEF), sport=0xE002))
    # 10: NACK PSN_OOR_WINDOW
    f.append(ctl_pkt(bth(0xDD, QP_A, 0x001200) +
                     neth(0x0B, 0x001200, ev(0xC0B0), ts=0x2222), sport=0xE003))
    # 11: PROBE, id 0x0042 in PSN[15:0] and PETH
    f.append(packet(bth(0xDE, QP_B, 0x000042) + peth(0x0042, ts=0x3333), 0xC0B1,
                    DSCP_TRIMMABLE, NOT_ECT))
    # 12: semantic ACK, MSN 4, BTH PSN = last PSN of message 4
    f.append(ctl_pkt(bth(0xD1, QP_A, 0x000105) + aeth(0x1F, 4), sport=0xE004))
    # 13: semantic NAK remote access error
    f.append(ctl_pkt(bth(0xD1, QP_A, 0x000106) + aeth(0x62, 4), sport=0xE005))
    # 14: an RC RDMA WRITE Only (RoCEv2) on the same port: not MRC
    f.append(packet(bth(0x0A, QP_B, 0x000200) + reth(VA, RKEY, 4) + b"abcd",
                    0xC0C0, 0, ECT0))
    # 15: truncated inside BTH
    f.append(packet(bth(0xCA, QP_B, 0x000300)[:8], 0xC0C1, DSCP_TRIMMABLE, ECT0,
                    with_icrc=False))
    # 16: truncated inside RETH
    f.append(packet((bth(0xCA, QP_B, 0x000301) + meth(0, 5) + reth(VA, RKEY, 4))[:26],
                    0xC0C2, DSCP_TRIMMABLE, ECT0, with_icrc=False))
    # 17: SACK without CC_STATE and ICRC
    f.append(packet(bth(0xDC, QP_A, 0x000103) + seth(0x000103, ev(0xC0A5)), 0xE006,
                    DSCP_CONTROL, NOT_ECT, with_icrc=False))
    # 18: PadCnt 3 but a single byte before the ICRC
    f.append(packet(bth(0xCA, QP_B, 0x000302, padcnt=3) + meth(0, 6) +
                    reth(VA, RKEY, 1) + b"\x00", 0xC0C3, DSCP_TRIMMABLE, ECT0))
    # 19: trimmed by a switch: cut after RETH, DSCP TRIMMED (not malformed)
    f.append(packet(bth(0xC6, QP_B, 0x000303, tsh=1) + meth(0, 7) + tseth(0x0101) +
                    reth(VA, RKEY, 8192), 0xC0C4, DSCP_TRIMMED, ECT0, with_icrc=False))
    # 20: endpoint request on QP 0x2, request id 0x0007: Port Status Update,
    # the sender's ports 2 and 5 are down
    f.append(packet(bth(0xD8, 0x000002, 0x000007) + erth(0, 0x00000024, ts=0x0123),
                    0xC0C5, DSCP_CONTROL, NOT_ECT))
    # 21: undefined opcode of the MRC space
    f.append(packet(bth(0xC0, QP_B, 0x000304) + bytes(8), 0xC0C6, DSCP_TRIMMABLE, ECT0))
    # 22: WRITE Only on another UDP port (decoded with -o mrc.udp_port:5000)
    f.append(write_pkt(0xCA, QP_B, 0x000305, 8, 2, VA, RKEY, 4, b"wxyz", 0xC0C7,
                       dport=5000))
    # 23: WRITE Only with a corrupted ICRC
    f.append(write_pkt(0xCA, QP_B, 0x000306, 9, 2, VA, RKEY, 4, b"wxyz", 0xC0C8,
                       bad_icrc=True))
    # 24: WRITE Only with Immediate trimmed at the last hop before its ImmDt
    f.append(packet(bth(0xCB, QP_B, 0x000307) + meth(3, 10) + reth(VA, RKEY, 4),
                    0xC0C9, DSCP_TRIMMED_LASTHOP, ECT0, with_icrc=False))
    # 25: EV probe request, IPv6, request id 0x0100, on EV 0xC0D0
    f.append(packet(bth(0xD8, 0x000002, 0x000100) + erth(1, 0, ts=0x0456), 0xC0D0,
                    DSCP_CONTROL, NOT_ECT, v6=True))
    # 26: its response: back on the same EV, the request's timestamp echoed,
    # 1500 ns of service time
    f.append(ctl_pkt(bth(0xD9, 0x000002, 0x000100) +
                     eeth(1, 0, ev(0xC0D0), 1, 0x0456, 1500), sport=0xC0D0, v6=True))
    return f


# Frames of frames() that are cut at every length by --cuts.
CUT_FRAMES = (4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 26)
HDR_AFTER_BTH = {0xD1: 4, 0xD8: 16, 0xD9: 36, 0xDC: 36, 0xDD: 20, 0xDE: 16}


def unwrap(frame):
    """(MRC bytes, packet() arguments) of a frame built by packet()."""
    v6 = frame[12:14] == b"\x86\xdd"
    ip = frame[14:]
    if v6:
        tc = (struct.unpack("!I", ip[:4])[0] >> 20) & 0xFF
        ip_hl = 40
    else:
        tc = ip[1]
        ip_hl = (ip[0] & 0xF) * 4
    sport, dport = struct.unpack("!HH", ip[ip_hl:ip_hl + 4])
    a_to_b = frame[6:12] == MAC_A
    return ip[ip_hl + 8:], dict(sport=sport, dscp=tc >> 2, ecn=tc & 3, v6=v6,
                                dport=dport, a_to_b=a_to_b)


def cut_frames():
    """Each CUT_FRAMES frame cut to every shorter UDP payload (lengths kept
    consistent), and the numbers of the resulting frames a decoder must call
    malformed: too short for BTH, the opcode's headers, PadCnt and the ICRC."""
    out, bad = [], []
    full = frames()
    for n in CUT_FRAMES:
        mrc, kw = unwrap(full[n - 1])
        op, padcnt, tsh = mrc[0], (mrc[1] >> 4) & 3, mrc[8] >> 4 & 1
        if 0xC6 <= op <= 0xCB:
            need = 12 + 4 + 4 * tsh + 16 + 4 * (op in (0xC9, 0xCB)) + padcnt + 4
        else:
            need = 12 + HDR_AFTER_BTH[op] + 4
        for cut in range(1, len(mrc)):
            out.append(packet(mrc[:cut], with_icrc=False, **kw))
            if cut < need:
                bad.append(len(out))
    return out, bad


def write_pcap(path, pkts, snaplen=65535):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1))
        for i, p in enumerate(pkts):
            cap = p[:snaplen]
            out.write(struct.pack("<IIII", 1764547200, i * 1000, len(cap), len(p)))
            out.write(cap)


def hexdump(p, first=0):
    lines = []
    for o in range(first, len(p), 16):
        chunk = p[o:o + 16]
        lines.append("%04x  %s" % (o - first, " ".join("%02x" % b for b in chunk)))
    return "\n".join(lines)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--hex":
        for name, p in (("WRITE Only with Immediate", example_write_only_imm()),
                        ("SACK", example_sack())):
            print("%s (from the IPv4 header on):" % name)
            print(hexdump(p, 14))
            print()
        return 0
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--cuts":
        pkts, bad = cut_frames()
        write_pcap(args[1], pkts)
        print(" ".join(str(n) for n in bad))
        return 0
    if len(args) == 3 and args[0] == "--snaplen":
        write_pcap(args[2], frames(), int(args[1]))
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    write_pcap(args[0], frames())
    return 0


if __name__ == "__main__":
    sys.exit(main())
