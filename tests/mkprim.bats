#!/usr/bin/env bats
# mkprim: every shape runs and slcinfo validates it; usage and value errors
# exit 2 with a message; -o is atomic; output is deterministic.

load common

@test "mkprim --help lists the shapes and options" {
	run mkprim --help
	assert_success
	assert_output --partial "Usage: mkprim"
	for o in --subdiv --radii --res --pin --strands --drop-center --source; do
		assert_output --partial -- "$o"
	done
	assert_output --partial "sphere, box, torus, cup, paddle, cloth, curtain, hull, basin, hair"
}

@test "mkprim: every shape writes a stream that slcinfo validates" {
	for s in sphere box torus cup paddle cloth curtain hull basin hair pool smoke; do
		run sh -c "mkprim $s | slcinfo"
		assert_success
	done
}

@test "mkprim: mesh shapes give the named mesh record with P and tri" {
	run sh -c "mkprim sphere --subdiv 2 --radius 2 --center 1,0,0 | slcinfo"
	assert_success
	assert_output --partial "mesh 'sphere'"
	assert_output --partial "P            f32 x3 point 162  min -2 max 3"
	run sh -c "mkprim box --size 1,2,3 --res 2 --velocity 0,1,0 --name crate | slcinfo"
	assert_success
	assert_output --partial "mesh 'crate'"
	assert_output --partial "v            f32 x3 point"
	run sh -c "mkprim torus --radii 1,0.25 --res 16,8 | slcinfo"
	assert_output --partial "tri          u32 x3 prim 256"
	run sh -c "mkprim cup --res 8,2 | slcinfo"
	assert_success
	assert_output --partial "mesh 'cup'"
}

@test "mkprim cloth: channels, lumped mass and pins" {
	run sh -c "mkprim cloth --size 2,1 --res 4,2 --density 0.5 --pin edge | slcinfo --json"
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)["streams"][0]["records"][0]
c = {x["name"]: x for x in d["channels"]}
assert set(c) == {"P", "tri", "v", "rest", "mass", "pinned"}, c
assert c["mass"]["count"] == 15
assert abs(c["mass"]["mean"] * 15 - 0.5 * 2 * 1) < 1e-6        # density * area
assert abs(c["pinned"]["mean"] * 15 - 5) < 1e-6                 # one edge of 5
assert c["v"]["max"] == 0 and c["pinned"]["type"] == "u8"
'
}

@test "mkprim cloth --count: sheets scattered in the box by --seed, apart" {
	mkprim cloth --count 12 --size 0.1 --res 2 --box 1,0.5,1 --center 0,1,0 --seed 3 > "$T/a.slc"
	mkprim cloth --count 12 --size 0.1 --res 2 --box 1,0.5,1 --center 0,1,0 --seed 3 > "$T/b.slc"
	mkprim cloth --count 12 --size 0.1 --res 2 --box 1,0.5,1 --center 0,1,0 --seed 4 > "$T/c.slc"
	cmp "$T/a.slc" "$T/b.slc"
	run cmp -s "$T/a.slc" "$T/c.slc"
	assert_failure
	slcconv "$T/a.slc" -o "$T/a.obj"
	python3 - "$T/a.obj" <<'PY'
import math, sys
P = [list(map(float, l.split()[1:4])) for l in open(sys.argv[1]) if l.startswith("v ")]
F = [[int(w.split("/")[0]) - 1 for w in l.split()[1:4]] for l in open(sys.argv[1]) if l.startswith("f ")]
assert len(P) == 12 * 9 and len(F) == 12 * 8, (len(P), len(F))
r = math.sqrt(0.05 ** 2 * 2)
cs = []
for j in range(12):
    S = P[9 * j:9 * j + 9]
    c = [sum(p[a] for p in S) / 9 for a in range(3)]
    assert abs(c[0]) <= 0.5 and abs(c[1] - 1) <= 0.25 and abs(c[2]) <= 0.5, c
    cs.append(c)
    # each sheet is the 0.1 x 0.1 sheet turned: its edges keep their length
    for f in F[8 * j:8 * j + 8]:
        assert 9 * j <= min(f) and max(f) < 9 * j + 9
        for a, b in ((0, 1), (1, 2), (2, 0)):
            d = math.dist(P[f[a]], P[f[b]])
            assert abs(d - 0.05) < 1e-6 or abs(d - 0.05 * math.sqrt(2)) < 1e-6, d
# bounding spheres apart; not all in one plane
assert all(math.dist(cs[i], cs[k]) > 2 * r - 1e-6 for i in range(12) for k in range(i))
assert max(abs(P[9 * j + 1][1] - P[9 * j][1]) for j in range(12)) > 0.01
PY
	run mkprim cloth --count 500 --size 0.1 --box 0.2,0.2,0.2
	assert_failure 1
	assert_output --partial "no room for sheet"
}

