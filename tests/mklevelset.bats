#!/usr/bin/env bats
# mklevelset: meshes and particles to signed distance, occlusion fields,
# redistancing, grid placement, bad input.

load common
bats_require_minimum_version 1.5.0

G() { "$ROOT/build/tests/gen_mesh" "$@"; }

# near A B TOL: |A - B| <= TOL
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "$1 is not within $3 of $2"; return 1; }
}

@test "a sphere: negative inside, zero crossing on the surface, grid from --res" {
	G sphere ball 0.3 3 0,0,0 > "$T/s.slc"
	run_split sh -c "mklevelset --res 40 < '$T/s.slc' > '$T/o.slc'"
	assert_success
	run slcinfo "$T/o.slc"
	assert_output --partial "grid 'solid'"
	assert_output --partial "40x40x40 cell"
	assert_output --partial "mesh 'ball'"
	run G probe "$T/o.slc" solid 0,0,0
	near "$output" -0.29 0.02
	run G crossing "$T/o.slc" solid
	near "$output" 0.2985 0.003
	run G probe "$T/o.slc" solid 0.37,0.37,0.37
	near "$output" $(awk 'BEGIN { print sqrt(3) * 0.365625 - 0.3 }') 0.02
}

@test "--dx, --pad, --box and --like place the grid" {
	G sphere ball 0.3 2 0,0,0 > "$T/s.slc"
	run sh -c "mklevelset --dx 0.05 --pad 2 < '$T/s.slc' | slcinfo"
	assert_output --partial "16x16x16 cell, origin (-0.4, -0.4, -0.4), dx 0.05"
	run sh -c "mklevelset --box -1,-0.5,-0.5,1,0.5,0.5 --res 20 < '$T/s.slc' | slcinfo"
	assert_output --partial "20x10x10 cell, origin (-1, -0.5, -0.5), dx 0.1"
	mklevelset --box -1,-0.5,-0.5,1,0.5,0.5 --dx 0.25 -o "$T/like.slc" < "$T/s.slc"
	run sh -c "mklevelset --like '$T/like.slc' < '$T/s.slc' | slcinfo"
	assert_output --partial "8x4x4 cell, origin (-1, -0.5, -0.5), dx 0.25"
}

@test "a sphere with a hole, flipped and duplicated triangles keeps its inside" {
	G damaged ball 0.3 > "$T/d.slc"
	run_split sh -c "mklevelset -v --res 32 < '$T/d.slc' > '$T/o.slc'"
	assert_success
	[[ "$stderr" == *"duplicate triangles"* ]]
	run G probe "$T/o.slc" solid 0.013,-0.007,0.004
	near "$output" -0.29 0.02
	run G probe "$T/o.slc" solid 0.1,0.1,-0.1
	[[ "$output" == -* ]]
	run G probe "$T/o.slc" solid 0.3,0.3,0.3
	[[ "$output" != -* ]]
}

@test "an open cup has no inside: refused, or unsigned with --unsigned" {
	G cup cup 0.3 > "$T/c.slc"
	run_split mklevelset --res 24 -o "$T/o.slc" "$T/c.slc"
	assert_failure 1
	[[ "$stderr" == "mklevelset: $T/c.slc: mesh 'cup': no consistent inside"*"--unsigned"* ]]
	[ ! -e "$T/o.slc" ]
	run mklevelset --res 24 --unsigned -o "$T/o.slc" "$T/c.slc"
	assert_success
	run slcinfo "$T/o.slc"
	assert_output --regexp "solid +f32 x1 sample 13824  min [0-9]"
}

@test "--occlusion: velocity of the nearest object and slip per object (union)" {
	G sphere left 0.2 2 -0.3,0,0 1,2,3 > "$T/a.slc"
	G sphere right 0.2 2 0.3,0,0 -4,0,0.5 >> "$T/a.slc"
	run_split sh -c "mklevelset --occlusion --slip 0.25 --slip right=1 --res 40 < '$T/a.slc' > '$T/o.slc'"
	assert_success
	run slcinfo "$T/o.slc"
	assert_output --partial "grid 'solid_vel'"
	assert_output --partial "solid_vel    f32 x3"
	assert_output --partial "grid 'solid_slip'"
	run G probe "$T/o.slc" solid_vel -0.3,0.01,0.01
	assert_output "1.000000,2.000000,3.000000"
	run G probe "$T/o.slc" solid_vel 0.45,0.21,0.01
	assert_output "-4.000000,0.000000,0.500000"
	run G probe "$T/o.slc" solid_slip -0.5,0.3,0
	near "$output" 0.25 1e-6
	run G probe "$T/o.slc" solid_slip 0.3,0,0
	near "$output" 1 1e-6
	run G probe "$T/o.slc" solid -0.3,0.01,0.01
	[[ "$output" == -* ]]
	run G probe "$T/o.slc" solid 0.3,0.01,0.01
	[[ "$output" == -* ]]
	run G probe "$T/o.slc" solid 0,0.01,0.01
	[[ "$output" != -* ]]
}

