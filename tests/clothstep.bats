#!/usr/bin/env bats
# clothstep: one frame of cloth; bodies, pins, scripted points, determinism,
# bad input.

load common
bats_require_minimum_version 1.5.0

# cstat FILE CHANNEL FIELD: a channel statistic of the cloth record
cstat() { slcinfo -j "$1" | jq -r ".streams[0].records[] | select(.name==\"cloth\") | .channels[] | select(.name==\"$2\") | .$3"; }

@test "clothstep --help lists the options and exits 0" {
	run clothstep --help
	assert_success
	assert_output --partial "--steps"
	assert_output --partial "--sphere-radius"
}

@test "a free sheet falls by g t^2/2 in a frame and passes other records on" {
	mkprim cloth --res 8 --center 0,1,0 > "$T/a.slc"
	mkprim sphere > "$T/s.slc"
	cat "$T/a.slc" "$T/s.slc" > "$T/in.slc"
	run sh -c "clothstep --fps 10 --steps 4 < '$T/in.slc' > '$T/b.slc'"
	assert_success
	run cstat "$T/b.slc" P max
	# a free rigid sheet: 1 - 9.8 * 0.1^2 / 2 = 0.951
	awk -v y="$output" 'BEGIN { exit !(y > 0.9505 && y < 0.9515) }'
	run sh -c "slcinfo '$T/b.slc'"
	assert_output --partial "mesh 'sphere'"
	assert_output --partial "time 0.1"
}

@test "pinned points stay, the rest hangs from them" {
	mkprim cloth --res 8 --center 0,1,0 --pin edge > "$T/a.slc"
	clothstep --drag 1 < "$T/a.slc" | clothstep > "$T/b.slc"
	run cstat "$T/b.slc" P max
	assert_output "1"
	run cstat "$T/b.slc" P min
	awk -v y="$output" 'BEGIN { exit !(y >= -0.5 - 1e-3) }'
}

@test "the ground and a sphere stop the cloth" {
	mkprim cloth --res 12 --center 0,0.75,0 > "$T/f0.slc"
	for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
		clothstep --ground 0 --sphere 0,0.3,0 --sphere-radius 0.3 \
			< "$T/f$i.slc" > "$T/f$((i + 1)).slc"
	done
	# after 0.5 s a free fall would be 1.2 m down; nothing is below the
	# ground and the middle rests on the sphere's top (y = 0.6)
	run cstat "$T/f12.slc" P min
	awk -v y="$output" 'BEGIN { exit !(y > -0.7) }'
	run sh -c "slcinfo -j '$T/f12.slc' | jq '.streams[0].records[0].channels[] | select(.name==\"P\") | .mean'"
	awk -v m="$output" 'BEGIN { exit !(m > 0.05) }'
}

@test "-v reports the self-interactions of every frame" {
	# a sheet dropped on a small sphere folds around it
	mkprim cloth --res 16 --center 0,0.3,0 > "$T/f0.slc"
	for i in 0 1 2 3 4 5 6 7; do
		clothstep -v --sphere 0,0,0 --sphere-radius 0.15 --ground -0.3 \
			--drag 0.2 < "$T/f$i.slc" > "$T/f$((i + 1)).slc" 2> "$T/log$i"
	done
	run cat "$T/log7"
	assert_output --partial "repulsion pairs"
	run sh -c "cat '$T'/log* | grep -c 'impact-zone passes'"
	assert_output "8"
}

@test "--self off skips self-interactions" {
	mkprim cloth --res 8 --center 0,1,0 > "$T/a.slc"
	run sh -c "clothstep -v --self off < '$T/a.slc' 2>&1 >/dev/null"
	assert_success
	refute_output --partial "repulsion pairs"
	run clothstep --self maybe
	assert_failure 2
}