@test "mkprim paddle: closed, outward, the volume of hub and blades; turned by --rate x --time" {
	# hub radius 0.1, 5 blades 0.04 thick reaching 0.5, 0.3 long along x
	mkprim paddle --blades 5 --radii 0.5,0.1 --size 0.04,0.3 --res 4096 --axis x \
	    --center 1,2,3 > "$T/p.slc"
	slcconv --ascii "$T/p.slc" -o "$T/p.ply"
	python3 - "$T/p.ply" <<'PY'
import math, sys
L = open(sys.argv[1]).read().split("end_header\n")[1].split("\n")

P, F = [], []
for l in L:
    w = l.split()
    if len(w) == 3:
        P.append([float(t) for t in w])
    elif len(w) == 4 and w[0] == "3":
        F.append([int(t) for t in w[1:]])# every edge once in each direction: closed, 2-manifold, consistently oriented
E = {}
for f in F:
    for a, b in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0])):
        E[(a, b)] = E.get((a, b), 0) + 1
assert all(n == 1 and E.get((b, a)) == 1 for (a, b), n in E.items())
assert len(P) - len(E) // 2 + len(F) == 2                     # a sphere's Euler number
vol = sum(
    (P[a][0] * (P[b][1] * P[c][2] - P[b][2] * P[c][1]) -
     P[a][1] * (P[b][0] * P[c][2] - P[b][2] * P[c][0]) +
     P[a][2] * (P[b][0] * P[c][1] - P[b][1] * P[c][0])) / 6 for a, b, c in F)
# the cross-section: the hub disk and, per blade, its rectangle outside the disk
r, h, R, n = 0.1, 0.02, 0.5, 5
area = math.pi * r * r + n * (2 * h * R - h * math.sqrt(r * r - h * h) - r * r * math.asin(h / r))
assert abs(vol - 0.3 * area) < 1e-5 * 0.3 * area, (vol, 0.3 * area)
xs = [p[0] for p in P]
assert abs(min(xs) - 0.85) < 1e-6 and abs(max(xs) - 1.15) < 1e-6
# blade 0 along +y from the axis: its tip reaches y = 2.5
assert abs(max(p[1] for p in P) - 2.5) < 1e-6
PY
	# 90 degrees/s for 0.5 s is the wheel turned by 45 degrees, moving with
	# v = omega e_z x (P - c)
	mkprim paddle --rate 90 --time 0.5 --center 1,0,0 > "$T/s.slc"
	mkprim paddle --angle 45 --center 1,0,0 > "$T/a.slc"
	slcconv --ascii "$T/s.slc" -o "$T/s.ply"
	slcconv --ascii "$T/a.slc" -o "$T/a.ply"
	python3 - "$T/s.ply" "$T/a.ply" <<'PY'
import math, sys
def rows(f):
    return [[float(t) for t in l.split()] for l in open(f).read().split("end_header\n")[1].split("\n")
            if len(l.split()) in (3, 6)]
S, A = rows(sys.argv[1]), rows(sys.argv[2])
assert len(S) == len(A) == 66 and len(S[0]) == 6 and len(A[0]) == 3
w = math.pi / 2
for s, a in zip(S, A):
    assert all(abs(s[q] - a[q]) < 1e-6 for q in range(3))
    assert abs(s[3] + w * s[1]) < 1e-6 and abs(s[4] - w * (s[0] - 1)) < 1e-6 and s[5] == 0
