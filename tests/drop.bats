#!/usr/bin/env bats
# pipelines/drop and pipelines/dambreak, baked at a tiny size (12^3 cells, 3
# frames): every frame has its OBJ and a picture that shows the water.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make -C "$ROOT/pipelines/drop" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/out" \
	     RES=12 FRAMES=3 SIZE=160x120 "$@"
}

@test "drop: frames, OBJ surfaces and non-blank pictures" {
	run bake -j2
	assert_success
	for n in 0000 0001 0002 0003; do
		[ -s "$T/out/frame-$n.slc" ]
		grep -q '^f ' "$T/out/surface-$n.obj"
		run probe "$T/out/frame-$n.png" size
		assert_output "160 120"
		# the default background is 0.12,0.13,0.15 -> 31,33,38
		read -r npx _ < <(probe "$T/out/frame-$n.png" bbox 31,33,38)
		[ "$npx" -gt 2000 ]     # the pool covers a good part of the picture
	done
	run slcinfo "$T/out/frame-0003.slc"
	assert_output --partial "particles 'pls_pos'"
}

@test "drop: resumable: a second make does nothing, a deleted picture is redrawn alone" {
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

@test "dambreak: a column at rest against a wall, then collapsing; non-blank pictures" {
	run make -C "$ROOT/pipelines/dambreak" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/dam" \
	     RES=12 FRAMES=3 SIZE=160x120 -j2
	assert_success
	# the column 0.4 x 0.6 x 1 stands against x = 0: liquid there, air at x = 0.9
	run slcinfo "$T/dam/frame-0000.slc"
	assert_output --partial "grid 'phi'"
	for n in 0000 0003; do
		grep -q '^f ' "$T/dam/surface-$n.obj"
		read -r npx _ < <(probe "$T/dam/frame-$n.png" bbox 31,33,38)
		[ "$npx" -gt 1000 ]
	done
	# the top of the column comes down: highest surface vertex lower at frame 3
	top0=$(obj_top "$T/dam/surface-0000.obj")
	top3=$(obj_top "$T/dam/surface-0003.obj")
	awk -v a="$top0" -v b="$top3" 'BEGIN { exit !(a > 0.55 && b < a) }'
}
