#!/usr/bin/env python3
"""slcgrid.py: measures of a frame's grids for the Bats tests
(tests/smoke.bats, tests/paddle.bats, tests/advect.bats), read from the
stream with the layout of formats/slc.md alone (raw or zlib records; no
sluice code).

  slcgrid.py FILE mass NAME          -> "SUM X Y Z": sum of cell grid NAME
                                        times dx^3 and its centre of mass
  slcgrid.py FILE moments NAME       -> "SUM X Y Z": plain sum of the
                                        samples of grid NAME (any
                                        staggering) and their centroid,
                                        each sample at its position
  slcgrid.py FILE md5 NAME           -> md5 of the decoded payload of
                                        grid NAME (every channel's
                                        samples, as stored)
  slcgrid.py FILE inside NAME SOLID D -> "MAX SUM TOTAL": largest value and
                                        sum (times dx^3) of NAME over the
                                        cells deeper than D cells inside
                                        the level set SOLID, and the sum
                                        over all cells
  slcgrid.py FILE angmom X,Y,Z A     -> "L": angular momentum per unit
                                        density about the axis A (x, y or
                                        z) through X,Y,Z of the velocity
                                        u, v, w (averaged to cell centres)
                                        over the cells outside 'solid':
                                        sum of ((x - c) x u)_A dx^3
Every record's CRC is checked.  Exit 1 with a message when a record is
missing or the file is damaged, so that a test using the output fails.
"""
import hashlib
import struct
import sys
import zlib

CODES = {1: "B", 2: "i", 3: "I", 4: "f", 5: "d", 6: "q", 7: "Q"}
# formats/slc.md "Sample (i, j, k) sits at": offset of a sample in cells
# along x, y, z by staggering (cell, node, face-x, face-y, face-z)
OFFSETS = {0: (0.5, 0.5, 0.5), 1: (0, 0, 0), 2: (0, 0.5, 0.5),
           3: (0.5, 0, 0.5), 4: (0.5, 0.5, 0)}


def fail(msg):
    sys.exit("slcgrid: " + msg)


def grids(path):
    """Every grid record of the stream: name -> (dims, stagger, origin, dx,
    first channel's values, decoded payload bytes)."""
    data = open(path, "rb").read()
    pos, out = 0, {}
    while pos < len(data):
        if data[pos:pos + 4] != b"SLCR" or pos + 48 > len(data):
            fail("%s: no record at byte %d" % (path, pos))
        kind, enc = struct.unpack_from("<II", data, pos + 8)
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
        kb = data[d + 4:d + 4 + k]
        d += 4 + k
        c, = struct.unpack_from("<I", data, d)
        d += 4
        if kind == 2 and c >= 1:
            m, = struct.unpack_from("<H", data, d)
            etype, ncomp = data[d + 2 + m], data[d + 3 + m]
            count, = struct.unpack_from("<Q", data, d + 6 + m)
            payload = data[pos + 48 + dlen:end]
            if enc == 1:
                payload = zlib.decompress(payload)
            if len(payload) != rlen:
                fail("%s: grid '%s': %d payload bytes, expected %d"
                     % (path, name, len(payload), rlen))
            ni, nj, nk, st = struct.unpack_from("<iiiI", kb, 0)
            origin = struct.unpack_from("<ddd", kb, 16)
            dx, = struct.unpack_from("<d", kb, 40)
            vals = struct.unpack_from("<%d%s" % (count * ncomp, CODES[etype]),
                                      payload, 0)
            out[name] = ((ni, nj, nk), st, origin, dx, vals, payload)
        pos = end + 4
        if kind == 0 and pos >= len(data):
            break
    return out


def need(g, name, path):
    if name not in g:
        fail("%s: no grid record '%s'" % (path, name))
    return g[name]


def cells(rec):
    """(index, x, y, z) of every cell centre of a cell grid."""
    (ni, nj, nk), _, o, dx = rec[:4]
    for kk in range(nk):
        for j in range(nj):
            for i in range(ni):
                yield (i + ni * (j + nj * kk), o[0] + dx * (i + 0.5),
                       o[1] + dx * (j + 0.5), o[2] + dx * (kk + 0.5))


def main():
    if len(sys.argv) < 3:
        fail("usage: slcgrid.py FILE mass|moments|md5|inside|angmom ...")
    path, what = sys.argv[1], sys.argv[2]
    g = grids(path)
    if what == "mass":
        rec = need(g, sys.argv[3], path)
        vol = rec[3] ** 3
        s = mx = my = mz = 0.0
        for q, x, y, z in cells(rec):
            v = rec[4][q]
            s += v
            mx += v * x
            my += v * y
            mz += v * z
        print("%.9g %.9g %.9g %.9g" % (s * vol, mx / s if s else 0,
                                       my / s if s else 0, mz / s if s else 0))
    elif what == "moments":
        rec = need(g, sys.argv[3], path)
        (ni, nj, _), st, o, dx, vals = rec[:5]
        off = OFFSETS[st]
        s = mx = my = mz = 0.0
        for q, v in enumerate(vals):
            i, j, kk = q % ni, q // ni % nj, q // (ni * nj)
            s += v
            mx += v * (o[0] + dx * (i + off[0]))
            my += v * (o[1] + dx * (j + off[1]))
            mz += v * (o[2] + dx * (kk + off[2]))
        print("%.9g %.9g %.9g %.9g" % (s, mx / s if s else 0,
                                       my / s if s else 0, mz / s if s else 0))
    elif what == "md5":
        print(hashlib.md5(need(g, sys.argv[3], path)[5]).hexdigest())
    elif what == "inside":
        rec, sol = need(g, sys.argv[3], path), need(g, sys.argv[4], path)
        depth = -float(sys.argv[5]) * sol[3]
        vol = rec[3] ** 3
        big = s = tot = 0.0
        for q, _, _, _ in cells(rec):
            v = rec[4][q]
            tot += v
            if sol[4][q] < depth:
                big = max(big, v)
                s += v
        print("%.9g %.9g %.9g" % (big, s * vol, tot * vol))
    elif what == "angmom":
        c = [float(t) for t in sys.argv[3].split(",")]
        a = "xyz".index(sys.argv[4])
        u, v, w = need(g, "u", path), need(g, "v", path), need(g, "w", path)
        sol = g.get("solid")
        ni, nj, nk = v[0][0], u[0][1], u[0][2]
        o, dx = u[2], u[3]
        L = 0.0
        for kk in range(nk):
            for j in range(nj):
                for i in range(ni):
                    q = i + ni * (j + nj * kk)
                    if sol and sol[4][q] <= 0:
                        continue
                    uc = 0.5 * (u[4][i + (ni + 1) * (j + nj * kk)] +
                                u[4][i + 1 + (ni + 1) * (j + nj * kk)])
                    vc = 0.5 * (v[4][i + ni * (j + (nj + 1) * kk)] +
                                v[4][i + ni * (j + 1 + (nj + 1) * kk)])
                    wc = 0.5 * (w[4][i + ni * (j + nj * kk)] +
                                w[4][i + ni * (j + nj * (kk + 1))])
                    r = (o[0] + dx * (i + 0.5) - c[0], o[1] + dx * (j + 0.5) - c[1],
                         o[2] + dx * (kk + 0.5) - c[2])
                    cross = (r[1] * wc - r[2] * vc, r[2] * uc - r[0] * wc,
                             r[0] * vc - r[1] * uc)
                    L += cross[a]
        print("%.9g" % (L * dx ** 3))
    else:
        fail("unknown measure '%s'" % what)


if __name__ == "__main__":
    main()
