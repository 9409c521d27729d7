#!/usr/bin/env bats
# pipelines/leaves baked at a tiny size (6 leaves of 18 triangles, 10
# frames): the wind carries every leaf downwind, still air does not; no
# leaf goes through the ground; every frame has its OBJ and a picture that
# shows the leaves.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make -C "$ROOT/pipelines/leaves" BIN="$ROOT/${SLUICE_BIN:-bin}" \
	     COUNT=6 RES=3 FRAMES=10 SIZE=160x120 "$@"
}

# centres OBJ: the x and y of each leaf's centre (RES=3: 16 points a leaf)
centres() {
	awk '$1 == "v" { j = int(n / 16); n++; x[j] += $2 / 16; y[j] += $3 / 16 }
	     END { for (k = 0; k <= j; k++) print x[k], y[k] }' "$1"
}

@test "leaves: the wind carries every leaf downwind, above the ground; OBJ and pictures" {
	run bake OUT="$T/out" -j2
	assert_success
	for n in $(seq -f %04g 0 10); do
		run sh -c "slcinfo -j '$T/out/frame-$n.slc' | jq '[.streams[0].records[] | select(.name==\"cloth\") | .channels[] | .nan + .inf] | add'"
		assert_output "0"
		grep -q '^f ' "$T/out/leaves-$n.obj"
		run probe "$T/out/frame-$n.png" size
		assert_output "160 120"
		# no point below the ground y = 0
		awk '$1 == "v" && $3 < -1e-3 { exit 1 }' "$T/out/leaves-$n.obj"
	done
	[ "$(grep -c '^v ' "$T/out/leaves-0010.obj")" -eq 96 ]
	# the leaves keep their shape: no edge stretched by more than 10%
	python3 - "$T/out/leaves-0000.obj" "$T/out/leaves-0010.obj" <<'PY'
import math, sys
def read(f):
    L = open(f).read().splitlines()
    P = [list(map(float, l.split()[1:4])) for l in L if l.startswith("v ")]
    F = [[int(w) - 1 for w in l.split()[1:4]] for l in L if l.startswith("f ")]
    return P, F
P0, F = read(sys.argv[1])
P1, _ = read(sys.argv[2])
worst = max(math.dist(P1[f[a]], P1[f[b]]) / math.dist(P0[f[a]], P0[f[b]])
            for f in F for a, b in ((0, 1), (1, 2), (2, 0)))
assert worst < 1.1, worst
PY
	# wind 3,0,0: each leaf's centre moves at least 5 cm along +x in
	# 10 frames, and the six by 15 cm on average; they fall meanwhile
	paste <(centres "$T/out/leaves-0000.obj") <(centres "$T/out/leaves-0010.obj") > "$T/c"
	[ "$(wc -l < "$T/c")" -eq 6 ]
	awk '{ d = $3 - $1; if (d < 0.05) exit 1; s += d; f += $2 - $4 }
	     END { exit !(s / NR > 0.15 && f / NR > 0.2) }' "$T/c"
	# the pictures show the leaves: not the ground drawn alone
	read -r npx _ < <(probe "$T/out/frame-0005.png" bbox 31,33,38)
	[ "$npx" -gt 3000 ]
	rasterize --eye 0.4,1.6,3.6 --target 0.2,0.45,0 --fov 45 --size 160x120 --aa 2 \
		--smooth --only ground "$T/out/frame-0005.slc" -o "$T/ground.png"
	run cmp -s "$T/out/frame-0005.png" "$T/ground.png"
	assert_failure
}

@test "leaves: in still air the leaves fall without drifting" {
	run bake OUT="$T/still" WIND=0,0,0 FRAMES=6 -j2
	assert_success
	paste <(centres "$T/still/leaves-0000.obj") <(centres "$T/still/leaves-0006.obj") > "$T/c"
	awk '{ d = $3 - $1; if (d < 0) d = -d; s += d; f += $2 - $4 }
	     END { exit !(s / NR < 0.03 && f / NR > 0.1) }' "$T/c"
}

@test "leaves: same seed, same frames; resumable" {
	bake OUT="$T/a" FRAMES=2 >/dev/null
	bake OUT="$T/b" FRAMES=2 >/dev/null
	cmp "$T/a/leaves-0002.obj" "$T/b/leaves-0002.obj"
	run bake OUT="$T/a" FRAMES=2
	assert_output --partial "Nothing to be done"
	rm "$T/a/leaves-0001.obj"
	run bake OUT="$T/a" FRAMES=2
	assert_output --partial "leaves-0001.obj"
	refute_output --partial "clothstep"
}