@test "a solid level set with its velocity (mklevelset) stops the cloth" {
	mkprim sphere --radius 0.3 --subdiv 3 |
		mklevelset --res 24 --occlusion --box -0.6,-0.6,-0.6,0.6,0.6,0.6 > "$T/s.slc"
	mkprim cloth --res 10 --center 0,0.4,0 > "$T/c.slc"
	cat "$T/c.slc" "$T/s.slc" > "$T/g0.slc"
	cp "$T/g0.slc" "$T/n0.slc"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		clothstep < "$T/g$i.slc" > "$T/g$((i + 1)).slc"
		clothstep --solid none < "$T/n$i.slc" > "$T/n$((i + 1)).slc"
	done
	# mean of x, y, z over the points: about y/3.  Resting on the sphere
	# (top at 0.3) it stays above 0; in free fall (0.85 m lower) below
	run cstat "$T/g10.slc" P mean
	awk -v m="$output" 'BEGIN { exit !(m > 0) }'
	run cstat "$T/n10.slc" P mean
	awk -v m="$output" 'BEGIN { exit !(m < -0.1) }'
	run sh -c "slcinfo '$T/g10.slc' | grep -c \"grid 'solid\""
	assert_output "3"
}

# ytop FILE: the highest y of the cloth's points
ytop() { slcconv -r cloth "$1" -o "$T/top.obj" && awk '/^v / { if (n++ == 0 || $3 > m) m = $3 } END { printf "%.6f\n", m }' "$T/top.obj"; }

@test "a moving solid pushes the cloth, the level set taken at its record's time" {
	# a sphere of radius 0.2 rising at 1 m/s from centre y = 0 under a
	# still sheet at y = 0.3 (no gravity); each frame gets the sphere at
	# the frame's start (s) or end (e), with its velocity (mklevelset
	# --occlusion).  Either way the top of the cloth follows the top of
	# the sphere, 0.2 + t: a frame late would be 1/24 = 0.042 m low.
	mkprim cloth --res 12 --center 0,0.3,0 > "$T/s0.slc"
	cp "$T/s0.slc" "$T/e0.slc"
	for i in 0 1 2 3 4 5 6 7; do
		for m in s e; do
			t=$(awk -v i="$i" -v m="$m" 'BEGIN { printf "%.10g", (i + (m == "e")) / 24 }')
			mkprim sphere --radius 0.2 --center "0,$t,0" --velocity 0,1,0 --time "$t" |
				mklevelset --res 32 --occlusion --box -0.6,-0.3,-0.6,0.6,0.9,0.6 |
				slccat --drop sphere > "$T/body.slc"
			slccat --drop solid,solid_vel,solid_slip "$T/$m$i.slc" | cat - "$T/body.slc" |
				clothstep --gravity 0,0,0 > "$T/$m$((i + 1)).slc"
		done
	done
	for m in s e; do
		run ytop "$T/${m}8.slc"
		awk -v y="$output" 'BEGIN { top = 0.2 + 8 / 24; exit !(y > top - 0.01 && y < top + 0.01) }'
	done
	run cstat "$T/s8.slc" P mean
	awk -v y="$output" 'BEGIN { exit !(y > 0.12) }'
}

# minphi FILE CY R: the least signed distance of the cloth's points to the
# sphere of radius R centred at 0,CY,0
minphi() { slcconv -r cloth "$1" -o "$T/mp.obj" && awk -v cy="$2" -v r="$3" '/^v / { d = sqrt($2^2 + ($3 - cy)^2 + $4^2) - r; if (n++ == 0 || d < m) m = d } END { printf "%.6f\n", m }' "$T/mp.obj"; }