# blade 0 points along x turned by 45 degrees
tips = [p for p in S if math.hypot(p[0] - 1, p[1]) > 0.39 and p[0] > 1 and p[1] > 0]
assert len(tips) == 4 and max(abs(p[0] - 1 - p[1]) for p in tips) < 0.05, tips
PY
	run mkprim paddle --rate 10 --velocity 0,1,0
	assert_failure 2
	run mkprim paddle --blades 0
	assert_failure 2
	run mkprim paddle --radii 0.1,0.2
	assert_failure 2
	run mkprim paddle --blades 8 --size 0.15,0.5
	assert_failure 2
	assert_output --partial "not overlapping"
	run mkprim sphere --rate 10
	assert_failure 2
	assert_output --partial "--rate does not apply to sphere"
}

@test "mkprim hair: strands, deterministic by seed" {
	mkprim hair --strands 20 --segments 4 --seed 3 > "$T/a.slc"
	mkprim hair --strands 20 --segments 4 --seed 3 > "$T/b.slc"
	mkprim hair --strands 20 --segments 4 --seed 4 > "$T/c.slc"
	cmp "$T/a.slc" "$T/b.slc"
	run cmp -s "$T/a.slc" "$T/c.slc"
	assert_failure
	run slcinfo "$T/a.slc"
	assert_output --partial "strands 'hair'"
	assert_output --partial "offset       u32 x1 strand 21"
}

