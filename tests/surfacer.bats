#!/usr/bin/env bats
# surfacer: level sets and particles to meshes; formats, options, bad input.

load common
bats_require_minimum_version 1.5.0

G() { "$ROOT/build/tests/gen_mesh" "$@"; }

# near A B RELTOL: |A - B| <= RELTOL * |B|
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
		m = b < 0 ? -b : b; exit !(d <= t * m) }' ||
		{ echo "$1 is not within $3 of $2"; return 1; }
}

# field N of the -v summary line: "mesh 'x': T triangles, V vertices, area A,
# volume V, Euler characteristic E"
summary() { echo "$1" | grep "mesh '" | sed 's/.*area \([^,]*\), volume \([^,]*\), Euler characteristic \(.*\)/\1 \2 \3/'; }

@test "--help and --version; usage errors exit 2" {
	run surfacer --help
	assert_success
	assert_output --partial "Usage: surfacer"
	assert_output --partial "--particles NAME"
	assert_output --partial "--kernel KERNEL"
	run surfacer --version
	assert_success
	run surfacer --smooth -1
	assert_failure 2
	run surfacer --kernel nonsense
	assert_failure 2
	run surfacer --format obj --mesh-only
	assert_failure 2
	run surfacer a.slc b.slc
	assert_failure 2
	assert_output --partial "one input"
}

@test "a pool with a drop: closed mesh, two components, volume within 1%" {
	mkprim pool --res 32 > "$T/pool.slc"
	run_split sh -c "surfacer -v < '$T/pool.slc' > '$T/o.slc'"
	assert_success
	set -- $(summary "$stderr")
	# depth 0.3 of a unit box plus a drop of radius 0.15
	near "$2" "$(awk 'BEGIN { print 0.3 + 4 / 3 * 3.14159265 * 0.15^3 }')" 0.01
	[ "$3" -eq 4 ]
	run slcinfo "$T/o.slc"
	assert_output --partial "mesh 'surface'"
	assert_output --partial "grid 'phi'"
	assert_output --partial "grid 'u'"
	assert_output --regexp "N +f32 x3 point"
	assert_output --regexp "tri +u32 x3 prim"
}

@test "--field and --iso: the surface |x|^2 = R^2 + iso" {
	G squared sq 48 0.3 > "$T/sq.slc"
	run_split surfacer -v --field sq --iso 0.07 -o "$T/o.slc" "$T/sq.slc"
	assert_success
	set -- $(summary "$stderr")
	near "$2" "$(awk 'BEGIN { r = sqrt(0.09 + 0.07); print 4 / 3 * 3.14159265 * r^3 }')" 0.01
	[ "$3" -eq 2 ]
}

@test "--name, --mesh-only" {
	mkprim pool --res 16 > "$T/pool.slc"
	run sh -c "surfacer --name water --mesh-only < '$T/pool.slc' | slcinfo"
	assert_success
	assert_output --partial "mesh 'water'"
	refute_output --partial "grid 'phi'"
}

@test "--format obj, ply and ply-ascii write the mesh alone" {
	mkprim pool --res 16 > "$T/pool.slc"
	surfacer --format obj -o "$T/o.obj" "$T/pool.slc"
	nv=$(grep -c '^v ' "$T/o.obj")
	[ "$nv" -gt 100 ]
	[ "$(grep -c '^vn ' "$T/o.obj")" -eq "$nv" ]
	grep -q '^f ' "$T/o.obj"
	surfacer --format ply < "$T/pool.slc" > "$T/o.ply"
	head -c 200 "$T/o.ply" | grep -a -q "binary_little_endian"
	head -c 200 "$T/o.ply" | grep -a -q "element vertex $nv"
	surfacer --format ply-ascii < "$T/pool.slc" > "$T/a.ply"
	grep -q "format ascii" "$T/a.ply"
}

@test "--smooth keeps the volume" {
	mkprim pool --res 24 > "$T/pool.slc"
	run_split sh -c "surfacer -v < '$T/pool.slc' > /dev/null"
	set -- $(summary "$stderr")
	v0=$2
	run_split sh -c "surfacer -v --smooth 8 < '$T/pool.slc' > /dev/null"
	assert_success
	set -- $(summary "$stderr")
	near "$2" "$v0" 0.0001
	[ "$3" -eq 4 ]
}

@test "--particles: one particle is a sphere of its radius" {
	G particles drop 1 > "$T/p.slc"
	r=$(slcjson "$T/p.slc" 'print(next(c["min"] for c in r["drop"]["channels"] if c["name"] == "radius"))')
	run_split surfacer -v --particles drop --dx "$(awk -v r="$r" 'BEGIN { print r / 10 }')" -o "$T/o.slc" "$T/p.slc"
	assert_success
	set -- $(summary "$stderr")
	near "$2" "$(awk -v r="$r" 'BEGIN { print 4 / 3 * 3.14159265 * r^3 }')" 0.02
	[ "$3" -eq 2 ]
	# alone, a particle's surface does not depend on the kernel radius
	run_split surfacer -v --particles drop --support 2 --dx "$(awk -v r="$r" 'BEGIN { print r / 10 }')" "$T/p.slc"
	assert_success
	set -- $(summary "$stderr")
	near "$2" "$(awk -v r="$r" 'BEGIN { print 4 / 3 * 3.14159265 * r^3 }')" 0.02
	run surfacer --particles drop --support 0.5 "$T/p.slc"
	assert_failure 2
}

