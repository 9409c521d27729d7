#!/usr/bin/env python3
"""slcpoke.py: make a hostile frame for the Bats tests by changing one
record of a stream, read and written with the layout of formats/slc.md
alone (no sluice code).  The record changed is the first named REC; it is
written back raw with its CRC recomputed, every other record byte for byte.

  slcpoke.py IN OUT set REC CHAN ELEM COMP VALUE
        value COMP of element ELEM of channel CHAN (f32 or f64) set to
        VALUE (a number, nan, inf or -inf)
  slcpoke.py IN OUT keep REC CHAN N
        channel CHAN cut to its first N elements (N = 0: an empty channel)
  slcpoke.py IN OUT drop REC CHAN
        channel CHAN removed
  slcpoke.py IN OUT put REC CHAN ELEM V,V,...
        the components of element ELEM of an integer channel CHAN set

Exit 1 with a message when the record, channel or element is missing or
the input is damaged.
"""
import struct
import sys
import zlib

CODES = {1: "B", 2: "i", 3: "I", 4: "f", 5: "d", 6: "q", 7: "Q"}


def fail(msg):
    sys.exit("slcpoke: " + msg)


def pad8(n):
    return (n + 7) & ~7


def records(data):
    """(prefix fields, descriptor parts, channels with their bytes, raw
    record bytes) for every record up to and including the end record of
    each stream in data."""
    pos = 0
    while pos < len(data):
        if data[pos:pos + 4] != b"SLCR" or pos + 48 > len(data):
            fail("no record at byte %d" % pos)
        kind, enc = struct.unpack_from("<II", data, pos + 8)
        dlen, = struct.unpack_from("<I", data, pos + 24)
        slen, rlen = struct.unpack_from("<QQ", data, pos + 32)
        end = pos + 48 + dlen + slen
        if end + 4 > len(data):
            fail("record at byte %d truncated" % pos)
        if struct.unpack_from("<I", data, end)[0] != zlib.crc32(data[pos:end]):
            fail("record at byte %d: bad crc" % pos)
        yield pos, end + 4, kind, enc, dlen, slen
        pos = end + 4


def parse(data, pos, enc, dlen, slen):
    d = pos + 48
    n, = struct.unpack_from("<H", data, d)
    name = data[d + 2:d + 2 + n].decode()
    q = d + 2 + n
    k, = struct.unpack_from("<I", data, q)
    block = data[q + 4:q + 4 + k]
    q += 4 + k
    nc, = struct.unpack_from("<I", data, q)
    q += 4
    payload = data[d + dlen:d + dlen + slen]
    if enc == 1:
        payload = zlib.decompress(payload)
    chans, at = [], 0
    for _ in range(nc):
        m, = struct.unpack_from("<H", data, q)
        cname = data[q + 2:q + 2 + m].decode()
        q += 2 + m
        typ, ncomp, dom, _res = struct.unpack_from("<BBBB", data, q)
        count, = struct.unpack_from("<Q", data, q + 4)
        q += 12
        size = count * ncomp * struct.calcsize(CODES[typ])
        chans.append([cname, typ, ncomp, dom, count,
                      bytearray(payload[at:at + size])])
        at += pad8(size)
    return name, block, chans


def build(prefix, name, block, chans):
    nb = name.encode()
    desc = struct.pack("<H", len(nb)) + nb + struct.pack("<I", len(block)) + block
    desc += struct.pack("<I", len(chans))
    payload = b""
    for cname, typ, ncomp, dom, count, arr in chans:
        cb = cname.encode()
        desc += struct.pack("<H", len(cb)) + cb
        desc += struct.pack("<BBBBQ", typ, ncomp, dom, 0, count)
        payload += bytes(arr) + b"\0" * (pad8(len(arr)) - len(arr))
    desc += b"\0" * (pad8(len(desc)) - len(desc))
    head = bytearray(prefix[:48])
    struct.pack_into("<I", head, 12, 0)
    struct.pack_into("<I", head, 24, len(desc))
    struct.pack_into("<QQ", head, 32, len(payload), len(payload))
    rec = bytes(head) + desc + payload
    return rec + struct.pack("<I", zlib.crc32(rec))


def channel(chans, rec, cname):
    for c in chans:
        if c[0] == cname:
            return c
    fail("record '%s' has no channel '%s'" % (rec, cname))


def element(c, rec, elem, comp):
    cname, typ, ncomp, _dom, count, _arr = c
    if not 0 <= elem < count or not 0 <= comp < ncomp:
        fail("record '%s' channel '%s': no element %d component %d (%d x%d)"
             % (rec, cname, elem, comp, count, ncomp))
    return (elem * ncomp + comp) * struct.calcsize(CODES[typ])


def change(chans, rec, op, args):
    if op == "set":
        c = channel(chans, rec, args[0])
        if c[1] not in (4, 5):
            fail("channel '%s' is not f32 or f64" % args[0])
        at = element(c, rec, int(args[1]), int(args[2]))
        struct.pack_into("<" + CODES[c[1]], c[5], at, float(args[3]))
    elif op == "keep":
        c = channel(chans, rec, args[0])
        n = int(args[1])
        if not 0 <= n <= c[4]:
            fail("channel '%s' has %d elements, not %d" % (args[0], c[4], n))
        c[4] = n
        del c[5][n * c[2] * struct.calcsize(CODES[c[1]]):]
    elif op == "drop":
        chans.remove(channel(chans, rec, args[0]))
    elif op == "put":
        c = channel(chans, rec, args[0])
        vals = [int(v) for v in args[2].split(",")]
        for k, v in enumerate(vals):
            struct.pack_into("<" + CODES[c[1]], c[5],
                             element(c, rec, int(args[1]), k), v)
    else:
        fail("unknown operation '%s'" % op)


def main():
    if len(sys.argv) < 5:
        fail("usage: slcpoke.py IN OUT set|keep|drop|put REC ARGS...")
    src, dst, op, rec = sys.argv[1:5]
    data = open(src, "rb").read()
    out, done = bytearray(), False
    for pos, end, _kind, enc, dlen, slen in records(data):
        if not done:
            name, block, chans = parse(data, pos, enc, dlen, slen)
            if name == rec:
                change(chans, rec, op, sys.argv[5:])
                out += build(data[pos:pos + 48], name, block, chans)
                done = True
                continue
        out += data[pos:end]
    if not done:
        fail("%s: no record '%s'" % (src, rec))
    open(dst, "wb").write(out)


main()