@test "mkprim hair --curl: a helix of the radius and pitch asked, equal segments, same bytes by seed" {
	mkprim hair --strands 12 --segments 48 --length 0.3 --curl 0.01,0.025 --seed 5 \
		--center 0,1,0 > "$T/a.slc"
	mkprim hair --strands 12 --segments 48 --length 0.3 --curl 0.01,0.025 --seed 5 \
		--center 0,1,0 > "$T/b.slc"
	mkprim hair --strands 12 --segments 48 --length 0.3 --curl 0.01,0.025 --seed 6 \
		--center 0,1,0 > "$T/c.slc"
	cmp "$T/a.slc" "$T/b.slc"
	run cmp -s "$T/a.slc" "$T/c.slc"
	assert_failure
	python3 "$ROOT/tests/slcrec.py" "$T/a.slc" hair hair > "$T/s.txt"
	python3 - "$T/s.txt" <<'PY'
import math, sys
R, pitch, L, c = 0.01, 0.025, 0.3, (0, 1, 0)
rise = pitch / (2 * math.pi)
lines = open(sys.argv[1]).read().split("\n")[:-1]
assert len(lines) == 12, len(lines)
def sub(a, b): return [a[k] - b[k] for k in range(3)]
def dot(a, b): return sum(a[k] * b[k] for k in range(3))
def norm(a): return math.sqrt(dot(a, a))
for line in lines:
    v = [float(x) for x in line.split()]
    p = [v[3 * i:3 * i + 3] for i in range(len(v) // 3)]
    assert len(p) == 49, len(p)
    n = sub(p[0], c)
    assert abs(norm(n) - 0.1) < 1e-6, norm(n)
    n = [x / norm(n) for x in n]
    seg = [norm(sub(p[i + 1], p[i])) for i in range(48)]
    assert max(seg) - min(seg) < 2e-6, (min(seg), max(seg))
    # across n the points lie on a circle of radius R (circumradius of
    # every projected triple two steps apart)
    q = [sub(x, [dot(sub(x, p[0]), n) * nk for nk in n]) for x in p]
    for i in range(0, 44):
        a, b, d = q[i], q[i + 2], q[i + 4]
        ab, bd, da = norm(sub(a, b)), norm(sub(b, d)), norm(sub(d, a))
        e1, e2 = sub(b, a), sub(d, a)
        cr = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
              e1[0] * e2[1] - e1[1] * e2[0]]
        rc = ab * bd * da / (2 * norm(cr))
        assert abs(rc - R) < 0.01 * R, rc
    # rising along n by pitch a turn: the arclength L is L / (2 pi
    # sqrt(R^2 + rise^2)) turns
    ax = dot(sub(p[-1], p[0]), n)
    want = pitch * L / (2 * math.pi * math.hypot(R, rise))
    assert abs(ax - want) < 1e-5, (ax, want)
PY
}

@test "mkprim hair --cap, --length-jitter: roots on the sphere within the cap, lengths spread" {
	mkprim hair --strands 400 --segments 3 --cap 30 --length 0.2 --length-jitter 0.3 \
		--radius 0.1 --center 0,1,0 > "$T/h.slc"
	python3 "$ROOT/tests/slcrec.py" "$T/h.slc" hair hair > "$T/s.txt"
	python3 - "$T/s.txt" <<'PY'
import math, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
assert len(lines) == 400
ys, lens = [], []
for line in lines:
    v = [float(x) for x in line.split()]
    r = [v[0], v[1] - 1, v[2]]
    rr = math.sqrt(sum(x * x for x in r))
    assert abs(rr - 0.1) < 1e-6, rr
    ys.append(r[1] / rr)
    seg = [math.dist(v[3 * i:3 * i + 3], v[3 * i + 3:3 * i + 6]) for i in range(3)]
    assert max(seg) - min(seg) < 1e-6, seg
    lens.append(sum(seg))
cmin = math.cos(math.radians(30))
assert min(ys) >= cmin - 1e-6, min(ys)
assert min(ys) < cmin + 0.01, min(ys)                # the cap is filled to its edge
assert min(lens) >= 0.2 * 0.7 - 1e-6 and max(lens) <= 0.2 * 1.3 + 1e-6, (min(lens), max(lens))
assert max(lens) - min(lens) > 0.1, (min(lens), max(lens))
PY
	for args in "--cap 0" "--cap 181" "--curl 0.01,0" "--curl 0.01" "--length-jitter 1" \
		    "--length-jitter -0.1"; do
		run mkprim hair $args
		assert_failure 2
		assert_output --regexp "^mkprim: --"
	done
}

@test "mkprim pool: scene, u, v, w and phi negative in the water" {
	run sh -c "mkprim pool --box 1,0.5,1 --res 16 --depth 0.2 --drop-center 0.5,0.35,0.5 --drop-radius 0.1 | slcinfo --json"
	assert_success
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)["streams"][0]["records"]
by = {x["name"]: x for x in r}
assert by["scene"]["meta"]["gravity"] == "0,-9.81,0" and by["scene"]["meta"]["fps"] == "24"
assert by["u"]["dims"] == [17, 8, 16] and by["u"]["stagger"] == "face-x"
assert by["v"]["dims"] == [16, 9, 16] and by["w"]["dims"] == [16, 8, 17]
p = by["phi"]
assert p["dims"] == [16, 8, 16] and p["stagger"] == "cell"
c = p["channels"][0]
assert abs(c["min"] + (0.2 - 0.5 / 16)) < 1e-6, c   # deepest cell centre
assert abs(c["max"] - (0.5 - 0.5 / 16 - 0.2)) < 1e-6, c
'
}

@test "mkprim smoke: density, temperature, source and scene" {
	run sh -c "mkprim smoke --source box --size 0.4 --dx 0.1 --temperature 5 --fps 30 | slcinfo"
	assert_success
	assert_output --partial "grid 'density'"
	assert_output --partial "grid 'temperature'"
	assert_output --partial "grid 'source'"
	assert_output --partial "10x20x10 cell"
	assert_output --partial "max 5"
	assert_output --partial "fps=30"
}

@test "mkprim: same options, same bytes (raw and zlib)" {
	for s in sphere cloth hair pool smoke; do
		mkprim $s --zlib 6 > "$T/1.slc"
		mkprim $s --zlib 6 > "$T/2.slc"
		cmp "$T/1.slc" "$T/2.slc"
	done
	for s in pool smoke; do   # threads must not change a byte
		for n in 1 2 3 4 1 4; do
			OMP_NUM_THREADS=$n mkprim $s --res 24 > "$T/$n.slc"
		done
		cmp "$T/1.slc" "$T/2.slc"
		cmp "$T/1.slc" "$T/3.slc"
		cmp "$T/1.slc" "$T/4.slc"
	done
}