@test "--particles with a grid: union, both kernels, same bytes twice" {
	# water below y = -0.2, a drop at (0.3, 0.3, 0.3); the particles fill
	# the cube [-0.2, 0.2]^3 above the water
	mkprim pool --res 24 --origin -0.5,-0.5,-0.5 --drop-center 0.3,0.3,0.3 \
		--drop-radius 0.1 > "$T/pool.slc"
	G particles drop 300 > "$T/p.slc"
	cat "$T/pool.slc" "$T/p.slc" > "$T/both.slc"
	run_split sh -c "surfacer -v < '$T/pool.slc' > /dev/null"
	set -- $(summary "$stderr")
	vgrid=$2
	for k in zhu-bridson yu-turk; do
		run_split sh -c "surfacer -v --particles drop --kernel $k --refine 2 < '$T/both.slc' > /dev/null"
		assert_success
		set -- $(summary "$stderr")
		awk -v a="$2" -v b="$vgrid" 'BEGIN { exit !(a > b + 0.01) }'
		surfacer --particles drop --kernel $k --refine 2 < "$T/both.slc" > "$T/$k.slc"
		surfacer --particles drop --kernel $k --refine 2 < "$T/both.slc" > "$T/again.slc"
		OMP_NUM_THREADS=1 surfacer --particles drop --kernel $k --refine 2 < "$T/both.slc" > "$T/one.slc"
		cmp "$T/$k.slc" "$T/again.slc"
		cmp "$T/$k.slc" "$T/one.slc"
	done
}

# poke IN OUT OP REC ARGS...: a hostile copy of a frame (tests/slcpoke.py)
poke() { python3 "$ROOT/tests/slcpoke.py" "$@"; }

@test "a NaN or Inf in any record read is named where it is; no output" {
	mkprim pool --res 8 > "$T/pool.slc"    # 8x8x8 cells
	poke "$T/pool.slc" "$T/n.slc" set phi phi $((5 + 8 * (6 + 8 * 7))) 0 nan
	run_split surfacer -o "$T/o.slc" "$T/n.slc"
	assert_failure 1
	assert_equal "$stderr" "surfacer: $T/n.slc: field 'phi' channel 'phi', frame 0: 1 NaN and 0 Inf values, first at sample (5,6,7)"
	[ ! -e "$T/o.slc" ]
	# a record surfacer only passes on: once written out with exit 0
	poke "$T/pool.slc" "$T/v.slc" set v v 0 0 inf
	run_split surfacer -o "$T/o.slc" < "$T/v.slc"
	assert_failure 1
	assert_equal "$stderr" "surfacer: <stdin>: field 'v' channel 'v', frame 0: 0 NaN and 1 Inf values, first at sample (0,0,0)"
	[ ! -e "$T/o.slc" ]
}

@test "bad input: exit 1 with a message, no output file" {
	mkprim pool --res 16 > "$T/pool.slc"
	run_split surfacer --field nope -o "$T/o.slc" "$T/pool.slc"
	assert_failure 1
	[[ "$stderr" == "surfacer: no grid 'nope' in the input"* ]]
	[ ! -e "$T/o.slc" ]
	run_split surfacer --particles nope -o "$T/o.slc" "$T/pool.slc"
	assert_failure 1
	[[ "$stderr" == "surfacer: no particle record 'nope'"* ]]
	G squared sq 8 nan > "$T/nan.slc"
	run_split surfacer --field sq -o "$T/o.slc" "$T/nan.slc"
	assert_failure 1
	[[ "$stderr" == "surfacer: $T/nan.slc: field 'sq' channel 'sq'"*"NaN"* ]]
	cp "$T/pool.slc" "$T/bad.slc"
	flip_byte "$T/bad.slc" 300
	run_split surfacer -o "$T/o.slc" "$T/bad.slc"
	assert_failure 1
	[[ "$stderr" == "surfacer: "*"bad.slc: record"* ]]
	[ ! -e "$T/o.slc" ]
	run_split surfacer "$T/missing.slc"
	assert_failure 1
	[[ "$stderr" == "surfacer: "*"missing.slc"* ]]
	G particles drop 5 > "$T/p.slc"
	run_split surfacer --particles drop --dx 1e-7 "$T/p.slc"
	assert_failure 1
	[[ "$stderr" == "surfacer: particles 'drop': "*"spacing"* ]]
}
