#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mrc_pcap.py: what failover_test.sh asserts, read from packet captures.

Reads tcpdump's pcap files (Ethernet, or Linux cooked v1/v2 from -i any;
v2 gives the interface index) and decodes the MRC headers the checks need
(Documentation/mrc/wire-format.rst): BTH opcode, rtx and PSN, SETH PR,
probe id and entropy, PETH probe id, ERTH/EETH op and port status.  Event
files are `mrcctl -j -t monitor` output (one JSON object per line).  Each
command prints "key value" lines for the shell to assert on.  Stdlib only.

  mrc_pcap.py sports --src IP FILE...
      sport N          every UDP source port of an MRC packet from IP
  mrc_pcap.py cut --cap FILE --events FILE --src IP --port P
                  --sports N,N... --value-base N
                  --t-cut0 NS --t-cut1 NS --t-up0 NS
      The link-cut case: per EV of --sports, its condemnation after the
      cut (ev-event), what it carried until its probe was answered after
      the link came back, and the recovery figures.
  mrc_pcap.py window --cap FILE --src IP --from NS --to NS
                     [--sports N,N...] [--ifindex N]
      count of data and probe packets from IP (on those EVs, or on that
      interface) captured inside (from, to), and after to: before/inside/after.
  mrc_pcap.py ep --cap FILE --src IP --dst IP
      the endpoint packets between two hosts, one line each:
      "ep TIME_NS OPCODE OP PORT_STATUS ID".
"""

import argparse
import json
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crafted_pkt as cp  # noqa: E402  pylint: disable=wrong-import-position

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
IPPROTO_UDP = 17
NSEC_PER_SEC = 1000000000
NSEC_PER_USEC = 1000

BTH_ACK_FLAGS = 8
BTH_RTX = 0x20
BTH_PSN = 9
SETH_FLAGS_LO = 1		# the byte of SETH.flags holding PR
SETH_PR = 0x02
SETH_PROBE_ID = 2
SETH_ENTROPY = 4
PETH_PROBE_ID = 4
EP_OP = 2
EP_OP_MASK = 0x03
EP_PORT_STATUS = 4
EP_ID_MASK = 0xFFFF


class Pkt:
    """One captured MRC packet: where, when, and its headers."""

    __slots__ = ("t", "ifindex", "src", "dst", "sport", "op", "rtx", "psn",
                 "mrc")

    def __init__(self, t, ifindex, src, dst, sport, mrc):
        self.t = t
        self.ifindex = ifindex
        self.src = src
        self.dst = dst
        self.sport = sport
        self.mrc = mrc		# from the BTH on, as far as captured
        self.op = mrc[0]
        self.rtx = bool(mrc[BTH_ACK_FLAGS] & BTH_RTX)
        self.psn = int.from_bytes(mrc[BTH_PSN:BTH_PSN + 3], "big")

    def after_bth(self, off, n):
        """n bytes at off after the BTH, or None if not captured."""
        o = cp.BTH_LEN + off
        return self.mrc[o:o + n] if len(self.mrc) >= o + n else None

    def is_data(self):
        return self.op in cp.WRITE_OPS

    def probe_id(self):
        """A PROBE's id, or None."""
        b = self.after_bth(PETH_PROBE_ID, 2)
        return None if self.op != cp.OP_PROBE or b is None else \
            int.from_bytes(b, "big")

    def probe_answer(self):
        """A SACK with PR set: (probe id, entropy), or None."""
        if self.op != cp.OP_SACK:
            return None
        flags = self.after_bth(SETH_FLAGS_LO, 1)
        rest = self.after_bth(SETH_PROBE_ID, 6)
        if flags is None or rest is None or not flags[0] & SETH_PR:
            return None
        return (int.from_bytes(rest[0:2], "big"),
                int.from_bytes(rest[2:6], "big"))

    def ep(self):
        """An ERTH/EETH packet: (op, port status, request id), or None."""
        if self.op not in (cp.OP_EP_REQUEST, cp.OP_EP_RESPONSE):
            return None
        b = self.after_bth(0, EP_PORT_STATUS + 4)
        if b is None:
            return None
        return (b[EP_OP] & EP_OP_MASK,
                int.from_bytes(b[EP_PORT_STATUS:EP_PORT_STATUS + 4], "big"),
                self.psn & EP_ID_MASK)


def _ip_udp(data, off, ethertype):
    """(src, dst, sport, dport, payload) of a UDP datagram, or None."""
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
    if len(data) < off + cp.UDP_HLEN:
        return None
    sport, dport = struct.unpack_from("!HH", data, off)
    return src, dst, sport, dport, data[off + cp.UDP_HLEN:]


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
            src, dst, sport, dport, payload = udp
            if dport != cp.UDP_PORT or len(payload) < cp.BTH_LEN:
                continue
            yield Pkt(sec * NSEC_PER_SEC + sub * frac, ifindex, src, dst,
                      sport, payload)


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
    for path in a.files:
        for p in packets(path):
            if p.src == a.src:
                seen.add(p.sport)
    for s in sorted(seen):
        put("sport", s)


