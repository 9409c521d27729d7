#!/usr/bin/env bats
# Rigid bodies through advect | project: mkprim ball, scripted paths,
# floating and sinking balls, older frames, bad records.

bats_require_minimum_version 1.5.0
load common

# chan FILE RECORD CHANNEL STAT: a statistic of a channel from slcinfo -j
chan() {
	slcinfo -j "$1" | grep "\"name\":\"$2\",\"time\"" | tr '{' '\n' | grep "\"name\":\"$3\"" |
		sed -n "s/.*\"$4\":\([^,}]*\).*/\1/p" | head -1
}

# py FILE: the ball's centre height (P's y; x and z stay at 0.5 and above)
py() { chan "$1" rigid P min; }

# frames IN N: N frames of advect | project from IN, into $T/f1.slc ...
frames() {
	local prev=$1
	for i in $(seq 1 "$2"); do
		advect "$prev" | project -o "$T/f$i.slc" || return 1
		prev=$T/f$i.slc
	done
}

pool() { mkprim pool --res 16 --depth 0.6 --drop-center 0.5,0.1,0.5 --drop-radius 0.05; }

@test "mkprim ball: records, mass from the density, usage errors" {
	mkprim ball --res 16 --radius 0.1 --density 1000 -o "$T/b.slc"
	run slcinfo "$T/b.slc"
	assert_output --partial "particles 'rigid'"
	assert_output --partial "grid 'rigid_phi0'"
	assert_output --partial "grid 'rigid_phi'"
	m=$(chan "$T/b.slc" rigid mass max)
	awk -v m="$m" 'BEGIN { e = 4 / 3 * 3.14159265358979 * 0.001 * 1000; exit !((m - e) ^ 2 < 1e-12) }'
	[ "$(chan "$T/b.slc" rigid scripted max)" = 0 ]
	run mkprim ball --stop 1
	assert_failure 2
	run mkprim ball --motion rolling
	assert_failure 2
	run mkprim ball --radius -1
	assert_failure 2
}

@test "a thrown scripted ball follows P0 + v0 t + g t^2/2 exactly through water" {
	{ pool && mkprim ball --res 16 --radius 0.1 --center 0.3,0.8,0.5 --velocity 1,1,0 \
		--motion thrown; } | slccat -o "$T/f0.slc"
	frames "$T/f0.slc" 4
	# t = 4/24: x = 0.3 + t, y = 0.8 + t - 9.81 t^2/2
	x=$(chan "$T/f4.slc" rigid P min)      # 0.467 < z = 0.5 < y = 0.830
	y=$(chan "$T/f4.slc" rigid P max)
	awk -v x="$x" -v y="$y" 'BEGIN { t = 4 / 24; ex = 0.3 + t; ey = 0.8 + t - 9.81 * t * t / 2;
		exit !((x - ex) ^ 2 < 1e-12 && (y - ey) ^ 2 < 1e-12) }'
	# project leaves a scripted body's velocity alone but the water moves
	[ "$(chan "$T/f4.slc" rigid v max)" = 1 ]
	u=$(chan "$T/f4.slc" u u max)
	awk -v u="$u" 'BEGIN { exit !(u > 0.05) }'
}

@test "a ball of density 0.1 rises, one of density 3 sinks; no NaN" {
	for rho in 100 3000; do
		{ pool && mkprim ball --res 16 --radius 0.12 --center 0.5,0.3,0.5 --density $rho; } |
			slccat -o "$T/f0.slc"
		frames "$T/f0.slc" 5
		y=$(py "$T/f5.slc")
		if [ $rho = 100 ]; then
			awk -v y="$y" 'BEGIN { exit !(y > 0.33) }'
		else
			awk -v y="$y" 'BEGIN { exit !(y < 0.25) }'
		fi
		run slcinfo -j "$T/f5.slc"
		refute_output --regexp '"nan":[1-9]'
		# the orientation is written from the first step on
		[ "$(chan "$T/f5.slc" rigid orient max)" = 1 ]
	done
}

@test "an older frame (orient f32, no rigid_phi0) still runs; rigid_phi0 is added" {
	"$ROOT/build/tests/test_project_frames" rigid "$T/old.slc"
	advect "$T/old.slc" | project -o "$T/new.slc"
	run slcinfo "$T/new.slc"
	assert_output --partial "grid 'rigid_phi0'"
	assert_output --partial "orient       f32 x4"
	y0=$(chan "$T/old.slc" rigid P min)
	y1=$(chan "$T/new.slc" rigid P min)
	awk -v a="$y0" -v b="$y1" 'BEGIN { exit !(a != b) }'
}

@test "bad rigid records: message, exit 1, no output" {
	{ pool && mkprim ball --res 16; } | slccat -o "$T/f0.slc"
	slccat --drop rigid_phi,rigid_phi0 "$T/f0.slc" > "$T/nophi.slc"
	run_split advect -o "$T/out.slc" "$T/nophi.slc"
	assert_failure 1
	[[ "$stderr" == "advect: "*"no 'rigid_phi0' or 'rigid_phi' record"* ]]
	[ ! -e "$T/out.slc" ]
	# a body-frame grid coarser than the frame's is fine
	{ pool && mkprim ball --res 16 | slccat --drop rigid_phi0 &&
		mkprim ball --res 8 | slccat --only rigid_phi0; } > "$T/coarse.slc"
	advect "$T/coarse.slc" | project > /dev/null
}
