#!/usr/bin/env bats
# hairstep: one frame of hair; virtuals persisted, rest, jerked roots,
# stability at one step per frame, bodies, determinism, bad input,
# stiction and self-collisions.

load common
bats_require_minimum_version 1.5.0

# meta FILE KEY: a value of the 'hairstep' meta record
meta() { slcinfo "$1" | awk -v k="$2" -F= '$1 ~ "^ *"k"$" { print $2; exit }'; }
# hstat FILE CHANNEL FIELD: a channel statistic of the hair record
hstat() { slcinfo -j "$1" | jq -r ".streams[0].records[] | select(.name==\"hair\") | .channels[] | select(.name==\"$2\") | .$3"; }

@test "hairstep --help lists the options and exits 0" {
	run hairstep --help
	assert_success
	assert_output --partial "--strain"
	assert_output --partial "--subdivide"
}

@test "straight strands of M segments get 2M+1 particles; the state is kept in virt_* detail channels" {
	mkprim hair --strands 5 --segments 6 > "$T/a.slc"
	hairstep < "$T/a.slc" > "$T/b.slc"
	[ "$(meta "$T/b.slc" particles)" -eq 65 ]
	[ "$(meta "$T/b.slc" virtuals)" -eq 30 ]
	run sh -c "slcinfo '$T/b.slc' | grep virt_seg"
	assert_output --partial "detail 30"
	# the second frame reads the virtuals back instead of building them
	hairstep < "$T/b.slc" > "$T/c.slc"
	[ "$(meta "$T/c.slc" particles)" -eq 65 ]
	hairstep --subdivide none < "$T/a.slc" > "$T/d.slc"
	[ "$(meta "$T/d.slc" virtuals)" -eq 0 ]
}

@test "without gravity a strand at rest stays put for 10 frames" {
	mkprim hair --strands 3 --segments 8 > "$T/f0.slc"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		hairstep --gravity 0,0,0 --root 0 < "$T/f$i.slc" > "$T/f$((i + 1)).slc"
	done
	a=$(hstat "$T/f0.slc" P max); b=$(hstat "$T/f10.slc" P max)
	awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'
	a=$(hstat "$T/f0.slc" P mean); b=$(hstat "$T/f10.slc" P mean)
	awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'
	# and under gravity the same strands move
	hairstep --root 0 < "$T/f0.slc" > "$T/g.slc"
	# (the mean of x, y, z falls by g t^2 / 6 = 2.8e-3)
	b=$(hstat "$T/g.slc" P mean); a=$(hstat "$T/f0.slc" P mean)
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(a - b > 2e-3) }'
}

@test "a hanging strand jerked sideways stays within the strain limit, and not with --strain 0" {
	mkprim hair --strands 4 --segments 12 --length 0.2 > "$T/a.slc"
	hairstep --stiffness 0.001 < "$T/a.slc" > "$T/b.slc"
	ms=$(meta "$T/b.slc" max_strain)
	awk -v s="$ms" 'BEGIN { exit !(s <= 0.1 + 1e-9) }'
	hairstep --stiffness 0.001 --gravity 0,-200,0 < "$T/a.slc" > "$T/c.slc"
	ms=$(meta "$T/c.slc" max_strain)
	awk -v s="$ms" 'BEGIN { exit !(s <= 0.1 + 1e-9) }'
	[ "$(meta "$T/c.slc" limited)" -gt 0 ]
	hairstep --stiffness 0.001 --gravity 0,-200,0 --strain 0 < "$T/a.slc" > "$T/d.slc"
	ms=$(meta "$T/d.slc" max_strain)
	awk -v s="$ms" 'BEGIN { exit !(s > 0.1) }'
}

