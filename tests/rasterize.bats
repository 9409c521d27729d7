#!/usr/bin/env bats
# rasterize: frames in, PNG out.  Every picture is decoded (pngprobe) and
# checked for what it must show: the silhouette of the shape where the
# camera geometry puts it, the background elsewhere.

bats_require_minimum_version 1.5.0
load common

gen() { "$ROOT/build/tests/gen_render" "$@"; }
probe() { "$ROOT/build/tests/pngprobe" "$@"; }

# A camera on the z axis of the unit box, 200x200, black background.
CAM=(--eye 0.5,0.5,3 --target 0.5,0.5,0.5 --fov 40 --size 200x200 --background '#000000')

# within TOL of EXPECTED?
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { exit !(a - b <= t && b - a <= t) }'; }

# The pixels whose centres fall inside the projection of points (lines of
# "x y z" on stdin) by the pinhole camera of lib/render/camera.h:
#   proj_bbox EYE TARGET UP FOV W H  ->  "X0 Y0 X1 Y1"
proj_bbox() {
	awk -v eye="$1" -v tgt="$2" -v up="$3" -v fov="$4" -v w="$5" -v h="$6" '
	function unit(v,   l) { l = sqrt(v[1]^2 + v[2]^2 + v[3]^2); v[1] /= l; v[2] /= l; v[3] /= l }
	function cross(a, b, c) { c[1] = a[2]*b[3] - a[3]*b[2]; c[2] = a[3]*b[1] - a[1]*b[3]; c[3] = a[1]*b[2] - a[2]*b[1] }
	BEGIN {
		split(eye, e, ","); split(tgt, t, ","); split(up, u, ",")
		for (a = 1; a <= 3; a++) f[a] = t[a] - e[a]
		unit(f); cross(f, u, r); unit(r); cross(r, f, v)
		th = sin(fov * 3.14159265358979 / 360) / cos(fov * 3.14159265358979 / 360)
		x0 = y0 = 1e9; x1 = y1 = -1e9
	}
	{
		for (a = 1; a <= 3; a++) d[a] = $a - e[a]
		z = d[1]*f[1] + d[2]*f[2] + d[3]*f[3]; s = h / (2 * th * z)
		sx = w / 2 + (d[1]*r[1] + d[2]*r[2] + d[3]*r[3]) * s
		sy = h / 2 - (d[1]*v[1] + d[2]*v[2] + d[3]*v[3]) * s
		if (sx < x0) x0 = sx; if (sx > x1) x1 = sx
		if (sy < y0) y0 = sy; if (sy > y1) y1 = sy
	}
	function ceil(x) { return x == int(x) ? x : (x > 0 ? int(x) + 1 : int(x)) }
	function floor(x) { return x == int(x) ? x : (x > 0 ? int(x) : int(x) - 1) }
	END { print ceil(x0 - 0.5), ceil(y0 - 0.5), floor(x1 - 0.5), floor(y1 - 0.5) }'
}

# every corner of the box [X0,X1]x[Y0,Y1]x[Z0,Z1]: corners X0 X1 Y0 Y1 Z0 Z1
corners() {
	for x in "$1" "$2"; do for y in "$3" "$4"; do for z in "$5" "$6"; do
		echo "$x $y $z"
	done; done; done
}

# the picture's bbox (against background B) equals the expected one
# ("X0 Y0 X1 Y1") within TOL pixels: bbox_near PNG B "EXPECTED" TOL
bbox_near() {
	local n x0 y0 x1 y1 e
	read -r n x0 y0 x1 y1 < <(probe "$1" bbox "$2")
	read -r -a e <<<"$3"
	echo "$1: $x0 $y0 $x1 $y1, expected ${e[*]}"
	near "$x0" "${e[0]}" "$4" && near "$y0" "${e[1]}" "$4" &&
		near "$x1" "${e[2]}" "$4" && near "$y1" "${e[3]}" "$4"
}

@test "rasterize --help lists the camera and slice options" {
	run rasterize --help
	assert_success
	assert_output --partial "Usage: rasterize"
	assert_output --partial "--eye X,Y,Z"
	assert_output --partial "--slice A=POS"
	assert_output --partial "--size WxH"
}

@test "a level set sphere: silhouette where the camera puts it, background elsewhere" {
	gen sphere "$T/s.slc" 32
	run rasterize "${CAM[@]}" -o "$T/s.png" "$T/s.slc"
	assert_success
	run probe "$T/s.png" size
	assert_output "200 200"
	# radius 0.3 seen from 2.5: tan(asin(0.3/2.5)) / tan(20 deg) * 100 = 33.2 px
	read -r n x0 y0 x1 y1 < <(probe "$T/s.png" bbox 0,0,0)
	near "$x0" 67 1 && near "$x1" 132 1 && near "$y0" 67 1 && near "$y1" 132 1
	near "$n" 3463 110
	run probe "$T/s.png" pixel 100 100
	read -r r g b <<<"$output"
	[ "$b" -gt "$r" ]           # water blue
	run probe "$T/s.png" pixel 5 190
	assert_output "0 0 0"
}