@test "--prev: velocity from two frames of the same mesh" {
	G sphere ball 0.2 2 0.01,0,0 0,0,0 0.04 > "$T/now.slc"
	G sphere ball 0.2 2 0,0,0 0,0,0 0 > "$T/prev.slc"
	# the 'v' channel wins when present; strip it by naming none: use a mesh without v
	G sphere ball 0.2 2 0.01,0,0 > "$T/now.slc"
	run mklevelset --occlusion --prev "$T/prev.slc" --dt 0.04 --res 24 -o "$T/o.slc" "$T/now.slc"
	assert_success
	run G probe "$T/o.slc" solid_vel 0.25,0.01,0.01
	assert_output --regexp "^0\.2500[0-9]*,0\.000000,0\.000000$"
	run_split mklevelset --occlusion --prev "$T/prev.slc" --res 24 "$T/now.slc"
	assert_failure 1
	[[ "$stderr" == *"bad time step 0"*"--dt"* ]]
}

@test "particles: union of spheres, named phi" {
	G particles water 30 > "$T/p.slc"
	run_split sh -c "mklevelset --res 32 < '$T/p.slc' > '$T/o.slc'"
	assert_success
	run slcinfo "$T/o.slc"
	assert_output --partial "grid 'phi'"
	run_split mklevelset --res 32 --occlusion "$T/p.slc"
	assert_failure 1
}

@test "hair strands: union of capsules, named solid, as deep as the radius" {
	mkprim hair --strands 40 -o "$T/h.slc"
	run mklevelset --dx 0.01 --radius 0.02 -o "$T/o.slc" "$T/h.slc"
	assert_success
	# the deepest sample is at most half a cell's diagonal off a strand: -0.02 <= min < -0.02 + 0.0087
	run slcjson "$T/o.slc" 'print([x["channels"][0]["min"] for x in streams[0]["records"] if x["name"] == "solid"][0])'
	assert_success
	python3 -c "import sys; m = float(sys.argv[1]); sys.exit(not (-0.02 - 1e-6 <= m < -0.02 + 0.0087))" "$output"
	run_split mklevelset --dx 0.01 --occlusion "$T/h.slc"
	assert_failure 1
	[[ "$stderr" == *"meshes only"* ]]
}

@test "--redistance keeps the zero crossing and makes a distance" {
	G squared phi 32 0.3 > "$T/q.slc"
	run mklevelset --redistance -o "$T/o.slc" "$T/q.slc"
	assert_success
	run G crossing "$T/q.slc" phi
	before=$output
	run G crossing "$T/o.slc" phi
	near "$output" "$before" 0.003
	run G probe "$T/o.slc" phi 0.4,0.3,0.2
	near "$output" $(awk 'BEGIN { print sqrt(0.29) - 0.3 }') 0.03
	run mklevelset --redistance --width 2 -o "$T/w.slc" "$T/q.slc"
	run slcinfo "$T/w.slc"
	assert_output --partial "min -0.0625 max 0.0625"
	run_split mklevelset --redistance --from nothing "$T/q.slc"
	assert_failure 1
	[[ "$stderr" == *"no grid record named nothing"* ]]
}

@test "records pass through; an old output record is replaced" {
	G sphere ball 0.3 2 0,0,0 > "$T/s.slc"
	mklevelset --res 16 -o "$T/o1.slc" "$T/s.slc"
	mklevelset --res 20 -o "$T/o2.slc" "$T/o1.slc"
	run slcinfo "$T/o2.slc"
	[ "$(echo "$output" | grep -c "grid 'solid'")" -eq 1 ]
	assert_output --partial "20x20x20 cell"
	assert_output --partial "mesh 'ball'"
}

