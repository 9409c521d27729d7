#!/usr/bin/env bats
# shellcouple: thin shells in the pressure solve, two ways (guendelman2005
# §4.3, §5; batty2007 §3).  Frames from tests/shellscene.py: a sheet
# pinned at its edges under still water h = 0.25 m deep with air below, a
# held cup of still water in air and submerged, a moving plate across a
# closed box of smoke, a closed bag of water in free fall.  Each check
# has a control that fails without the shell handling it checks.

bats_require_minimum_version 1.5.0
load common

SCENE="python3 $ROOT/tests/shellscene.py"
RHOGHA=2452.5          # 1000 * 9.81 * 0.25 * 1 m^2

# meta FILE KEY: the value of KEY in FILE's 'shellcouple' record
meta() {
	slcinfo "$1" | awk -v k="$2" '/meta .shellcouple./ {m = 1} m && $1 ~ "^" k "=" {
		sub("^" k "=", "", $1); print $1; exit }'
}

# comp "X,Y,Z" I: component I (1..3)
comp() {
	echo "$1" | cut -d, -f"$2"
}

# within A B REL: |A - B| <= REL |B|
within() {
	awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
		m = b < 0 ? -b : b; exit !(d <= r * m) }'
}

# below A B: |A| < B
below() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a < 0) a = -a; exit !(a < b) }'
}

@test "shellcouple: --help, no shell, no such mesh" {
	run shellcouple --help
	assert_success
	assert_output --partial "--coupling C"
	$SCENE sheet > "$T/f.slc"
	run -2 shellcouple "$T/f.slc"
	assert_output --partial "no shell"
	run -1 shellcouple --shell nosuch "$T/f.slc"
	assert_output --partial "no mesh record 'nosuch'"
}

@test "sheet: eq 4 holds the water's weight rho g h A; plain project lets it through" {
	$SCENE sheet > "$T/f.slc"
	shellcouple --shell sheet --stage project "$T/f.slc" > "$T/p.slc"
	f=$(meta "$T/p.slc" force)
	within "$(comp "$f" 2)" -$RHOGHA 1e-4
	# the water rests on the sheet: no face moves
	project "$T/f.slc" > "$T/c.slc"
	slcinfo "$T/p.slc" | awk '/grid .v./ {g = 1} g && $1 == "v" { exit !($7 > -1e-6) }'
	# control: no shell, the water falls through where the sheet was
	slcinfo "$T/c.slc" | awk '/grid .v./ {g = 1} g && $1 == "v" { exit !($7 < -0.1) }'
}

@test "sheet: implicit carries rho g h A on a sheet its springs hold, split only its own inertia" {
	# the water at rest on the flat sheet: a stiff plate (bending springs
	# 1e7 N, as clothstep --bend would have them) barely gives, so the
	# implicit coupling, which sees the cloth's implicit system, gives it
	# the water's weight at once
	$SCENE sheet > "$T/f.slc"
	shellcouple --shell sheet --coupling implicit --bend 1e7 "$T/f.slc" > "$T/i.slc"
	shellcouple --shell sheet --coupling split --bend 1e7 "$T/f.slc" > "$T/s.slc"
	fi=$(comp "$(meta "$T/i.slc" force)" 2)
	fs=$(comp "$(meta "$T/s.slc" force)" 2)
	echo "implicit $fi split $fs rho g h A $RHOGHA"
	within "$fi" -$RHOGHA 0.03
	[ "$(meta "$T/i.slc" inner_residual | awk '{ print ($1 < 1e-9) }')" = 1 ]
	# guendelman2005 eq 6 sees only the sheet's mass (reading notes M9 b)
	below "$fs" 50
	# control: clothstep's light fabric (4.14 N edges, 0.41 N bending):
	# a flat sheet's edge springs have nothing along the load, so the
	# water and the sheet fall together over this frame
	shellcouple --shell sheet "$T/f.slc" > "$T/o.slc"
	fr=$(comp "$(meta "$T/o.slc" force)" 2)
	echo "implicit, light fabric $fr"
	! within "$fr" -$RHOGHA 0.5
	# every node pinned: both close the faces, as eq 4 does; implicit
	# also stops the water of the cut faces' own control volumes (it joins
	# the shell), so it carries all the water, split only the water above
	# the first cell centres
	$SCENE sheet pin=all > "$T/a.slc"
	shellcouple --shell sheet --coupling split "$T/a.slc" > "$T/as.slc"
	shellcouple --shell sheet --coupling implicit "$T/a.slc" > "$T/ai.slc"
	fa=$(comp "$(meta "$T/as.slc" force)" 2)
	fb=$(comp "$(meta "$T/ai.slc" force)" 2)
	echo "pinned: split $fa implicit $fb"
	within "$fb" -$RHOGHA 1e-4
	within "$fa" -$RHOGHA 0.15
	! within "$fa" -$RHOGHA 0.03
}

