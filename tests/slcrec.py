#!/usr/bin/env python3
"""slcrec.py: the records of a sluice stream for the Bats tests, read and
written with the layout of formats/slc.md alone (no sluice code).

As a module: records(path) -> [(kind, name, time, {channel: (type code,
ncomp, domain, values)})]; strands_record(name, P, offset, extra) -> the
bytes of one raw strands record, extra a list of (channel, type code,
ncomp, domain, values); END is the end record.

As a program:
  slcrec.py FILE hair NAME        -> one line per strand: its points'
                                     coordinates, x y z x y z ...
Every record's CRC is checked; exit 1 with a message on a damaged stream.
"""
import struct
import sys
import zlib

CODES = {1: "B", 2: "i", 3: "I", 4: "f", 5: "d", 6: "q", 7: "Q"}
SIZES = {1: 1, 2: 4, 3: 4, 4: 4, 5: 8, 6: 8, 7: 8}


def fail(msg):
    sys.exit("slcrec: " + msg)


def records(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        if data[pos:pos + 4] != b"SLCR" or pos + 48 > len(data):
            fail("%s: no record at byte %d" % (path, pos))
        kind, enc = struct.unpack_from("<II", data, pos + 8)
        time, = struct.unpack_from("<d", data, pos + 16)
        dlen, = struct.unpack_from("<I", data, pos + 24)
        slen, rlen = struct.unpack_from("<QQ", data, pos + 32)
        end = pos + 48 + dlen + slen
        if end + 4 > len(data):
            fail("%s: record at byte %d truncated" % (path, pos))
        if struct.unpack_from("<I", data, end)[0] != zlib.crc32(data[pos:end]):
            fail("%s: record at byte %d: bad crc" % (path, pos))
        d = pos + 48
        n, = struct.unpack_from("<H", data, d)
        name = data[d + 2:d + 2 + n].decode()
        d += 2 + n
        k, = struct.unpack_from("<I", data, d)
        d += 4 + k
        c, = struct.unpack_from("<I", data, d)
        d += 4
        table = []
        for _ in range(c):
            m, = struct.unpack_from("<H", data, d)
            cname = data[d + 2:d + 2 + m].decode()
            etype, ncomp, dom = data[d + 2 + m], data[d + 3 + m], data[d + 4 + m]
            count, = struct.unpack_from("<Q", data, d + 6 + m)
            table.append((cname, etype, ncomp, dom, count))
            d += 14 + m
        payload = data[pos + 48 + dlen:end]
        if enc == 1:
            payload = zlib.decompress(payload)
        if len(payload) != rlen:
            fail("%s: record '%s': payload length" % (path, name))
        chans, off = {}, 0
        for cname, etype, ncomp, dom, count in table:
            nv = count * ncomp
            vals = struct.unpack_from("<%d%s" % (nv, CODES[etype]), payload, off)
            chans[cname] = (etype, ncomp, dom, vals)
            off += (nv * SIZES[etype] + 7) // 8 * 8
        out.append((kind, name, time, chans))
        pos = end + 4
    return out


def _record(kind, name, time, chans):
    nb = name.encode()
    desc = struct.pack("<H", len(nb)) + nb + struct.pack("<II", 0, len(chans))
    payload = b""
    for cname, etype, ncomp, dom, vals in chans:
        cb = cname.encode()
        desc += struct.pack("<H", len(cb)) + cb + bytes([etype, ncomp, dom, 0])
        desc += struct.pack("<Q", len(vals) // ncomp)
        arr = struct.pack("<%d%s" % (len(vals), CODES[etype]), *vals)
        payload += arr + b"\0" * (-len(arr) % 8)
    desc += b"\0" * (-len(desc) % 8)
    head = b"SLCR" + struct.pack("<HHIIdIIQQ", 1, 0, kind, 0, time, len(desc),
                                 0, len(payload), len(payload))
    body = head + desc + payload
    return body + struct.pack("<I", zlib.crc32(body))


def strands_record(name, P, offset, extra=()):
    """A strands record: P (flat list of floats, f32 x3 point), offset
    (u32 strand) and extra channels."""
    chans = [("P", 4, 3, 1, P), ("offset", 3, 1, 3, offset)] + list(extra)
    return _record(6, name, 0.0, chans)


END = _record(0, "", 0.0, [])


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "hair":
        for kind, name, _, ch in records(sys.argv[1]):
            if kind == 6 and name == sys.argv[3]:
                P, off = ch["P"][3], ch["offset"][3]
                for s in range(len(off) - 1):
                    print(" ".join("%.9g" % v for v in P[3 * off[s]:3 * off[s + 1]]))
                return
        fail("%s: no strands record '%s'" % (sys.argv[1], sys.argv[3]))
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
