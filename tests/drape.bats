#!/usr/bin/env bats
# pipelines/drape baked at a tiny size (a 12 x 12 sheet, 16 frames): the
# sheet falls onto the sphere and the ground without going through either,
# every frame has its OBJ and a picture that shows the cloth.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make -C "$ROOT/pipelines/drape" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/out" \
	     RES=12 FRAMES=16 SIZE=160x120 "$@"
}

@test "drape: the sheet lands on the sphere and the ground, never inside; OBJ and pictures" {
	run bake -j2
	assert_success
	for n in $(seq -f %04g 0 16); do
		[ -s "$T/out/frame-$n.slc" ]
		# no NaN or Inf in the cloth
		run sh -c "slcinfo -j '$T/out/frame-$n.slc' | jq '[.streams[0].records[] | select(.name==\"cloth\") | .channels[] | .nan + .inf] | add'"
		assert_output "0"
		run probe "$T/out/frame-$n.png" size
		assert_output "160 120"
	done
	# every vertex of every frame outside the sphere (centre 0,0.3,0,
	# radius 0.3) and above the ground; at the end the middle of the sheet
	# rests on the sphere's top and its edges on the ground
	python3 - "$T/out" <<'PY'
import glob, math, sys
files = sorted(glob.glob(sys.argv[1] + "/cloth-*.obj"))
assert len(files) == 17, files
for f in files:
    P = [list(map(float, l.split()[1:4])) for l in open(f) if l.startswith("v ")]
    assert len(P) == 169 and all(map(math.isfinite, sum(P, []))), f
    dmin = min(math.dist(p, (0, 0.3, 0)) for p in P)
    ymin = min(p[1] for p in P)
    assert dmin > 0.3 - 1e-3 and ymin > -1e-3, (f, dmin, ymin)
mid = P[6 + 13 * 6]
assert abs(mid[1] - 0.6) < 0.02 and math.hypot(mid[0], mid[2]) < 0.05, mid
assert ymin < 0.01, ymin
assert P[0][1] < 0.05, P[0]
PY
	# the picture shows the cloth: not the bare background, and not the
	# same as the bodies drawn alone
	read -r npx _ < <(probe "$T/out/frame-0016.png" bbox 31,33,38)
	[ "$npx" -gt 3000 ]
	rasterize --eye 1.9,1.5,2.4 --target 0,0.25,0 --fov 40 --size 160x120 --aa 2 \
		--smooth --only sphere,ground "$T/out/frame-0016.slc" -o "$T/bodies.png"
	run cmp -s "$T/out/frame-0016.png" "$T/bodies.png"
	assert_failure
	grep -q '^f ' "$T/out/cloth-0016.obj"
}

@test "drape: resumable: a second make does nothing, a deleted picture is redrawn alone" {
	bake FRAMES=3 >/dev/null
	run bake FRAMES=3
	assert_output --partial "Nothing to be done"
	rm "$T/out/frame-0002.png"
	run bake FRAMES=3
	assert_success
	assert_output --partial "frame-0002.png"
	refute_output --partial "clothstep"
	[ -s "$T/out/frame-0002.png" ]
}