@test "same input gives the same bytes, with 1 or 2 threads" {
	gen sphere "$T/s.slc" 24
	gen box "$T/b.slc"
	cat "$T/s.slc" "$T/b.slc" >"$T/f.slc"
	OMP_NUM_THREADS=1 rasterize --size 160x120 -o "$T/a.png" "$T/f.slc"
	OMP_NUM_THREADS=2 rasterize --size 160x120 -o "$T/b.png" "$T/f.slc"
	rasterize --size 160x120 <"$T/f.slc" >"$T/c.png"
	cmp "$T/a.png" "$T/b.png"
	cmp "$T/a.png" "$T/c.png"
}

@test "a mesh cube: square silhouette of its front face, flat and smooth" {
	gen box "$T/b.slc"
	for shading in "" --smooth; do
		rasterize "${CAM[@]}" $shading -o "$T/b.png" "$T/b.slc"
		# half size 0.2 at distance 2.3: 0.2 / 2.3 / tan(20 deg) * 100 = 23.9 px
		read -r n x0 y0 x1 y1 < <(probe "$T/b.png" bbox 0,0,0)
		near "$x0" 76 1 && near "$x1" 123 1 && near "$y0" 76 1 && near "$y1" 123 1
		near "$n" 2304 100
	done
}

@test "composited by depth: the sphere in front of the cube's face" {
	gen sphere "$T/s.slc" 32
	gen box "$T/b.slc"
	cat "$T/b.slc" "$T/s.slc" >"$T/f.slc"
	rasterize "${CAM[@]}" -o "$T/f.png" "$T/f.slc"
	run probe "$T/f.png" pixel 100 100
	read -r r g b <<<"$output"
	[ "$b" -gt $((r + 40)) ]    # the sphere (blue) is nearer than the grey face
	rasterize "${CAM[@]}" --eye 0.5,0.5,-2 -o "$T/g.png" "$T/f.slc"
	run probe "$T/g.png" pixel 100 100
	read -r r g b <<<"$output"
	[ "$b" -gt $((r + 40)) ]    # from behind as well
}

@test "no liquid shows through a thin shell (selle2008 4.6), unless --two-sided" {
	gen shell "$T/w.slc"
	cam=(--eye 3,0.5,0.5 --target 0.5,0.5,0.5 --fov 10 --size 64x64)
	rasterize "${cam[@]}" -o "$T/one.png" "$T/w.slc"
	run probe "$T/one.png" pixel 32 32
	read -r r g b <<<"$output"
	[ "$r" -ge "$b" ]
	[ "$r" -gt 60 ]        # the grey wall, lit
	rasterize "${cam[@]}" --two-sided -o "$T/two.png" "$T/w.slc"
	run probe "$T/two.png" pixel 32 32
	read -r r g b <<<"$output"
	[ "$b" -gt $((r + 40)) ]                    # plain interpolation leaks
}

@test "smoke: the density ball attenuates, the background stays" {
	gen smoke "$T/m.slc" 32
	rasterize "${CAM[@]}" -o "$T/m.png" "$T/m.slc"
	read -r n x0 y0 x1 y1 < <(probe "$T/m.png" bbox 0,0,0)
	near "$x0" 67 2 && near "$x1" 132 2 && near "$y0" 67 2 && near "$y1" 132 2
	run probe "$T/m.png" pixel 100 100
	read -r r g b <<<"$output"
	[ "$r" -gt 60 ]             # lit smoke in front of black
	rasterize "${CAM[@]}" --sigma 0.01 -o "$T/thin.png" "$T/m.slc"
	run probe "$T/thin.png" pixel 100 100
	read -r r2 g2 b2 <<<"$output"
	[ "$r2" -lt "$r" ]          # thinner smoke scatters less
}

@test "particles as splats at the cube's corners" {
	gen particles "$T/p.slc"
	rasterize "${CAM[@]}" --radius 0.04 -o "$T/p.png" "$T/p.slc"
	run probe "$T/p.png" pixel 100 100
	assert_output "0 0 0"
	# the corner (0.7, 0.7, 0.7): 0.2 / 2.3 / tan(20 deg) * 100 = 23.9 px
	run probe "$T/p.png" pixel 124 76
	[ "$output" != "0 0 0" ]
}

@test "slices side by side with the zero contour of the level set" {
	gen sphere "$T/s.slc" 32
	rasterize --slice x=50% --slice z=0.5 --size 400x200 -o "$T/sl.png" "$T/s.slc"
	for x in 100 300; do
		run probe "$T/sl.png" pixel "$x" 100
		read -r r g b <<<"$output"
		[ "$b" -gt "$r" ]       # inside: the cool side
	done
	run probe "$T/sl.png" pixel 2 2
	read -r r g b <<<"$output"
	[ "$r" -gt "$b" ]           # outside: the warm side
	# the contour crosses row 100 at 100 - 60 = 40 px in each panel
	for base in 0 200; do
		found=0
		for x in $(seq $((base + 37)) $((base + 43))); do
			[ "$(probe "$T/sl.png" pixel "$x" 100)" = "0 0 0" ] && found=1
		done
		[ "$found" -eq 1 ]
	done
}

