#!/usr/bin/env bats
# kdsmbake: the skinned tet mesh around mkprim's animated characters:
# frames baked alone equal those of a whole bake, bytes independent of
# the thread count, the disabled tets reported, the solid grids those of
# mklevelset --like --occlusion, a character from OBJ frames.

load common

slcgrid() { python3 "$ROOT/tests/slcgrid.py" "$@"; }


# The arm's grid and lattice in $T.
arm_lattice() {
	mkprim pool --res 16 -o "$T/grid.slc"
	mkprim arm --frame 0 -o "$T/arm-0.slc"
	kdsmbake lattice "$T/arm-0.slc" --like "$T/grid.slc" --levels 1 -o "$T/lat.slc"
}

@test "kdsmbake: usage errors exit 2" {
	run kdsmbake
	assert_failure 2
	run kdsmbake bake
	assert_failure 2
	assert_output --partial "unknown mode 'bake'"
	run kdsmbake frame /dev/null
	assert_failure 2
	assert_output --partial "no --lattice"
	run kdsmbake lattice --ratio 3 /dev/null
	assert_failure 2
	run kdsmbake lattice --samples 5 --dx 0.1 /dev/null
	assert_failure 2
	run kdsmbake --version
	assert_success
}

@test "kdsmbake: frame 7 baked alone is frame 7 of a whole bake, in parallel or not" {
	arm_lattice
	mkdir "$T/all" "$T/one"
	for f in 0 1 2 3 4 5 6 7 8; do mkprim arm --frame $f -o "$T/arm-$f.slc"; done
	cd "$T/all"
	printf '%s\n' 0 1 2 3 4 5 6 7 8 | xargs -P 2 -I N \
		kdsmbake frame --lattice ../lat.slc ../arm-N.slc --like ../grid.slc -q -o kdsm-N.slc
	cd "$T/one"
	OMP_NUM_THREADS=1 kdsmbake frame --lattice ../lat.slc ../arm-7.slc --like ../grid.slc -q -o kdsm-7.slc
	cmp "$T/all/kdsm-7.slc" "$T/one/kdsm-7.slc"
	OMP_NUM_THREADS=2 kdsmbake frame --lattice ../lat.slc ../arm-7.slc --like ../grid.slc -q -o kdsm-7.slc
	cmp "$T/all/kdsm-7.slc" "$T/one/kdsm-7.slc"
}

@test "kdsmbake: the disabled tets of each frame in meta kdsmbake; live tets keep positive volume" {
	arm_lattice
	mkprim arm --frame 6 -o "$T/arm-6.slc"
	run kdsmbake frame --lattice "$T/lat.slc" "$T/arm-6.slc" -o "$T/k6.slc"
	assert_success
	assert_output --regexp "frame 6: [1-9][0-9]* of 91872 tets degenerate, disabled"
	run slcinfo "$T/k6.slc"
	assert_output --regexp "dead=[1-9][0-9]*"
	assert_output --partial "tets=91872"
	assert_output --partial "unranked=0"
	# the reader accepts the stream: every live tet has positive volume
	run slccat "$T/k6.slc" -o "$T/copy.slc"
	assert_success
}

@test "kdsmbake: solid, solid_vel, solid_slip as mklevelset --like --occlusion writes them" {
	arm_lattice
	mkprim arm --frame 3 -o "$T/arm-3.slc"
	kdsmbake frame --lattice "$T/lat.slc" "$T/arm-3.slc" --like "$T/grid.slc" -o "$T/k.slc"
	mklevelset --like "$T/grid.slc" --occlusion "$T/arm-3.slc" -o "$T/m.slc"
	for g in solid solid_vel solid_slip; do
		assert_equal "$(slcgrid "$T/k.slc" md5 $g)" "$(slcgrid "$T/m.slc" md5 $g)"
	done
}

@test "kdsmbake: a rigidly moving ball: every node moves with it" {
	mkprim ball --path circle --frame 0 -o "$T/b0.slc"
	mkprim ball --path circle --frame 5 -o "$T/b5.slc"
	kdsmbake lattice "$T/b0.slc" --dx 0.05 --levels 1 -o "$T/lat.slc"
	kdsmbake frame --lattice "$T/lat.slc" "$T/b5.slc" -o "$T/k.slc"
	run slcinfo "$T/k.slc"
	assert_output --partial "dead=0"
	assert_output --partial "coarse_dead=0"
}

