#!/usr/bin/env python3
"""shellscene.py: frames with thin shells for the shellcouple tests, written
with the layout of formats/slc.md alone (no sluice code).

  shellscene.py SCENE [KEY=VALUE]... > FRAME

A unit box of N^3 cells (n=N, default 16), the scene record (dt, gravity
0,-9.81,0), the MAC velocity u, v, w, and per scene:
  sheet  water h deep (h=0.25) on a horizontal sheet at y=ys (0.3 + dx/4)
         spanning the box, air below; the sheet an m x m grid of quads
         (m=8), its border nodes pinned (pin=edge; pin=all: every node,
         pin=none), areal density sigma (0.1 kg/m^2); v* = -g dt in the
         water (the pressure's work), 0 elsewhere; held=F: a channel
         f_fluid holding F times the water's weight on each free node's
         share of the sheet, pointing down (the load of the last frame).
  cup    a cylindrical cup, zero-thickness wall and bottom (radius r=0.3,
         bottom y=yb 0.1 + dx/4, top y=0.7, axis x=z=0.5, seg=32
         segments), water inside up to y=yf (0.5); air outside (sub=1:
         the box full of water to y=yo (0.8): the cup submerged).
  plate  smoke (no phi) in the closed box, a plate spanning it at y=ys
         (0.5 + dx/4), moving up at V (V=0.1): P_prev there, P one dt
         higher.
  tilt   smoke at rest in the closed box and a free plate at 45 degrees,
         y = x + y0 (0.1 + dx/4), across the box, moving along its normal
         (1,-1,0)/sqrt 2 at V (0.1), areal density sigma (0.1).
  boat   a pool yw deep (0.5), dry inside an open box's footprint w x w
         (w=0.3) at x = z = 0.5 above its bottom yb (0.45); fill=1: water
         inside too; the box itself from mkprim hull --motion dynamic.
  boxcup an open box (shell: floor and four walls, no top), w x w
         (w=0.4) at x = x0 (0.5), z = 0.5, floor y=yb (0.1 + dx/4), walls
         up to yt (0.5), water inside wall to wall up to yf (0.3), at rest.
Measures and moving shells (see measure and sweep below):
  cupout FILE R YB YT, boxout FILE X0 W YB, boxin FILE X0 W YB YT, cubeout FILE CX CY CZ H,
  mean|min|sum FILE MESH CHANNEL, sweep DIR N STEP [KEY=VALUE]...
  bag    a closed cube (half side a=0.2, centre 0.5,0.5,0.5) full of
         water in air, everything falling at vy=-g*t (t=0.5): u* and the
         nodes' v alike; free nodes of areal density sigma; prev=1: P_prev
         where the nodes were a frame before, (P - P_prev)/dt = -g (t - dt)
         (the frame's mean velocity, which u* is a dt of gravity past).
"""
import math
import struct
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from slcrec import _record, END  # noqa: E402

G = 9.81


def grid(name, stag, dims, dx, vals, origin=(0.0, 0.0, 0.0)):
    """A one-channel f32 grid record."""
    from slcrec import CODES  # noqa: F401
    nb = name.encode()
    block = struct.pack("<iiiI3dd", dims[0], dims[1], dims[2], stag, *origin, dx)
    desc = struct.pack("<H", len(nb)) + nb + struct.pack("<I", len(block)) + block
    desc += struct.pack("<I", 1)
    desc += struct.pack("<H", len(nb)) + nb + bytes([4, 1, 4, 0])
    desc += struct.pack("<Q", len(vals))
    desc += b"\0" * (-len(desc) % 8)
    arr = struct.pack("<%df" % len(vals), *vals)
    payload = arr + b"\0" * (-len(arr) % 8)
    import zlib
    head = b"SLCR" + struct.pack("<HHIIdIIQQ", 1, 0, 2, 0, 0.0, len(desc), 0,
                                 len(payload), len(payload))
    body = head + desc + payload
    return body + struct.pack("<I", zlib.crc32(body))