@test "cup: held, the force is the water's weight; submerged, none" {
	$SCENE cup n=32 > "$T/f.slc"
	shellcouple --shell cup --stage project "$T/f.slc" > "$T/p.slc"
	f=$(meta "$T/p.slc" force)
	W=$(awk 'BEGIN { print 1000 * 9.81 * 3.14159265358979 * 0.09 * (0.5 - 0.1 - 0.25 / 32) }')
	echo "force $f weight $W"
	within "$(comp "$f" 2)" -"$W" 0.03
	below "$(comp "$f" 1)" "$(awk -v w="$W" 'BEGIN { print 0.01 * w }')"
	below "$(comp "$f" 3)" "$(awk -v w="$W" 'BEGIN { print 0.01 * w }')"
	# control: plain project drains the cup
	project "$T/f.slc" > "$T/c.slc"
	slcinfo "$T/p.slc" | awk '/grid .v./ {g = 1} g && $1 == "v" { exit !($7 > -1e-5) }'
	slcinfo "$T/c.slc" | awk '/grid .v./ {g = 1} g && $1 == "v" { exit !($7 < -0.1) }'
	$SCENE cup n=32 sub=1 > "$T/s.slc"
	shellcouple --shell cup --stage project "$T/s.slc" > "$T/sp.slc"
	f=$(meta "$T/sp.slc" force)
	echo "submerged $f"
	for i in 1 2 3; do below "$(comp "$f" $i)" 0.01; done
}

@test "plate: a moving plate's pockets give up 2 V through compat; the shell's force is the faces'" {
	$SCENE plate V=0.1 > "$T/f.slc"
	shellcouple --shell plate --stage project --density 1.2 "$T/f.slc" > "$T/p.slc"
	[ "$(meta "$T/p.slc" cut_faces)" = 256 ]
	within "$(meta "$T/p.slc" compat_flux)" 0.2 1e-6
	# control: the plate at rest
	$SCENE plate V=0 > "$T/z.slc"
	shellcouple --shell plate --stage project --density 1.2 "$T/z.slc" > "$T/zp.slc"
	below "$(meta "$T/zp.slc" compat_flux)" 1e-9
	# must-show 7: the nodes get what the faces take, to rounding
	$SCENE sheet held=1 > "$T/s.slc"
	for c in split implicit; do
		shellcouple --shell sheet --coupling $c "$T/s.slc" > "$T/o.slc"
		within "$(comp "$(meta "$T/o.slc" force)" 2)" \
			"$(comp "$(meta "$T/o.slc" face_force)" 2)" 1e-8
	done
}

@test "bag: a closed bag of water in free fall gets no load" {
	# P_prev a frame back along the fall: the velocity the fluid was held
	# at, which the implicit coupling starts the bag from
	$SCENE bag prev=1 > "$T/f.slc"
	for c in split implicit; do
		shellcouple --shell bag --coupling $c "$T/f.slc" > "$T/o.slc"
		f=$(meta "$T/o.slc" force)
		echo "$c $f"
		for i in 1 2 3; do below "$(comp "$f" $i)" 1e-3; done
	done
	# control: the bag held still (no P_prev: a still mesh) while its
	# water falls
	$SCENE bag > "$T/s.slc"
	shellcouple --shell bag --stage project "$T/s.slc" > "$T/h.slc"
	! below "$(comp "$(meta "$T/h.slc" force)" 2)" 1000
}

