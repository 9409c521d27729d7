#!/usr/bin/env bats
# pipelines/gallery: every mkprim shape as a level set and a row of
# pictures, checked by decoding them: the level set's silhouette matches the
# shape's under the same camera; resumable and make -j safe.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }
BG=31,33,38     # rasterize's default background, 8-bit sRGB

gallery() {
	make -C "$ROOT/pipelines/gallery" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/out" \
		RES=24 SIZE=160x120 SLICE_SIZE=240x80 AA=1 "$@"
}

need_tools() {
	for p in mkprim mklevelset rasterize; do
		[ -x "$ROOT/${SLUICE_BIN:-bin}/$p" ] || skip "$p not built"
	done
}

@test "gallery: every shape gets its pictures, and the level sets look like the shapes" {
	need_tools
	run gallery -j2
	assert_success
	for s in sphere box torus cup cloth hair pool smoke; do
		read -r n x0 y0 x1 y1 < <(probe "$T/out/$s-shape.png" bbox $BG)
		echo "$s shape: $n $x0 $y0 $x1 $y1"
		[ "$n" -gt 300 ] && [ "$x0" -gt 0 ] && [ "$x1" -lt 159 ]
	done
	for s in sphere box torus pool; do
		read -r n x0 y0 x1 y1 < <(probe "$T/out/$s-shape.png" bbox $BG)
		read -r m u0 v0 u1 v1 < <(probe "$T/out/$s-levelset.png" bbox $BG)
		echo "$s: shape $x0 $y0 $x1 $y1, level set $u0 $v0 $u1 $v1"
		for d in $((u0 - x0)) $((v0 - y0)) $((u1 - x1)) $((v1 - y1)); do
			[ "${d#-}" -le 2 ]      # same silhouette within 2 pixels
		done
	done
	for s in cup cloth hair; do     # thin shells and strands: thickened by a cell
		read -r n x0 y0 x1 y1 < <(probe "$T/out/$s-shape.png" bbox $BG)
		read -r m u0 v0 u1 v1 < <(probe "$T/out/$s-levelset.png" bbox $BG)
		echo "$s: shape $x0 $y0 $x1 $y1, level set $u0 $v0 $u1 $v1"
		[ "$u0" -le "$x0" ] && [ "$v0" -le "$y0" ] && [ "$u1" -ge "$x1" ] && [ "$v1" -ge "$y1" ]
		[ "$((x0 - u0))" -le 6 ] && [ "$((u1 - x1))" -le 6 ]
	done
	for s in sphere box torus cup cloth hair pool smoke; do
		run probe "$T/out/$s-slices.png" size
		assert_output "240 80"
		# a zero contour is drawn (black) in the slices of every level set
		read -r n rest < <(probe "$T/out/$s-slices.png" bbox 0,0,0)
		[ "$n" -lt $((240 * 80)) ]
	done
	[ -f "$T/out/index.html" ]
	grep -q 'torus-levelset.png' "$T/out/index.html"
}

@test "gallery: resumable, rebuilds only what is missing" {
	need_tools
	gallery -j2 >/dev/null 2>&1
	run gallery -q
	assert_success                  # up to date
	before=$(stat -c %Y.%N "$T/out/sphere-slices.png")
	rm "$T/out/torus-levelset.png"
	run gallery -q
	assert_failure                  # now out of date
	run gallery
	assert_success
	assert_output --partial "torus-levelset.png"
	refute_output --partial "sphere-slices.png"
	[ -f "$T/out/torus-levelset.png" ]
	[ "$(stat -c %Y.%N "$T/out/sphere-slices.png")" = "$before" ]
}

@test "gallery: a failing step leaves no partial file" {
	need_tools
	mkdir -p "$T/out"
	# a damaged stream where a shape should be: mklevelset fails on it
	printf 'not a stream' >"$T/out/sphere.slc"
	touch -d '+1 hour' "$T/out/sphere.slc"
	run gallery "$T/out/sphere-ls.slc"
	assert_failure
	[ ! -e "$T/out/sphere-ls.slc" ]
	[ -z "$(ls "$T/out" | grep tmp)" ]
}

@test "gallery: an OBJ file named by the user gets its row" {
	need_tools
	[ -x "$ROOT/${SLUICE_BIN:-bin}/slcconv" ] || skip "slcconv not built"
	cat >"$T/tet.obj" <<-'OBJ'
	v 0 0 0
	v 1 0 0
	v 0 1 0
	v 0 0 1
	f 1 3 2
	f 1 2 4
	f 1 4 3
	f 2 3 4
	OBJ
	run gallery OBJ="$T/tet.obj" "$T/out/obj-tet-levelset.png" "$T/out/obj-tet-shape.png"
	assert_success
	read -r n x0 y0 x1 y1 < <(probe "$T/out/obj-tet-levelset.png" bbox $BG)
	[ "$n" -gt 300 ]
}