@test "one step per frame at 24 fps stays finite; the ground stops the strands" {
	mkprim hair --strands 6 --segments 10 --center 0,0.5,0 > "$T/f0.slc"
	for i in 0 1 2 3 4 5 6 7; do
		hairstep --steps 1 --max-steps 1 --stiffness 100 --root 0 --ground 0 \
			< "$T/f$i.slc" > "$T/f$((i + 1)).slc"
	done
	run sh -c "slcinfo -j '$T/f8.slc' | jq '[.streams[0].records[] | select(.name==\"hair\") | .channels[] | .nan + .inf] | add'"
	assert_output "0"
	[ "$(meta "$T/f8.slc" steps)" -eq 1 ]
	awk -v p="$(meta "$T/f8.slc" min_phi)" 'BEGIN { exit !(p > -1e-9) }'
	[ "$(meta "$T/f8.slc" contacts)" -gt 0 ]
}

@test "same bytes twice and with 1 and 2 threads" {
	mkprim hair --strands 300 --segments 12 > "$T/a.slc"
	OMP_NUM_THREADS=1 hairstep < "$T/a.slc" > "$T/1.slc"
	OMP_NUM_THREADS=1 hairstep < "$T/a.slc" > "$T/1b.slc"
	OMP_NUM_THREADS=2 hairstep < "$T/a.slc" > "$T/2.slc"
	cmp "$T/1.slc" "$T/1b.slc"
	cmp "$T/1.slc" "$T/2.slc"
}

@test "a NaN in the input is named by file, record, channel and element; usage errors" {
	mkprim hair --strands 2 --segments 3 > "$T/a.slc"
	# point 1's y (P is the first channel, f32 x3) set to NaN, CRC redone
	python3 - "$T/a.slc" "$T/nan.slc" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
desc, stored = struct.unpack_from("<I", b, 24)[0], struct.unpack_from("<Q", b, 32)[0]
pay = 48 + desc
struct.pack_into("<f", b, pay + 16, float("nan"))
struct.pack_into("<I", b, pay + stored, zlib.crc32(bytes(b[:pay + stored])))
open(sys.argv[2], "wb").write(b)
PY
	run hairstep "$T/nan.slc"
	assert_failure 1
	assert_output --partial "nan.slc"
	assert_output --partial "hair"
	assert_output --partial "P"
	assert_output --partial "point 1"
	run hairstep --hair nope < "$T/a.slc"
	assert_failure 1
	assert_output --partial "no strands record 'nope'"
	run hairstep --strain 2 < "$T/a.slc"
	assert_failure 2
	assert_output --partial "--strain"
}

@test "solid_next: a sphere keyed at both ends of the frame (selle2008 7.5.1) ends with no hair point inside" {
	# strands standing on a small scalp at y = 0.25; a sphere of radius
	# 0.2 keyed at y = 0 (t = 0, its top 0.05 below the roots) and at
	# y = 0.1 (t = 1/24) runs into them.  At the frame's end no free
	# point is inside the end key: min_phi >= -1e-3 dx (dx = 0.0375).
	# With the first key alone the body stands still and touches nothing.
	box=--box=-0.6,-0.3,-0.6,0.6,0.9,0.6
	mkprim hair --strands 40 --segments 8 --center 0,0.25,0 --radius 0.01 \
		--length 0.2 --cap 60 > "$T/c.slc"
	mkprim sphere --radius 0.2 --center 0,0,0 | mklevelset --res 32 "$box" |
		slccat --drop sphere > "$T/k0.slc"
	mkprim sphere --radius 0.2 --center 0,0.1,0 --time 0.041666666666666667 |
		mklevelset --name solid_next --res 32 "$box" | slccat --drop sphere > "$T/k1.slc"
	cat "$T/c.slc" "$T/k0.slc" "$T/k1.slc" | hairstep --gravity 0,0,0 --root 0 > "$T/two.slc"
	cat "$T/c.slc" "$T/k0.slc" | hairstep --gravity 0,0,0 --root 0 > "$T/one.slc"
	echo "two keys: $(meta "$T/two.slc" min_phi), $(meta "$T/two.slc" contacts) contacts"
	awk -v m="$(meta "$T/two.slc" min_phi)" 'BEGIN { exit !(m >= -1e-3 * 0.0375) }'
	[ "$(meta "$T/two.slc" contacts)" -gt 0 ]
	[ "$(meta "$T/one.slc" contacts)" -eq 0 ]
	# the analytic sphere: no point inside by more than 1e-9 m
	mkprim hair --strands 40 --segments 8 --center 0,0.25,0 --radius 0.01 \
		--length 0.2 --cap 180 | hairstep --sphere 0,0,0 --sphere-radius 0.22 \
		--root 0 > "$T/s.slc"
	awk -v m="$(meta "$T/s.slc" min_phi)" 'BEGIN { exit !(m >= -1e-9) }'
	# a next key before the frame's end is refused
	mkprim sphere --radius 0.2 --center 0,0.1,0 --time 0.02 |
		mklevelset --name solid_next --res 32 "$box" | slccat --drop sphere > "$T/k2.slc"
	run sh -c "cat '$T/c.slc' '$T/k0.slc' '$T/k2.slc' | hairstep -o '$T/bad.slc'"
	assert_failure 1
	assert_output --partial "solid_next"
}