@test "speed slice of a uniform flow is one colour" {
	gen velocity "$T/v.slc"
	rasterize --slice y=50% --field speed --range 0,6 --size 100x100 -o "$T/v.png" "$T/v.slc"
	# |(1,2,-2)| = 3 in [0, 6]: the middle of viridis, (33, 145, 140)
	run probe "$T/v.png" pixel 50 50
	read -r r g b <<<"$output"
	near "$r" 33 2 && near "$g" 145 2 && near "$b" 140 2
	read -r n x0 y0 x1 y1 < <(probe "$T/v.png" bbox "$r,$g,$b")
	[ "$n" -eq 0 ]
}

@test "bad input: message, exit 1, no output file" {
	gen nan "$T/n.slc"
	run_split rasterize -o "$T/n.png" "$T/n.slc"
	assert_failure 1
	[[ "$stderr" == "rasterize: $T/n.slc: field 'phi'"*"NaN"* ]]
	[ ! -e "$T/n.png" ]
	if command -v mkprim >/dev/null; then   # named with the scene's frame
		mkprim pool --res 8 -o "$T/p.slc"
		cat "$T/p.slc" "$T/n.slc" >"$T/pn.slc"
		run_split rasterize -o "$T/n.png" "$T/pn.slc"
		assert_failure 1
		[[ "$stderr" == "rasterize: $T/pn.slc: "*"'phi'"*"frame 0"*"NaN"* ]]
		run_split rasterize -o "$T/n.png" <"$T/pn.slc"
		[[ "$stderr" == "rasterize: <stdin>: "*"'phi'"*"frame 0"*"NaN"* ]]
	fi
	gen velocity "$T/v.slc"
	run_split rasterize -o "$T/v.png" "$T/v.slc"
	assert_failure 1
	[[ "$stderr" == *"nothing to draw"* ]]
	gen sphere "$T/s.slc" 8
	head -c 100 "$T/s.slc" >"$T/cut.slc"
	run_split rasterize -o "$T/cut.png" "$T/cut.slc"
	assert_failure 1
	[ ! -e "$T/cut.png" ]
	run_split rasterize --slice x=2 -o "$T/o.png" "$T/s.slc"
	assert_failure 1
	[[ "$stderr" == *"outside the grid"* ]]
	[ -z "$(ls -A "$T" | grep png)" ]
}

@test "bad options: usage error, exit 2" {
	gen sphere "$T/s.slc" 8
	for bad in "--size 0x10" "--size 10" "--slice w=3" "--slice x=" "--fov 0" \
		   "--background #12" "--range 1,0" "--eye 1,2" \
		   "--up 0,0,1 --eye 0.5,0.5,5 --target 0.5,0.5,0.5" "--mode slice"; do
		run_split rasterize $bad -o "$T/x.png" "$T/s.slc"
		assert_failure 2
		[ ! -e "$T/x.png" ]
	done
}

@test "every mkprim shape: framed in the middle, background at the border" {
	command -v mkprim >/dev/null || skip "mkprim not built"
	for s in sphere box torus paddle cup cloth hair pool smoke ball; do
		mkprim "$s" -o "$T/$s.slc"
		ls=()                   # the ball: its level set (the body is a point)
		[ "$s" = ball ] && ls=(--levelsets rigid_phi)
		rasterize --size 120x90 --background '#000000' "${ls[@]}" -o "$T/$s.png" "$T/$s.slc"
		read -r n x0 y0 x1 y1 < <(probe "$T/$s.png" bbox 0,0,0)
		echo "$s: $n pixels in $x0,$y0 .. $x1,$y1"
		[ "$n" -gt 500 ]                        # something substantial
		[ "$x0" -gt 0 ]
		[ "$y0" -gt 0 ]      # framed: not touching
		[ "$x1" -lt 119 ]
		[ "$y1" -lt 89 ]   # the border
		[ $(((x0 + x1) / 2)) -gt 40 ]
		[ $(((x0 + x1) / 2)) -lt 80 ]
	done
}

@test "mkprim sphere mesh: silhouette of radius 0.5 where the camera puts it" {
	command -v mkprim >/dev/null || skip "mkprim not built"
	mkprim sphere --subdiv 4 --radius 0.3 --center 0.5,0.5,0.5 -o "$T/s.slc"
	rasterize "${CAM[@]}" --smooth -o "$T/s.png" "$T/s.slc"
	read -r n x0 y0 x1 y1 < <(probe "$T/s.png" bbox 0,0,0)
	near "$x0" 67 1 && near "$x1" 132 1 && near "$y0" 67 1 && near "$y1" 132 1
	near "$n" 3463 110
}

@test "--only picks records, --iso thickens an unsigned distance" {
	gen sphere "$T/s.slc" 32
	gen box "$T/b.slc"
	cat "$T/b.slc" "$T/s.slc" >"$T/f.slc"
	rasterize "${CAM[@]}" --only body -o "$T/b.png" "$T/f.slc"
	read -r n x0 y0 x1 y1 < <(probe "$T/b.png" bbox 0,0,0)
	near "$x0" 76 1 && near "$x1" 123 1        # the cube alone
	rasterize "${CAM[@]}" --only phi --iso 3.2 -o "$T/i.png" "$T/f.slc"
	# the sphere grown by 3.2 cells = 0.1: radius 0.4 seen from 2.5,
	# tan(asin(0.4/2.5)) / tan(20 deg) * 100 = 44.5 px
	read -r n x0 y0 x1 y1 < <(probe "$T/i.png" bbox 0,0,0)
	near "$x0" 56 1 && near "$x1" 143 1
	run_split rasterize --only nothing -o "$T/x.png" "$T/f.slc"
	assert_failure 1
}

