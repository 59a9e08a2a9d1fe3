#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mrc_pcap.py: the MRC wire format as the selftests read it, and what
failover_test.sh and forge_test.sh assert, read from packet captures.

The one decoder of the selftests (Documentation/mrc/wire-format.rst): the
wire constants, the ICRC, decode() for one IPv4 / UDP / MRC packet (its
BTH and the extension headers of ACK, SACK + CC_STATE, NACK, ERTH and
EETH) and the pcap reader.  crafted_pkt.py and ep_pkt.py build packets and
read their replies through it; the shell tests decode through it or
through the Wireshark dissector (tools/wireshark/mrc.lua).

The commands read tcpdump's pcap files (Ethernet, or Linux cooked v1/v2
from -i any; v2 gives the interface index).  Event files are `mrcctl -j
monitor` output (one JSON object per line; an ev-event's "timestamp" is
the kernel's time of the change).  Each command prints "key value" lines
for the shell to assert on.  Stdlib only.

  mrc_pcap.py sports --src IP FILE...
      sport N          every UDP source port of an MRC packet from IP
      psn_last N       the PSN of its last data packet
  mrc_pcap.py payload --cap FILE --src IP --mul M --add A
                      --region BASE:LEN:OFF...
      Every data packet from IP (whole packets captured) against what its
      sender posted: LEN bytes at remote address BASE from offset OFF of
      a buffer whose byte i is (M * i + A) & 0xff: "data N", "rtx N",
      "bytes N" (payload), "bad N" (payloads that differ), "stray N"
      (payloads to addresses no region covers).
  mrc_pcap.py cut --cap FILE --far FILE --events FILE --src IP --port P
                  --sports N,N... --value-base N
                  --t-cut0 NS --t-cut1 NS --t-up0 NS
      The link-cut case: which packets of the EVs of --sports (captured
      at IP's host, --cap) crossed the link (captured past it, --far);
      per EV, its condemnation (ev-event, by its kernel timestamp), what
      it carried until a probe on it was answered after the link came
      back, and the recovery figures.
  mrc_pcap.py window --cap FILE --src IP --from NS --to NS
                     [--sports N,N...] [--ifindex N] [--settle N]
      count of data and probe packets from IP (on those EVs, or on that
      interface) captured inside (from, to), and after to: before/inside/after.
      --settle N: the first N data packets from IP (on any EV) captured
      after from count nowhere: the requester builds a batch of packets
      under its lock and sends them after it, so up to one batch built
      before a change made at from leaves after it.
  mrc_pcap.py ep --cap FILE --src IP --dst IP
      the endpoint packets between two hosts, one line each:
      "ep TIME_NS OPCODE OP PORT_STATUS ID".
"""

import argparse
import json
import socket
import struct
import zlib

# --- the wire format ---------------------------------------------------------

UDP_PORT = 4791
IPV4_HLEN = 20
UDP_HLEN = 8
BTH_LEN = 12
ICRC_LEN = 4
IPPROTO_UDP = 17

OP_WRITE_FIRST = 0xC6
OP_WRITE_MIDDLE = 0xC7
OP_WRITE_LAST = 0xC8
OP_WRITE_LAST_IMM = 0xC9
OP_WRITE_ONLY = 0xCA
OP_WRITE_ONLY_IMM = 0xCB
OP_ACK = 0xD1
OP_EP_REQUEST = 0xD8
OP_EP_RESPONSE = 0xD9
OP_SACK = 0xDC
OP_NACK = 0xDD
OP_PROBE = 0xDE
WRITE_OPS = range(OP_WRITE_FIRST, OP_WRITE_ONLY_IMM + 1)
IMM_OPS = (OP_WRITE_LAST_IMM, OP_WRITE_ONLY_IMM)

PSN_MASK = 0xFFFFFF
SETH_LEN = 28
CC_STATE_LEN = 8
NETH_LEN = 20
PETH_LEN = 16
AETH_LEN = 4
AETH_ACK = 0x1F
SETH_PR = 0x0002
SETH_M_SHIFT = 5
EV_SHIFT = 16
DSCP_CONTROL = 46	# rdma_mrc's defaults; the info file may say others
CONTROL_PKEY = 0xFFFF
TSETH_DEFAULT_FLAGS = 0x8001	# TSR (coarse units) | ftype 1
QPN_ENDPOINT = 2
ERTH_LEN = 16
EETH_LEN = 36
EP_OP_MASK = 0x03
EETH_SV = 0x80
EP_ID_MASK = 0xFFFF		# an endpoint request's id: BTH PSN[15:0]

PCAP_MAGIC_US = 0xA1B2C3D4
PCAP_MAGIC_NS = 0xA1B23C4D
PCAP_HDR = struct.Struct("<IHHiIII")
PCAP_REC = struct.Struct("<IIII")
LINKTYPE_ETHERNET = 1
LINKTYPE_LINUX_SLL = 113
LINKTYPE_LINUX_SLL2 = 276
ETH_HLEN = 14
SLL_HLEN = 16
SLL2_HLEN = 20
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
IPV6_HLEN = 40
NSEC_PER_SEC = 1000000000
NSEC_PER_USEC = 1000

# Byte offsets in the BTH and bits of its bytes 1 and 8.
BTH_FLAGS = 1
BTH_PADCNT_MASK = 0x30
BTH_PADCNT_SHIFT = 4
BTH_ACK_FLAGS = 8
BTH_RTX = 0x20
BTH_TSH = 0x10
METH_LEN = 4
TSETH_LEN = 4
RETH_LEN = 16
IMMDT_LEN = 4

# The layouts: BTH, AETH, SETH, CC_STATE, NETH, PETH, ERTH, EETH (fields
# named in decode order below; 3-byte fields are bytes).
BTH = struct.Struct("!BBHB3sB3s")
AETH = struct.Struct("!I")
SETH = struct.Struct("!HHIHHB3sBBHQ")
CC_STATE = struct.Struct("!HHI")
NETH = struct.Struct("!HBBIHHB3sBBH")
PETH = struct.Struct("!3sBHHHHHH")
ERTH = struct.Struct("!HBBIIHH")
EETH = struct.Struct("!HBBIIB3sHHI12s")


def icrc(ip_hdr, udp_hdr, rest):
    """The ICRC of a packet: rest is from the BTH to just before the ICRC."""
    ip = bytearray(ip_hdr)
    ip[1] = 0xFF		# TOS
    ip[8] = 0xFF		# TTL
    ip[10:12] = b"\xff\xff"	# header checksum
    udp = bytearray(udp_hdr)
    udp[6:8] = b"\xff\xff"	# UDP checksum
    body = bytearray(rest)
    if len(body) > 4:
        body[4] = 0xFF		# BTH byte 4
    return zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(body))


# --- one packet, decoded ----------------------------------------------------

def be(b):
    """A big-endian field of bytes (the 3-byte ones) as a number."""
    return int.from_bytes(b, "big")


def bth_fields(content):
    """The BTH at the start of content: op, flags (byte 1), pkey, byte4,
    dqpn, byte8, psn."""
    op, flags, pkey, byte4, dqpn, byte8, psn = BTH.unpack_from(content)
    return {"op": op, "flags": flags, "pkey": pkey, "byte4": byte4,
            "dqpn": be(dqpn), "byte8": byte8, "psn": be(psn)}


def _aeth(hdr):
    (smsn,) = AETH.unpack_from(hdr)
    return {"syn": smsn >> 24, "msn": smsn & PSN_MASK}


def _sack(hdr):
    (flags, ackoff, ev, _, _, dups, cack, cc, mpr, sackoff,
     bitmap) = SETH.unpack_from(hdr)
    f = {"flags": flags, "m": (flags >> SETH_M_SHIFT) & 3,
         "pr": int(bool(flags & SETH_PR)), "ackoff": ackoff, "ev": ev,
         "dups": dups,
         "cack": be(cack), "cc": cc, "mpr": mpr, "sackoff": sackoff,
         "bitmap": bitmap}
    if len(hdr) >= SETH_LEN + CC_STATE_LEN:
        ts, ooo, rcv = CC_STATE.unpack_from(hdr, SETH_LEN)
        f.update(ccts=ts, ooo=ooo, rcv=rcv)
    return f


def _nack(hdr):
    (_, reason, _, ev, _, _, _, npsn, _, _, ts) = NETH.unpack_from(hdr)
    return {"reason": reason, "ev": ev, "nackpsn": be(npsn), "ts": ts}


def _probe(hdr):
    (_, _, probe_id, _, _, _, ts, ts_flags) = PETH.unpack_from(hdr)
    return {"probe_id": probe_id, "ts": ts, "ts_flags": ts_flags}


def _ep_request(hdr):
    (_, op, _, mask, _, ts, ts_flags) = ERTH.unpack_from(hdr)
    return {"op": op & EP_OP_MASK, "mask": mask, "ts": ts,
            "ts_flags": ts_flags}


def _ep_response(hdr):
    (_, opb, _, mask, entropy, port, _, ts, ts_flags, svc,
     _) = EETH.unpack_from(hdr)
    return {"op": opb & EP_OP_MASK, "sv": opb >> 7, "mask": mask,
            "entropy": entropy, "req_port": port, "req_ts": ts,
            "req_ts_flags": ts_flags, "svc_ns": svc}


# Per opcode: the length of what follows the BTH and its decoder.
EXT = {
    OP_ACK: (AETH_LEN, _aeth),
    OP_SACK: (SETH_LEN + CC_STATE_LEN, _sack),
    OP_NACK: (NETH_LEN, _nack),
    OP_PROBE: (PETH_LEN, _probe),
    OP_EP_REQUEST: (ERTH_LEN, _ep_request),
    OP_EP_RESPONSE: (EETH_LEN, _ep_response),
}


def ext_fields(op, hdr, length=None):
    """What follows the BTH of a control or endpoint packet, as a dict.
    hdr: those bytes up to the ICRC, or the first of them (a capture with
    a snap length), length then being the packet's; SACK's CC_STATE is
    decoded if captured.  None for other opcodes, a length not theirs, or
    too little captured."""
    row = EXT.get(op)
    if row is None or (len(hdr) if length is None else length) != row[0]:
        return None
    try:
        return row[1](hdr)
    except struct.error:
        return None


class Decoded:
    """One IPv4 / UDP / MRC packet, from the IP header on (an IPv4 packet
    as a raw socket reads it): ip_len, tos, dscp, ecn, ttl, src, dst;
    sport, dport, udp_len, udp_csum; then, unless short (the UDP payload
    cannot hold a BTH and an ICRC), payload_len, icrc_ok, bth (bth_fields)
    and hdr (after the BTH, before the ICRC: ext_fields' input)."""

    def __init__(self, d):
        ihl = (d[0] & 15) * 4
        self.ip_len = struct.unpack_from("!H", d, 2)[0]
        self.tos = d[1]
        self.dscp = d[1] >> 2
        self.ecn = d[1] & 3
        self.ttl = d[8]
        self.src = socket.inet_ntoa(d[12:16])
        self.dst = socket.inet_ntoa(d[16:20])
        udp = d[ihl:ihl + UDP_HLEN]
        (self.sport, self.dport, self.udp_len,
         self.udp_csum) = struct.unpack("!HHHH", udp)
        rest = d[ihl + UDP_HLEN:ihl + self.udp_len]
        self.payload_len = len(rest)
        self.short = len(rest) < BTH_LEN + ICRC_LEN
        if self.short:
            return
        content, wire = rest[:-ICRC_LEN], rest[-ICRC_LEN:]
        self.icrc_ok = struct.unpack("<I", wire)[0] == \
            icrc(d[:ihl], udp, content)
        self.bth = bth_fields(content)
        self.hdr = content[BTH_LEN:]

    def ext(self):
        return None if self.short else ext_fields(self.bth["op"], self.hdr)


# --- captures ---------------------------------------------------------------

class Pkt:
    """One captured MRC packet: where, when, and its headers."""

    __slots__ = ("t", "ifindex", "src", "dst", "sport", "op", "rtx", "psn",
                 "mrc", "hdr_len")

    def __init__(self, t, ifindex, src, dst, sport, mrc, udp_len):
        self.t = t
        self.ifindex = ifindex
        self.src = src
        self.dst = dst
        self.sport = sport
        self.mrc = mrc		# the UDP payload, as far as captured
        # What follows the BTH up to the ICRC, by the UDP header.
        self.hdr_len = udp_len - UDP_HLEN - BTH_LEN - ICRC_LEN
        bth = bth_fields(mrc)
        self.op = bth["op"]
        self.rtx = bool(bth["byte8"] & BTH_RTX)
        self.psn = bth["psn"]

    def ext(self):
        """ext_fields of this packet, as far as captured."""
        return ext_fields(self.op,
                          self.mrc[BTH_LEN:BTH_LEN + max(self.hdr_len, 0)],
                          self.hdr_len)

    def is_data(self):
        return self.op in WRITE_OPS

    def probe_id(self):
        """A PROBE's id, or None."""
        f = self.ext() if self.op == OP_PROBE else None
        return None if f is None else f["probe_id"]

    def probe_answer(self):
        """A SACK with PR set: (probe id, entropy), or None."""
        f = self.ext() if self.op == OP_SACK else None
        if f is None or not f["pr"]:
            return None
        return (f["ackoff"], f["ev"])

    def ep(self):
        """An ERTH/EETH packet: (op, port status, request id), or None."""
        f = self.ext() if self.op in (OP_EP_REQUEST, OP_EP_RESPONSE) \
            else None
        return None if f is None else (f["op"], f["mask"],
                                       self.psn & EP_ID_MASK)


def _ip_udp(data, off, ethertype):
    """(src, dst, sport, dport, udp_len, payload) of a UDP datagram, or
    None."""
    if ethertype == ETHERTYPE_IPV4:
        if len(data) < off + 20 or data[off] >> 4 != 4:
            return None
        ihl = (data[off] & 0x0F) * 4
        if data[off + 9] != IPPROTO_UDP:
            return None
        src = socket.inet_ntop(socket.AF_INET, data[off + 12:off + 16])
        dst = socket.inet_ntop(socket.AF_INET, data[off + 16:off + 20])
        off += ihl
    elif ethertype == ETHERTYPE_IPV6:
        if len(data) < off + IPV6_HLEN or data[off + 6] != IPPROTO_UDP:
            return None
        src = socket.inet_ntop(socket.AF_INET6, data[off + 8:off + 24])
        dst = socket.inet_ntop(socket.AF_INET6, data[off + 24:off + 40])
        off += IPV6_HLEN
    else:
        return None
    if len(data) < off + UDP_HLEN:
        return None
    sport, dport, udp_len = struct.unpack_from("!HHH", data, off)
    return src, dst, sport, dport, udp_len, data[off + UDP_HLEN:]


def packets(path):
    """Every MRC packet (UDP to port 4791, a BTH captured) of a pcap file."""
    with open(path, "rb") as f:
        head = f.read(PCAP_HDR.size)
        if len(head) < PCAP_HDR.size:
            raise ValueError(f"{path}: not a pcap file")
        magic, _, _, _, _, _, linktype = PCAP_HDR.unpack(head)
        if magic not in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
            raise ValueError(f"{path}: not a little-endian pcap file")
        frac = 1 if magic == PCAP_MAGIC_NS else NSEC_PER_USEC
        while True:
            rec = f.read(PCAP_REC.size)
            if len(rec) < PCAP_REC.size:
                return
            sec, sub, incl, _ = PCAP_REC.unpack(rec)
            data = f.read(incl)
            if len(data) < incl:
                return
            ifindex = None
            if linktype == LINKTYPE_ETHERNET:
                if len(data) < ETH_HLEN:
                    continue
                ethertype = struct.unpack_from("!H", data, 12)[0]
                off = ETH_HLEN
            elif linktype == LINKTYPE_LINUX_SLL:
                if len(data) < SLL_HLEN:
                    continue
                ethertype = struct.unpack_from("!H", data, 14)[0]
                off = SLL_HLEN
            elif linktype == LINKTYPE_LINUX_SLL2:
                if len(data) < SLL2_HLEN:
                    continue
                ethertype, _, ifindex = struct.unpack_from("!HHI", data, 0)
                off = SLL2_HLEN
            else:
                raise ValueError(f"{path}: link type {linktype}")
            udp = _ip_udp(data, off, ethertype)
            if udp is None:
                continue
            src, dst, sport, dport, udp_len, payload = udp
            if dport != UDP_PORT or len(payload) < BTH_LEN:
                continue
            yield Pkt(sec * NSEC_PER_SEC + sub * frac, ifindex, src, dst,
                      sport, payload, udp_len)


def events(path):
    """The ev-events of a `mrcctl -j -t monitor` file, with their times."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            e = json.loads(line)
            if e.get("event") == "ev-event":
                out.append(e)
    return out


def num_list(text):
    return [int(x, 0) for x in text.split(",") if x]


def put(key, value):
    print(key, value)


def cmd_sports(a):
    seen = set()
    last = None
    for path in a.files:
        for p in packets(path):
            if p.src == a.src:
                seen.add(p.sport)
                if p.is_data():
                    last = p.psn
    for s in sorted(seen):
        put("sport", s)
    if last is not None:
        put("psn_last", last)


def cmd_payload(a):
    """Every data packet from --src against the pattern its sender wrote:
    byte (mul * i + add) & 0xff at offset i of what was posted, each
    --region BASE:LEN:OFF saying that LEN bytes at remote address BASE
    were posted from offset OFF."""
    regions = []
    for r in a.region:
        base, length, off = (int(x, 0) for x in r.split(":"))
        regions.append((base, length, off))
    counts = {"data": 0, "rtx": 0, "bytes": 0, "bad": 0, "stray": 0}
    for p in packets(a.cap):
        if p.src != a.src or not p.is_data():
            continue
        counts["data"] += 1
        counts["rtx"] += p.rtx
        tsh = bool(p.mrc[BTH_ACK_FLAGS] & BTH_TSH)
        reth = BTH_LEN + METH_LEN + (TSETH_LEN if tsh else 0)
        hdr = reth + RETH_LEN + (IMMDT_LEN if p.op in IMM_OPS else 0)
        pad = (p.mrc[BTH_FLAGS] & BTH_PADCNT_MASK) >> BTH_PADCNT_SHIFT
        body = p.mrc[hdr:len(p.mrc) - ICRC_LEN - pad]
        va = int.from_bytes(p.mrc[reth:reth + 8], "big")
        if not body:
            continue
        counts["bytes"] += len(body)
        for base, length, off in regions:
            if base <= va and va + len(body) <= base + length:
                start = off + va - base
                want = bytes((a.mul * (start + i) + a.add) & 0xFF
                             for i in range(len(body)))
                counts["bad"] += body != want
                break
        else:
            counts["stray"] += 1
    for k, v in counts.items():
        put(k, v)


def pkt_key(p):
    """What tells one packet from another on the wire: EV, opcode, PSN,
    rtx and probe id (a probe's BTH PSN is its id too)."""
    return (p.sport, p.op, p.psn, p.rtx, p.probe_id())


def crossed(sent, arrived):
    """Which packets of `sent` (captured where they left) show in
    `arrived` (captured past the link), and when: each arrival is matched
    to the earliest unmatched copy with its key sent before it.  Returns
    {index into sent: arrival time}."""
    pending = {}			# key -> indexes into sent, in time order
    events_ = [(p.t, 0, i) for i, p in enumerate(sent)]
    events_ += [(p.t, 1, i) for i, p in enumerate(arrived)]
    out = {}
    for t, kind, i in sorted(events_):
        if kind == 0:
            pending.setdefault(pkt_key(sent[i]), []).append(i)
            continue
        q = pending.get(pkt_key(arrived[i]))
        if q:
            out[q.pop(0)] = t
    return out


def ev_timeline(evs, a, cut):
    """Each EV of `cut`: its (time, state) changes by the kernel's
    timestamp, oldest first."""
    line = {s: [] for s in cut}
    for e in sorted(evs, key=lambda e: e["timestamp"]):
        if e.get("port") != a.port or "qpn" not in e:
            continue
        sport = a.value_base + int(e["value"], 16)
        if sport in line:
            line[sport].append((e["timestamp"], e["state"]))
    return line


def state_at(changes, t):
    """The state a timeline shows at t, and since when."""
    st, since = "good", 0
    for tc, s in changes:
        if tc > t:
            break
        st, since = s, tc
    return st, since


def cmd_cut(a):
    """The link-cut case of failover_test.sh; see its header.

    Its references are taken from where the cut took effect, never from
    when it was asked for (the `ip link set` itself takes up to seconds
    under TCG): which packets of the cut link's EVs crossed it comes from
    a capture past the link (--far), matched to h1's own (--cap); the
    first packet that did not is where the cut took effect, the first
    that did again after the link returned is where it ended.  EV state
    changes are ordered by their kernel timestamps, on the clock the
    captures use."""
    cut = set(num_list(a.sports))
    pkts = [p for p in packets(a.cap) if p.src == a.src or p.dst == a.src]
    sent = [p for p in pkts if p.src == a.src and p.sport in cut and
            (p.is_data() or p.op == OP_PROBE)]
    far = [p for p in packets(a.far) if p.src == a.src and p.sport in cut]
    ok = crossed(sent, far)
    lost = [p for i, p in enumerate(sent) if i not in ok and p.t >= a.t_cut0]
    # The link is down once the cut's command has returned, and until the
    # link's comes back; what a router on the way held meanwhile (waiting
    # for its neighbour, say) crosses after it.  The cut took effect after
    # the last packet that crossed before the command returned, at the
    # first one sent after it that did not.
    t_last = max((sent[i].t for i, t in ok.items() if t <= a.t_cut1),
                 default=0)
    t0 = min((p.t for i, p in enumerate(sent) if p.t > t_last and
              p.t >= a.t_cut0 and ok.get(i, a.t_up0) >= a.t_up0),
             default=None)
    put("cut_seen", 0 if t0 is None else 1)
    if t0 is None:
        t0 = a.t_cut1
    t_back = min((t for t in ok.values() if t >= a.t_up0), default=None)
    put("crossed_while_down", sum(1 for t in ok.values()
                                  if a.t_cut1 < t < a.t_up0))

    evs = events(a.events)
    put("drops", sum(e.get("drop-count", 0) for e in evs))
    line = ev_timeline(evs, a, cut)
    # Each EV of the link: ASSUMED_BAD when the link came back, since when.
    bad_at = {}
    for sport, changes in line.items():
        st, since = state_at(changes, a.t_up0)
        if st == "assumed-bad":
            bad_at[sport] = since
    put("condemned", len(bad_at))
    spurious = 0
    for e in evs:
        if (e.get("port") == a.port and "qpn" in e and
                e["state"] == "assumed-bad" and t0 < e["timestamp"] < a.t_up0 and
                a.value_base + int(e["value"], 16) not in cut):
            spurious += 1
    put("spurious", spurious)

    # Probes on the link's EVs, whether they crossed, and their answers.
    # (Before the cut was asked for the link was up: --far may start later.)
    probe_ev = {}		# probe id -> (EV, crossed, when it did)
    for i, p in enumerate(sent):
        if p.op == OP_PROBE and p.probe_id() is not None:
            probe_ev[p.probe_id()] = (p.sport, i in ok or p.t < a.t_cut0,
                                      ok.get(i, p.t))
    answers = []		# (time, EV, crossed, when it did)
    for p in pkts:
        ans = p.probe_answer() if p.dst == a.src else None
        if ans is None or ans[0] not in probe_ev:
            continue
        sport, went, t_cross = probe_ev[ans[0]]
        if ans[1] == sport << EV_SHIFT:
            answers.append((p.t, sport, went, t_cross))
    # A probe that never crossed the link cannot be answered.
    put("answered_lost", sum(1 for _, _, went, _ in answers if not went))
    # A GOOD while the link was down needs the answer of a probe that
    # crossed before the cut, after the EV's previous condemnation.
    good_unexplained = 0
    for sport, changes in line.items():
        prev_bad = 0
        for tc, st in changes:
            if st == "assumed-bad":
                prev_bad = tc
            elif (st == "good" and t0 <= tc < a.t_up0 and
                  not any(s == sport and went and prev_bad <= ta <= tc
                          for ta, s, went, _ in answers)):
                good_unexplained += 1
    put("good_unexplained", good_unexplained)
    # Recovery: the first answer to a probe that crossed once the link was
    # back, then GOOD.
    answered = {}
    for ta, sport, went, t_cross in sorted(answers):
        if sport in bad_at and went and t_cross >= a.t_up0:
            answered.setdefault(sport, ta)
    put("answered", len(answered))
    put("recovered", sum(1 for s, ta in answered.items()
                         if any(st == "good" and tc >= ta
                                for tc, st in line[s])))

    # Data on them: none from the first probe after their condemnation
    # (what the requester sends after it deciding so) until that answer,
    # some after it.  What was lost on the link was resent elsewhere.
    first_probe = {}
    for p in sent:
        if (p.op == OP_PROBE and p.sport in bad_at and
                p.t > bad_at[p.sport]):
            first_probe.setdefault(p.sport, p.t)
    data_while_bad = 0
    data_after = {}
    for p in sent:
        if not p.is_data():
            continue
        fp = first_probe.get(p.sport)
        ans = answered.get(p.sport)
        if fp is not None and p.t > fp and (ans is None or p.t < ans):
            data_while_bad += 1
        elif ans is not None and p.t > ans:
            data_after[p.sport] = data_after.get(p.sport, 0) + 1
    put("data_while_bad", data_while_bad)
    put("used_again", sum(1 for s in cut if data_after.get(s, 0) > 0))
    lost_data = {}
    for p in lost:
        if p.is_data() and p.t < a.t_up0:
            lost_data.setdefault(p.psn, p.t)
    avoid = {}
    for p in pkts:
        if (p.src == a.src and p.is_data() and p.rtx and
                p.sport not in cut and p.psn in lost_data and
                p.t > lost_data[p.psn]):
            avoid.setdefault(p.psn, p.t)
    put("lost_on_link", len(lost_data))
    put("lost_resent", len(avoid))
    last_on_link = max((p.t for p in lost if p.is_data() and p.t < a.t_up0),
                       default=t0)
    put("cut_cmd_us", (a.t_cut1 - a.t_cut0) // NSEC_PER_USEC)

    def since(t, ref):
        return -1 if t is None or ref is None else max(0, t - ref) // NSEC_PER_USEC

    put("cut_effect_us", since(t0, a.t_cut0))
    put("loss_to_first_avoiding_us", since(min(avoid.values(), default=None), t0))
    put("loss_to_last_on_link_us", since(last_on_link, t0))
    put("loss_to_all_condemned_us",
        since(max(bad_at.values()) if len(bad_at) == len(cut) else None, t0))
    put("up_to_back_us", since(t_back, a.t_up0))
    put("up_to_all_answered_us",
        since(max(answered.values()) if len(answered) == len(cut) else None,
              a.t_up0))


def cmd_window(a):
    sports = set(num_list(a.sports)) if a.sports else None
    counts = {"before": 0, "inside": 0, "after": 0}
    settle = a.settle
    for p in sorted(packets(a.cap), key=lambda p: p.t):
        if p.src != a.src or not (p.is_data() or p.op == OP_PROBE):
            continue
        if settle and p.t > a.t_from and p.is_data():
            # Built before the change, sent after it (see --settle).
            settle -= 1
            continue
        if sports is not None and p.sport not in sports:
            continue
        if a.ifindex is not None and p.ifindex != a.ifindex:
            continue
        if p.t <= a.t_from:
            counts["before"] += 1
        elif p.t < a.t_to:
            counts["inside"] += 1
        else:
            counts["after"] += 1
    for k, v in counts.items():
        put(k, v)


def cmd_ep(a):
    for p in packets(a.cap):
        if {p.src, p.dst} != {a.src, a.dst}:
            continue
        ep = p.ep()
        if ep is not None:
            print("ep", p.t, f"0x{p.op:02x}", ep[0], ep[1], ep[2],
                  "from", p.src)


def make_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sports")
    s.add_argument("--src", required=True)
    s.add_argument("files", nargs="+")
    s = sub.add_parser("cut")
    s.add_argument("--cap", required=True)
    s.add_argument("--far", required=True)
    s.add_argument("--events", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--sports", required=True)
    s.add_argument("--value-base", type=lambda x: int(x, 0), required=True)
    s.add_argument("--t-cut0", type=int, required=True)
    s.add_argument("--t-cut1", type=int, required=True)
    s.add_argument("--t-up0", type=int, required=True)
    s = sub.add_parser("window")
    s.add_argument("--cap", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--from", dest="t_from", type=int, required=True)
    s.add_argument("--to", dest="t_to", type=int, required=True)
    s.add_argument("--sports")
    s.add_argument("--ifindex", type=int)
    s.add_argument("--settle", type=int, default=0)
    s = sub.add_parser("payload")
    s.add_argument("--cap", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--mul", type=lambda x: int(x, 0), required=True)
    s.add_argument("--add", type=lambda x: int(x, 0), required=True)
    s.add_argument("--region", action="append", default=[])
    s = sub.add_parser("ep")
    s.add_argument("--cap", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--dst", required=True)
    return ap


def main():
    a = make_parser().parse_args()
    {"sports": cmd_sports, "cut": cmd_cut, "window": cmd_window,
     "payload": cmd_payload, "ep": cmd_ep}[a.cmd](a)


if __name__ == "__main__":
    main()