@test "frames baked one at a time through files equal, byte for byte, one run of --frames" {
	# straight and curly strands, wind and a sphere; the state between
	# frames (virtuals, their pins, the last accelerations) is in the file
	for curl in "" "--curl 0.01,0.02"; do
		mkprim hair --strands 30 --segments 10 $curl > "$T/f0.slc"
		for i in 0 1 2 3; do
			hairstep --wind 1,0,0 --drag 1e-5 --sphere 0,0,0 --sphere-radius 0.1 \
				< "$T/f$i.slc" > "$T/f$((i + 1)).slc"
		done
		hairstep --frames 4 --wind 1,0,0 --drag 1e-5 --sphere 0,0,0 \
			--sphere-radius 0.1 < "$T/f0.slc" > "$T/long.slc"
		# (the provenance records differ: they list the runs)
		slccat --only hair,hairstep,scene "$T/f4.slc" | slccat --drop provenance > "$T/a.slc"
		slccat --only hair,hairstep,scene "$T/long.slc" | slccat --drop provenance > "$T/b.slc"
		cmp "$T/a.slc" "$T/b.slc"
		run sh -c "slcinfo '$T/a.slc' | grep -E 'acc_last|virt_pinned'"
		assert_output --partial "acc_last"
		assert_output --partial "virt_pinned"
		# stiction is on and its bonds (stic_seg, stic_frac) carried over
		[ "$(meta "$T/long.slc" stiction)" -gt 0 ]
	done
}

# two_strands FILE "x,y,z dx,dy,dz" "x,y,z dx,dy,dz" VX,VY,VZ: two straight
# strands of 11 points 1 cm apart from the given starts along the given
# steps, the second moving at the given velocity, no scene (24 fps)
two_strands() {
	python3 - "$@" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
out, a, b, vel = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
P, v = [], []
w = [float(c) for c in vel.split(",")]
for s, spec in enumerate((a, b)):
    x0, d = [[float(c) for c in p.split(",")] for p in spec.split()]
    for i in range(11):
        P += [x0[k] + i * d[k] for k in range(3)]
        v += w if s else [0.0, 0.0, 0.0]
extra = [("v", 4, 3, 1, v)]
open(out, "wb").write(slcrec.strands_record("hair", P, [0, 11, 22], extra) + slcrec.END)
PY
}