@test "solid_next: a body keyed at both ends of the frame (selle2008 7.5.1), no cloth point inside at the end" {
	# a sphere of radius 0.2 keyed at y = 0 (t = 0) and y = 0.1 (t = 1/24)
	# with no velocity grids, under a still sheet at y = 0.25 (no
	# gravity).  With the second key the cloth ends outside the end
	# sphere (within a tenth of a cell, dx = 0.0375, of the sampled
	# sphere); with the first key alone the body never moves and the
	# sphere's top ends 0.05 above the sheet.
	box=--box=-0.6,-0.3,-0.6,0.6,0.9,0.6
	mkprim cloth --res 16 --size 0.8 --center 0,0.25,0 > "$T/c.slc"
	mkprim sphere --radius 0.2 --center 0,0,0 | mklevelset --res 32 "$box" |
		slccat --drop sphere > "$T/k0.slc"
	mkprim sphere --radius 0.2 --center 0,0.1,0 --time 0.041666666666666667 |
		mklevelset --name solid_next --res 32 "$box" | slccat --drop sphere > "$T/k1.slc"
	cat "$T/c.slc" "$T/k0.slc" "$T/k1.slc" | clothstep --gravity 0,0,0 > "$T/two.slc"
	cat "$T/c.slc" "$T/k0.slc" | clothstep --gravity 0,0,0 > "$T/one.slc"
	run minphi "$T/two.slc" 0.1 0.2
	echo "two keys: $output"
	awk -v m="$output" 'BEGIN { exit !(m > -0.1 * 0.0375) }'
	run minphi "$T/one.slc" 0.1 0.2
	echo "one key: $output"
	awk -v m="$output" 'BEGIN { exit !(m < -0.04) }'
	# the keys pass through; a next key before the frame's end is refused
	run sh -c "slcinfo '$T/two.slc' | grep -c \"grid 'solid\""
	assert_output "2"
	mkprim sphere --radius 0.2 --center 0,0.1,0 --time 0.02 |
		mklevelset --name solid_next --res 32 "$box" | slccat --drop sphere > "$T/k2.slc"
	run sh -c "cat '$T/c.slc' '$T/k0.slc' '$T/k2.slc' | clothstep -o '$T/bad.slc'"
	assert_failure 1
	assert_output --partial "solid_next"
	[ ! -e "$T/bad.slc" ]
}

@test "scripted points reach their goal positions exactly, the sheet follows" {
	# a hand-made goal channel (through ascii PLY, whose consecutive
	# goal_0..2 properties read back as channel goal x3): the two pinned
	# corners are moved and stretched, the free points keep a goal equal
	# to their position (ignored: only pinned points are scripted)
	mkprim cloth --res 8 --center 0,1,0 --pin corners | slcconv -a -r cloth -o "$T/a.ply"
	awk '
	/^property uchar pinned/ { print; print "property float goal_0"
		print "property float goal_1"; print "property float goal_2"; next }
	/^end_header/ { print; body = 1; next }
	body && NF == 11 { if ($11 == 1) printf "%s %.9g %.9g %.9g\n", $0, 1.1 * $1 + 0.3, $2 + 0.1, 0.9 * $3
		else printf "%s %s %s %s\n", $0, $1, $2, $3; next }
	{ print }' "$T/a.ply" > "$T/b.ply"
	slcconv -n cloth "$T/b.ply" -o "$T/f0.slc"
	run sh -c "slcinfo '$T/f0.slc' | grep -c 'goal  *f32 x3'"
	assert_output "1"
	clothstep "$T/f0.slc" -o "$T/f1.slc"
	clothstep "$T/f1.slc" -o "$T/f2.slc"
	for i in 1 2; do
		slcconv -a -r cloth "$T/f$i.slc" -o "$T/f$i.ply"
		# columns: x y z pinned goal_0..2 (P is written in double)
		run awk '/^end_header/ { b = 1; next }
			b && NF >= 14 { n++; sx += $1
				if ($4 == 1) { k++; for (c = 1; c <= 3; c++) {
					d = $c - $(c + 4); if (d < 0) d = -d; if (d > e) e = d } } }
			END { printf "%d %.3g %.4f\n", k, e, sx / n }' "$T/f$i.ply"
		# two scripted corners, at their goals to the float precision of
		# the channel (they moved 0.25 and 0.35 m)
		set -- $output
		[ "$1" = 2 ]
		awk -v e="$2" 'BEGIN { exit !(e < 1e-7) }'
		eval "mx$i=$3"
	done
	# the sheet is dragged along +x (the rest started at mean x 0)
	awk -v a="$mx1" -v b="$mx2" 'BEGIN { exit !(a > 0.05 && b > a) }'
}

