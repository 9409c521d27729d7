#!/usr/bin/env bats
# project: pressure projection of a frame; pass-through, options, metadata,
# rigid bodies, bad input.

load common
bats_require_minimum_version 1.5.0

F() { "$ROOT/build/tests/test_project_frames" "$@"; }

# meta KEY FILE: value of KEY in the 'project' metadata record
meta() {
	slcinfo "$2" | sed -n "/meta 'project'/,/^[0-9]/p" | sed -n "s/^ *$1=//p"
}

# body FILE NAME: the listing lines of record NAME, without its header
body() {
	slcinfo "$1" | awk -v n="'$2'" '/^[0-9]+ / { p = index($0, n) > 0; next } p'
}

# stat FILE RECORD FIELD(min|max|mean): a channel statistic from slcinfo
stat() {
	slcinfo "$1" | grep -A2 "'$2'" | grep " $2 " | sed "s/.* $3 \([^ ]*\).*/\1/"
}

@test "--help lists the options; bad options are usage errors" {
	run project --help
	assert_success
	assert_output --partial "--precond P"
	assert_output --partial "--weights W"
	assert_output --partial "--density RHO"
	run project --precond jacobi
	assert_equal "$status" 2
	run project --tol -1
	assert_equal "$status" 2
	run project --maxiter 0
	assert_equal "$status" 2
}

@test "a closed box: projected, converged, other records passed through unchanged" {
	F box "$T/in.slc"
	run_split project -v -o "$T/out.slc" "$T/in.slc"
	assert_success
	[[ "$stderr" == *"mg-pcg:"*"iterations, residual"* ]]
	[ "$(meta converged "$T/out.slc")" = 1 ]
	[ "$(meta enclosed "$T/out.slc")" = 1 ]
	[ "$(meta precond "$T/out.slc")" = mg ]
	[ "$(meta iterations "$T/out.slc")" -le 20 ]
	for r in density note solid scene; do
		a=$(body "$T/in.slc" $r)
		b=$(body "$T/out.slc" $r)
		[ -n "$a" ] && [ "$a" = "$b" ]
	done
	run slcinfo "$T/out.slc"
	assert_output --partial "grid 'p'"
	[ "$(stat "$T/in.slc" u max)" != "$(stat "$T/out.slc" u max)" ]
}

@test "projecting twice changes nothing beyond the tolerance; mic0 agrees with mg" {
	F box "$T/in.slc"
	project --tol 1e-8 -o "$T/a.slc" "$T/in.slc"
	project --tol 1e-8 -o "$T/b.slc" "$T/a.slc"
	project --tol 1e-8 --precond mic0 -o "$T/c.slc" "$T/in.slc"
	[ "$(meta precond "$T/c.slc")" = mic0 ]
	[ "$(meta iterations "$T/c.slc")" -gt "$(meta iterations "$T/a.slc")" ]
	for s in min max mean; do
		a=$(stat "$T/a.slc" v $s); b=$(stat "$T/b.slc" v $s); c=$(stat "$T/c.slc" v $s)
		awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { exit !((a-b)^2 < 1e-10 && (a-c)^2 < 1e-10) }'
	done
}

@test "water at rest in a tilted box: hydrostatic pressure, scaled by --density" {
	F tank "$T/in.slc" 24
	project -o "$T/a.slc" "$T/in.slc"
	project --density 500 -o "$T/b.slc" "$T/in.slc"
	# p = rho g (0.53 - y); the lowest fluid cell (open faces into the
	# box's bottom corner) is in row 0, y = dx/2
	pa=$(stat "$T/a.slc" p max); pb=$(stat "$T/b.slc" p max)
	awk -v p="$pa" 'BEGIN { e = 1000 * 9.81 * (0.53 - 0.5 / 24); d = p / e - 1; exit !(d * d < 1e-8) }'
	awk -v a="$pa" -v b="$pb" 'BEGIN { d = a / b - 2; exit !(d * d < 1e-8) }'
	project --weights binary -o "$T/c.slc" "$T/in.slc"
	[ "$(meta weights "$T/c.slc")" = binary ]
}

