#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""EV expansion, written from the OCP description of it (not from the
driver), for evx_test.sh:

  evx.py gen FMT FIELDS COUNT       the EVs a generated profile holds, hex
  evx.py sports FMT FIELDS EV...    the UDP source port of each EV (hex)

FMT is the format's field widths ("8,8"); FIELDS the profile's fields,
"width:init:min:max:mask" each, comma-separated; EVs are hex bit strings
("0x1270"), read MSB-first from bit 7 of byte 0.

Expansion of field i (paired with format field i): v = init; the next
popcount(mask) EV bits go into v at the mask's set bits, the first bit to
the highest set bit; v is appended MSB-first as a group of the format
field's width.  Format fields with no profile field add nothing.  In UDP
mode the first 16 bits of the result are the UDP source port.

A generated profile's EVs: each field's mask bits take the values min..max,
the last field varying fastest; an EV whose port would be 0 is left out;
the first COUNT.
"""
import sys

SPORT_BITS = 16


def parse_fields(s):
    out = []
    for f in s.split(","):
        w, init, lo, hi, mask = (int(x, 0) for x in f.split(":"))
        out.append((w, init, lo, hi, mask))
    return out


def mask_bits(mask):
    """The set bits of mask, highest first."""
    return [b for b in range(31, -1, -1) if mask >> b & 1]


def expand(fmt, fields, bits):
    """bits: the EV as a list of 0/1, MSB-first.  Returns the output bits."""
    out, pos = [], 0
    for i, (w, init, _lo, _hi, mask) in enumerate(fields):
        v = init
        for b in mask_bits(mask):
            bit = bits[pos] if pos < len(bits) else 0
            pos += 1
            v = (v & ~(1 << b)) | (bit << b)
        width = fmt[i]
        out += [(v >> (width - 1 - k)) & 1 for k in range(width)]
    return out


def sport(fmt, fields, bits):
    out = expand(fmt, fields, bits) + [0] * SPORT_BITS
    v = 0
    for b in out[:SPORT_BITS]:
        v = v << 1 | b
    return v


def to_hex(bits):
    bits = bits + [0] * (-len(bits) % 8)
    if not bits:
        return "0x00"
    v = 0
    for b in bits:
        v = v << 1 | b
    return "0x%0*x" % (len(bits) // 4, v)


def from_hex(s):
    s = s[2:] if s.startswith("0x") else s
    return [int(c, 16) >> (3 - k) & 1 for c in s for k in range(4)]


def generate(fmt, fields, count):
    """The EVs of a generated profile, each a list of bits."""
    pops = [len(mask_bits(f[4])) for f in fields]
    digits = [f[2] for f in fields]
    evs = []
    while len(evs) < count:
        bits = []
        for d, p in zip(digits, pops):
            bits += [(d >> (p - 1 - k)) & 1 for k in range(p)]
        if sport(fmt, fields, bits):
            evs.append(bits)
        # The last field fastest.
        i = len(fields) - 1
        while i >= 0:
            if digits[i] < fields[i][3]:
                digits[i] += 1
                break
            digits[i] = fields[i][2]
            i -= 1
        if i < 0:
            break
    return evs


def main(argv):
    if len(argv) < 4 or argv[1] not in ("gen", "sports"):
        print(__doc__, file=sys.stderr)
        return 2
    fmt = [int(x) for x in argv[2].split(",")]
    fields = parse_fields(argv[3])
    if argv[1] == "gen":
        for bits in generate(fmt, fields, int(argv[4])):
            print(to_hex(bits))
    else:
        for ev in argv[4:]:
            print("0x%04x" % sport(fmt, fields, from_hex(ev)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