# regoal IN OUT DZ: the hair record of IN alone, every point pinned, the
# second strand's (points 11..21) goal DZ higher, the first's where it is
regoal() {
	python3 - "$@" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
src, out, dz = sys.argv[1], sys.argv[2], float(sys.argv[3])
for kind, name, time, ch in slcrec.records(src):
    if kind == 6 and name == "hair":
        break
P = ch["P"][3]
goal = [P[k] + (dz if k >= 33 and k % 3 == 2 else 0.0) for k in range(len(P))]
ch["goal"] = (5, 3, 1, goal)
ch["pinned"] = (1, 1, 1, [1] * (len(P) // 3))
chans = [(n,) + tuple(c) for n, c in ch.items()]
open(out, "wb").write(slcrec._record(6, "hair", time, chans) + slcrec.END)
PY
}

@test "stiction (selle2008 7.5.2): parallel strands 0.5 mm apart bond; pulled apart, every bond breaks in the frame past the break distance, none before" {
	# the second strand is led away 0.4 mm a frame: from 0.5 mm it
	# passes the break distance 2 mm in frame 4 (2.1 mm)
	two_strands "$T/a.slc" "0,0,0 0.01,0,0" "0,0,0.0005 0.01,0,0" 0,0,0
	opts="--gravity 0,0,0 --bond 1e-3 --break 2e-3"
	regoal "$T/a.slc" "$T/f0.slc" 0.0004
	for i in 0 1 2 3 4 5; do
		hairstep $opts < "$T/f$i.slc" > "$T/o$((i + 1)).slc"
		regoal "$T/o$((i + 1)).slc" "$T/f$((i + 1)).slc" 0.0004
	done
	nb=$(meta "$T/o1.slc" stiction)
	echo "bonds $nb; made $(meta "$T/o1.slc" made)"
	# 10 segments a strand, at most 2 bonds each
	[ "$nb" -ge 10 ]
	[ "$nb" -le 20 ]
	[ "$(meta "$T/o1.slc" made)" -eq "$nb" ]
	for i in 1 2 3; do
		[ "$(meta "$T/o$i.slc" broken)" -eq 0 ]
		[ "$(meta "$T/o$i.slc" stiction)" -eq "$nb" ]
	done
	[ "$(meta "$T/o4.slc" broken)" -eq "$nb" ]
	[ "$(meta "$T/o4.slc" stiction)" -eq 0 ]
	[ "$(meta "$T/o5.slc" made)" -eq 0 ]
	run sh -c "slcinfo '$T/o2.slc' | grep -E 'stic_seg|stic_frac'"
	assert_output --partial "stic_seg"
	assert_output --partial "stic_frac"
	# with stiction off: no bonds, no channels
	hairstep $opts --stiction off < "$T/f0.slc" > "$T/off.slc"
	[ "$(meta "$T/off.slc" stiction)" -eq 0 ]
	run sh -c "slcinfo '$T/off.slc' | grep -c stic_seg"
	assert_output "0"
}

@test "self-collisions (selle2008 7.5.3): a strand thrown across another stays on its side; with --self off it passes through" {
	# strand 1 along y, 3 mm above strand 0 along x, falls through it at
	# 0.2 m/s (8 mm in the frame)
	two_strands "$T/a.slc" "-0.05,0,0 0.01,0,0" "0,-0.05,0.003 0,0.01,0" 0,0,-0.2
	opts="--gravity 0,0,0 --root 0 --stiction off"
	hairstep $opts < "$T/a.slc" > "$T/on.slc"
	hairstep $opts --self off < "$T/a.slc" > "$T/off.slc"
	# the z of strand 1's middle point over strand 0's
	gap() { python3 "$ROOT/tests/slcrec.py" "$1" hair hair | awk 'NR == 1 { z0 = $18 } NR == 2 { z1 = $18 } END { printf "%.9g\n", z1 - z0 }'; }
	on=$(gap "$T/on.slc"); off=$(gap "$T/off.slc")
	echo "gap with self $on, without $off; collisions $(meta "$T/on.slc" collisions)"
	awk -v g="$on" 'BEGIN { exit !(g > 0) }'
	awk -v g="$off" 'BEGIN { exit !(g < 0) }'
	[ "$(meta "$T/on.slc" unresolved)" -eq 0 ]
}

@test "strands rooted closer than their thickness: collisions by the pinned roots leave every edge within the strain limit" {
	# 200 strands on a 10-degree cap: roots about 2 mm apart, thickness
	# 2.5 mm; a contact near a pinned root answered through the free end's
	# lever stretched strands to twice their length (max strain 1.2)
	mkprim hair --strands 200 --segments 12 --cap 10 > "$T/a.slc"
	hairstep < "$T/a.slc" > "$T/b.slc"
	ms=$(meta "$T/b.slc" max_strain)
	awk -v s="$ms" 'BEGIN { exit !(s <= 0.1 + 1e-9) }'
	[ "$(meta "$T/b.slc" broken)" -eq 0 ]
}
