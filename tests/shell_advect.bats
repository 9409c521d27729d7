#!/usr/bin/env bats
# advect --shell: thin shells (meshes with no inside) that no field and no
# marker particle crosses (guendelman2005 §3-4, selle2008 thesis §4.3-4.4),
# each check with a control that fails when the shell handling it checks
# is switched off (--shell-handling off or no-sweep):
#  - smoke from a source below a plate spanning a closed box: the density
#    above the plate stays exactly 0 for 48 frames of advect | project;
#  - a still cup (mkprim cup) filled with water, 48 frames of advect |
#    project with gravity: no cell with phi < 0 more than a cell outside;
#  - an open box filled wall to wall, swept sideways at 2 cells a frame
#    (P_prev -> P), 48 frames without gravity: no such cell either, and
#    the water goes along with it (the swept refill carries it);
#  - still water on both sides of a still plate through a plane of cell
#    centres (or with them inside its wedge): 6 frames of advect | project
#    keep every cell liquid (the samples in the wedge see nothing through
#    it and used to turn into air, draining the water above them);
#  - a moving shell's frame is the same on one thread and two, and far
#    from a shell the values are those without it.
# project does not know the shells yet (the pressure side of shells): its
# flow crosses them, so the still cup's water drains into its floor; the
# counts of liquid cells are printed.

bats_require_minimum_version 1.5.0
load common

# The python helpers read streams with tests/slcgrid.py and tests/slcrec.py.
PYLIB='
import math, sys
sys.path.insert(0, sys.argv[1] + "/tests")
import slcrec
ns = {"__name__": "slcgrid_lib"}
src = open(sys.argv[1] + "/tests/slcgrid.py").read()
exec(src, ns)  # its main() runs only as __main__
'

# above FILE NAME Y: the largest |value| of cell grid NAME above height Y
# and how many cells there are not 0
above() {
	python3 -c "$PYLIB"'
g = ns["grids"](sys.argv[2]); rec = g[sys.argv[3]]; y0 = float(sys.argv[4])
big = 0.0; n = 0
for q, x, y, z in ns["cells"](rec):
    if y > y0:
        big = max(big, abs(rec[4][q])); n += rec[4][q] != 0
print("%.9g %d" % (big, n))' "$ROOT" "$@"
}

# outside FILE CX Y0 CZ RTOP RBOT H: cells of phi < 0 more than a cell
# outside the cup of mkprim cup --center CX,Y0,CZ --radii RTOP,RBOT
# --height H, and all cells of phi < 0
outside() {
	python3 -c "$PYLIB"'
cx, y0, cz, rt, rb, h = map(float, sys.argv[3:9])
rec = ns["grids"](sys.argv[2])["phi"]; dx = rec[3]; out = n = 0
for q, x, y, z in ns["cells"](rec):
    if rec[4][q] >= 0:
        continue
    n += 1
    yc = min(max(y, y0), y0 + h)
    R = rb + (rt - rb) * (yc - y0) / h
    if y < y0 - dx or y > y0 + h + dx or math.hypot(x - cx, z - cz) > R + dx:
        out += 1
print(out, n)' "$ROOT" "$@"
}