@test "mkprim: usage errors exit 2" {
	run mkprim
	assert_failure 2
	assert_output --partial "no SHAPE"
	run mkprim blob
	assert_failure 2
	assert_output --partial "unknown shape 'blob'"
	run mkprim sphere box
	assert_failure 2
	run mkprim sphere --frobnicate
	assert_failure 2
	assert_output --partial "unknown option"
	run mkprim box --radii 1,2
	assert_failure 2
	assert_output --partial "--radii does not apply to box"
	run mkprim cloth --pin middle
	assert_failure 2
}

@test "mkprim: bad values exit 2 with a message" {
	for args in "sphere --radius -1" "sphere --subdiv 12" "sphere --radius abc" \
		    "box --size 1,0,1" "box --res 1.5" "box --res 2,3" \
		    "torus --radii 0.2,0.5" "torus --res 2" "cup --height 0" \
		    "cloth --density 0" "hair --strands 0" "hair --seed -1" \
		    "curtain --size 1,0" "hull --bottom 0.2" "hull --bottom 0,1" \
		    "hull --motion thrown" "hull --spin 0,1,0" "basin --res 0" \
		    "hull --motion dynamic --stop 1" "basin --motion dynamic" \
		    "pool --depth -1" "pool --drop-radius 0" "pool --res 0" \
		    "smoke --box 1,1,-1" "sphere --center 1,2"; do
		run mkprim $args
		assert_failure 2
		assert_output --regexp "^mkprim: --"
	done
}

@test "mkprim -o is atomic: a failure leaves the previous file" {
	mkprim box -o "$T/s.slc"
	cp "$T/s.slc" "$T/orig.slc"
	run mkprim box --res 0 -o "$T/s.slc"
	assert_failure 2
	cmp "$T/s.slc" "$T/orig.slc"
	run mkprim sphere --subdiv 1 -o "$T/s.slc"
	assert_success
	run slcinfo "$T/s.slc"
	assert_output --partial "mesh 'sphere'"
	run mkprim box -o "$T/nodir/s.slc"
	assert_failure 1
	assert [ ! -e "$T/nodir" ]
	[ -z "$(ls -A "$T" | grep tmp)" ]
}

@test "mkprim: argv order is kept in the provenance" {
	run sh -c "mkprim --radius 2 sphere --center 1,0,0 | slcinfo"
	assert_success
	assert_output --partial "stage.0=mkprim 0.1.0 --radius 2 --center 1,0,0 sphere"
}

@test "pipelines/shapes builds every shape" {
	run make -s -C "$ROOT/pipelines/shapes" OUT="$T/out" BIN="$ROOT/${SLUICE_BIN:-bin}"
	assert_success
	for s in sphere box torus cup cloth hair pool smoke; do
		[ -s "$T/out/$s.slc" ]
		grep -q "provenance" "$T/out/$s.txt"
	done
	if [ -x "$ROOT/${SLUICE_BIN:-bin}/slcconv" ]; then
		for s in sphere box torus cup cloth; do
			grep -q "^f " "$T/out/$s.obj"
		done
		grep -q 'Name="phi"' "$T/out/pool.vti"
		grep -q 'Name="density"' "$T/out/smoke.vti"
	fi
}

# shellgeo PLY: the checks of an open shell (tests below): every edge in
# both directions once except the rim's, which bound it alone; a disk
# (Euler characteristic 1); prints "area volume nrim rimy" with the volume
# closed by a lid across the rim (the origin on the rim's plane, so the
# lid adds nothing), positive when the normals face out
shellgeo() {
	python3 - "$1" <<'PY'
import sys
head, body = open(sys.argv[1]).read().split("end_header\n")
nv = int([l for l in head.split("\n") if l.startswith("element vertex")][0].split()[2])
rows = body.split("\n")
P = [list(map(float, r.split()[:3])) for r in rows[:nv]]
F = [list(map(int, r.split()[1:4])) for r in rows[nv:] if r.strip()]
E = {}
for f in F:
    for a, b in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0])):
        E[(a, b)] = E.get((a, b), 0) + 1
