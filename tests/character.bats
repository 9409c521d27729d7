#!/usr/bin/env bats
# pipelines/character run short (a 12^3 grid, 4 frames, 96x72 pictures of
# the pool and the mesh's water as one surface (vofstep render, surfacer),
# make -j2), with and without adhesion: every frame finite, its ledger
# balanced to 1e-12 with no tet above cap, the water taken from the pool
# and spray made, pictures decoding, `make ledger` reporting the worst
# balance; a stopped run resumes with what is
# missing, with the same bytes; and pipelines/arm's first frames.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

run_pipe() {
	make --no-print-directory -C "$ROOT/pipelines/$1" BIN="$ROOT/${SLUICE_BIN:-bin}" RES=12 \
		SIZE=96x72 "${@:2}"
}

setup_file() {
	export OMP_WAIT_POLICY=passive
	run_pipe character FRAMES=4 OUT="$BATS_FILE_TMPDIR/out" -j2 >"$BATS_FILE_TMPDIR/log" 2>&1
}

# The balance and over_cap of a frame's ledger must hold.
ledger_ok() {
	run slcinfo "$1"
	assert_output --partial "meta 'vofstep'"
	assert_output --partial "over_cap=0"
	b=$(echo "$output" | sed -n 's/^ *balance=//p')
	python3 -c "import sys; sys.exit(0 if float('$b') <= 1e-12 else 1)"
}

@test "character: every frame finite, its ledger balanced, water taken from the pool, pictures decode" {
	O=$BATS_FILE_TMPDIR/out
	[ -s "$O/frame-0004.slc" ] && [ ! -e "$O/frame-0005.slc" ]
	[ "$(grep -c 'kdsmbake lattice' "$BATS_FILE_TMPDIR/log")" -eq 1 ]
	for f in "$O"/frame-000[1-4].slc; do
		slc_finite "$f"
		ledger_ok "$f"
	done
	run slcinfo "$O/frame-0000.slc"
	assert_output --regexp "n_filled=[1-9]"
	run slcinfo "$O/frame-0004.slc"
	assert_output --partial "stage=finish"
	assert_output --regexp "n_overwritten=[1-9]"
	for f in "$O"/frame-000[0-4].png; do
		run probe "$f" size
		assert_output "96 72"
	done
}

@test "character: make ledger reports the worst balance over the frames" {
	run run_pipe character FRAMES=4 OUT="$BATS_FILE_TMPDIR/out" ledger
	assert_success
	assert_output --regexp "^ledger: 4 frames, worst balance [0-9.e+-]+ \\((-|.*frame-000[1-4].slc)\\), 0 with tets above cap$"
	w=$(echo "$output" | sed -n 's/.*worst balance \([^ ]*\) .*/\1/p')
	python3 -c "import sys; sys.exit(0 if float('$w') <= 1e-12 else 1)"
}

@test "character: a stopped run resumes with only what is missing, the same bytes" {
	O=$BATS_FILE_TMPDIR/out
	cp "$O/frame-0004.slc" "$T/f4.slc"
	rm "$O/frame-0003.slc" "$O/frame-0004.slc" "$O/frame-0004.png"
	run run_pipe character FRAMES=4 OUT="$O" -j2
	assert_success
	refute_output --partial "kdsmbake"
	cmp "$O/frame-0004.slc" "$T/f4.slc"
	[ -s "$O/frame-0004.png" ]
}

@test "character: with adhesion the ledger balances too" {
	run run_pipe character FRAMES=2 ADH=29.43 OUT="$T/adh" -j2
	assert_success
	ledger_ok "$T/adh/frame-0002.slc"
	run slcinfo "$T/adh/frame-0002.slc"
	assert_output --partial "vofstep 0.1.0 --adhesion 29.43"
}

@test "arm: the first frames of the arm in the pool, ledger balanced" {
	run run_pipe arm FRAMES=2 OUT="$T/arm" -j2
	assert_success
	ledger_ok "$T/arm/frame-0002.slc"
	[ -s "$T/arm/frame-0002.png" ]
}