# movecup IN NAME DIR X0 STEP N: DIR/cup-I.slc for I = 1..N, mesh NAME of
# IN without the triangles of its top (a box becomes an open box) with P
# shifted along x by the offset of frame I and P_prev (f64 x3)
# by that of frame I-1: from X0, STEP a frame, turning back every 4 frames
movecup() {
	python3 -c "$PYLIB"'
src, name, d, x0, step, n = sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
rec = [r for r in slcrec.records(src) if r[0] == 3 and r[1] == name][0]
P, tri = rec[3]["P"], rec[3]["tri"]
top = max(P[3][1::3])
keep = [v for t in range(len(tri[3]) // 3) for v in tri[3][3 * t:3 * t + 3]
        if min(P[3][3 * tri[3][3 * t + c] + 1] for c in range(3)) < top - 1e-9]
tri = (tri[0], tri[1], tri[2], keep)
def shifted(s):
    return [v + (s if q % 3 == 0 else 0) for q, v in enumerate(P[3])]
prev = x0
for i in range(1, n + 1):
    cur = prev + (step if (i - 1) // 4 % 2 == 0 else -step)
    body = slcrec._record(3, name, 0.0, [("P", 5, 3, P[2], shifted(cur)),
        ("P_prev", 5, 3, P[2], shifted(prev)), ("tri", tri[0], tri[1], tri[2], list(tri[3]))])
    open("%s/cup-%d.slc" % (d, i), "wb").write(body + slcrec.END)
    print("%.9g" % cur)
    prev = cur' "$ROOT" "$@"
}

setup_file() {
	export OMP_WAIT_POLICY=passive
}

# plate MODE: 48 frames of smoke under a plate at y = 0.5 spanning the box
# (16^3 cells); prints the density above the plate after each frame
plate() {
	local f="$T/plate-$1.slc" i
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.15,0.5 --radius 0.1 -o "$T/s.slc"
	mkprim cloth --size 1.2,1.2 --res 6 --center 0.5,0.5,0.5 --name plate -o "$T/p.slc"
	cat "$T/s.slc" "$T/p.slc" >"$f"
	for ((i = 1; i <= 48; i++)); do
		advect --shell plate --shell-handling "$1" --source source --buoyancy 0.1,1 "$f" |
			project >"$T/next.slc" || return 1
		mv "$T/next.slc" "$f"
		above "$f" density 0.5
	done
}

@test "shell: smoke below a plate spanning the box: exactly no density above it for 48 frames" {
	run plate on
	assert_success
	echo "$output" | tail -1
	[ "$(echo "$output" | sort -u)" = "0 0" ]
	run above "$T/plate-on.slc" density 0
	[ "${output%% *}" != 0 ]        # the smoke is there, below
}

@test "shell: control: with --shell-handling off the smoke rises through the plate" {
	run plate off
	assert_success
	echo "$output" | tail -1
	[ "$(echo "$output" | tail -1)" != "0 0" ]
}

# cupscene RES CX Y0 RTOP RBOT H SIZE: a frame (RES^3 cells, 60 fps) with
# the cup 'cup' and water phi in a box of edges SIZE inside it, into
# $T/cup0.slc; the cup mesh alone into $T/cup.slc
cupscene() {
	local res=$1 cx=$2 y0=$3 rt=$4 rb=$5 h=$6 size=$7
	mkprim pool --res "$res" --box 1,1,1 --fps 60 --depth 0.05 -o "$T/pool.slc"
	mkprim cup --center "$cx,$y0,0.5" --radii "$rt,$rb" --height "$h" --name cup -o "$T/cup.slc"
	local wy
	wy=$(awk -v y="$y0" -v s="$size" 'BEGIN { split(s, e, ","); printf "%.6g", y + 0.005 + e[2] / 2 }')
	mkprim box --size "$size" --center "$cx,$wy,0.5" --name water -o "$T/water.slc"
	mklevelset --like "$T/pool.slc" --from water --name phi "$T/water.slc" -o "$T/wphi.slc"
	slccat --drop phi "$T/pool.slc" "$T/cup.slc" >"$T/base.slc"
	slccat --only phi "$T/wphi.slc" | cat "$T/base.slc" - >"$T/cup0.slc"
}

# stillcup MODE: 48 frames of the filled still cup; prints the count of
# liquid cells outside and of all after each frame, stopping at a leak
stillcup() {
	local f="$T/still-$1.slc" i
	cupscene 24 0.5 0.1 0.3 0.25 0.5 0.34,0.29,0.34
	cp "$T/cup0.slc" "$f"
	for ((i = 1; i <= 48; i++)); do
		advect --shell cup --shell-handling "$1" "$f" | project >"$T/next.slc" || return 1
		mv "$T/next.slc" "$f"
		read -r out n < <(outside "$f" 0.5 0.1 0.5 0.3 0.25 0.5)
		echo "$i $out $n"
		[ "$out" = 0 ] || return 0
	done
}

@test "shell: a still cup full of water: no liquid a cell outside it for 48 frames" {
	run stillcup on
	assert_success
	echo "$output" | tr '\n' ' '
	[ "$(echo "$output" | wc -l)" = 48 ]
	[ "$(echo "$output" | awk '$2 != 0' | wc -l)" = 0 ]
	[ "$(echo "$output" | head -1 | cut -d' ' -f3)" -gt 100 ]       # water there
}

@test "shell: control: with --shell-handling off the water falls out of the still cup" {
	run stillcup off
	assert_success
	echo "$output" | tail -1
	[ "$(echo "$output" | tail -1 | cut -d' ' -f2)" -gt 0 ]
}

# stillwall OFF: a pool 0.8 deep (16^3 cells) with a still plate spanning
# the box through the plane of cell centres at y = 0.53125 (moved up by
# OFF cells: 0.02 keeps the samples inside its wedge), 6 frames of advect
# --shell | project; prints per frame the liquid cells and the cells of
# phi >= 0 below the surface (air in the water)
stillwall() {
	local f="$T/wall.slc" i
	mkprim pool --res 16 --box 1,1,1 --fps 60 --depth 0.8 -o "$T/pool.slc"
	mkprim cloth --size 1.2,1.2 --res 6 --name plate -o "$T/p.slc" \
		--center "0.5,$(awk -v o="$1" 'BEGIN { printf "%.9g", (8.5 + o) / 16 }'),0.5"
	cat "$T/pool.slc" "$T/p.slc" >"$f"
	for ((i = 1; i <= 6; i++)); do
		advect --shell plate "$f" | project >"$T/next.slc" || return 1
		mv "$T/next.slc" "$f"
		python3 -c "$PYLIB"'
rec = ns["grids"](sys.argv[2])["phi"]; n = air = 0
for q, x, y, z in ns["cells"](rec):
    n += rec[4][q] < 0
    air += rec[4][q] >= 0 and y < 0.7
print(n, air)' "$ROOT" "$f"
	done
}

@test "shell: still water on both sides of a still plate through a plane of samples keeps its volume, no air appears" {
	for off in 0 0.02; do
		run stillwall "$off"
		assert_success
		echo "$off: $output" | tr '\n' ' '
		[ "$(echo "$output" | sort -u)" = "3328 0" ]    # 13 of 16 layers, all frames
	done
}

# boxout FILE CX Y0 CZ HX HZ: cells of phi < 0 more than a cell outside the
# open box of half widths HX, HZ around (CX, CZ) with its floor at Y0
boxout() {
	python3 -c "$PYLIB"'
cx, y0, cz, hx, hz = map(float, sys.argv[3:8])
rec = ns["grids"](sys.argv[2])["phi"]; dx = rec[3]; out = n = 0
for q, x, y, z in ns["cells"](rec):
    if rec[4][q] < 0:
        n += 1
        out += y < y0 - dx or abs(x - cx) > hx + dx or abs(z - cz) > hz + dx
print(out, n)' "$ROOT" "$@"
}

# sweptcup MODE: an open box (0.4 x 0.3 x 0.4, floor at y = 0.1) filled
# 0.2 deep wall to wall, swept along x at 2 cells a frame (24^3 cells)
# from offset -0.125, turning back every 4 frames, 48 frames without
# gravity; prints frame, liquid cells outside, all, stopping at a leak
sweptcup() {
	local f="$T/swept-$1.slc" i
	local -a xs
	mkprim pool --res 24 --box 1,1,1 --fps 60 --depth 0.05 -o "$T/pool.slc"
	mkprim box --size 0.4,0.3,0.4 --center 0.5,0.25,0.5 --name cup -o "$T/cup.slc"
	mapfile -t xs < <(movecup "$T/cup.slc" cup "$T" -0.125 0.0833333333 48)
	mkprim box --size 0.396,0.2,0.396 --center 0.375,0.202,0.5 --name water -o "$T/water.slc"
	mklevelset --like "$T/pool.slc" --from water --name phi "$T/water.slc" -o "$T/wphi.slc"
	slccat --drop phi "$T/pool.slc" >"$T/base.slc"
	slccat --only phi "$T/wphi.slc" | cat "$T/base.slc" - >"$f"
	for ((i = 1; i <= 48; i++)); do
		cat "$f" "$T/cup-$i.slc" |
			advect --gravity 0,0,0 --shell cup --shell-handling "$1" | project |
			slccat --drop cup >"$T/next.slc" || return 1
		mv "$T/next.slc" "$f"
		read -r out n < <(boxout "$f" "$(awk -v x="${xs[i - 1]}" 'BEGIN { print 0.5 + x }')" \
					0.1 0.5 0.2 0.2)
		echo "$i $out $n"
		[ "$out" = 0 ] || return 0
	done
}

@test "shell: a cup swept sideways at 2 cells a frame: no liquid a cell outside it for 48 frames" {
	run sweptcup on
	assert_success
	echo "$output" | tr '\n' ' '
	[ "$(echo "$output" | wc -l)" = 48 ]
	[ "$(echo "$output" | awk '$2 != 0' | wc -l)" = 0 ]
	[ "$(echo "$output" | head -1 | cut -d' ' -f3)" -gt 50 ]
}

@test "shell: control: without swept invalidation the swept cup leaves water outside" {
	run sweptcup no-sweep
	assert_success
	echo "$output" | tail -1
	[ "$(echo "$output" | tail -1 | cut -d' ' -f2)" -gt 0 ]
}

@test "shell: a moving shell gives the same bytes on one thread and two" {
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.15,0.5 --radius 0.1 -o "$T/s.slc"
	mkprim box --size 0.4,0.3,0.4 --center 0.5,0.35,0.5 --name cup -o "$T/cup.slc"
	movecup "$T/cup.slc" cup "$T" 0 0.125 1 >/dev/null
	cat "$T/s.slc" "$T/cup-1.slc" >"$T/in.slc"
	OMP_NUM_THREADS=1 advect -v --shell cup --source source --buoyancy 0.1,4 --confinement 0.5 \
		"$T/in.slc" 2>"$T/log" >"$T/a.slc"
	OMP_NUM_THREADS=2 advect -v --shell cup --source source --buoyancy 0.1,4 --confinement 0.5 \
		"$T/in.slc" 2>/dev/null >"$T/b.slc"
	cat "$T/log"
	grep -q "shells: [1-9][0-9]* samples advected one-sided, [1-9][0-9]* swept" "$T/log"
	cmp "$T/a.slc" "$T/b.slc"
}

@test "shell: advect --shell names a mesh record: errors" {
	mkprim smoke --res 8 -o "$T/s.slc"
	run advect --shell nothing "$T/s.slc"
	assert_failure 1
	assert_output --partial "no mesh record 'nothing'"
	run advect --shell-handling maybe "$T/s.slc"
	assert_failure 2
	run advect --shell-eps 0 "$T/s.slc"
	assert_failure 2
}

# differ A B Y: samples of the grids of A and B (the same placements)
# below height Y whose values differ, and those above
differ() {
	python3 -c "$PYLIB"'
a, b, y0 = ns["grids"](sys.argv[2]), ns["grids"](sys.argv[3]), float(sys.argv[4])
lo = hi = 0
for name, ra in a.items():
    rb = b[name]
    (ni, nj, nk), st, o, dx, va = ra[:5]
    off = ns["OFFSETS"][st]
    for q, v in enumerate(va):
        if v != rb[4][q]:
            if o[1] + dx * (q // ni % nj + off[1]) < y0: lo += 1
            else: hi += 1
print(lo, hi)' "$ROOT" "$@"
}

@test "shell: far from a shell advect writes the same values as without it" {
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.15,0.5 --radius 0.1 -o "$T/s.slc"
	mkprim cloth --size 0.3,0.3 --res 2 --center 0.5,0.9,0.5 --name far -o "$T/p.slc"
	cat "$T/s.slc" "$T/p.slc" >"$T/in.slc"
	for ((i = 0; i < 4; i++)); do         # a flow that reaches the plate
		advect --source source --buoyancy 0.1,4 "$T/in.slc" | project >"$T/n.slc"
		mv "$T/n.slc" "$T/in.slc"
	done
	advect --source source --buoyancy 0.1,1 "$T/in.slc" >"$T/a.slc"
	advect --shell far --source source --buoyancy 0.1,1 "$T/in.slc" >"$T/b.slc"
	run differ "$T/a.slc" "$T/b.slc" 0.4
	echo "$output"
	[ "${output%% *}" = 0 ]         # nothing differs far below the plate
	[ "${output##* }" -gt 0 ]       # near it, one-sided values
}
