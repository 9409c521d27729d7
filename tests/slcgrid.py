#!/usr/bin/env python3
"""slcgrid.py: measures of a frame's grids for the pipeline tests
(tests/smoke.bats, tests/paddle.bats), read from the stream with the
layout of formats/slc.md alone (raw or zlib records; no sluice code).

  slcgrid.py FILE mass NAME          -> "SUM X Y Z": sum of cell grid NAME
                                        times dx^3 and its centre of mass
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
Exit 1 with a message when a record is missing or the file is damaged.
"""
import struct
import sys
import zlib

CODES = {1: "B", 2: "i", 3: "I", 4: "f", 5: "d", 6: "q", 7: "Q"}


def grids(path):
    """Every grid record of the stream: name -> (dims, stagger, origin, dx,
    first channel's values)."""
    data = open(path, "rb").read()
    pos, out = 0, {}
    while pos < len(data):
        if data[pos:pos + 4] != b"SLCR":
            sys.exit("slcgrid: %s: no record at byte %d" % (path, pos))
        kind, enc = struct.unpack_from("<II", data, pos + 8)
        dlen, = struct.unpack_from("<I", data, pos + 24)
        slen, rlen = struct.unpack_from("<QQ", data, pos + 32)
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
            payload = data[pos + 48 + dlen:pos + 48 + dlen + slen]
            if enc == 1:
                payload = zlib.decompress(payload)
            ni, nj, nk, st = struct.unpack_from("<iiiI", kb, 0)
            origin = struct.unpack_from("<ddd", kb, 16)
            dx, = struct.unpack_from("<d", kb, 40)
            vals = struct.unpack_from("<%d%s" % (count * ncomp, CODES[etype]),
                                      payload, 0)
            out[name] = ((ni, nj, nk), st, origin, dx, vals)
        pos += 48 + dlen + slen + 4
        if kind == 0 and pos >= len(data):
            break
    return out


def need(g, name, path):
    if name not in g:
        sys.exit("slcgrid: %s: no grid record '%s'" % (path, name))
    return g[name]


def cells(rec):
    """(index, x, y, z) of every cell centre of a cell grid."""
    (ni, nj, nk), _, o, dx, _ = rec
    for kk in range(nk):
        for j in range(nj):
            for i in range(ni):
                yield (i + ni * (j + nj * kk), o[0] + dx * (i + 0.5),
                       o[1] + dx * (j + 0.5), o[2] + dx * (kk + 0.5))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: slcgrid.py FILE mass|inside|angmom ...")
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
        sys.exit("slcgrid: unknown measure '%s'" % what)


main()
