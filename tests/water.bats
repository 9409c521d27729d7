#!/usr/bin/env bats
# The liquid path of advect (particle level set, spray, velocity
# extrapolation; lib/liquid/pls_step.c) run frame by frame through project, as a
# pipeline does.  Volumes are measured against frame 0 on every frame.
# Sizes: a pool at rest disturbed by a small drop on 16^3 cells for 100
# frames; the drop into a pool of pipelines/drop (thesis §2.9, fig. 2.12)
# on 24^3 cells for its full 48 frames (2 s: the fall, the impact, the
# crown and the sloshing after; the pipeline's 32^3 has the same scene and
# changes by no more, +1.3%); a collapsing column (pipelines/dambreak) on 20^3
# cells for 24 frames.  The volume changes, with and without particles,
# are printed.

bats_require_minimum_version 1.5.0
load common

# vol0 IN: the liquid volume of frame IN itself (advect over a nanosecond:
# the particle level set's redistancing keeps the zero crossing)
vol0() {
	advect -v --pls on --dt 1e-9 "$1" 2>&1 >/dev/null |
		sed -n 's/.*liquid volume \([^ ]*\) m^3.*/\1/p'
}

# frames MODE N IN: N frames of `advect --pls MODE | project` from IN;
# prints the liquid volume advect reports on every frame, one line.
frames() {
	local mode=$1 n=$2 f="$T/$mode.slc" i out=""
	cp "$3" "$f"
	for ((i = 0; i < n; i++)); do
		advect -v --pls "$mode" --seed 1 "$f" 2>"$T/log" | project >"$T/next.slc" || return 1
		mv "$T/next.slc" "$f"
		out="$out $(sed -n 's/.*liquid volume \([^ ]*\) m^3.*/\1/p' "$T/log")"
	done
	echo $out
}

# worst V0 V1 V2 ...: the largest |relative change| of the V from V0, percent
worst() { echo "$@" | awk '{ m = 0; for (i = 2; i <= NF; i++) { c = 100 * ($i - $1) / $1; if (c < 0) c = -c; if (c > m) m = c }; printf "%.3f", m }'; }
# final V0 V1 ... VN: the relative change of VN from V0, percent
final() { echo "$@" | awk '{ printf "%.3f", 100 * ($NF - $1) / $1 }'; }

# channel statistics of a frame without its file name and provenance
stats() { slcinfo "$1" | sed 1d | grep -v -e stage -e detail; }

# is -$2 <= $1 <= $2?
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

@test "pool at rest disturbed by a small drop, 16^3, 100 frames: the particle level set keeps the volume within 1%, the level set alone loses more" {
	# a drop of 0.1 m radius (1.6 cells) from 0.15 m above the surface:
	# rings run out to the walls and back for the whole 4 s
	mkprim pool --res 16 --drop-center 0.5,0.55,0.5 --drop-radius 0.1 -o "$T/pool.slc"
	v0=$(vol0 "$T/pool.slc")
	on=$(frames on 100 "$T/pool.slc") off=$(frames off 100 "$T/pool.slc")
	won=$(worst "$v0" $on) woff=$(worst "$v0" $off)
	echo "# disturbed pool, largest volume change over 100 frames: particle level set $won% (last $(final "$v0" $on)%), level set alone $woff% (last $(final "$v0" $off)%)" >&3
	within "$won" 1
	awk -v a="$won" -v b="$woff" 'BEGIN { exit !(a < b) }'
}

@test "drop into a pool (pipelines/drop), 24^3, 48 frames: no NaN, volume kept within 2% on every frame" {
	mkprim pool --res 24 -o "$T/drop.slc"
	v0=$(vol0 "$T/drop.slc")
	on=$(frames on 48 "$T/drop.slc") off=$(frames off 48 "$T/drop.slc")
	won=$(worst "$v0" $on) woff=$(worst "$v0" $off)
	echo "# drop, largest volume change over 48 frames: particle level set $won% (last $(final "$v0" $on)%), level set alone $woff% (last $(final "$v0" $off)%)" >&3
	within "$won" 2
	run slcinfo "$T/on.slc"
	refute_output --partial "nan"
}

@test "collapsing column (pipelines/dambreak), 20^3, 24 frames: particles lose less than the level set alone" {
	make -s -C "$ROOT/pipelines/dambreak" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/dam" \
	     RES=20 FRAMES=0 >/dev/null
	v0=$(vol0 "$T/dam/frame-0000.slc")
	on=$(frames on 24 "$T/dam/frame-0000.slc") off=$(frames off 24 "$T/dam/frame-0000.slc")
	won=$(final "$v0" $on) woff=$(final "$v0" $off)
	echo "# dam break volume change over 24 frames: particle level set $won%, level set alone $woff%" >&3
	awk -v a="$won" -v b="$woff" 'BEGIN { x = a < 0 ? -a : a; y = b < 0 ? -b : b; exit !(x < y) }'
}
