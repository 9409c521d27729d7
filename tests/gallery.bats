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
	for s in sphere box torus paddle cup cloth hair pool smoke ball; do
		read -r n x0 y0 x1 y1 < <(probe "$T/out/$s-shape.png" bbox $BG)
		echo "$s shape: $n $x0 $y0 $x1 $y1"
		[ "$n" -gt 300 ]
		[ "$x0" -gt 0 ]
		[ "$x1" -lt 159 ]
	done
	for s in sphere box torus pool ball; do
		read -r n x0 y0 x1 y1 < <(probe "$T/out/$s-shape.png" bbox $BG)
		read -r m u0 v0 u1 v1 < <(probe "$T/out/$s-levelset.png" bbox $BG)
		echo "$s: shape $x0 $y0 $x1 $y1, level set $u0 $v0 $u1 $v1"
		for d in $((u0 - x0)) $((v0 - y0)) $((u1 - x1)) $((v1 - y1)); do
			[ "${d#-}" -le 2 ]      # same silhouette within 2 pixels
		done
	done
	# the paddle's blades are 0.06 thick, under two cells at RES=24: the
	# level set's blade tips are rounded off, inside the shape by a cell
	read -r n x0 y0 x1 y1 < <(probe "$T/out/paddle-shape.png" bbox $BG)
	read -r m u0 v0 u1 v1 < <(probe "$T/out/paddle-levelset.png" bbox $BG)
	echo "paddle: shape $x0 $y0 $x1 $y1, level set $u0 $v0 $u1 $v1"
	for d in $((u0 - x0)) $((v0 - y0)) $((x1 - u1)) $((y1 - v1)); do
		[ "$d" -ge 0 ]
		[ "$d" -le 4 ]
	done
	for s in cup cloth hair; do     # thin shells and strands: thickened by a cell
		read -r n x0 y0 x1 y1 < <(probe "$T/out/$s-shape.png" bbox $BG)
		read -r m u0 v0 u1 v1 < <(probe "$T/out/$s-levelset.png" bbox $BG)
		echo "$s: shape $x0 $y0 $x1 $y1, level set $u0 $v0 $u1 $v1"
		[ "$u0" -le "$x0" ]
		[ "$v0" -le "$y0" ]
		[ "$u1" -ge "$x1" ]
		[ "$v1" -ge "$y1" ]
		[ "$((x0 - u0))" -le 6 ]
		[ "$((u1 - x1))" -le 6 ]
	done
	for s in sphere box torus paddle cup cloth hair pool smoke ball; do
		run probe "$T/out/$s-slices.png" size
		assert_output "240 80"
		# a zero contour is drawn (black) in the slices of every level set
		read -r n rest < <(probe "$T/out/$s-slices.png" bbox 0,0,0)
		[ "$n" -lt $((240 * 80)) ]
	done
	[ -f "$T/out/index.html" ]
	grep -q 'torus-levelset.png' "$T/out/index.html"
	grep -q 'ball-levelset.png' "$T/out/index.html"
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
	[ -z "$(ls -A "$T/out" | grep tmp)" ]
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

@test "gallery: an open OBJ gets the unsigned distance, drawn a cell thick" {
	need_tools
	[ -x "$ROOT/${SLUICE_BIN:-bin}/slcconv" ] || skip "slcconv not built"
	mkprim cup | slcconv -o "$T/cup.obj"
	run_split gallery OBJ="$T/cup.obj" "$T/out/obj-cup-levelset.png" \
		"$T/out/obj-cup-shape.png" "$T/out/obj-cup-slices.png"
	assert_success
	[[ "$stderr" == *"no consistent inside"* ]]
	[ "$(cat "$T/out/obj-cup.open")" = "--iso 1" ]
	# unsigned: no negative sample
	run slcinfo "$T/out/obj-cup-ls.slc"
	assert_output --regexp "solid +f32 x1 sample [0-9]+  min [0-9]"
	# drawn at 1 cell: the shell's silhouette, thickened by about a cell
	read -r n x0 y0 x1 y1 < <(probe "$T/out/obj-cup-shape.png" bbox $BG)
	read -r m u0 v0 u1 v1 < <(probe "$T/out/obj-cup-levelset.png" bbox $BG)
	echo "open cup: shape $x0 $y0 $x1 $y1, level set $u0 $v0 $u1 $v1"
	[ "$m" -gt 300 ]
	[ "$u0" -le "$x0" ]
	[ "$v0" -le "$y0" ]
	[ "$u1" -ge "$x1" ]
	[ "$v1" -ge "$y1" ]
	[ "$((x0 - u0))" -le 6 ]
	[ "$((u1 - x1))" -le 6 ]
	# the zero contour of the 1-cell isosurface is drawn in the slices
	read -r n rest < <(probe "$T/out/obj-cup-slices.png" bbox 0,0,0)
	[ "$n" -lt $((240 * 80)) ]
	# a closed OBJ after it: signed again, no leftover note
	mkprim sphere | slcconv -o "$T/cup.obj"
	touch -d '+1 hour' "$T/cup.obj"
	run gallery OBJ="$T/cup.obj" "$T/out/obj-cup-levelset.png"
	assert_success
	[ ! -e "$T/out/obj-cup.open" ]
}

@test "gallery: make demo DEMO=gallery OBJ=... hands the mesh to the gallery" {
	need_tools
	touch "$T/m.obj"
	run make -n -C "$ROOT" demo DEMO=gallery OBJ="$T/m.obj" OUT="$T/out"
	assert_success
	assert_output --partial "slcconv $T/m.obj -o $T/out/obj-m.slc"
}