@test "implicit: the same bytes on one thread and two" {
	# 32^3 cells and an 80 x 80 sheet: past cloth/'s parallel threshold
	$SCENE sheet n=32 m=80 > "$T/f.slc"
	advect --shell sheet "$T/f.slc" > "$T/a.slc"
	OMP_NUM_THREADS=1 shellcouple --shell sheet --stiffness 1e5 --bend 1e5 "$T/a.slc" > "$T/1.slc"
	OMP_NUM_THREADS=2 shellcouple --shell sheet --stiffness 1e5 --bend 1e5 "$T/a.slc" > "$T/2.slc"
	cmp "$T/1.slc" "$T/2.slc"
	[ "$(meta "$T/1.slc" converged)" = 1 ]
}

@test "force stage: f_fluid and P_prev written, the fluid passed through" {
	$SCENE sheet held=1 > "$T/f.slc"
	shellcouple --shell sheet "$T/f.slc" > "$T/o.slc"
	slcinfo "$T/o.slc" | grep -q "f_fluid *f64 x3 point 81"
	slcinfo "$T/o.slc" | grep -q "P_prev *f64 x3 point 81"
	[ "$(python3 "$ROOT/tests/slcgrid.py" "$T/f.slc" md5 v)" = \
	  "$(python3 "$ROOT/tests/slcgrid.py" "$T/o.slc" md5 v)" ]
}

@test "split's transfer on a 45-degree plate: face gives the faces' total, paper sqrt 2 of it" {
	# must-show 7: a free plate across the closed box at 45 degrees moving
	# along its normal; eq 6's pressure jump pushes it back.  face hands
	# each cut face's force to its nodes (sum = the faces' total to
	# rounding); paper (guendelman2005 §5.1: nodal jumps per axis, a band,
	# D . n at the barycentres) counts the jump once per axis cut, so
	# |n|_1 = sqrt 2 times the true force
	$SCENE tilt n=16 > "$T/t.slc"
	shellcouple --stage force --coupling split --transfer face --shell tilt "$T/t.slc" > "$T/face.slc"
	shellcouple --stage force --coupling split --transfer paper --shell tilt "$T/t.slc" > "$T/paper.slc"
	[ "$(meta "$T/face.slc" transfer)" = face ]
	[ "$(meta "$T/paper.slc" transfer)" = paper ]
	ff=$(meta "$T/face.slc" face_force)
	f=$(meta "$T/face.slc" force)
	fp=$(meta "$T/paper.slc" force)
	echo "faces' total $ff; face transfer $f; paper transfer $fp"
	[ "$(meta "$T/paper.slc" face_force)" = "$ff" ]
	awk -v a="$(comp "$ff" 1)" 'BEGIN { exit !(a < -0.1) }'
	for i in 1 2 3; do
		below "$(awk -v a="$(comp "$f" $i)" -v b="$(comp "$ff" $i)" 'BEGIN { print a - b }')" 1e-9
	done
	# the paper's force along the same normal, sqrt 2 as large within 2%
	r=$(awk -v a="$(comp "$fp" 1)" -v b="$(comp "$ff" 1)" 'BEGIN { print a / b }')
	echo "paper / faces: $r"
	within "$r" 1.41421356 0.02
	within "$(comp "$fp" 2)" "$(awk -v a="$(comp "$fp" 1)" 'BEGIN { print -a }')" 1e-6
	# the default is face
	shellcouple --stage force --coupling split --shell tilt "$T/t.slc" > "$T/def.slc"
	[ "$(meta "$T/def.slc" transfer)" = face ]
}