@test "output is deterministic" {
	mkprim cloth --res 10 --center 0,1,0 > "$T/a.slc"
	clothstep --sphere 0,0.8,0 --sphere-radius 0.3 < "$T/a.slc" > "$T/b1.slc"
	clothstep --sphere 0,0.8,0 --sphere-radius 0.3 < "$T/a.slc" > "$T/b2.slc"
	cmp "$T/b1.slc" "$T/b2.slc"
}

@test "output does not depend on the number of threads" {
	# more points than the size below which loops stay serial
	mkprim cloth --res 66 --center 0,0.75,0 > "$T/a.slc"
	OMP_NUM_THREADS=1 clothstep --steps 2 --loops 2 --sphere 0,0.3,0 \
		--sphere-radius 0.45 < "$T/a.slc" > "$T/b1.slc"
	OMP_NUM_THREADS=2 clothstep --steps 2 --loops 2 --sphere 0,0.3,0 \
		--sphere-radius 0.45 < "$T/a.slc" > "$T/b2.slc"
	cmp "$T/b1.slc" "$T/b2.slc"
}

@test "bad input: exit 1 with a message and no output" {
	mkprim sphere > "$T/s.slc"
	run clothstep -o "$T/out.slc" "$T/s.slc"
	assert_failure 1
	assert_output --partial "no mesh record 'cloth'"
	[ ! -e "$T/out.slc" ]
	mkprim cloth --res 4 > "$T/a.slc"
	head -c 300 "$T/a.slc" > "$T/trunc.slc"
	run clothstep -o "$T/out.slc" "$T/trunc.slc"
	assert_failure 1
	[ ! -e "$T/out.slc" ]
	run clothstep --cloth nothere "$T/a.slc"
	assert_failure 1
}

# poke IN OUT OP REC ARGS...: a hostile copy of a frame (tests/slcpoke.py)
poke() { python3 "$ROOT/tests/slcpoke.py" "$@"; }

@test "degenerate meshes: no triangles, unused points, one triangle, no points fall freely" {
	# a mesh without springs once overflowed the matrix's column buffer
	# (heap corruption: an abort after the output was written)
	mkprim cloth --res 4 --center 0,1,0 > "$T/a.slc"
	poke "$T/a.slc" "$T/none.slc" keep cloth tri 0
	poke "$T/a.slc" "$T/unused.slc" keep cloth tri 1
	mkprim cloth --res 1 --center 0,1,0 > "$T/b.slc"
	poke "$T/b.slc" "$T/one.slc" keep cloth tri 1
	poke "$T/none.slc" "$T/empty.slc" keep cloth P 0
	for c in v rest mass pinned; do
		poke "$T/empty.slc" "$T/empty.slc" keep cloth $c 0
	done
	for m in none unused one empty; do
		run_split clothstep --fps 10 --steps 4 -o "$T/$m.out.slc" "$T/$m.slc"
		assert_success
		assert_equal "$stderr" ""
	done
	# free points (and a free rigid triangle): y = 1 - 9.8 * 0.1^2 / 2
	for m in none unused one; do
		run cstat "$T/$m.out.slc" P max
		awk -v y="$output" 'BEGIN { exit !(y > 0.9505 && y < 0.9515) }'
		run cstat "$T/$m.out.slc" P count
		[ "$output" = "$(cstat "$T/$m.slc" P count)" ]
	done
	run cstat "$T/empty.out.slc" P count
	assert_output 0
}

@test "a NaN or Inf in any record read is named where it is, before the step; no output" {
	mkprim cloth --res 4 > "$T/a.slc"
	mkprim sphere > "$T/s.slc"
	cat "$T/a.slc" "$T/s.slc" > "$T/in.slc"
	# once found after the step, where it had spread to point 0 of P
	for c in v P; do
		poke "$T/in.slc" "$T/n.slc" set cloth $c 10 1 nan
		run_split clothstep -o "$T/out.slc" "$T/n.slc"
		assert_failure 1
		assert_equal "$stderr" "clothstep: $T/n.slc: field 'cloth' channel '$c', time 0: 1 NaN and 0 Inf values, first at point 10"
		[ ! -e "$T/out.slc" ]
	done
	# a record clothstep only passes on
	poke "$T/in.slc" "$T/n.slc" set sphere P 3 2 inf
	run_split clothstep -o "$T/out.slc" < "$T/n.slc"
	assert_failure 1
	assert_equal "$stderr" "clothstep: <stdin>: field 'sphere' channel 'P', time 0: 0 NaN and 1 Inf values, first at point 3"
	[ ! -e "$T/out.slc" ]
}