@test "a light rigid ball in water is pushed up; its other channels pass" {
	F rigid "$T/in.slc"
	project -o "$T/out.slc" "$T/in.slc"
	vy=$(slcinfo -j "$T/out.slc" | grep -o '"name":"v","type":"f32","ncomp":3[^}]*' | sed 's/.*"max":\([^,]*\).*/\1/')
	awk -v v="$vy" 'BEGIN { exit !(v > 0.1) }'
	run slcinfo "$T/out.slc"
	assert_output --partial "orient       f32 x4 point 1  min 0 max 1"
	slccat --drop rigid_phi "$T/in.slc" > "$T/bad.slc"
	run_split project "$T/bad.slc"
	assert_failure 1
	[[ "$stderr" == "project: "*"no 'rigid_phi' record"* ]]
}

@test "no time step: the velocity is projected but p is not written" {
	F box "$T/in.slc"
	slccat --drop scene "$T/in.slc" | project -v -o "$T/out.slc"
	run slcinfo "$T/out.slc"
	refute_output --partial "grid 'p'"
	project --dt 0.01 -o "$T/out2.slc" "$T/out.slc"
	run slcinfo "$T/out2.slc"
	assert_output --partial "grid 'p'"
}

@test "same input, same bytes, on 1 or 2 threads" {
	F tank "$T/in.slc" 40
	OMP_NUM_THREADS=1 project < "$T/in.slc" > "$T/a.slc"
	OMP_NUM_THREADS=2 project < "$T/in.slc" > "$T/b.slc"
	cmp "$T/a.slc" "$T/b.slc"
}

@test "bad input: missing velocity, NaN, mismatched grids, damage; no output" {
	F box "$T/in.slc"
	slccat --drop w "$T/in.slc" > "$T/now.slc"
	run_split project -o "$T/o.slc" "$T/now.slc"
	assert_failure 1
	[[ "$stderr" == *"no 'w' grid record"* ]]
	F nan "$T/nan.slc"
	run_split project -o "$T/o.slc" "$T/nan.slc"
	assert_failure 1
	[[ "$stderr" == *"'v'"* && "$stderr" == *"7"* ]]
	F box "$T/big.slc" 20
	slccat --only solid "$T/big.slc" > "$T/solid.slc"
	slccat --drop solid "$T/in.slc" > "$T/nos.slc"
	cat "$T/nos.slc" "$T/solid.slc" > "$T/mis.slc"
	run_split project -o "$T/o.slc" "$T/mis.slc"
	assert_failure 1
	[[ "$stderr" == *"record 'solid'"*"expected the velocity's 16x16x16 cells"* ]]
	head -c 3000 "$T/in.slc" > "$T/cut.slc"
	run_split project -o "$T/o.slc" "$T/cut.slc"
	assert_failure 1
	[ ! -e "$T/o.slc" ]
}

@test "--boundary: a pool after one advect step rests on the box floor; inflow through a stored wall" {
	mkprim pool --res 16 | advect > "$T/a.slc"
	project -o "$T/w.slc" "$T/a.slc"
	[ "$(meta boundary "$T/w.slc")" = wall ]
	# p = rho g (depth - dx/2) at the lowest cell centres, depth 0.3
	pw=$(stat "$T/w.slc" p max)
	awk -v p="$pw" 'BEGIN { e = 1000 * 9.81 * (0.3 - 0.5 / 16); d = p / e - 1; exit !(d * d < 1e-8) }'
	# 1 m/s into a closed 1 m box through its x = 0 face: 1 m^3/s to remove
	F inflow "$T/in.slc"
	project --boundary stored -o "$T/s.slc" "$T/in.slc"
	project -o "$T/w2.slc" "$T/in.slc"
	awk -v f="$(meta compat_flux "$T/s.slc")" 'BEGIN { exit !((f - 1)^2 < 1e-8) }'
	awk -v f="$(meta compat_flux "$T/w2.slc")" 'BEGIN { exit !(f^2 < 1e-8) }'
	run project --boundary leaky "$T/a.slc"
	assert_equal "$status" 2
}
