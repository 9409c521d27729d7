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

# body FILE CHANNEL: the first rigid body's CHANNEL (P, v, omega, ...),
# its components on one line, read with the layout of formats/slc.md
# alone (slcinfo's statistics mix the components of a channel)
body() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys, zlib
CODE = {1: "B", 2: "i", 3: "I", 4: "f", 5: "d", 6: "q", 7: "Q"}
data = open(sys.argv[1], "rb").read()
pos = 0
while pos + 48 <= len(data):
    kind, enc = struct.unpack_from("<II", data, pos + 8)
    dlen, = struct.unpack_from("<I", data, pos + 24)
    slen, = struct.unpack_from("<Q", data, pos + 32)
    d = pos + 48
    n, = struct.unpack_from("<H", data, d)
    name = data[d + 2:d + 2 + n].decode()
    k, = struct.unpack_from("<I", data, d + 2 + n)
    d += 2 + n + 4 + k
    nchan, = struct.unpack_from("<I", data, d)
    d += 4
    if kind == 5 and name == "rigid":
        payload = data[pos + 48 + dlen:pos + 48 + dlen + slen]
        payload = zlib.decompress(payload) if enc == 1 else payload
        off = 0
        for c in range(nchan):
            m, = struct.unpack_from("<H", data, d)
            cname = data[d + 2:d + 2 + m].decode()
            code, ncomp = CODE[data[d + 2 + m]], data[d + 3 + m]
            count, = struct.unpack_from("<Q", data, d + 6 + m)
            d += 14 + m
            if cname == sys.argv[2]:
                print(" ".join("%.9g" % x for x in
                               struct.unpack_from("<%d%s" % (ncomp, code), payload, off)))
                sys.exit(0)
            off += count * ncomp * struct.calcsize(code)
    pos += 48 + dlen + slen + 4
sys.exit("no channel '%s' in a 'rigid' record of %s" % (sys.argv[2], sys.argv[1]))
EOF
}

# ys N: the ball's centre height in $T/f0.slc .. $T/fN.slc, one a line
ys() { for i in $(seq 0 "$1"); do body "$T/f$i.slc" P | cut -d' ' -f2 || return 1; done; }

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

@test "a ball of density 0.1 rises and settles floating; one of density 3 sinks to the floor" {
	# pool 0.6 deep, ball radius 0.12 at y = 0.3, 16 cells (dx 1/16), 24 fps
	{ pool && mkprim ball --res 16 --radius 0.12 --center 0.5,0.3,0.5 --density 100; } |
		slccat -o "$T/f0.slc"
	[ "$(body "$T/f0.slc" P)" = "0.5 0.3 0.5" ]
	frames "$T/f0.slc" 48
	ys 48 > "$T/y"
	# It rises to the surface, overshoots and falls back, in a heave that
	# dies down: the range of y over frames 13-24, 25-36 and 37-48
	# shrinks; it never leaves the pool (y + R < 1).  Over the last half
	# second it floats within a quarter cell (as test_project_rigid asks),
	# centred within half a cell of Archimedes' height: a cap of height
	# h = 0.3916 R under the surface (h^2 (3R - h)/3 = 0.1 * 4/3 R^3), so
	# y = 0.6 + R - h; and it moves at most a tenth of its fastest rise.
	awk -v dx=0.0625 -v R=0.12 '{ y[NR - 1] = $1 }
	END {
		for (i = 1; i <= 10; i++) if (!(y[i + 1] > y[i])) { print "no rise at", i; exit 1 }
		for (i = 1; i <= 48; i++) {
			v = (y[i] - y[i - 1]) * 24; if (v < 0) v = -v
			if (i <= 12 && v > rise) rise = v
			if (i > 37 && v > late) late = v
			if (y[i] + R >= 1) { print "out of the pool at", i; exit 1 }
		}
		for (w = 0; w < 3; w++) {
			lo[w] = 1; hi[w] = 0
			for (i = 13 + 12 * w; i <= 24 + 12 * w; i++) {
				if (y[i] < lo[w]) lo[w] = y[i]; if (y[i] > hi[w]) hi[w] = y[i]
				if (w == 2) m += y[i] / 12
			}
			r[w] = hi[w] - lo[w]
		}
		eq = 0.6 + R - 0.3916 * R
		printf "ranges %.4f %.4f %.4f, mean %.4f (Archimedes %.4f), speed %.3f of %.3f m/s\n",
			r[0], r[1], r[2], m, eq, late, rise
		exit !(r[0] > r[1] && r[1] > r[2] && r[2] < 0.25 * dx &&
		       (m - eq) ^ 2 < (0.5 * dx) ^ 2 && late < 0.1 * rise)
	}' "$T/y"
	run slcinfo -j "$T/f48.slc"
	refute_output --regexp '"nan":[1-9]'
	# the orientation is written, a unit quaternion
	body "$T/f48.slc" orient | awk '{ exit !(NF == 4 && ($1^2 + $2^2 + $3^2 + $4^2 - 1)^2 < 1e-12) }'

	# density 3: down every frame to the floor, y <= R + 2 dx as in
	# test_project_rigid, starting with the added-mass acceleration of a
	# sphere, (rho_b - rho) g / (rho_b + rho/2) = 5.61 m/s^2, within 20 %
	{ pool && mkprim ball --res 16 --radius 0.12 --center 0.5,0.3,0.5 --density 3000; } |
		slccat -o "$T/f0.slc"
	frames "$T/f0.slc" 1
	vy=$(body "$T/f1.slc" v | cut -d' ' -f2)
	awk -v v="$vy" 'BEGIN { a = -v * 24; e = 2 * 9.81 / 3.5; exit !((a / e - 1) ^ 2 < 0.04) }'
	prev=$T/f1.slc
	for i in $(seq 2 10); do
		advect "$prev" | project -o "$T/f$i.slc"
		prev=$T/f$i.slc
		y=$(body "$prev" P | cut -d' ' -f2)
		awk -v y="$y" 'BEGIN { exit !(y <= 0.12 + 2 * 0.0625) }' && break
	done
	ys "$i" | awk '{ y[NR] = $1 } END { for (i = 2; i <= NR; i++) if (!(y[i] < y[i - 1])) exit 1 }'
	awk -v y="$y" 'BEGIN { exit !(y <= 0.12 + 2 * 0.0625) }'
	run slcinfo -j "$prev"
	refute_output --regexp '"nan":[1-9]'
}