@test "same input, same bytes, whatever the thread count" {
	G damaged ball 0.3 > "$T/d.slc"
	OMP_NUM_THREADS=1 mklevelset --res 28 --occlusion < "$T/d.slc" > "$T/a.slc"
	OMP_NUM_THREADS=2 mklevelset --res 28 --occlusion < "$T/d.slc" > "$T/b.slc"
	cmp "$T/a.slc" "$T/b.slc"
}

@test "bad input and bad usage" {
	G squared phi 8 0.3 > "$T/q.slc"
	run_split mklevelset "$T/q.slc"
	assert_failure 1
	[[ "$stderr" == "mklevelset: no mesh, particle or strands record in the input" ]]
	G sphere ball 0.3 1 0,0,0 > "$T/s.slc"
	head -c 300 "$T/s.slc" > "$T/trunc.slc"
	run_split mklevelset -o "$T/o.slc" "$T/trunc.slc"
	assert_failure 1
	[[ "$stderr" == "mklevelset: $T/trunc.slc"* ]]
	[ ! -e "$T/o.slc" ]
	run mklevelset --band 0.5 "$T/s.slc"
	assert_failure 2
	run mklevelset --slip 2 "$T/s.slc"
	assert_failure 2
	run mklevelset --box 1,2,3 "$T/s.slc"
	assert_failure 2
	run mklevelset --nonsense "$T/s.slc"
	assert_failure 2
	run_split mklevelset --occlusion --prev "$T/q.slc" "$T/s.slc"
	assert_failure 1
	[[ "$stderr" == *"no mesh named 'ball'"* ]]
}

# poke IN OUT OP REC ARGS...: a hostile copy of a frame (tests/slcpoke.py)
poke() { python3 "$ROOT/tests/slcpoke.py" "$@"; }

@test "a NaN or Inf in any record read is named where it is; no output" {
	G sphere ball 0.3 1 0,0,0 > "$T/s.slc"
	poke "$T/s.slc" "$T/n.slc" set ball P 3 1 nan
	run_split mklevelset --res 8 -o "$T/o.slc" "$T/n.slc"
	assert_failure 1
	assert_equal "$stderr" "mklevelset: $T/n.slc: field 'ball' channel 'P', time 0: 1 NaN and 0 Inf values, first at point 3"
	[ ! -e "$T/o.slc" ]
	# a grid only passed on, in the second of two inputs
	G squared sq 4 0.3 > "$T/q.slc"
	poke "$T/q.slc" "$T/qn.slc" set sq sq $((1 + 4 * (2 + 4 * 3))) 0 inf
	run_split mklevelset --res 8 -o "$T/o.slc" "$T/s.slc" "$T/qn.slc"
	assert_failure 1
	assert_equal "$stderr" "mklevelset: $T/qn.slc: field 'sq' channel 'sq', time 0: 0 NaN and 1 Inf values, first at sample (1,2,3)"
	[ ! -e "$T/o.slc" ]
	# the frame of --prev
	run_split mklevelset --occlusion --prev "$T/n.slc" --res 8 -o "$T/o.slc" "$T/s.slc"
	assert_failure 1
	assert_equal "$stderr" "mklevelset: $T/n.slc: field 'ball' channel 'P', time 0: 1 NaN and 0 Inf values, first at point 3"
	[ ! -e "$T/o.slc" ]
}

@test "a mesh's velocity channel of the wrong size names the record once" {
	cat > "$T/tet.ply" <<-PLY
	ply
	format ascii 1.0
	element vertex 4
	property float x
	property float y
	property float z
	property float v
	element face 4
	property list uchar int vertex_indices
	end_header
	0 0 0 1
	1 0 0 1
	0 1 0 1
	0 0 1 1
	3 0 2 1
	3 0 1 3
	3 0 3 2
	3 1 2 3
	PLY
	run_split mklevelset --occlusion --res 16 --pad 2 "$T/tet.ply"
	assert_failure 1
	[[ "$stderr" == "mklevelset: $T/tet.ply: record 'tet': channel 'v' has 1 components, expected 3" ]]
}