@test "--frame: the automatic camera frames named records, drawn or not" {
	gen sphere "$T/s.slc" 32
	gen box "$T/b.slc"
	cat "$T/b.slc" "$T/s.slc" >"$T/f.slc"
	rasterize --size 160x120 --background '#000000' --only body --frame body -o "$T/a.png" "$T/f.slc"
	rasterize --size 160x120 --background '#000000' --only body --frame phi -o "$T/b.png" "$T/f.slc"
	read -r n1 rest < <(probe "$T/a.png" bbox 0,0,0)
	read -r n2 rest < <(probe "$T/b.png" bbox 0,0,0)
	[ "$n2" -lt "$n1" ]         # framing the larger sphere shows the cube smaller
	run_split rasterize --frame nothing -o "$T/x.png" "$T/f.slc"
	assert_failure 1
	[[ "$stderr" == *"--frame nothing"* ]]
	[ ! -e "$T/x.png" ]
}

@test "--aa 2: antialiased, the same silhouette" {
	gen sphere "$T/s.slc" 32
	rasterize "${CAM[@]}" -o "$T/a1.png" "$T/s.slc"
	rasterize "${CAM[@]}" --aa 2 -o "$T/a2.png" "$T/s.slc"
	run probe "$T/a2.png" size
	assert_output "200 200"
	read -r n x0 y0 x1 y1 < <(probe "$T/a2.png" bbox 0,0,0)
	near "$x0" 67 1 && near "$x1" 132 1 && near "$n" 3463 200
	! cmp -s "$T/a1.png" "$T/a2.png"
	# on the silhouette's left edge, partly covered pixels are darker
	# than the sphere's lit inside next to them
	run probe "$T/a2.png" pixel "$x0" 100
	read -r r0 g0 b0 <<<"$output"
	run probe "$T/a2.png" pixel $((x0 + 3)) 100
	read -r r3 g3 b3 <<<"$output"
	[ "$b0" -lt "$b3" ]
	run_split rasterize --aa 9 -o "$T/x.png" "$T/s.slc"
	assert_failure 2
}

@test "mkprim | mklevelset | rasterize: the level set's silhouette is the sphere's" {
	command -v mkprim >/dev/null && command -v mklevelset >/dev/null || skip "mkprim or mklevelset not built"
	mkprim sphere --subdiv 4 --radius 0.3 --center 0.5,0.5,0.5 | mklevelset --res 48 >"$T/l.slc"
	rasterize "${CAM[@]}" --only solid -o "$T/l.png" "$T/l.slc"
	read -r n x0 y0 x1 y1 < <(probe "$T/l.png" bbox 0,0,0)
	near "$x0" 67 1 && near "$x1" 132 1 && near "$y0" 67 1 && near "$y1" 132 1
	near "$n" 3463 120
	# a slice through the middle: the zero contour crosses row 100 at
	# 100 -/+ 60 px of the 200 px panel fitted to the grid's box
	rasterize --slice z=0.5 --field solid --size 200x200 -o "$T/c.png" "$T/l.slc"
	run probe "$T/c.png" pixel 100 100
	read -r r g b <<<"$output"
	[ "$b" -gt "$r" ]
}

