#!/usr/bin/python3
"""zstd_reader.py: a reader of sluice streams written from formats/slc.md
alone (no sluice code), for tests/zstd.bats: raw, zlib and zstd
(byte-shuffled) payloads, decoded with Python's zlib and zstandard.

  zstd_reader.py A B   -> exit 0 when the streams A and B hold the same
                          records (kind, name, time, descriptor) with the
                          same decoded payload bytes, provenance records
                          aside; else exit 1 naming the first difference.
  zstd_reader.py A     -> one line per record: its name, encoding and the
                          md5 of its decoded payload.
"""
import hashlib
import struct
import sys
import zlib

import zstandard

SIZE = {1: 1, 2: 4, 3: 4, 4: 4, 5: 8, 6: 8, 7: 8}


def fail(msg):
    sys.exit("zstd_reader: " + msg)


def channels(desc):
    """(name, [(type, ncomp, count)]) of a descriptor."""
    (nlen,) = struct.unpack_from("<H", desc, 0)
    name = desc[2:2 + nlen].decode()
    at = 2 + nlen
    (klen,) = struct.unpack_from("<I", desc, at)
    at += 4 + klen
    (nchan,) = struct.unpack_from("<I", desc, at)
    at += 4
    chans = []
    for _ in range(nchan):
        (clen,) = struct.unpack_from("<H", desc, at)
        at += 2 + clen
        type_, ncomp, _domain, _res, count = struct.unpack_from("<BBBBQ", desc, at)
        at += 12
        chans.append((type_, ncomp, count))
    return name, chans


def unshuffle(stored, raw_len, chans):
    planes = zstandard.ZstdDecompressor().decompress(stored)
    if len(planes) != raw_len:
        fail("zstd frame decodes to %d bytes, header says %d" % (len(planes), raw_len))
    out, at = bytearray(raw_len), 0
    for type_, ncomp, count in chans:
        s, n = SIZE[type_], count * ncomp
        for b in range(s):
            out[at + b:at + n * s:s] = planes[at + b * n:at + (b + 1) * n]
        at += (n * s + 7) // 8 * 8
    return bytes(out)


def records(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        if data[pos:pos + 4] != b"SLCR":
            fail("%s: bad magic at byte %d" % (path, pos))
        kind, enc, time, desc_len, _res, stored_len, raw_len = struct.unpack_from(
            "<IIdIIQQ", data, pos + 8)
        end = pos + 48 + desc_len + stored_len
        (crc,) = struct.unpack_from("<I", data, end)
        if zlib.crc32(data[pos:end]) != crc:
            fail("%s: crc mismatch at byte %d" % (path, pos))
        desc = data[pos + 48:pos + 48 + desc_len]
        stored = data[pos + 48 + desc_len:end]
        name, chans = channels(desc)
        if enc == 0:
            payload = stored
        elif enc == 1:
            payload = zlib.decompress(stored)
        elif enc == 2:
            payload = unshuffle(stored, raw_len, chans)
        else:
            fail("%s: unknown encoding %d" % (path, enc))
        if kind != 0:
            out.append((kind, name, time, desc, payload, enc))
        pos = end + 4
    return out


def main():
    a = records(sys.argv[1])
    if len(sys.argv) == 2:
        for kind, name, _t, _d, payload, enc in a:
            print(name, ["raw", "zlib", "zstd"][enc], hashlib.md5(payload).hexdigest())
        return
    b = records(sys.argv[2])
    a = [r[:5] for r in a if r[1] != "provenance"]
    b = [r[:5] for r in b if r[1] != "provenance"]
    if len(a) != len(b):
        fail("%d records against %d" % (len(a), len(b)))
    for ra, rb in zip(a, b):
        if ra != rb:
            fail("record '%s' differs" % ra[1])


main()
