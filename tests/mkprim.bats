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
	assert_output --partial "sphere, box, torus, cup, paddle, cloth, hair"
}

@test "mkprim: every shape writes a stream that slcinfo validates" {
	for s in sphere box torus cup paddle cloth hair pool smoke; do
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