assert all(n == 1 for n in E.values()), "an edge used twice one way"
rim = [(a, b) for (a, b) in E if (b, a) not in E]
nedge = (len(E) + len(rim)) // 2
assert len(P) - nedge + len(F) == 1, ("euler", len(P), nedge, len(F))
top = max(p[1] for p in P)
assert all(P[a][1] == top and P[b][1] == top for a, b in rim), "a boundary edge below the rim"
# the rim is one loop
nxt = dict(rim)
a, n = rim[0][0], 0
while True:
    a, n = nxt[a], n + 1
    if a == rim[0][0]:
        break
assert n == len(rim), ("rim loops", n, len(rim))
def cross(u, v):
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
area = vol = 0
o = [0, top, 0]
for f in F:
    a, b, c = ([P[k][q] - o[q] for q in range(3)] for k in f)
    n = cross([b[q] - a[q] for q in range(3)], [c[q] - a[q] for q in range(3)])
    area += 0.5 * sum(x * x for x in n) ** 0.5
    vol += sum(a[q] * cross(b, c)[q] for q in range(3)) / 6
print("%.12g %.12g %d %.9g" % (area, vol, len(rim), top))
PY
}

@test "mkprim hull, basin: open-top shells, welded seams, outward, their area and volume" {
	# a hull 0.4 x 0.2 x 0.3 (W, H, D) on --center 1,0.5,2: vertical walls
	mkprim hull --size 0.4,0.2,0.3 --res 8,4,6 --center 1,0.5,2 | slcconv -a -o "$T/h.ply"
	run shellgeo "$T/h.ply"
	assert_success
	echo "$output"
	set -- $output
	python3 -c "
import sys
a, v, n, top = map(float, sys.argv[1:5])
assert abs(a - (0.4 * 0.3 + 2 * 0.2 * (0.4 + 0.3))) < 1e-6, a
assert abs(v - 0.4 * 0.2 * 0.3) < 1e-6, v
assert n == 2 * (8 + 6) and abs(top - 0.7) < 1e-6, (n, top)
" "$@"
	# a basin flaring from a 0.4 x 0.2 bottom to a 0.6 x 0.5 rim, 0.25
	# high: the walls are planar trapezoids, the volume a prismatoid's
	mkprim basin --size 0.6,0.25,0.5 --bottom 0.4,0.2 --res 12 | slcconv -a -o "$T/b.ply"
	run shellgeo "$T/b.ply"
	assert_success
	echo "$output"
	set -- $output
	python3 -c "
import math, sys
a, v, n, top = map(float, sys.argv[1:5])
H, bx, bz, tx, tz = 0.25, 0.4, 0.2, 0.6, 0.5
walls = (bz + tz) * math.hypot(H, (tx - bx) / 2) + (bx + tx) * math.hypot(H, (tz - bz) / 2)
assert abs(a - (bx * bz + walls)) < 1e-6, (a, bx * bz + walls)
mid = (bx + tx) / 2 * (bz + tz) / 2
assert abs(v - H / 6 * (bx * bz + 4 * mid + tx * tz)) < 1e-6, v
assert abs(top - 0.25) < 1e-6
" "$@"
	# the default basin's bottom is 0.8 of its rim
	mkprim basin --size 1,0.5,1 --res 4 | slcconv -a -o "$T/d.ply"
	run awk '/^end_header/ { b = 1; next } b && NF == 3 && $2 == 0 { if ($1 > m) m = $1 } END { printf "%.6f\n", m }' "$T/d.ply"
	assert_output "0.400000"
}

