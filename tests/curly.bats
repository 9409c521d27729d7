#!/usr/bin/env bats
# pipelines/curly baked small (12 strands of 10 segments, 12 frames): the
# curls fall onto the head, never inside it, the roots stay put, the curls
# keep their handedness; pictures that decode and change; resumable.

bats_require_minimum_version 1.5.0
load common

probe() { "$ROOT/build/tests/pngprobe" "$@"; }

bake() {
	make -C "$ROOT/pipelines/curly" BIN="$ROOT/${SLUICE_BIN:-bin}" OUT="$T/out" \
	     STRANDS=12 SEGMENTS=10 FRAMES=12 SIZE=160x120 "$@"
}

@test "curly: the curls fall onto the head, never inside it, roots kept; pictures" {
	run bake -j2
	assert_success
	for n in $(seq -f %04g 0 12); do
		run probe "$T/out/frame-$n.png" size
		assert_output "160 120"
	done
	run cmp -s "$T/out/frame-0000.png" "$T/out/frame-0012.png"
	assert_failure
	PYTHONPATH="$ROOT/tests" python3 - "$T/out" <<'PY'
import math, sys
from slcrec import records
out = sys.argv[1]
def hair(n):
    return {r[1]: r for r in records("%s/frame-%04d.slc" % (out, n))}["hair"][3]
h0 = hair(0)
P0, off = h0["P"][3], h0["offset"][3]
def tips(P):
    return sum(P[3 * (off[s + 1] - 1) + 1] for s in range(len(off) - 1)) / (len(off) - 1)
def chirality(P, s):
    # sign of the mean triple product of consecutive segments: a helix's
    # handedness
    q = [P[3 * p:3 * p + 3] for p in range(off[s], off[s + 1])]
    d = [[b[i] - a[i] for i in range(3)] for a, b in zip(q, q[1:])]
    t = 0
    for a, b, c in zip(d, d[1:], d[2:]):
        t += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
              + a[2] * (b[0] * c[1] - b[1] * c[0]))
    return t > 0
for n in range(13):
    P = hair(n)["P"][3]
    assert all(map(math.isfinite, P)), n
    # the free points (the first two of a strand are pinned, the roots
    # of a helix start off its axis, in the scalp)
    for s in range(len(off) - 1):
        for p in range(off[s] + 2, off[s + 1]):
            assert math.dist(P[3 * p:3 * p + 3], (0, 0, 0)) > 0.1 - 1e-9, (n, p)
    for s in range(len(off) - 1):
        for p in (off[s], off[s] + 1):
            assert math.dist(P[3 * p:3 * p + 3], P0[3 * p:3 * p + 3]) < 1e-12, (n, p)
        assert chirality(P, s) == chirality(P0, s), (n, s)
# the curls have fallen: the tips are lower
assert tips(P) < tips(P0) - 0.05, (tips(P), tips(P0))
PY
}

@test "curly: resumable: a second make does nothing, a deleted frame is made again alone" {
	bake FRAMES=2 >/dev/null
	run bake FRAMES=2
	assert_success
	refute_output --partial "bin/"
	rm "$T/out/frame-0002.slc"
	run bake FRAMES=2
	assert_success
	assert_output --partial "frame-0002.slc"
	refute_output --partial "-o $T/out/frame-0001.slc"
}