def cut_time(pkts, cut, after):
    """The cut as the traffic met it: the first data packet sent on one of
    the link's EVs after `after` whose PSN was resent on another EV (the
    cut command takes up to a second under TCG, too coarse a reference)."""
    resent = set()
    first = {}
    for p in pkts:
        if not p.is_data() or p.t <= after:
            continue
        if p.sport in cut:
            first.setdefault(p.psn, p.t)
        elif p.rtx and p.psn in first:
            resent.add(p.psn)
    return min((first[psn] for psn in resent), default=None)


def cmd_cut(a):
    """The link-cut case of failover_test.sh; see its header."""
    cut = set(num_list(a.sports))
    pkts = [p for p in packets(a.cap) if p.src == a.src or p.dst == a.src]
    t0 = cut_time(pkts, cut, a.t_cut0)
    put("cut_seen", 0 if t0 is None else 1)
    if t0 is None:
        t0 = a.t_cut1

    # Each EV of the link: when it was condemned for the cut (ASSUMED_BAD
    # at t0 already, or the first condemnation after it), and whether a
    # GOOD event came before the link returned.
    drops = 0
    spurious = 0
    state = {}			# EV -> (state, since) from the events
    bad_at = {}
    good_before_up = 0
    for e in events(a.events):
        drops += e.get("drop-count", 0)
        if e.get("port") != a.port or "qpn" not in e:
            continue
        sport = a.value_base + int(e["value"], 16)
        t = e["time-ns"]
        if sport in cut and sport not in bad_at and t > t0:
            prev, since = state.get(sport, ("good", 0))
            if prev == "assumed-bad":
                bad_at[sport] = since
        state[sport] = (e["state"], t)
        if e["state"] == "assumed-bad" and t > t0:
            if sport in cut:
                bad_at.setdefault(sport, t)
            elif t < a.t_up0:
                spurious += 1
        elif (e["state"] == "good" and sport in bad_at and
              bad_at[sport] < t < a.t_up0):
            good_before_up += 1
    for sport in cut:
        st, since = state.get(sport, ("good", 0))
        if sport not in bad_at and st == "assumed-bad" and since <= t0:
            bad_at[sport] = since
    put("drops", drops)
    put("condemned", len(bad_at))
    put("condemned_late", sum(1 for t in bad_at.values() if t >= a.t_up0))
    put("good_before_up", good_before_up)
    put("spurious", spurious)

    # Probe exchanges on them after their condemnation.
    probe_ev = {}		# probe id -> EV it went on (the latest)
    answered = {}		# EV of the link -> its first answer
    answered_early = 0
    for p in pkts:
        if p.src == a.src and p.op == cp.OP_PROBE:
            pid = p.probe_id()
            if pid is not None:
                probe_ev[pid] = p.sport
        elif p.dst == a.src:
            ans = p.probe_answer()
            if ans is None:
                continue
            pid, entropy = ans
            sport = probe_ev.get(pid)
            if sport not in bad_at or p.t <= bad_at[sport]:
                continue
            if entropy != sport << cp.EV_SHIFT:
                continue
            if p.t < a.t_up0:
                answered_early += 1
            answered.setdefault(sport, p.t)
    put("answered", len(answered))
    put("answered_early", answered_early)

    # Data on them: none from condemnation to answer, some after; what went
    # onto the link after t0 before that was lost, and resent elsewhere.
    data_while_bad = 0
    data_after = {}
    last_on_link = t0
    sent_on_link = {}		# PSN -> when, after t0, before condemnation
    avoid = {}			# PSN -> its first resend on another EV
    for p in pkts:
        if p.src != a.src or not p.is_data() or p.t < t0:
            continue
        if p.sport in cut:
            bad = bad_at.get(p.sport)
            ans = answered.get(p.sport)
            if bad is not None and p.t > bad and (ans is None or p.t < ans):
                data_while_bad += 1
            elif ans is not None and p.t > ans:
                data_after[p.sport] = data_after.get(p.sport, 0) + 1
            else:
                last_on_link = max(last_on_link, p.t)
                sent_on_link.setdefault(p.psn, p.t)
        elif p.rtx and p.psn in sent_on_link:
            avoid.setdefault(p.psn, p.t)
    put("data_while_bad", data_while_bad)
    put("used_again", sum(1 for s in cut if data_after.get(s, 0) > 0))
    put("lost_on_link", len(avoid))
    put("cut_cmd_us", (a.t_cut1 - a.t_cut0) // NSEC_PER_USEC)

    def since(t, ref):
        return -1 if t is None or ref is None else (t - ref) // NSEC_PER_USEC

    put("loss_to_first_avoiding_us", since(min(avoid.values(), default=None), t0))
    put("loss_to_last_on_link_us", since(last_on_link, t0))
    put("loss_to_all_condemned_us",
        since(max(bad_at.values()) if len(bad_at) == len(cut) else None, t0))
    put("up_to_all_answered_us",
        since(max(answered.values()) if len(answered) == len(cut) else None,
              a.t_up0))


def cmd_window(a):
    sports = set(num_list(a.sports)) if a.sports else None
    counts = {"before": 0, "inside": 0, "after": 0}
    for p in packets(a.cap):
        if p.src != a.src or not (p.is_data() or p.op == cp.OP_PROBE):
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
    s = sub.add_parser("ep")
    s.add_argument("--cap", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--dst", required=True)
    return ap


def main():
    a = make_parser().parse_args()
    {"sports": cmd_sports, "cut": cmd_cut, "window": cmd_window,
     "ep": cmd_ep}[a.cmd](a)


if __name__ == "__main__":
    main()
