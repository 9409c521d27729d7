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