@test "mkprim box and torus: silhouettes where the camera geometry puts them" {
	command -v mkprim >/dev/null || skip "mkprim not built"
	# the unit box seen obliquely: its projected corners bound the picture
	mkprim box -o "$T/b.slc"
	cam=(--eye 1.5,1.2,3 --target 0,0,0 --up 0,1,0 --fov 40 --size 200x160 --background '#000000')
	rasterize "${cam[@]}" -o "$T/b.png" "$T/b.slc"
	want=$(corners -0.5 0.5 -0.5 0.5 -0.5 0.5 | proj_bbox 1.5,1.2,3 0,0,0 0,1,0 40 200 160)
	bbox_near "$T/b.png" 0,0,0 "$want" 2
	# a box twice as long in x seen from z, with up = x: the long side is
	# vertical in the picture
	mkprim box --size 1,0.4,0.4 -o "$T/l.slc"
	cam=(--eye 0,0,3 --target 0,0,0 --fov 40 --size 200x200 --background '#000000')
	rasterize "${cam[@]}" -o "$T/l0.png" "$T/l.slc"
	rasterize "${cam[@]}" --up 1,0,0 -o "$T/l1.png" "$T/l.slc"
	want=$(corners -0.5 0.5 -0.2 0.2 0.2 0.2 | proj_bbox 0,0,3 0,0,0 0,1,0 40 200 200)
	bbox_near "$T/l0.png" 0,0,0 "$want" 2
	read -r x0 y0 x1 y1 <<<"$want"
	[ $((x1 - x0)) -gt $((2 * (y1 - y0))) ]     # wide with up = y
	want=$(corners -0.5 0.5 -0.2 0.2 0.2 0.2 | proj_bbox 0,0,3 0,0,0 1,0,0 40 200 200)
	bbox_near "$T/l1.png" 0,0,0 "$want" 2
	read -r x0 y0 x1 y1 <<<"$want"
	[ $((y1 - y0)) -gt $((2 * (x1 - x0))) ]     # tall with up = x
	# the torus (R 0.5, r 0.2, axis y) seen down its axis: the hole is
	# background, the ring is drawn, the outer rim where the tube's
	# silhouette projects
	mkprim torus -o "$T/t.slc"
	cam=(--eye 0,3,0 --target 0,0,0 --up 0,0,-1 --fov 40 --size 200x200 --background '#000000')
	rasterize "${cam[@]}" -o "$T/t.png" "$T/t.slc"
	run probe "$T/t.png" pixel 100 100
	assert_output "0 0 0"
	# the hole's rim: rho 0.3 at the tube's top, y 0 .. 0.2: within
	# 0.3 / 2.8 / tan(20 deg) * 100 = 29.4 px of the centre
	for p in "100 75" "75 100" "125 100" "100 125"; do
		run probe "$T/t.png" pixel $p
		assert_output "0 0 0"
	done
	for p in "100 51" "51 100" "149 100" "100 149"; do     # the ring, 49 px out
		run probe "$T/t.png" pixel $p
		[ "$output" != "0 0 0" ]
	done
	want=$(awk 'BEGIN { for (b = 0; b < 6.2832; b += 0.001)
		print 0.5 + 0.2 * cos(b), 0.2 * sin(b), 0 }' |
		proj_bbox 0,3,0 0,0,0 0,0,-1 40 200 200)
	read -r x0 y0 x1 y1 <<<"$want"
	# the outermost point on each side, around the ring by symmetry
	bbox_near "$T/t.png" 0,0,0 "$((200 - 1 - x1)) $((200 - 1 - x1)) $x1 $x1" 2
}

@test "mkprim ball: drawn from its level set; a lone point has no size" {
	command -v mkprim >/dev/null || skip "mkprim not built"
	mkprim ball -o "$T/b.slc"
	run_split rasterize -o "$T/x.png" "$T/b.slc"
	assert_failure 1
	[[ "$stderr" == *"single point"* ]]
	[ ! -e "$T/x.png" ]
	# the ball: radius 0.15 at (0.5, 0.5, 0.5), seen from 2.5:
	# tan(asin(0.15/2.5)) / tan(20 deg) * 100 = 16.5 px
	rasterize "${CAM[@]}" --levelsets rigid_phi -o "$T/b.png" "$T/b.slc"
	bbox_near "$T/b.png" 0,0,0 "84 84 115 115" 1
	# with a particle radius, the point is a sphere of it
	rasterize --radius 0.1 --background '#000000' --size 100x100 -o "$T/p.png" "$T/b.slc"
	read -r n x0 y0 x1 y1 < <(probe "$T/p.png" bbox 0,0,0)
	[ "$n" -gt 500 ]
}

