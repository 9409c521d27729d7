#!/usr/bin/env bats
# The liquid path of advect (particle level set, spray, velocity
# extrapolation; lib/pls_step.c) run frame by frame through project, as a
# pipeline does.  Sizes: a resting pool on 16^3 cells for 100 frames, a
# drop into a pool (thesis §2.9, fig. 2.12) on 20^3 cells for 12 frames, a
# collapsing column (pipelines/dambreak) on 20^3 cells for 24 frames.  The
# volume changes, with and without particles, are printed.

bats_require_minimum_version 1.5.0
load common

# frames MODE N IN: N frames of `advect --pls MODE | project` from IN;
# prints the liquid volume advect reports on the first and last frame.
frames() {
	local mode=$1 n=$2 f="$T/$mode.slc" i first="" last=""
	cp "$3" "$f"
	for ((i = 0; i < n; i++)); do
		advect -v --pls "$mode" --seed 1 "$f" 2>"$T/log" | project >"$T/next.slc" || return 1
		mv "$T/next.slc" "$f"
		last=$(sed -n 's/.*liquid volume \([^ ]*\) m^3.*/\1/p' "$T/log")
		[ -n "$first" ] || first=$last
	done
	echo "$first $last"
}

# channel statistics of a frame without its file name and provenance
stats() { slcinfo "$1" | sed 1d | grep -v -e stage -e detail; }

# relative change of $2 from $1, percent
change() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", 100 * (b - a) / a }'; }
within() { awk -v c="$1" -v t="$2" 'BEGIN { exit !(c <= t && -c <= t) }'; }

@test "advect --help lists the particle level set options" {
	run advect --help
	assert_success
	assert_output --partial "--pls M"
	assert_output --partial "--reseed N"
	assert_output --partial "--pls-per-cell N"
}

@test "advect --pls on without phi, bad --reseed: errors" {
	mkprim smoke --res 8 -o "$T/s.slc"
	run advect --pls on "$T/s.slc"
	assert_failure 1
	assert_output --partial "no grid record 'phi'"
	run advect --reseed -1 "$T/s.slc"
	assert_failure 2
}

@test "a frame with phi gets marker particles and spray, repeatable by --seed" {
	mkprim pool --res 12 -o "$T/p.slc"
	OMP_NUM_THREADS=1 advect --seed 5 "$T/p.slc" >"$T/a.slc"     # threads do not matter
	advect --seed 5 "$T/p.slc" >"$T/b.slc"
	advect --seed 6 "$T/p.slc" >"$T/c.slc"
	cmp "$T/a.slc" "$T/b.slc"
	! cmp -s "$T/a.slc" "$T/c.slc"
	run slcinfo "$T/a.slc"
	assert_output --partial "particles 'pls_pos'"
	assert_output --partial "particles 'pls_neg'"
	assert_output --partial "particles 'spray'"
	# the next frame reads them back instead of seeding again
	advect --seed 9 "$T/a.slc" >"$T/d.slc"
	advect --seed 10 "$T/a.slc" >"$T/e.slc"
	diff <(stats "$T/d.slc") <(stats "$T/e.slc")
	run advect --pls off "$T/p.slc"
	refute_output --partial "pls_pos"
}

@test "resting pool, 16^3, 100 frames: the particle level set keeps the volume within 1%" {
	mkprim pool --res 16 --drop-center 0.5,9,0.5 --drop-radius 0.01 -o "$T/pool.slc"
	read -r a b < <(frames on 100 "$T/pool.slc")
	read -r c d < <(frames off 100 "$T/pool.slc")
	on=$(change "$a" "$b") off=$(change "$c" "$d")
	echo "# resting pool volume change over 100 frames: particle level set $on%, level set alone $off%" >&3
	within "$on" 1
}

@test "drop into a pool, 20^3, 12 frames: no NaN, volume kept within 5%" {
	mkprim pool --res 20 -o "$T/drop.slc"
	read -r a b < <(frames on 12 "$T/drop.slc")
	read -r c d < <(frames off 12 "$T/drop.slc")
	on=$(change "$a" "$b") off=$(change "$c" "$d")
	echo "# drop volume change over 12 frames: particle level set $on%, level set alone $off%" >&3
	within "$on" 5
	run slcinfo "$T/on.slc"
	refute_output --partial "nan"
}

@test "collapsing column (pipelines/dambreak), 20^3, 24 frames: particles lose less than the level set alone" {
	make -s -C "$ROOT/pipelines/dambreak" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/dam" \
	     RES=20 FRAMES=0 >/dev/null
	read -r a b < <(frames on 24 "$T/dam/frame-0000.slc")
	read -r c d < <(frames off 24 "$T/dam/frame-0000.slc")
	on=$(change "$a" "$b") off=$(change "$c" "$d")
	echo "# dam break volume change over 24 frames: particle level set $on%, level set alone $off%" >&3
	awk -v a="$on" -v b="$off" 'BEGIN { x = a < 0 ? -a : a; y = b < 0 ? -b : b; exit !(x < y) }'
}