def meta(name, kv):
    text = "".join("%s=%s\n" % (k, v) for k, v in kv).encode()
    return _record(1, name, 0.0, [("text", 1, 1, 0, list(text))])


def mesh(name, P, tri, extra=()):
    flat = [c for p in P for c in p]
    chans = [("P", 5, 3, 1, flat), ("tri", 3, 3, 2, [i for t in tri for i in t])]
    return _record(3, name, 0.0, chans + list(extra))


def field(n, stag, f):
    """Values of f(x, y, z) at the samples of a grid of n^3 cells."""
    dx = 1.0 / n
    dims = [n, n, n]
    off = [0.5, 0.5, 0.5]
    if stag >= 2:
        dims[stag - 2] += 1
        off[stag - 2] = 0.0
    vals = []
    for k in range(dims[2]):
        for j in range(dims[1]):
            for i in range(dims[0]):
                vals.append(f(dx * (i + off[0]), dx * (j + off[1]), dx * (k + off[2])))
    return dims, vals


def quad_grid(m, corner, e1, e2):
    """An m x m grid of quads, two triangles each: points and triangles."""
    P, tri = [], []
    for b in range(m + 1):
        for a in range(m + 1):
            P.append(tuple(corner[d] + e1[d] * a / m + e2[d] * b / m for d in range(3)))
    for b in range(m):
        for a in range(m):
            p = a + (m + 1) * b
            tri += [(p, p + 1, p + m + 2), (p, p + m + 2, p + m + 1)]
    return P, tri


def lumped_mass(P, tri, sigma):
    m = [0.0] * len(P)
    for t in tri:
        a, b, c = (P[i] for i in t)
        u = [b[d] - a[d] for d in range(3)]
        v = [c[d] - a[d] for d in range(3)]
        x = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        ar = 0.5 * math.sqrt(sum(q * q for q in x))
        for i in t:
            m[i] += sigma * ar / 3
    return m


def boxcup(x0, yb, yt, w, m=4):
    """An open box: floor at yb and four walls up to yt, w x w around
    (x0, 0.5), each side an m x m grid of quads."""
    a, b = x0 - w / 2, 0.5 - w / 2
    h = yt - yb
    P, tri = [], []
    for corner, e1, e2 in [((a, yb, b), (w, 0, 0), (0, 0, w)),
                           ((a, yb, b), (w, 0, 0), (0, h, 0)),
                           ((a, yb, b + w), (w, 0, 0), (0, h, 0)),
                           ((a, yb, b), (0, 0, w), (0, h, 0)),
                           ((a + w, yb, b), (0, 0, w), (0, h, 0))]:
        Pf, tf = quad_grid(m, corner, e1, e2)
        base = len(P)
        P += Pf
        tri += [tuple(i + base for i in q) for q in tf]
    return P, tri


def liquid_out(path, inside):
    """Cells of phi < 0 and pls_neg or spray particles for which
    inside(x, y, z, dx) is false, the count of cells of phi < 0 and the
    liquid volume: cells of phi < 0 times dx^3."""
    from slcrec import records
    # slcgrid.py's main runs only as __main__: take its functions
    src = open(__import__("os").path.join(__import__("os").path.dirname(__file__), "slcgrid.py")).read()
    sg = {"__name__": "slcgrid_lib"}
    exec(src, sg)
    g = sg["grids"](path)["phi"]
    dx = g[3]
    cells = out = 0
    for q, x, y, z in sg["cells"](g):
        if g[4][q] < 0:
            cells += 1
            out += not inside(x, y, z, dx)
    parts = 0
    for r in records(path):
        if r[0] == 5 and r[1] in ("pls_neg", "spray"):
            P = r[3]["P"][3]
            parts += sum(1 for i in range(0, len(P), 3) if not inside(P[i], P[i + 1], P[i + 2], dx))
    return out, parts, cells, cells * dx ** 3


def records_of(path):
    from slcrec import records
    return records(path)


