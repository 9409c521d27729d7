#!/usr/bin/env bats
# pipelines/kdsm baked small (a 16^3 grid, 8 frames, 96x72 pictures, make
# -j2): every frame finite with its disabled-tet count in its figures, the
# mesh rides with the arm, pictures decode and change from frame to frame,
# and a stopped bake resumes with only what is missing.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make --no-print-directory -C "$ROOT/pipelines/kdsm" BIN="$ROOT/${SLUICE_BIN:-bin}" RES=16 SIZE=96x72 FRAMES=8 "$@"
}

# one bake shared by the tests below (they run in file order)
setup_file() {
	export OMP_WAIT_POLICY=passive
	bake OUT="$BATS_FILE_TMPDIR/out" -j2 >"$BATS_FILE_TMPDIR/log" 2>&1
}

@test "kdsm: every frame finite, its disabled tets counted in meta kdsmbake, the solid grids there" {
	O=$BATS_FILE_TMPDIR/out
	[ -s "$O/kdsm-0007.slc" ]
	[ ! -e "$O/kdsm-0008.slc" ]
	[ "$(grep -c 'kdsmbake lattice' "$BATS_FILE_TMPDIR/log")" -eq 1 ]
	for f in "$O"/kdsm-00*.slc; do
		slc_finite "$f"
		run slcinfo "$f"
		assert_output --regexp "
    dead=[0-9]+
"
		assert_output --partial "meta 'kdsmbake'"
		assert_output --partial "grid 'solid_vel'"
	done
	# frame 6, the elbow bent furthest (70 degrees), has degenerate tets
	run slcinfo "$O/kdsm-0006.slc"
	assert_output --regexp "dead=[1-9][0-9]*"
}

@test "kdsm: pictures decode, show the cut mesh, change from frame to frame as the forearm rises" {
	O=$BATS_FILE_TMPDIR/out
	for n in 0000 0001 0002 0003 0004 0005 0006 0007; do
		run probe "$O/kdsm-$n.png" size
		assert_output "96 72"
	done
	for n in 1 2 3 4 5 6 7; do
		! cmp -s "$O/kdsm-000$((n - 1)).png" "$O/kdsm-000$n.png"
	done
	# the default background 0.12,0.13,0.15 -> 31,33,38
	read -r n0 _ y0 _ < <(probe "$O/kdsm-0000.png" bbox 31,33,38)
	read -r n6 _ y6 _ < <(probe "$O/kdsm-0006.png" bbox 31,33,38)
	echo "pixels $n0 top $y0; frame 6: $n6 top $y6"
	[ "$n0" -gt 500 ]
	[ "$y6" -lt $((y0 - 3)) ]
	# the cut: dark violet (rank -1, inside the arm) and yellow-green (the
	# outer ranks) both present
	python3 - "$O/kdsm-0000.png" "$ROOT/build/tests/pngprobe" <<'PY'
import subprocess, sys
png, probe = sys.argv[1], sys.argv[2]
dark = green = 0
for y in range(0, 72, 2):
    for x in range(0, 96, 2):
        r, g, b = map(int, subprocess.check_output([probe, png, "pixel", str(x), str(y)]).split())
        dark += b > 2 * g and b > 40
        green += g > 120 and g > b
assert dark > 10 and green > 3, (dark, green)
PY
}

@test "kdsm: resumable: nothing to redo, a lost frame is baked again alone" {
	O=$BATS_FILE_TMPDIR/out
	run bake OUT="$O"
	assert_success
	assert_output ""                        # no command ran
	cp "$O/kdsm-0005.slc" "$T/k5.slc"
	touch -r "$O/kdsm-0004.slc" "$T/stamp"
	rm "$O/kdsm-0005.slc" "$O/kdsm-0002.png"
	run bake OUT="$O" -j2
	assert_success
	assert_output --partial "-o $O/kdsm-0002.png"
	assert_output --partial "-o $O/kdsm-0005.slc"
	# (its picture is not redrawn: the frame comes back with the same
	# bytes, and make need not redraw from a remade secondary file)
	refute_output --partial "-o $O/kdsm-0004.slc"
	refute_output --partial "kdsmbake lattice"
	refute_output --partial "mkprim"
	[ ! "$O/kdsm-0004.slc" -nt "$T/stamp" ]
	[ ! "$T/stamp" -nt "$O/kdsm-0004.slc" ]
	cmp "$O/kdsm-0005.slc" "$T/k5.slc"      # baked again, same bytes
	# another view redraws the pictures only
	run bake OUT="$O" CUT=x=50%
	assert_success
	assert_output --partial "-o $O/kdsm-0007.png"
	refute_output --partial "kdsmbake"
	# other settings start again from the lattice
	run bake OUT="$O" LEVELS=0 FRAMES=1
	assert_success
	assert_output --partial "kdsmbake lattice"
}