@test "a spin given to a floating ball is never amplified (the coupling adds no energy)" {
	# batty2007 §3: each projection is a projection in the kinetic energy
	# norm of fluid and body together, so a ball floating at Archimedes'
	# height (y = 0.6 + R - 0.3916 R) spun at 2 rad/s about x gives its
	# spin to the water, never the other way round: |omega| at or below
	# its start in every one of 12 frames, lower at the end, still about
	# x (a coupling that added energy would let it grow)
	{ pool && mkprim ball --res 16 --radius 0.12 --center 0.5,0.673,0.5 --density 100 \
		--spin 2,0,0; } | slccat -o "$T/f0.slc"
	[ "$(body "$T/f0.slc" omega)" = "2 0 0" ]
	frames "$T/f0.slc" 12
	for i in $(seq 1 12); do body "$T/f$i.slc" omega || return 1; done > "$T/w"
	awk '{ w = sqrt($1^2 + $2^2 + $3^2); if (w > hi) hi = w; last = w
		if ($2^2 + $3^2 > 1e-4 * $1^2) off = 1 }
	END { printf "largest |omega| %.4f, last %.4f rad/s\n", hi, last
		exit !(NR == 12 && hi <= 2 && last < 2 && !off) }' "$T/w"
}

@test "a ball of density 3 comes to rest on the domain floor (contact with the grid box)" {
	# project --boundary wall (the default) makes the grid box solid: the
	# ball must stop on the floor y = 0, its centre at y = R, not fall
	# through it (it reached y = -2.9 after 24 frames without contact)
	{ pool && mkprim ball --res 16 --radius 0.12 --center 0.5,0.3,0.5 --density 3000; } |
		slccat -o "$T/f0.slc"
	frames "$T/f0.slc" 36
	ys 36 > "$T/y"
	body "$T/f36.slc" v > "$T/v"
	# never through the floor by more than a quarter cell (the extent is
	# read from the sampled level set rigid_phi0), on it within a cell
	# from frame 12 on (it lands near frame 6), and still over the last
	# 12 frames: its mean speed from frame 24 to 36 under 0.01 m/s
	awk -v dx=0.0625 -v R=0.12 '{ y[NR - 1] = $1 }
	END {
		lo = 1
		for (i = 0; i <= 36; i++) if (y[i] < lo) lo = y[i]
		for (i = 12; i <= 36; i++) if ((y[i] - R) ^ 2 > dx ^ 2) { print "off the floor at", i, y[i]; exit 1 }
		s = (y[36] - y[24]) / (12 / 24); if (s < 0) s = -s
		printf "lowest y %.6f (R %.2f), y(36) %.6f, mean speed over frames 24-36 %.2g m/s\n", lo, R, y[36], s
		exit !(lo > R - 0.25 * dx && s < 0.01)
	}' "$T/y"
	# x and z stay at the centre: the contact pushes straight up
	body "$T/f36.slc" P | awk '{ print "P", $0; exit !(($1 - 0.5) ^ 2 < 1e-6 && ($3 - 0.5) ^ 2 < 1e-6) }'
	cat "$T/v"
	run slcinfo -j "$T/f36.slc"
	refute_output --regexp '"nan":[1-9]'
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

# boat OUT YB DENSITY [KEY=VALUE]...: the pool of shellscene.py boat (32
# cells, 48 fps, water 0.5 deep) with a rigid open box of shell
# (mkprim hull: 0.3 x 0.15 x 0.3, no level set) of areal density DENSITY
# with its bottom at YB, dry inside unless fill=1
boat() {
	local out=$1 yb=$2 rho=$3
	shift 3
	{ python3 "$ROOT/tests/shellscene.py" boat n=32 dt=0.020833333333333332 yb="$yb" "$@" &&
		mkprim hull --motion dynamic --center 0.5,"$yb",0.5 --size 0.3,0.15,0.3 \
			--res 12 --density "$rho"; } | slccat -o "$out"
}

# wet FILE YB: liquid cells (phi < 0) inside the box's footprint more
# than a cell above its bottom YB
wet() {
	python3 - "$ROOT/tests/slcgrid.py" "$1" "$2" <<'EOF2'
import sys
exec(open(sys.argv[1]).read().split("\ndef main")[0])
g = grids(sys.argv[2])["phi"]
yb, dx = float(sys.argv[3]), g[3]
print(sum(1 for c, x, y, z in cells(g) if abs(x - 0.5) < 0.15 and abs(z - 0.5) < 0.15
          and yb + dx < y < yb + 0.15 and g[4][c] < 0))
EOF2
}

@test "a rigid shell: an open box rests within half a cell of Archimedes' draft, dry inside; filled, it sinks" {
	# 4.5 kg on a 0.3 x 0.3 bottom (16.67 kg/m^2 over 0.27 m^2 of shell):
	# Archimedes' draft 4.5 / (1000 * 0.09) = 0.05, the bottom at 0.45.
	# Half a cell (dx 1/32) deeper the water lifts it, half a cell higher
	# it falls: its rest is within half a cell of Archimedes' draft.
	rho=16.666666666666668
	boat "$T/lo.slc" 0.434375 $rho
	boat "$T/hi.slc" 0.465625 $rho
	advect "$T/lo.slc" | project -o "$T/lo1.slc"
	advect "$T/hi.slc" | project -o "$T/hi1.slc"
	vlo=$(body "$T/lo1.slc" v | awk '{ print $2 }')
	vhi=$(body "$T/hi1.slc" v | awk '{ print $2 }')
	echo "v half a cell deep $vlo, half a cell high $vhi"
	awk -v a="$vlo" -v b="$vhi" 'BEGIN { exit !(a > 0 && b < 0) }'
	# control: twice the mass (draft 0.1) half a cell deep falls
	boat "$T/heavy.slc" 0.434375 33.333333333333336
	advect "$T/heavy.slc" | project -o "$T/heavy1.slc"
	body "$T/heavy1.slc" v | awk '{ print "heavy:", $2; exit !($2 < 0) }'

	# from Archimedes' draft, 12 frames: x and z stay at the centre and
	# no water gets more than a cell above the bottom inside (the walls'
	# and bottom's cut faces move with the body).  The level set is not
	# yet advected one-sidedly, so the cell just above the bottom does
	# wet and the box then sinks slowly; its draft is printed, not checked
	boat "$T/f0.slc" 0.45 $rho
	frames "$T/f0.slc" 12
	for i in $(seq 1 12); do
		read -r x y z < <(body "$T/f$i.slc" P)
		yb=$(awk -v y="$y" 'BEGIN { print y - 0.05 }')    # the centre of mass is 0.05 above the bottom
		echo "frame $i: draft $(awk -v b="$yb" 'BEGIN { print 0.5 - b }'), wet $(wet "$T/f$i.slc" "$yb")"
		awk -v x="$x" -v z="$z" 'BEGIN { exit !((x - 0.5) ^ 2 < 1e-6 && (z - 0.5) ^ 2 < 1e-6) }'
		[ "$(wet "$T/f$i.slc" "$yb")" = 0 ]
	done

	# filled with water it goes down every frame
	boat "$T/w0.slc" 0.45 $rho fill=1
	prev=$T/w0.slc
	y0=0.5
	for i in $(seq 1 6); do
		advect "$prev" | project -o "$T/w$i.slc"
		prev=$T/w$i.slc
		y=$(body "$prev" P | awk '{ print $2 }')
		echo "filled, frame $i: y $y"
		awk -v a="$y0" -v b="$y" 'BEGIN { exit !(b < a) }'
		y0=$y
	done
	body "$prev" v | awk '{ exit !($2 < -0.05) }'
}