def measure(argv):
    """shellscene.py cupout FILE R YB YT: liquid more than a cell outside
    the cup scene's cylinder (axis x = z = 0.5, radius R, bottom YB,
    top YT); shellscene.py boxout FILE X0 W YB: outside the open box
    around (X0, 0.5) of side W with its floor at YB.  Prints the cells,
    the particles outside, the liquid cells and their volume.
    shellscene.py boxin FILE X0 W YB YT: the liquid cells inside that box's
    footprint more than a cell above its floor YB, below YT.
    shellscene.py cubeout FILE CX CY CZ H: outside the cube of half side H
    around (CX, CY, CZ).  shellscene.py mean|min|sum FILE MESH CHANNEL:
    the mean, least or sum of a mesh channel, per component."""
    what, path = argv[0], argv[1]
    if what == "mean":
        P = [r for r in records_of(path) if r[0] == 3 and r[1] == argv[2]][0][3][argv[3]]
        nc = P[1]
        print(" ".join("%.9g" % (sum(P[3][c::nc]) / (len(P[3]) // nc)) for c in range(nc)))
        return
    if what == "min":
        P = [r for r in records_of(path) if r[0] == 3 and r[1] == argv[2]][0][3][argv[3]]
        nc = P[1]
        print(" ".join("%.9g" % min(P[3][c::nc]) for c in range(nc)))
        return
    if what == "sum":
        P = [r for r in records_of(path) if r[0] == 3 and r[1] == argv[2]][0][3][argv[3]]
        nc = P[1]
        print(" ".join("%.9g" % sum(P[3][c::nc]) for c in range(nc)))
        return
    a = [float(v) for v in argv[2:]]
    if what == "boxin":
        x0, w, yb, yt = a
        # liquid inside the footprint more than a cell above the floor
        print(liquid_out(path, lambda x, y, z, dx: not (abs(x - x0) < w / 2 and abs(z - 0.5) < w / 2
                                                          and yb + dx < y < yt))[0])
        return
    if what == "cubeout":
        cx, cy, cz, h = a

        def inside(x, y, z, dx):
            return max(abs(x - cx), abs(y - cy), abs(z - cz)) <= h + dx
    elif what == "cupout":
        r, yb, yt = a

        def inside(x, y, z, dx):
            return math.hypot(x - 0.5, z - 0.5) <= r + dx and yb - dx <= y <= yt + dx
    else:
        x0, w, yb = a

        def inside(x, y, z, dx):
            return abs(x - x0) <= w / 2 + dx and abs(z - 0.5) <= w / 2 + dx and y >= yb - dx
    print("%d %d %d %.9g" % liquid_out(path, inside))


def sweep(argv):
    """shellscene.py sweep DIR N STEP [KEY=VALUE]...: the open box of the
    scene boxcup moved along x by STEP a frame from x0, turning back
    every 4 frames: DIR/cup-I.slc for I = 0..N, its P at frame I + 1 and
    P_prev at frame I (the shell one frame ahead); prints the box's x at
    frame I, one a line."""
    d, n, step = argv[0], int(argv[1]), float(argv[2])
    kv = dict(a.split("=", 1) for a in argv[3:])
    dx = 1.0 / int(kv.get("n", 16))
    w = float(kv.get("w", 0.4))
    yb = float(kv.get("yb", 0.1 + dx / 4))
    yt = float(kv.get("yt", 0.5))
    xs = [float(kv.get("x0", 0.5))]
    for i in range(n + 1):
        xs.append(xs[-1] + (step if i // 4 % 2 == 0 else -step))
    for i in range(n + 1):
        P0, tri = boxcup(xs[i], yb, yt, w)
        P1, _ = boxcup(xs[i + 1], yb, yt, w)
        rec = mesh("cup", P1, tri, [("P_prev", 5, 3, 1, [c for p in P0 for c in p])])
        with open("%s/cup-%d.slc" % (d, i), "wb") as f:
            f.write(rec + END)
        print("%.9g" % xs[i])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    scene = sys.argv[1]
    if scene in ("cupout", "boxout", "boxin", "cubeout", "mean", "min", "sum"):
        return measure(sys.argv[1:])
    if scene == "sweep":
        return sweep(sys.argv[2:])
    kv = dict(a.split("=", 1) for a in sys.argv[2:])
    n = int(kv.get("n", 16))
    dx = 1.0 / n
    dt = float(kv.get("dt", 1.0 / 60))
    out = [meta("scene", [("frame", 0), ("time", 0), ("dt", repr(dt)), ("fps", repr(1 / dt)),
                          ("gravity", "0,-9.81,0")])]
    zero = lambda x, y, z: 0.0  # noqa: E731
    uvw = [zero, zero, zero]
    phi = None
    shells = []
    if scene == "sheet":
        h = float(kv.get("h", 0.25))
        ys = float(kv.get("ys", 0.3 + dx / 4))
        m = int(kv.get("m", 8))
        sigma = float(kv.get("sigma", 0.1))
        pin = kv.get("pin", "edge")
        held = float(kv.get("held", 0))
        phi = lambda x, y, z: max(ys - y, y - (ys + h))  # noqa: E731
        uvw[1] = lambda x, y, z: -G * dt if ys - dx / 2 < y < ys + h + dx / 2 else 0.0  # noqa: E731
        P, tri = quad_grid(m, (0, ys, 0), (1, 0, 0), (0, 0, 1))
        mass = lumped_mass(P, tri, sigma)
        border = [a in (0, m) or b in (0, m) for b in range(m + 1) for a in range(m + 1)]
        pinned = [1 if pin == "all" or (pin == "edge" and e) else 0 for e in border]
        extra = [("mass", 5, 1, 1, mass), ("pinned", 1, 1, 1, pinned)]
        if held:
            f = []
            for i in range(len(P)):
                f += [0.0, -held * 1000 * G * h * mass[i] / sigma if not pinned[i] else 0.0, 0.0]
            extra.append(("f_fluid", 5, 3, 1, f))
        shells.append(mesh("sheet", P, tri, extra))
    elif scene == "cup":
        r = float(kv.get("r", 0.3))
        yb = float(kv.get("yb", 0.1 + dx / 4))
        yt = float(kv.get("yt", 0.7))
        yf = float(kv.get("yf", 0.5))
        seg = int(kv.get("seg", 32))
        sub = int(kv.get("sub", 0))
        yo = float(kv.get("yo", 0.8))
        P, tri = [(0.5, yb, 0.5)], []
        for s in range(seg):
            a = 2 * math.pi * s / seg
            P.append((0.5 + r * math.cos(a), yb, 0.5 + r * math.sin(a)))
        for s in range(seg):
            a = 2 * math.pi * s / seg
            P.append((0.5 + r * math.cos(a), yt, 0.5 + r * math.sin(a)))
        for s in range(seg):
            b0, b1 = 1 + s, 1 + (s + 1) % seg
            t0, t1 = b0 + seg, b1 + seg
            tri += [(0, b0, b1), (b0, t0, t1), (b0, t1, b1)]

        def inside(x, y, z):
            return math.hypot(x - 0.5, z - 0.5) < r and yb < y

        def phif(x, y, z):
            if sub:
                return y - yo
            return y - yf if inside(x, y, z) else 1.0
        phi = phif
        # gravity on every face next to a liquid cell, as advect gives it
        uvw[1] = lambda x, y, z: -G * dt if min(phif(x, y - dx / 2, z), phif(x, y + dx / 2, z)) < 0 else 0.0  # noqa: E731
        shells.append(mesh("cup", P, tri, [("pinned", 1, 1, 1, [1] * len(P))]))
    elif scene == "plate":
        ys = float(kv.get("ys", 0.5 + dx / 4))
        V = float(kv.get("V", 0.1))
        P0, tri = quad_grid(4, (0, ys, 0), (1, 0, 0), (0, 0, 1))
        P1 = [(p[0], p[1] + V * dt, p[2]) for p in P0]
        shells.append(mesh("plate", P1, tri,
                           [("P_prev", 5, 3, 1, [c for p in P0 for c in p])]))
    elif scene == "bag":
        a = float(kv.get("a", 0.2))
        t = float(kv.get("t", 0.5))
        sigma = float(kv.get("sigma", 0.1))
        c = 0.5
        P, tri = [], []
        faces = [((c - a, c - a, c - a), (2 * a, 0, 0), (0, 0, 2 * a)),
                 ((c - a, c + a, c - a), (0, 0, 2 * a), (2 * a, 0, 0)),
                 ((c - a, c - a, c - a), (0, 2 * a, 0), (2 * a, 0, 0)),
                 ((c - a, c - a, c + a), (2 * a, 0, 0), (0, 2 * a, 0)),
                 ((c - a, c - a, c - a), (0, 0, 2 * a), (0, 2 * a, 0)),
                 ((c + a, c - a, c - a), (0, 2 * a, 0), (0, 0, 2 * a))]
        for corner, e1, e2 in faces:
            Pf, tf = quad_grid(4, corner, e1, e2)
            base = len(P)
            P += Pf
            tri += [tuple(i + base for i in q) for q in tf]
        vy = -G * t
        phi = lambda x, y, z: max(abs(x - c), abs(y - c), abs(z - c)) - a  # noqa: E731
        uvw[1] = lambda x, y, z: vy  # noqa: E731
        mass = lumped_mass(P, tri, sigma)
        extra = [("mass", 5, 1, 1, mass), ("v", 5, 3, 1, [0.0, vy, 0.0] * len(P))]
        if int(kv.get("prev", 0)):
            back = G * (t - dt) * dt
            extra.append(("P_prev", 5, 3, 1, [c + (back if k == 1 else 0.0)
                                              for p in P for k, c in enumerate(p)]))
        shells.append(mesh("bag", P, tri, extra))
    elif scene == "tilt":
        y0 = float(kv.get("y0", 0.1 + dx / 4))
        V = float(kv.get("V", 0.1))
        sigma = float(kv.get("sigma", 0.1))
        P, tri = quad_grid(int(kv.get("m", 8)), (0, y0, 0), (1 - y0, 1 - y0, 0), (0, 0, 1))
        s2 = math.sqrt(0.5)
        shells.append(mesh("tilt", P, tri, [("mass", 5, 1, 1, lumped_mass(P, tri, sigma)),
                                            ("v", 5, 3, 1, [V * s2, -V * s2, 0.0] * len(P))]))
    elif scene == "boat":
        yw = float(kv.get("yw", 0.5))
        yb = float(kv.get("yb", 0.45))
        w = float(kv.get("w", 0.3))
        fill = int(kv.get("fill", 0))

        def phib(x, y, z):
            p = y - yw
            if fill:
                return p
            # the hull's inside (footprint w x w at x = z = 0.5, above yb) dry
            d = min(y - yb, w / 2 - abs(x - 0.5), w / 2 - abs(z - 0.5))
            return max(p, d) if d > 0 else p
        phi = phib
    elif scene == "boxcup":
        w = float(kv.get("w", 0.4))
        x0 = float(kv.get("x0", 0.5))
        yb = float(kv.get("yb", 0.1 + dx / 4))
        yt = float(kv.get("yt", 0.5))
        yf = float(kv.get("yf", 0.3))
        P, tri = boxcup(x0, yb, yt, w)
        phi = lambda x, y, z: y - yf if abs(x - x0) < w / 2 and abs(z - 0.5) < w / 2 and y > yb else 1.0  # noqa: E731
        shells.append(mesh("cup", P, tri))
    else:
        sys.exit("shellscene: unknown scene " + scene)
    for ax, name in enumerate("uvw"):
        dims, vals = field(n, 2 + ax, uvw[ax])
        out.append(grid(name, 2 + ax, dims, dx, vals))
    if phi:
        dims, vals = field(n, 0, phi)
        out.append(grid("phi", 0, dims, dx, vals))
    out += shells
    out.append(END)
    sys.stdout.buffer.write(b"".join(out))


if __name__ == "__main__":
    main()