@test "mkprim curtain: a hanging sheet pinned along its top edge, facing +z, with its areal density" {
	mkprim curtain --size 2,1.5 --res 8,6 --density 0.2 --center 0.5,3,-1 | slcconv -a -r cloth -o "$T/c.ply"
	run python3 - "$T/c.ply" <<'PY'
import sys
head, body = open(sys.argv[1]).read().split("end_header\n")
nv = int([l for l in head.split("\n") if l.startswith("element vertex")][0].split()[2])
rows = body.split("\n")
V = [list(map(float, r.split())) for r in rows[:nv]]
F = [list(map(int, r.split()[1:4])) for r in rows[nv:] if r.strip()]
# columns: x y z v_0..2 rest_0..2 mass pinned
assert nv == 9 * 7 and len(F) == 2 * 8 * 6
assert all(v[2] == -1 for v in V), "not upright in z = -1"
xs, ys = [v[0] for v in V], [v[1] for v in V]
assert min(xs) == -0.5 and max(xs) == 1.5 and max(ys) == 3 and min(ys) == 1.5
pinned = [v for v in V if v[10] == 1]
assert len(pinned) == 9 and all(v[1] == 3 for v in pinned), "pinned: the top edge"
assert abs(sum(v[9] for v in V) - 0.2 * 2 * 1.5) < 1e-6, "mass = density x area"
for f in F:
    a, b, c = (V[k][:3] for k in f)
    nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    assert nz > 0, "a triangle not facing +z"
print("ok")
PY
	assert_success
	run sh -c "mkprim curtain --pin corners --res 4 | slcinfo"
	assert_output --partial "pinned       u8 x1 point 25  min 0 max 1 mean 0.08"
	run sh -c "mkprim curtain --res 2 | clothstep | slcinfo"
	assert_success
}

@test "mkprim hull --motion: the rigid body of its shell (mass, centre, inertia of plates) and its mesh in the body frame" {
	mkprim hull --size 0.4,0.2,0.3 --res 4 --density 12 --center 1,0.5,2 --motion dynamic \
		--velocity 0.5,0,0 --spin 0,2,0 > "$T/h.slc"
	run sh -c "slcinfo '$T/h.slc' | grep -c 'body_P *f64 x3 point'"
	assert_output "1"
	run python3 - "$T/h.slc" "$ROOT/tests" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import slcrec
R = {r[1]: r for r in slcrec.records(sys.argv[1])}
rig, hull = R["rigid"][3], R["hull"][3]
s, W, H, D, c = 12, 0.4, 0.2, 0.3, (1, 0.5, 2)
# five plates: (mass, centre, own inertia diagonal)
plates = [(s * W * D, (0, 0, 0), (D * D / 12, (W * W + D * D) / 12, W * W / 12))]
for x in (-W / 2, W / 2):
    plates.append((s * D * H, (x, H / 2, 0), ((D * D + H * H) / 12, D * D / 12, H * H / 12)))
for z in (-D / 2, D / 2):
    plates.append((s * W * H, (0, H / 2, z), (H * H / 12, W * W / 12, (W * W + H * H) / 12)))
M = sum(p[0] for p in plates)
cm = [sum(p[0] * p[1][a] for p in plates) / M for a in range(3)]
I = [[0.0] * 3 for _ in range(3)]
for m, pc, own in plates:
    d = [pc[a] - cm[a] for a in range(3)]
    for a in range(3):
        I[a][a] += m * own[a]
        for b in range(3):
            I[a][b] += m * ((a == b) * sum(x * x for x in d) - d[a] * d[b])
mass, P, inert = rig["mass"][3][0], rig["P"][3], rig["inertia"][3]
assert abs(mass - M) < 1e-9, (mass, M)
assert all(abs(P[a] - (c[a] + cm[a])) < 1e-9 for a in range(3)), (P, cm)
assert all(abs(inert[3 * a + b] - I[a][b]) < 1e-9 for a in range(3) for b in range(3)), (inert, I)
assert list(rig["v"][3]) == [0.5, 0, 0] and list(rig["omega"][3]) == [0, 2, 0]
# body_P = P - centre of mass; v = v + omega x r; detail body = 0
X, BP, V = hull["P"][3], hull["body_P"][3], hull["v"][3]
n = len(X) // 3
for i in range(n):
    r = [BP[3 * i + a] for a in range(3)]
    assert all(abs(X[3 * i + a] - P[a] - r[a]) < 1e-6 for a in range(3))
    w = (0, 2, 0)
    u = (0.5 + w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0])
    assert all(abs(V[3 * i + a] - u[a]) < 1e-6 for a in range(3))
assert list(hull["body"][3]) == [0]
print("mass %.6g kg, centre %s, Iyy %.6g" % (mass, P, inert[4]))
PY
	assert_success
	echo "$output"
}