@test "a triangle with a repeated point: refused naming the record, no output" {
	mkprim cloth --res 4 > "$T/a.slc"
	poke "$T/a.slc" "$T/dup.slc" put cloth tri 3 5,5,6
	run_split clothstep -o "$T/out.slc" "$T/dup.slc"
	assert_failure 1
	assert_equal "$stderr" "clothstep: $T/dup.slc: record 'cloth': triangle 3: repeated vertex"
	[ ! -e "$T/out.slc" ]
}

@test "usage errors exit 2" {
	run clothstep --steps 0
	assert_failure 2
	run clothstep --mass -1
	assert_failure 2
	run clothstep --bogus
	assert_failure 2
}

@test "-v says when CG solves stop at the iteration cap, and not otherwise" {
	mkprim cloth --res 16 --center 0,0.52,0 > "$T/a.slc"
	clothstep --sphere 0,0,0 --sphere-radius 0.5 < "$T/a.slc" > "$T/b.slc"
	run_split clothstep -v --sphere 0,0,0 --sphere-radius 0.5 "$T/b.slc"
	assert_success
	[[ "$stderr" != *"stopped at"* ]]
	# a tolerance below rounding cannot be met: every contact solve is capped
	run_split clothstep -v --cg-tol 1e-18 --sphere 0,0,0 --sphere-radius 0.5 "$T/b.slc"
	assert_success
	[[ "$stderr" == *"CG solves stopped at 500 iterations, largest residual"*"(tolerance 1e-18)"* ]]
}

@test "usage errors name the option and its range" {
	run clothstep --steps 0
	assert_failure 2
	assert_output --partial "clothstep: --steps: 0, expected 1..100000"
	run clothstep --mass -1
	assert_failure 2
	assert_output --partial "clothstep: --mass: -1, expected more than 0"
	run clothstep --mu -0.5
	assert_failure 2
	assert_output --partial "clothstep: --mu: -0.5, expected at least 0"
	run clothstep --loops 100001
	assert_failure 2
	assert_output --partial "clothstep: --loops: 100001, expected 1..100000"
}

# names FILE: "kind name" of every record of FILE, in stream order
names() { slcinfo -j "$1" | jq -r '.streams[0].records[] | .kind + " " + .name'; }

@test "a frame of 4096 or 5000 records passes through whole and in order" {
	for k in 0 1 2 3 4 5 6; do
		mkprim box --name "b$k" -o "$T/b$k.slc"
	done
	mkprim cloth --res 2 -o "$T/c.slc"
	for n in 4096 5000; do
		# n - 2 boxes, the cloth at position 1000, one provenance record
		set --
		for i in $(seq 0 $((n - 2))); do
			if [ "$i" = 1000 ]; then set -- "$@" "$T/c.slc"
			else set -- "$@" "$T/b$((i % 7)).slc"; fi
		done
		slccat "$@" > "$T/in.slc"
		names "$T/in.slc" > "$T/in.names"
		run wc -l < "$T/in.names"
		assert_output "$n"
		run clothstep "$T/in.slc" -o "$T/out.slc"
		assert_success
		names "$T/out.slc" > "$T/out.names"
		run diff "$T/in.names" "$T/out.names"
		assert_success
		run sh -c "slcinfo '$T/out.slc' | grep -c \"mesh 'cloth' time 0.041\""
		assert_output "1"
	done
}