@test "OBJ files are read directly, named after the file" {
	cat > "$T/tet.obj" <<-OBJ
	v 0 0 0
	v 1 0 0
	v 0 1 0
	v 0 0 1
	f 1 3 2
	f 1 2 4
	f 1 4 3
	f 2 3 4
	OBJ
	run_split sh -c "mklevelset --res 24 '$T/tet.obj' > '$T/o.slc'"
	assert_success
	run slcinfo "$T/o.slc"
	assert_output --partial "mesh 'tet'"
	assert_output --partial "grid 'solid'"
	run G probe "$T/o.slc" solid 0.1,0.1,0.1
	near "$output" -0.1 0.01
	printf 'v 0 0 0\nf 1 2 3\n' > "$T/bad.obj"
	run_split mklevelset "$T/bad.obj"
	assert_failure 1
	[[ "$stderr" == "mklevelset: $T/bad.obj: line 2"* ]]
}

@test "PLY and STL files are read directly: the level set of the same mesh" {
	command -v mkprim >/dev/null && command -v slcconv >/dev/null || skip "mkprim or slcconv not built"
	mkprim sphere --radius 0.3 --subdiv 3 -o "$T/s.slc"
	slcconv "$T/s.slc" -o "$T/ball.ply"
	slcconv "$T/s.slc" -o "$T/s.obj"
	# an ascii STL of the same triangles (slcconv writes no STL)
	awk '/^v / { x[++n] = $2; y[n] = $3; z[n] = $4 }
	     /^f / { print "facet normal 0 0 0\n outer loop"
		     for (k = 2; k <= 4; k++) { split($k, a, "/"); print "  vertex", x[a[1]], y[a[1]], z[a[1]] }
		     print " endloop\nendfacet" }
	     BEGIN { print "solid ball" } END { print "endsolid ball" }' "$T/s.obj" > "$T/ball.stl"
	for f in s.slc ball.ply ball.stl; do
		mklevelset --box -0.4,-0.4,-0.4,0.4,0.4,0.4 --res 32 -o "$T/$f.ls" "$T/$f"
	done
	run slcinfo "$T/ball.ply.ls"
	assert_output --partial "mesh 'ball'"
	run slcinfo "$T/ball.stl.ls"
	assert_output --partial "mesh 'ball'"
	# the same distances wherever probed: at the centre about -0.3 (the
	# icosphere's faces are inscribed), outside |x| - 0.3
	for x in 0,0,0 0.1,-0.05,0.02 0.2,0.2,0.2 -0.35,0.3,0.1; do
		run G probe "$T/s.slc.ls" solid "$x"
		want=$output
		for f in ball.ply ball.stl; do
			run G probe "$T/$f.ls" solid "$x"
			near "$output" "$want" 1e-6
		done
	done
	# at samples (cell centres, dx 0.025): in the band, the distance to
	# the sphere (the icosphere's inscribed faces are within 0.003 of
	# it); beyond, within a cell of it
	run G probe "$T/ball.stl.ls" solid 0.2875,0.0125,0.0125
	near "$output" $(awk 'BEGIN { print sqrt(0.2875^2 + 2 * 0.0125^2) - 0.3 }') 0.004
	run G probe "$T/ball.stl.ls" solid 0.0125,0.0125,0.0125
	near "$output" $(awk 'BEGIN { print sqrt(3) * 0.0125 - 0.3 }') 0.025
	run G probe "$T/ball.stl.ls" solid -0.3375,0.2875,0.1125
	near "$output" $(awk 'BEGIN { print sqrt(0.3375^2 + 0.2875^2 + 0.1125^2) - 0.3 }') 0.025
	# a damaged STL names the file
	head -c 200 "$T/ball.stl" > "$T/cut.stl"
	run_split mklevelset --res 8 "$T/cut.stl"
	assert_failure 1
	[[ "$stderr" == "mklevelset: $T/cut.stl: "* ]]
}

@test "--help lists the options" {
	run mklevelset --help
	assert_success
	assert_output --partial "--redistance"
	assert_output --partial "--occlusion"
	[ -f "$ROOT/man/mklevelset.1" ]
}

@test "mklevelset: a PLY with an unknown header line is read with a warning, -q silences it" {
	cd "$T"
	printf 'ply\nformat ascii 1.0\nCreated by x\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n' > t.ply
	run_split mklevelset --res 32 t.ply -o t.slc
	assert_success
	[ "$stderr" = 'mklevelset: t.ply: line 3: unknown PLY header line skipped: Created by x' ]
	[ -s t.slc ]
	run_split mklevelset -q --res 32 t.ply -o q.slc
	assert_success
	[ -z "$stderr" ]
}