@test "kdsmbake: a character from OBJ frames of one topology through slcconv" {
	arm_lattice
	mkprim arm --frame 6 -o "$T/arm-6.slc"
	slcconv "$T/arm-0.slc" -o "$T/a0.obj"
	slcconv "$T/arm-6.slc" -o "$T/a6.obj"
	slcconv "$T/a0.obj" -n body -o "$T/o0.slc"
	slcconv "$T/a6.obj" -n body -o "$T/o6.slc"
	kdsmbake lattice "$T/o0.slc" --like "$T/grid.slc" --levels 1 -o "$T/olat.slc"
	run kdsmbake frame --lattice "$T/olat.slc" "$T/o6.slc" -o "$T/ok.slc"
	assert_success
	run slcinfo "$T/ok.slc"
	assert_output --partial "unranked=0"
	# another topology is refused
	mkprim sphere -o "$T/s.slc"
	run kdsmbake frame --lattice "$T/olat.slc" "$T/s.slc"
	assert_failure 1
	assert_output --partial "the lattice was made from"
}

@test "mkprim arm, ball --path: one stream per frame with the skin and the skeleton" {
	run slcinfo <(mkprim arm --frame 6)
	assert_output --partial "mesh 'body'"
	assert_output --partial "bw           f32 x2"
	assert_output --partial "bone.1="
	run mkprim arm --path line
	assert_failure 2
	run mkprim sphere --frame 2
	assert_failure 2
	run slcinfo <(mkprim ball --path line --frame 24)
	assert_output --partial "bones=1"
}

@test "kdsmbake: hair of mkprim hair given with the frame: hair, hair_dir, cap lowered (§5); same bytes at 1 and 2 threads" {
	arm_lattice
	mkprim hair --center 0.35,0.5,0.5 --radius 0.05 --length 0.04 --strands 200 --segments 8 -o "$T/hair.slc"
	slccat "$T/arm-0.slc" "$T/hair.slc" -o "$T/armh.slc"
	kdsmbake frame --lattice "$T/lat.slc" "$T/arm-0.slc" -q -o "$T/k.slc"
	mkdir "$T/two"
	cd "$T"
	OMP_NUM_THREADS=1 kdsmbake frame --lattice lat.slc armh.slc --hair-radius 1e-4 -q -o kh.slc
	cd "$T/two"
	ln -s ../lat.slc ../armh.slc .
	OMP_NUM_THREADS=2 kdsmbake frame --lattice lat.slc armh.slc --hair-radius 1e-4 -q -o kh.slc
	cmp "$T/kh.slc" "$T/two/kh.slc"
	run slcinfo "$T/kh.slc"
	assert_output --regexp "hair +f32 x1 prim 91872"
	assert_output --regexp "hair_dir +f32 x3 prim 91872"
	assert_output --partial "hair_outside=0"
	# 200 strands of 0.04 m, radius 1e-4: pi r^2 L 200 = 2.513e-7 m^3
	vol=$(slcinfo "$T/kh.slc" | sed -n 's/.*hair_volume=//p')
	awk -v v="$vol" 'BEGIN { exit !(v > 0.99 * 2.513e-7 && v < 1.01 * 2.513e-7) }'
	# the saturation volume lost: what the hair fills outside the skin
	c0=$(slcinfo "$T/k.slc" | awk '$1 == "cap" { print $11 * 91872 }')
	c1=$(slcinfo "$T/kh.slc" | awk '$1 == "cap" { print $11 * 91872 }')
	echo "sum cap $c0 without hair, $c1 with"
	awk -v a="$c0" -v b="$c1" 'BEGIN { exit !(b < a - 1e-8 && b > a - 2.6e-7) }'
	# no hair record: no hair channels; a named one that is missing: exit 1
	run slcinfo "$T/k.slc"
	refute_output --partial "hair"
	run kdsmbake frame --lattice "$T/lat.slc" "$T/arm-0.slc" --hair fur -o "$T/x.slc"
	assert_failure 1
	assert_output --partial "no strands record 'fur'"
	run kdsmbake lattice --hair-radius 1 --dx 0.1 "$T/arm-0.slc"
	assert_failure 2
}
