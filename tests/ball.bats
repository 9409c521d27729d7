#!/usr/bin/env bats
# pipelines/ball, baked at a tiny size (24x16x16 cells, 3 frames): the
# scripted ball follows its path, the water is pushed up where it enters,
# every frame has its OBJs and a picture that shows something.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make -C "$ROOT/pipelines/ball" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/out" \
	     RES=24 FRAMES=3 SIZE=160x120 "$@"
}

@test "ball: frames, meshes, pictures; the ball on its path; the water splashes up" {
	run bake -j2
	assert_success
	for n in 0000 0001 0002 0003; do
		[ -s "$T/out/frame-$n.slc" ]
		grep -q '^f ' "$T/out/surface-$n.obj"
		grep -q '^f ' "$T/out/ball-$n.obj"
		run probe "$T/out/frame-$n.png" size
		assert_output "160 120"
		read -r npx _ < <(probe "$T/out/frame-$n.png" bbox 31,33,38)
		[ "$npx" -gt 2000 ]
		slc_finite "$T/out/frame-$n.slc"
	done
	# frame 1, t = 1/24: the ball's centre is at (1.25,.55,.5) + (-6,-6,0)/24
	# exactly, and its mesh around it (within half a cell, dx = 1/16)
	slcinfo -j "$T/out/frame-0001.slc" | grep -o '"name":"P","type":"f64"[^}]*' |
		grep -q '"min":0.3,"max":1,"mean":0.6'
	awk '$1 == "v" { n++; x += $2; y += $3; z += $4 }
	     END { x /= n; y /= n; z /= n;
		   exit !((x - 1) ^ 2 + (y - 0.3) ^ 2 + (z - 0.5) ^ 2 < (1 / 32) ^ 2) }' \
		"$T/out/ball-0001.obj"
	# after 0.075 s it rests at (.8,.1,.5)
	slcinfo -j "$T/out/frame-0003.slc" | grep -o '"name":"v","type":"f64"[^}]*' |
		grep -q '"min":0,"max":0,'
	# the pool is 0.3 deep and flat at first; the ball pushes water up
	# around where it enters (x near 0.8 .. 1.25)
	t=$(obj_top "$T/out/surface-0000.obj")
	awk -v t="$t" 'BEGIN { exit !(t < 0.31) }'
	awk '$1 == "v" && $3 > 0.36 && $2 > 0.5 && $2 < 1.4 { n++ }
	     END { exit !(n > 10) }' "$T/out/surface-0002.obj"
}

@test "ball: resumable: a second make does nothing, a deleted picture is redrawn alone" {
	bake >/dev/null
	run bake
	assert_output --partial "Nothing to be done"
	rm "$T/out/frame-0002.png"
	run bake
	assert_success
	assert_output --partial "frame-0002.png"
	refute_output --partial "advect"
	[ -s "$T/out/frame-0002.png" ]
}