# plyforce IN OUT EXPR: the cloth of IN with a point channel f_fluid f64 x3
# (through ascii PLY), EXPR a Python expression of the vertex's PLY
# properties (x, y, z, mass, pinned, ...) giving its three components
plyforce() {
	slcconv -a -r cloth "$1" -o "$T/pf.ply"
	python3 - "$T/pf.ply" "$T/pf2.ply" "$3" <<'PY'
import sys
src, dst, expr = sys.argv[1:4]
head, body = open(src).read().split("end_header\n")
hl = head.split("\n")
props, nv, out = [], 0, []
for l in hl:
    w = l.split()
    if w[:2] == ["element", "vertex"]:
        nv, invert = int(w[2]), True
    elif w[:2] == ["element", "face"]:
        invert = False
        out += ["property double f_fluid_%d" % a for a in range(3)]
    elif w[:1] == ["property"] and invert:
        props.append(w[-1])
    out.append(l)
rows = body.split("\n")
for i in range(nv):
    d = {k: float(v) for k, v in zip(props, rows[i].split())}
    f = eval(expr, {}, d)
    rows[i] += " " + " ".join(repr(float(c)) for c in f)
open(dst, "w").write("\n".join(out) + "end_header\n" + "\n".join(rows))
PY
	slcconv -n cloth "$T/pf2.ply" -o "$2"
}

# plycols FILE COLS...: the named PLY vertex properties of the cloth, one
# vertex a line
plycols() {
	local f=$1
	shift
	slcconv -a -r cloth "$f" -o "$T/pc.ply"
	python3 - "$T/pc.ply" "$@" <<'PY'
import sys
head, body = open(sys.argv[1]).read().split("end_header\n")
props, nv = [], 0
for l in head.split("\n"):
    w = l.split()
    if w[:2] == ["element", "vertex"]:
        nv = int(w[2])
    elif w[:1] == ["property"] and w[1] != "list":
        props.append(w[-1])
for r in body.split("\n")[:nv]:
    d = dict(zip(props, r.split()))
    print(" ".join(d[c] for c in sys.argv[2:]))
PY
}

@test "f_fluid: a free sheet under f = m a moves by a t^2/2 at every node, held over all steps" {
	# no gravity; lumped masses differ (corners, edges, inside), so each
	# node gets its own force and the same acceleration a = (2, 0, -1):
	# the sheet translates unstrained, x - x0 = a T^2 / 2 and v = a T
	# exactly (Newmark is exact under constant acceleration; CG solved
	# to 1e-9 m/s).  A force
	# taken for an acceleration, or given in only some of the 5 steps,
	# misses by a factor.
	mkprim cloth --res 6 --center 0,1,0 --density 0.3 > "$T/a.slc"
	plyforce "$T/a.slc" "$T/f.slc" "(2 * mass, 0, -1 * mass)"
	clothstep --gravity 0,0,0 --fps 10 --steps 5 --cg-tol 1e-9 "$T/f.slc" -o "$T/b.slc"
	plycols "$T/b.slc" x y z rest_0 rest_1 rest_2 v_0 v_1 v_2 mass > "$T/cols"
	run python3 - "$T/cols" <<'PY'
import sys
n, worst = 0, 0
masses = set()
for l in open(sys.argv[1]):
    x, y, z, rx, ry, rz, vx, vy, vz, m = map(float, l.split())
    T, a = 0.1, (2, 0, -1)
    for d, w in zip((x - rx, y - ry, z - rz), a):
        worst = max(worst, abs(d - w * T * T / 2))
    for v, w in zip((vx, vy, vz), a):
        worst = max(worst, abs(v - w * T))
    masses.add(round(m, 9))
    n += 1
print(n, len(masses), worst)
assert n == 49 and len(masses) >= 3 and worst < 1e-6, (n, masses, worst)
PY
	assert_success
	echo "$output"
}

