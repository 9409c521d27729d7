#!/usr/bin/env bats
# pipelines/smoke baked small (24^3 cells, 16 frames, 96x96 pictures, make
# -j2): no NaN, the smoke rises, pictures show it, vortex particles change
# the flow, and an interrupted bake resumes with only what is missing.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make --no-print-directory -C "$ROOT/pipelines/smoke" BIN="$ROOT/${SLUICE_BIN:-bin}" RES=24 SIZE=96x96 "$@"
}

# one bake shared by the tests below (they run in file order)
setup_file() {
	export OMP_WAIT_POLICY=passive
	bake OUT="$BATS_FILE_TMPDIR/out" FRAMES=16 -j2 >"$BATS_FILE_TMPDIR/log" 2>&1
}

@test "smoke: every frame finite, the smoke rises, vortex particles carried along" {
	O=$BATS_FILE_TMPDIR/out
	[ -s "$O/frame-0016.slc" ]
	for f in "$O"/frame-*.slc; do
		slc_finite "$f"
	done
	read -r m0 _ y0 _ < <(slcgrid "$O/frame-0000.slc" mass density)
	read -r m1 _ y1 _ < <(slcgrid "$O/frame-0016.slc" mass density)
	# the source adds smoke; its centre of mass has risen by more than 0.1 m
	awk -v a="$m0" -v b="$m1" -v p="$y0" -v q="$y1" 'BEGIN { exit !(b > 1.5 * a && q > p + 0.1) }'
	run slcinfo "$O/frame-0016.slc"
	assert_output --partial "particles 'vortex'"
	assert_output --partial "mesh 'sphere'"
	assert_output --partial "grid 'solid_vel'"
}

@test "smoke: pictures decode, show smoke and sphere, and the plume grows" {
	O=$BATS_FILE_TMPDIR/out
	for n in 0000 0008 0016; do
		run probe "$O/frame-$n.png" size
		assert_output "96 96"
	done
	# the default background 0.12,0.13,0.15 -> 31,33,38
	read -r n0 _ < <(probe "$O/frame-0000.png" bbox 31,33,38)
	read -r n1 _ < <(probe "$O/frame-0016.png" bbox 31,33,38)
	[ "$n0" -gt 300 ]               # the sphere and the source
	[ "$n1" -gt $((n0 + 100)) ]     # and the plume under it
}

@test "smoke: VORTEX=0 bakes without vortex particles, and the flow differs" {
	O=$BATS_FILE_TMPDIR/out
	run bake OUT="$T/v0" FRAMES=8 VORTEX=0 "$T/v0/frame-0008.slc"
	assert_success
	# the same first frame but for the paths in the provenance
	cmp <(slcinfo "$O/frame-0000.slc" | sed 1d | grep -v -e stage -e detail -e provenance) \
	    <(slcinfo "$T/v0/frame-0000.slc" | sed 1d | grep -v -e stage -e detail -e provenance)
	run slcinfo "$T/v0/frame-0008.slc"
	refute_output --partial "vortex"
	a=$(slcgrid "$O/frame-0008.slc" mass density)
	b=$(slcgrid "$T/v0/frame-0008.slc" mass density)
	[ "$a" != "$b" ]
	run bake OUT="$T/v0" VORTEX=2
	assert_failure
	assert_output --partial "VORTEX=2: expected 0 or 1"
}

@test "smoke: resumable: nothing to redo, a lost frame is baked again alone with what follows" {
	O=$BATS_FILE_TMPDIR/out
	run bake OUT="$O" FRAMES=16
	assert_success
	assert_output ""                        # no command ran
	cp "$O/frame-0016.slc" "$T/last.slc"
	touch -r "$O/frame-0007.slc" "$T/stamp"
	rm "$O/frame-0008.slc" "$O/frame-0003.png"
	run bake OUT="$O" FRAMES=16 -j2
	assert_success
	assert_output --partial "frame-0003.png"
	assert_output --partial "-o $O/frame-0008.slc"
	refute_output --partial "-o $O/frame-0007.slc"
	refute_output --partial "mkprim"
	[ ! "$O/frame-0007.slc" -nt "$T/stamp" ]
	[ ! "$T/stamp" -nt "$O/frame-0007.slc" ]
	cmp "$O/frame-0016.slc" "$T/last.slc"   # baked again, same bytes
	# other settings into the same directory start again from frame 0
	run bake OUT="$O" FRAMES=1 CONFINEMENT=0
	assert_success
	assert_output --partial "mkprim smoke"
	assert_output --partial "-o $O/frame-0001.slc"
}

@test "smoke: the smoke goes around the sphere, none inside it" {
	# guendelman2005 §4.1 / thesis §4.4.1: the cells inside the solid hold
	# clear air (without it 15% of the smoke was inside the sphere here)
	O=$BATS_FILE_TMPDIR/out
	for n in 0008 0016; do
		read -r big inside total < <(slcgrid "$O/frame-$n.slc" inside density solid 0)
		awk -v b="$big" -v i="$inside" -v t="$total" 'BEGIN { exit !(t > 0 && b < 1e-6 && i < 1e-3 * t) }'
	done
	read -r big inside total < <(slcgrid "$O/frame-0016.slc" inside temperature solid 0)
	awk -v b="$big" -v i="$inside" 'BEGIN { exit !(b < 1e-6 && i < 1e-9) }'
}

@test "smoke: bakes of one directory at once never race on the settings stamp" {
	O=$T/race
	mkdir -p "$O"
	for k in 1 2 3 4 5 6 7 8; do
		pids=
		for j in 1 2 3 4 5 6; do
			bake OUT="$O" CONFINEMENT="$k.$j" "$O/settings" "$O/view" >/dev/null 2>&1 &
			pids="$pids $!"
		done
		for p in $pids; do wait "$p" || fail "a bake of settings $k.* failed"; done
	done
	[ -s "$O/settings" ]
	run ls -A "$O"
	refute_output --partial tmp
}