# A strands stream: strands given as "x,y,z x,y,z ..." arguments, optional
# per-strand Cd "r,g,b;r,g,b;...": strands_slc FILE CD STRAND...
strands_slc() {
	python3 - "$@" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
out, cd, strands = sys.argv[1], sys.argv[2], sys.argv[3:]
P, off = [], [0]
for s in strands:
    for p in s.split():
        P += [float(v) for v in p.split(",")]
    off.append(len(P) // 3)
extra = []
if cd:
    extra = [("Cd", 4, 3, 3, [float(v) for c in cd.split(";") for v in c.split(",")])]
open(out, "wb").write(slcrec.strands_record("hair", P, off, extra) + slcrec.END)
PY
}

@test "strands: a ribbon where the camera puts it, as wide as --hair-width; same bytes twice" {
	strands_slc "$T/h.slc" "" "0.2,0.5,0.5 0.5,0.5,0.5 0.8,0.5,0.5"
	rasterize "${CAM[@]}" --hair-width 0.04 -o "$T/h.png" "$T/h.slc"
	rasterize "${CAM[@]}" --hair-width 0.04 -o "$T/h2.png" "$T/h.slc"
	cmp "$T/h.png" "$T/h2.png"
	OMP_NUM_THREADS=1 rasterize "${CAM[@]}" --hair-width 0.04 -o "$T/h1.png" "$T/h.slc"
	cmp "$T/h.png" "$T/h1.png"
	# the segment's ends seen from 2.5 m, grown by the half width 0.02 m
	# (2.2 px at 109.9 px/m) on every side
	exp=$(printf '0.18 0.48 0.5\n0.82 0.52 0.5\n' | proj_bbox 0.5,0.5,3 0.5,0.5,0.5 0,1,0 40 200 200)
	bbox_near "$T/h.png" 0,0,0 "$exp" 1
	rasterize "${CAM[@]}" --hair-width 0.1 -o "$T/w.png" "$T/h.slc"
	read -r n1 _ < <(probe "$T/h.png" bbox 0,0,0)
	read -r n2 _ < <(probe "$T/w.png" bbox 0,0,0)
	echo "pixels: width 0.04: $n1, width 0.1: $n2"
	[ "$n2" -gt $((2 * n1)) ]
}

@test "strands: Kajiya-Kay, darker along the light than across it; Cd and --hair-color" {
	strands_slc "$T/x.slc" "" "0.2,0.5,0.5 0.8,0.5,0.5"
	strands_slc "$T/y.slc" "" "0.5,0.2,0.5 0.5,0.8,0.5"
	rasterize "${CAM[@]}" --light 1,0,0 --hair-width 0.05 -o "$T/x.png" "$T/x.slc"
	rasterize "${CAM[@]}" --light 1,0,0 --hair-width 0.05 -o "$T/y.png" "$T/y.slc"
	read -r xr xg xb < <(probe "$T/x.png" pixel 100 100)
	read -r yr yg yb < <(probe "$T/y.png" pixel 100 100)
	echo "along the light $xr $xg $xb, across it $yr $yg $yb"
	[ "$xr" -gt 0 ]
	[ "$yr" -gt $((2 * xr)) ]
	strands_slc "$T/c.slc" "1,0,0;0,0,1" "0.2,0.4,0.5 0.8,0.4,0.5" "0.2,0.6,0.5 0.8,0.6,0.5"
	rasterize "${CAM[@]}" --hair-width 0.05 -o "$T/c.png" "$T/c.slc"
	run probe "$T/c.png" pixel 100 111
	echo "$output"
	read -r r g b <<<"$output"
	[ "$r" -gt 50 ]
	[ "$g" -lt "$r" ]
	[ "$b" -lt "$r" ]
	run probe "$T/c.png" pixel 100 89
	read -r r g b <<<"$output"
	[ "$b" -gt 50 ]
	[ "$r" -lt "$b" ]
	[ "$g" -lt "$b" ]
	rasterize "${CAM[@]}" --hair-width 0.05 --hair-color 0,1,0 -o "$T/g.png" "$T/x.slc"
	read -r r g b < <(probe "$T/g.png" pixel 100 100)
	[ "$g" -gt 50 ]
	[ "$r" -lt "$g" ]
	[ "$b" -lt "$g" ]
	run rasterize --hair-color 2,0,0 "$T/x.slc"
	assert_failure 2
	strands_slc "$T/bad.slc" "1,0,0" "0.2,0.4,0.5 0.8,0.4,0.5" "0.2,0.6,0.5 0.8,0.6,0.5"
	run rasterize -o "$T/bad.png" "$T/bad.slc"
	assert_failure 1
	assert_output --partial "Cd"
	[ ! -e "$T/bad.png" ]
}

# place IN OUT X0 DX: IN with every grid record moved to origin (X0, 0, 0)
# and given cell size DX (the CRC made again), as a damaged or hostile
# writer could
place() {
	python3 - "$@" <<'PY'
import struct, sys, zlib
src, dst, ox, dx = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
b = bytearray(open(src, "rb").read())
pos = 0
while pos < len(b):   # formats/slc.md: prefix, descriptor, payload, crc
    kind, = struct.unpack_from("<I", b, pos + 8)
    dlen, = struct.unpack_from("<I", b, pos + 24)
    slen, = struct.unpack_from("<Q", b, pos + 32)
    end = pos + 48 + dlen + slen
    if kind == 2:
        n, = struct.unpack_from("<H", b, pos + 48)
        kb = pos + 48 + 2 + n + 4
        struct.pack_into("<3dd", b, kb + 16, ox, 0, 0, dx)
        struct.pack_into("<I", b, end, zlib.crc32(bytes(b[pos:end])))
    pos = end + 4
open(dst, "wb").write(b)
PY
}

@test "grids too large or too small for their place: exit 1 naming the file, no picture" {
	mkprim pool --res 4 -o "$T/p.slc"
	place "$T/p.slc" "$T/big.slc" 0 1e308
	run_split rasterize -o "$T/big.png" "$T/big.slc"
	assert_failure 1
	[[ "$stderr" == "rasterize: $T/big.slc: record 'phi': grid extent overflows"*"dx 1e+308 is not finite" ]]
	run_split rasterize --slice y=50% -o "$T/big.png" "$T/big.slc"
	assert_failure 1
	[[ "$stderr" == "rasterize: $T/big.slc: "*"'phi'"*"grid extent overflows on x"* ]]
	place "$T/p.slc" "$T/far.slc" 1e308 0.25
	run_split rasterize -o "$T/far.png" "$T/far.slc"
	assert_failure 1
	[[ "$stderr" == "rasterize: $T/far.slc: cannot frame the records drawn: "*"a double there cannot place a camera"* ]]
	run_split rasterize --slice y=50% -o "$T/far.png" "$T/far.slc"
	assert_failure 1
	[[ "$stderr" == *"lost in rounding"* ]]
	place "$T/p.slc" "$T/tiny.slc" 0 1e-6
	run_split rasterize -o "$T/tiny.png" "$T/tiny.slc"
	assert_failure 1
	[[ "$stderr" == "rasterize: $T/tiny.slc: cannot frame the records drawn: "*"too small for the camera's nearest depth"* ]]
	[ -z "$(ls -A "$T" | grep png)" ]
	# near the range of a double but within it: the same picture, scaled
	place "$T/p.slc" "$T/q.slc" 0 0.25
	place "$T/p.slc" "$T/h.slc" 0 1e300
	rasterize --size 160x120 -o "$T/q.png" "$T/q.slc"
	rasterize --size 160x120 -o "$T/h.png" "$T/h.slc"
	read -r n0 b0 < <(probe "$T/q.png" bbox 31,33,38)
	read -r n1 b1 < <(probe "$T/h.png" bbox 31,33,38)
	echo "dx 0.25: $n0 $b0; dx 1e300: $n1 $b1"
	[ "$n0" -gt 1000 ]
	[ "$n0" = "$n1" ]
	[ "$b0" = "$b1" ]
}

# A tets stream: the box [0.3, 0.7]^3 as 4^3 cubes of 6 positive tets,
# rank -1 for tets whose centroid is within 0.12 of the box's centre,
# else 3; optional alive 0 for centroids with x > 0.5: tets_slc FILE [kill]
tets_slc() {
	python3 - "$@" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
out, kill = sys.argv[1], len(sys.argv) > 2
n, lo, h = 4, 0.3, 0.1
idx = lambda i, j, k: i + (n + 1) * (j + (n + 1) * k)
P = [lo + h * c for k in range(n + 1) for j in range(n + 1) for i in range(n + 1)
     for c in (i, j, k)]
perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
tet, rank, alive = [], [], []
def vol(t):
    a, b, c, d = [P[3 * q:3 * q + 3] for q in t]
    u, v, w = [[x[m] - a[m] for m in range(3)] for x in (b, c, d)]
    return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + \
        (u[0] * v[1] - u[1] * v[0]) * w[2]
for k in range(n):
    for j in range(n):
        for i in range(n):
            for p in perms:
                c = [0, 0, 0]
                t = [idx(i, j, k)]
                for m in p[:2]:
                    c[m] = 1
                    t.append(idx(i + c[0], j + c[1], k + c[2]))
                t.append(idx(i + 1, j + 1, k + 1))
                if vol(t) < 0:
                    t[1], t[2] = t[2], t[1]
                x = [sum(P[3 * q + a] for q in t) / 4 for a in range(3)]
                tet += t
                rank.append(-1 if sum((x[a] - 0.5) ** 2 for a in range(3)) < 0.12 ** 2 else 3)
                alive.append(0 if kill and x[0] > 0.5 else 1)
chans = [("P", 5, 3, 1, P), ("tet", 3, 4, 2, tet), ("rank", 2, 1, 2, rank),
         ("alive", 1, 1, 2, alive)]
open(out, "wb").write(slcrec._record(4, "kdsm", 0.0, chans) + slcrec.END)
PY
}

@test "tets: the outer surface where the camera puts it; disabled tets left out" {
	tets_slc "$T/t.slc"
	rasterize "${CAM[@]}" -o "$T/t.png" "$T/t.slc"
	exp=$(corners 0.3 0.7 0.3 0.7 0.3 0.7 | proj_bbox 0.5,0.5,3 0.5,0.5,0.5 0,1,0 40 200 200)
	bbox_near "$T/t.png" 0,0,0 "$exp" 1
	# with the tets right of x = 0.5 disabled, the right half is empty
	tets_slc "$T/k.slc" kill
	rasterize "${CAM[@]}" -o "$T/k.png" "$T/k.slc"
	read -r n x0 y0 x1 y1 < <(probe "$T/k.png" bbox 0,0,0)
	echo "live half: $x0 $y0 $x1 $y1"
	[ "$x1" -le 100 ]
	[ "$x0" -eq "$(echo "$exp" | cut -d' ' -f1)" ]
	# framed automatically on the live tets alone
	run rasterize --only kdsm --size 64x48 -o "$T/a.png" "$T/t.slc"
	assert_success
}

@test "tets: --tet-cut shows the channel's colour, rank -1 inside, 3 outside; same bytes with 1 and 2 threads" {
	tets_slc "$T/t.slc"
	rasterize "${CAM[@]}" --tet-cut z=50% -o "$T/c.png" "$T/t.slc"
	read -r r g b < <(probe "$T/c.png" pixel 100 100)
	read -r r2 g2 b2 < <(probe "$T/c.png" pixel 118 100)
	echo "inside $r $g $b, outside $r2 $g2 $b2"
	# viridis: dark violet at the low end, yellow at the high end
	[ "$g" -lt 10 ]
	[ "$b" -gt "$g" ]
	[ "$g2" -gt 100 ]
	[ "$r2" -gt "$b2" ]
	OMP_NUM_THREADS=1 rasterize "${CAM[@]}" --tet-cut z=50% -o "$T/c1.png" "$T/t.slc"
	OMP_NUM_THREADS=2 rasterize "${CAM[@]}" --tet-cut z=50% -o "$T/c2.png" "$T/t.slc"
	cmp "$T/c.png" "$T/c1.png"
	cmp "$T/c.png" "$T/c2.png"
	# a range putting rank 3 at the low end makes the outside dark too
	rasterize "${CAM[@]}" --tet-cut z=0.5 --tet-range 3,7 -o "$T/r.png" "$T/t.slc"
	read -r r2 g2 b2 < <(probe "$T/r.png" pixel 118 100)
	[ "$g2" -lt 10 ]
	# the other side kept: the box's front face, grey
	rasterize "${CAM[@]}" --tet-cut z=50% --tet-keep above -o "$T/a.png" "$T/t.slc"
	read -r r g b < <(probe "$T/a.png" pixel 100 100)
	[ "$r" -eq "$g" ]
	[ "$g" -gt 50 ]
	run rasterize --tet-cut w=3 "$T/t.slc"
	assert_failure 2
	run rasterize --tet-range 3,1 "$T/t.slc"
	assert_failure 2
	run rasterize --tet-cut x=50% --tet-field nope -o "$T/n.png" "$T/t.slc"
	assert_failure 1
	assert_output --partial "'nope'"
	[ ! -e "$T/n.png" ]
}

# with_prev IN REC OUT DX,DY,DZ [PX,PY,PZ]: IN's mesh REC alone (through
# ascii PLY) with a point channel P_prev f64 x3 = P + (DX, DY, DZ), and P
# itself moved by (PX, PY, PZ) (default 0,0,0)
with_prev() {
	slcconv -a -r "$2" "$1" -o "$T/wp.ply"
	python3 - "$T/wp.ply" "$T/wp2.ply" "$4" "${5:-0,0,0}" <<'PY'
import sys
src, dst = sys.argv[1:3]
d = [float(x) for x in sys.argv[3].split(",")]
m = [float(x) for x in sys.argv[4].split(",")]
head, body = open(src).read().split("end_header\n")
out, nv, inv = [], 0, False
for l in head.split("\n"):
    w = l.split()
    if w[:2] == ["element", "vertex"]:
        nv, inv = int(w[2]), True
    elif w[:2] == ["element", "face"] and inv:
        out += ["property double P_prev_%d" % a for a in range(3)]
        inv = False
    out.append(l)
rows = body.split("\n")
for i in range(nv):
    w = rows[i].split()
    p = [float(x) for x in w[:3]]
    w[:3] = [repr(p[a] + m[a]) for a in range(3)]
    rows[i] = " ".join(w + [repr(p[a] + d[a]) for a in range(3)])
open(dst, "w").write("\n".join(out) + "end_header\n" + "\n".join(rows))
PY
	slcconv -n "$2" "$T/wp2.ply" -o "$3"
}

@test "--shell-points P_prev: meshes drawn and framed there; a mesh without it keeps P" {
	gen box "$T/b.slc"
	with_prev "$T/b.slc" body "$T/p.slc" 0.1,0,0
	rasterize "${CAM[@]}" -o "$T/p.png" "$T/p.slc"
	rasterize "${CAM[@]}" --shell-points P_prev -o "$T/q.png" "$T/p.slc"
	rasterize "${CAM[@]}" --shell-points nosuch -o "$T/r.png" "$T/p.slc"
	# the cube's front face, 0.1 to the right: 0.1 / 2.3 / tan(20 deg) * 100
	# = 11.9 px
	bbox_near "$T/p.png" 0,0,0 "76 76 123 123" 1
	bbox_near "$T/q.png" 0,0,0 "88 76 135 123" 1
	cmp "$T/p.png" "$T/r.png"
	# the automatic camera frames the cube where it is drawn
	rasterize --size 64x64 --view 0,0,1 --shell-points P_prev -o "$T/a.png" "$T/p.slc"
	rasterize --size 64x64 --view 0,0,1 -o "$T/b.png" "$T/b.slc"
	cmp "$T/a.png" "$T/b.png"
}

@test "--shell-points P_prev: the liquid is evaluated one-sidedly against the shell there" {
	# the wall's P moved far behind (x = -5), its P_prev where it holds
	# the liquid (x = 0.5).  At P_prev the wall is drawn and stops the
	# liquid (grey); a picture drawing it or evaluating the liquid at P
	# shows the liquid (blue), as without the option
	gen shell "$T/w.slc"
	with_prev "$T/w.slc" wall "$T/m.slc" 0,0,0 -5.5,0,0
	slccat --drop wall "$T/w.slc" | cat - "$T/m.slc" > "$T/f.slc"
	cam=(--eye 3,0.5,0.5 --target 0.5,0.5,0.5 --fov 10 --size 64x64)
	rasterize "${cam[@]}" --shell-points P_prev -o "$T/prev.png" "$T/f.slc"
	run probe "$T/prev.png" pixel 32 32
	read -r r g b <<<"$output"
	[ "$r" -ge "$b" ]
	[ "$r" -gt 60 ]
	rasterize "${cam[@]}" -o "$T/now.png" "$T/f.slc"
	run probe "$T/now.png" pixel 32 32
	read -r r g b <<<"$output"
	[ "$b" -gt $((r + 40)) ]
}