@test "f_fluid = m g with gravity off hangs a pinned sheet as gravity does; pinned nodes ignore it" {
	mkprim cloth --res 8 --center 0,1,0 --pin edge > "$T/a.slc"
	# the pinned edge also gets a large force, which must do nothing
	plyforce "$T/a.slc" "$T/f0.slc" "(0, -9.8 * mass, 0) if pinned == 0 else (50, 50, 50)"
	slcconv -a -r cloth "$T/a.slc" -o "$T/a.ply"
	slcconv -n cloth "$T/a.ply" -o "$T/g0.slc"
	for i in 0 1 2 3 4 5; do
		clothstep --gravity 0,0,0 "$T/f$i.slc" -o "$T/f$((i + 1)).slc"
		clothstep --gravity 0,-9.8,0 "$T/g$i.slc" -o "$T/g$((i + 1)).slc"
	done
	plycols "$T/f6.slc" x y z pinned > "$T/f.cols"
	plycols "$T/g6.slc" x y z > "$T/g.cols"
	run python3 - "$T/f.cols" "$T/g.cols" "$T/a.ply" <<'PY'
import sys
F = [list(map(float, l.split())) for l in open(sys.argv[1])]
G = [list(map(float, l.split())) for l in open(sys.argv[2])]
diff = max(abs(f[a] - g[a]) for f, g in zip(F, G) for a in range(3))
sag = max(g[1] for g in G) - min(g[1] for g in G)
pinned = [f for f in F if f[3] == 1]
print("largest difference %.3g m, sag %.3f m" % (diff, sag))
# the same hanging sheet to the CG tolerance; it sagged by far more
assert len(F) == 81 and diff < 1e-4 and sag > 0.3, (diff, sag)
# the pinned edge has not moved (it is at y = 1, z = -0.5)
assert len(pinned) == 9 and all(f[1] == 1 and f[2] == -0.5 for f in pinned)
PY
	assert_success
	echo "$output"
}

@test "f_fluid: one triangle pinned at two corners stretches to the analytic static deflection" {
	# A = (-0.5,0,0), B = (0.5,0,0) pinned, C = (0,0.5,0) free, pulled by
	# F = 1 N along +y, no gravity: at rest the two edge springs (K =
	# k/l0, k = 4.14 N) balance F: 2 K (l - l0) y / l = F, l = |C - A|
	printf '%s\n' ply "format ascii 1.0" "element vertex 3" "property double x" \
		"property double y" "property double z" "property double mass" \
		"property uchar pinned" "property double f_fluid_0" "property double f_fluid_1" \
		"property double f_fluid_2" "element face 1" "property list uchar int vertex_indices" \
		end_header "-0.5 0 0 0.01 1 0 0 0" "0.5 0 0 0.01 1 0 0 0" \
		"0 0.5 0 0.01 0 0 1 0" "3 0 1 2" > "$T/t.ply"
	slcconv -n cloth "$T/t.ply" -o "$T/t.slc"
	clothstep --gravity 0,0,0 --self off --damping 1 --fps 0.5 --steps 400 \
		--cg-tol 1e-9 "$T/t.slc" -o "$T/u.slc"
	plycols "$T/u.slc" x y > "$T/cols"
	run python3 - "$T/cols" <<'PY'
import math, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
k, l0, F = 4.14, math.sqrt(0.5), 1.0
lo, hi = 0.5, 2.0
for _ in range(200):     # bisection on the balance of forces at C
    y = (lo + hi) / 2
    l = math.hypot(0.5, y)
    if 2 * k / l0 * (l - l0) * y / l < F:
        lo = y
    else:
        hi = y
x, yc = rows[2]
print("C at y = %.6f, analytic %.6f (rest 0.5)" % (yc, y))
assert abs(x) < 1e-9 and abs(yc - y) < 1e-4 * (y - 0.5), (x, yc, y)
PY
	assert_success
	echo "$output"
}

@test "--keep-scene leaves the scene alone; P_prev holds the positions the frame started from" {
	mkprim pool --res 8 > "$T/pool.slc"
	mkprim cloth --res 4 --center 0.5,0.8,0.5 --size 0.5 > "$T/c.slc"
	cat "$T/pool.slc" "$T/c.slc" > "$T/a.slc"
	clothstep --keep-scene --keep-prev "$T/a.slc" -o "$T/b.slc"
	run sh -c "slcinfo -j '$T/b.slc' | jq -r '.streams[0].records[] | select(.name==\"scene\") | .meta.frame + \" \" + .meta.time'"
	assert_output "0 0"
	run sh -c "slcinfo '$T/b.slc' | grep \"mesh 'cloth'\""
	assert_output --partial "time 0.0416"
	# the scene record passes on byte for byte
	slccat --only scene "$T/a.slc" | slcinfo -j | jq -c '.streams[0].records[0]' > "$T/s0"
	slccat --only scene "$T/b.slc" | slcinfo -j | jq -c '.streams[0].records[0]' > "$T/s1"
	cmp "$T/s0" "$T/s1"
	# P_prev (f64) is the P read; a second frame overwrites it without
	# the option, since the record has one
	run sh -c "slcinfo '$T/b.slc' | grep -c 'P_prev  *f64 x3 point 25'"
	assert_output "1"
	clothstep --keep-scene "$T/b.slc" -o "$T/c2.slc"
	plycols "$T/a.slc" x y z > "$T/p0"
	plycols "$T/b.slc" P_prev_0 P_prev_1 P_prev_2 > "$T/q1"
	plycols "$T/b.slc" x y z > "$T/p1"
	plycols "$T/c2.slc" P_prev_0 P_prev_1 P_prev_2 > "$T/q2"
	run python3 -c '
import sys
A = [[float(v) for v in l.split()] for l in open(sys.argv[1])]
B = [[float(v) for v in l.split()] for l in open(sys.argv[2])]
# A is P in f32, printed to 9 digits; B the same values in f64
assert len(A) == 25 and all(abs(a - b) < 1e-8 for p, q in zip(A, B) for a, b in zip(p, q))
' "$T/p0" "$T/q1"
	assert_success
	cmp "$T/p1" "$T/q2"
	# without the options the scene advances and no P_prev appears
	clothstep "$T/a.slc" -o "$T/d.slc"
	run sh -c "slcinfo -j '$T/d.slc' | jq -r '.streams[0].records[] | select(.name==\"scene\") | .meta.frame'"
	assert_output "1"
	run sh -c "slcinfo '$T/d.slc' | grep -c P_prev"
	assert_output "0"
}

@test "f_fluid of zeros changes no bit of the step; it passes on unchanged" {
	mkprim cloth --res 8 --center 0,1,0 --pin corners > "$T/a.slc"
	plyforce "$T/a.slc" "$T/z.slc" "(0, 0, 0)"
	slcconv -a -r cloth "$T/a.slc" -o "$T/a.ply"
	slcconv -n cloth "$T/a.ply" -o "$T/n.slc"
	clothstep --sphere 0,0.7,0 --sphere-radius 0.3 "$T/z.slc" -o "$T/z1.slc"
	clothstep --sphere 0,0.7,0 --sphere-radius 0.3 "$T/n.slc" -o "$T/n1.slc"
	plycols "$T/z1.slc" x y z v_0 v_1 v_2 > "$T/zc"
	plycols "$T/n1.slc" x y z v_0 v_1 v_2 > "$T/nc"
	cmp "$T/zc" "$T/nc"
	run sh -c "slcinfo '$T/z1.slc' | grep 'f_fluid'"
	assert_output --partial "f64 x3 point 81"
	run clothstep --cloth cloth "$T/z1.slc" -o "$T/z2.slc"
	assert_success
}

@test "f_fluid with the wrong count is refused naming the record" {
	mkprim cloth --res 4 > "$T/a.slc"
	plyforce "$T/a.slc" "$T/f.slc" "(0, 1, 0)"
	python3 "$ROOT/tests/slcpoke.py" "$T/f.slc" "$T/bad.slc" keep cloth f_fluid 3
	run_split clothstep -o "$T/out.slc" "$T/bad.slc"
	assert_failure 1
	assert_equal "$stderr" "clothstep: $T/bad.slc: record 0 'cloth' at byte 0: channel 'f_fluid' has 3 elements, expected 25 (one per point)"
	[ ! -e "$T/out.slc" ]
}
