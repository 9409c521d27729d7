#!/usr/bin/env bats
# vofstep: the water on a character's skinned tet mesh (lee2019 §3.2-§5)
# and its coupling with the grid (§4), stage by stage: the ledger in the
# meta record 'vofstep' balances every frame (recomputed here from its
# terms and from the water record itself), a still mesh keeps still water
# bit for bit, the spray in the frame is the water the ledger says left,
# the same bytes twice and with 1 and 2 threads, a still ball half in a
# still pool keeps it still through 100 coupled frames, and bad input
# refused with a message, exit 1 and no output.

load common

poke() { python3 "$ROOT/tests/slcpoke.py" "$@"; }

# A pool on a 10^3 grid and a ball of radius 0.12 rising through its
# surface at 0.5 m/s: frames 0..$1 of its mesh in $T (kdsm-N.slc).
bake() {
	mkprim pool --res 10 --depth 0.5 --drop-center 0.5,0.9,0.5 --drop-radius 0.05 -o "$T/grid.slc"
	for f in $(seq 0 "$1"); do
		mkprim ball --path line --velocity 0,0.5,0 --radius 0.12 --center 0.5,0.45,0.5 \
			--frame "$f" -o "$T/ball-$f.slc"
	done
	kdsmbake lattice "$T/ball-0.slc" --like "$T/grid.slc" --levels 0 --shell 0.5 -q -o "$T/lat.slc"
	for f in $(seq 0 "$1"); do
		kdsmbake frame --lattice "$T/lat.slc" "$T/ball-$f.slc" --like "$T/grid.slc" -q \
			-o "$T/kdsm-$f.slc"
	done
}

# One coupled frame: frame-$1 to frame-$1+1 through the five stages.
frame() {
	local n=$(($1 + 1))
	vofstep advect --kdsm "$T/kdsm-$1.slc" --next "$T/kdsm-$n.slc" "$T/f$1.slc" | advect |
		vofstep conserve --kdsm "$T/kdsm-$n.slc" | project |
		vofstep finish --kdsm "$T/kdsm-$n.slc" -o "$T/f$n.slc"
}

# ledger FILE...: for each frame in order, the ledger's identity
# recomputed from its terms, the water record summed against 'after',
# 'before' against the last frame's 'after', W >= 0; prints the worst
# relative residual and the cumulative particle terms.
ledger() {
	python3 - "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[0] and __import__("os").environ["ROOT"] + "/tests")
from slcrec import records
last = None
worst = 0.0
pin = pout = 0.0
for path in sys.argv[1:]:
    recs = records(path)
    meta = [r for r in recs if r[1] == "vofstep"][0]
    text = bytes(meta[3]["text"][3]).decode()
    kv = dict(l.split("=", 1) for l in text.splitlines() if "=" in l)
    f = {k: float(kv[k]) for k in ("before", "grid_in", "grid_fill", "particles_in",
                                   "particles_out", "after")}
    r = f["after"] - (f["before"] + f["grid_in"] + f["grid_fill"] + f["particles_in"]
                      - f["particles_out"])
    v = max(f["before"], f["after"])
    worst = max(worst, abs(r) / v)
    water = [r for r in recs if r[1] == "vof"][0][3]["water"][3]
    # Neumaier's compensated sum in tet order, as lib/vof sums
    s = c = 0.0
    for w in water:
        t = s + w
        c += (s - t) + w if abs(s) >= abs(w) else (w - t) + s
        s = t
        if not w >= 0:
            sys.exit("%s: negative water %r" % (path, w))
    s += c
    if s != f["after"]:
        sys.exit("%s: the water sums to %r, the ledger says %r" % (path, s, f["after"]))
    if last is not None and kv["stage"] != "init" and f["before"] != last:
        sys.exit("%s: before %r, the last frame left %r" % (path, f["before"], last))
    if int(kv["over_cap"]):
        sys.exit("%s: %s tets above cap" % (path, kv["over_cap"]))
    last = f["after"]
    pin += f["particles_in"]
    pout += f["particles_out"]
print("worst %.3e in %.17g out %.17g" % (worst, pin, pout))
PY
}

# The sum of a particles record's volume channel, %.17g.
spray_volume() {
	python3 - "$1" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
from slcrec import records
s = 0.0
for r in records(sys.argv[1]):
    if r[1] == "spray":
        for v in r[3]["volume"][3]:
            s += v
print("%.17g" % s)
PY
}

@test "vofstep: usage errors exit 2" {
	run vofstep
	assert_failure 2
	assert_output --partial "no mode given"
	run vofstep pour
	assert_failure 2
	assert_output --partial "unknown mode 'pour'"
	run vofstep conserve --next x.slc --kdsm y.slc
	assert_failure 2
	assert_output --partial "--next: advect and step only"
	run vofstep step --fill phi
	assert_failure 2
	run vofstep conserve --beta 2 /dev/null
	assert_failure 2
	assert_output --partial "--beta: 2, expected"
	run vofstep advect --kdsm a.slc /dev/null
	assert_failure 2
	assert_output --partial "no --next FILE"
	run vofstep --version
	assert_success
}

@test "vofstep: bad input: program: message, exit 1, no output; a NaN named with its field and frame" {
	bake 1
	# no water yet
	run vofstep conserve --kdsm "$T/kdsm-1.slc" "$T/grid.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --partial "vofstep: $T/grid.slc: no tets record 'vof' (start with vofstep init)"
	[ ! -e "$T/out.slc" ]
	vofstep init --kdsm "$T/kdsm-0.slc" --fill phi "$T/grid.slc" -o "$T/f0.slc"
	# stages out of order
	run vofstep finish --kdsm "$T/kdsm-0.slc" "$T/f0.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --partial "stage 'init': finish must follow conserve"
	[ ! -e "$T/out.slc" ]
	# the water on another mesh than the one given
	run vofstep step --kdsm "$T/kdsm-1.slc" --next "$T/kdsm-1.slc" "$T/f0.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --partial "the water is on mesh frame 0, this step expects 1"
	# not a bake frame
	run vofstep step --kdsm "$T/grid.slc" --next "$T/kdsm-1.slc" "$T/f0.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --partial "vofstep: $T/f0.slc: mesh: no tets record 'kdsm'"
	# water changed outside vofstep
	vofstep advect --kdsm "$T/kdsm-0.slc" --next "$T/kdsm-1.slc" "$T/f0.slc" | advect -o "$T/a.slc"
	poke "$T/a.slc" "$T/b.slc" set vof water 3 0 1e-3
	run vofstep conserve --kdsm "$T/kdsm-1.slc" "$T/b.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --partial "changed outside vofstep"
	[ ! -e "$T/out.slc" ]
	# negative water
	poke "$T/f0.slc" "$T/neg.slc" set vof water 5 0 -1
	run vofstep step --kdsm "$T/kdsm-0.slc" --next "$T/kdsm-1.slc" "$T/neg.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --partial "record 'vof': water: -1 m^3 at tet 5, expected >= 0"
	# a NaN
	poke "$T/f0.slc" "$T/nan.slc" set vof vel 7 1 nan
	run vofstep step --kdsm "$T/kdsm-0.slc" --next "$T/kdsm-1.slc" "$T/nan.slc" -o "$T/out.slc"
	assert_failure 1
	assert_output --regexp "vofstep: .*nan.slc: .*'vof'.*'vel'.*frame 0"
	[ ! -e "$T/out.slc" ]
}

@test "vofstep: a still mesh with still water is bit-identical after a step" {
	bake 0
	vofstep init --kdsm "$T/kdsm-0.slc" --fill phi "$T/grid.slc" -o "$T/f0.slc"
	vofstep step --grid off --gravity 0,0,0 --kdsm "$T/kdsm-0.slc" --next "$T/kdsm-0.slc" \
		"$T/f0.slc" -o "$T/f1.slc"
	python3 - "$T/f0.slc" "$T/f1.slc" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
from slcrec import records
a, b = ([r for r in records(p) if r[1] == "vof"][0][3] for p in sys.argv[1:])
assert sum(1 for w in a["water"][3] if w > 0) > 1000, "too little water"
for c in ("water", "vel", "P"):
    assert a[c][3] == b[c][3], c + " changed"
PY
	run slcinfo "$T/f1.slc"
	assert_output --partial "residual=0"
	assert_output --partial "particles_out=0"
}

@test "vofstep: 6 coupled frames: the ledger balances every frame to 1e-12, the same bytes with 1 and 2 threads" {
	bake 6
	vofstep init --kdsm "$T/kdsm-0.slc" --fill phi "$T/grid.slc" -o "$T/f0.slc"
	for f in 0 1 2 3 4 5; do OMP_NUM_THREADS=2 frame $f; done
	run ledger "$T"/f[0-6].slc
	assert_success
	echo "$output" >&3
	python3 -c "import sys; w=float('$output'.split()[1]); sys.exit(0 if w <= 1e-12 else 1)"
	# the water left through spray and came back from the grid
	run slcinfo "$T/f6.slc"
	assert_output --regexp "n_spray=[1-9]"
	assert_output --regexp "n_filled=[1-9]"
	assert_output --regexp "n_overwritten=[1-9]"
	cp "$T/f6.slc" "$T/two.slc"
	for f in 0 1 2 3 4 5; do OMP_NUM_THREADS=1 frame $f; done
	cmp "$T/f6.slc" "$T/two.slc"
}

@test "vofstep: without a grid the spray in the frame is the water the ledger says left" {
	bake 4
	vofstep init --kdsm "$T/kdsm-0.slc" --fill phi "$T/grid.slc" -o "$T/f0.slc"
	for f in 0 1 2 3; do
		vofstep step --grid off --seed 3 --kdsm "$T/kdsm-$f.slc" --next "$T/kdsm-$((f + 1)).slc" \
			"$T/f$f.slc" -o "$T/f$((f + 1)).slc"
	done
	run ledger "$T"/f[0-4].slc
	assert_success
	set -- $output
	[ "$(python3 -c "print($2 <= 1e-12)")" = True ]
	sv=$(spray_volume "$T/f4.slc")
	python3 -c "
s, i, o = $sv, $4, $6
assert o > 0, 'no spray'
assert abs(s - (o - i)) <= 1e-12 * o, (s, o - i)"
	# the same bytes twice (the same arguments: provenance holds them)
	mv "$T/f4.slc" "$T/first.slc"
	vofstep step --grid off --seed 3 --kdsm "$T/kdsm-3.slc" --next "$T/kdsm-4.slc" \
		"$T/f3.slc" -o "$T/f4.slc"
	cmp "$T/f4.slc" "$T/first.slc"
}

@test "vofstep: a still ball half in a still pool, coupled, 100 frames: grid speed below 1e-5 m/s, no spray" {
	mkprim pool --res 10 --depth 0.5 --drop-center 0.5,0.15,0.5 --drop-radius 0.05 -o "$T/grid.slc"
	mkprim ball --path line --velocity 0,0,0 --radius 0.12 --center 0.5,0.5,0.5 -o "$T/ball.slc"
	kdsmbake lattice "$T/ball.slc" --like "$T/grid.slc" --levels 0 --shell 0.5 -q -o "$T/lat.slc"
	kdsmbake frame --lattice "$T/lat.slc" "$T/ball.slc" --like "$T/grid.slc" -q -o "$T/kdsm-0.slc"
	vofstep init --kdsm "$T/kdsm-0.slc" --fill phi "$T/grid.slc" -o "$T/f.slc"
	for f in $(seq 100); do
		vofstep advect --kdsm "$T/kdsm-0.slc" --next "$T/kdsm-0.slc" "$T/f.slc" | advect |
			vofstep conserve --kdsm "$T/kdsm-0.slc" | project |
			vofstep finish --kdsm "$T/kdsm-0.slc" -o "$T/g.slc"
		mv "$T/g.slc" "$T/f.slc"
		slcinfo "$T/f.slc" | grep -q "^ *n_spray=0$"
	done
	# the largest |u|, |v|, |w| on faces between two liquid cells outside
	# the solid (hydrostatic.bats' measure: air faces keep what gravity
	# gave them, nothing projects them), and the water's largest speed
	run python3 - "$T/f.slc" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
from slcrec import records
recs = {r[1]: r for r in records(sys.argv[1])}
def ch(n):
    d = recs[n][3]
    return d[n][3] if n in d else list(d.values())[0][3]
phi, sol = ch("phi"), ch("solid")
n = round(len(phi) ** (1 / 3))
best = 0
for a, c in enumerate("uvw"):
    f = ch(c)
    dims = [n + (a == 0), n + (a == 1), n + (a == 2)]
    for k in range(dims[2]):
        for j in range(dims[1]):
            for i in range(dims[0]):
                idx = [i, j, k]
                if idx[a] in (0, n):
                    continue
                lo = idx[:]
                lo[a] -= 1
                cells = [p[0] + n * (p[1] + n * p[2]) for p in (lo, idx)]
                if all(phi[q] < 0 and sol[q] > 0 for q in cells):
                    best = max(best, abs(f[i + dims[0] * (j + dims[1] * k)]))
vel = recs["vof"][3]["vel"][3]
print("grid %.3e m/s, water on the mesh %.3e m/s" % (best, max(abs(x) for x in vel)))
sys.exit(0 if best < 1e-5 else 1)
PY
	echo "# $output" >&3
	assert_success
	run slcinfo "$T/f.slc"
	assert_output --partial "balance=0"
}

@test "vofstep render: 4 particles a tet filled above --min-fill holding its water, united with the pool by surfacer" {
	bake 1
	vofstep init --kdsm "$T/kdsm-0.slc" --fill phi "$T/grid.slc" -o "$T/f.slc"
	# a step off the grid leaves tets partly filled
	vofstep step --grid off --kdsm "$T/kdsm-0.slc" --next "$T/kdsm-1.slc" "$T/f.slc" -o "$T/f0.slc"
	run vofstep render --kdsm "$T/kdsm-0.slc" "$T/f0.slc"
	assert_failure 2
	assert_output --partial "render: no --kdsm or --next"
	vofstep render "$T/f0.slc" -o "$T/r.slc"
	vofstep render --min-fill 0.5 "$T/f0.slc" -o "$T/r5.slc"
	run python3 - "$T/r.slc" "$T/r5.slc" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
from slcrec import records
for path, fmin in zip(sys.argv[1:], (0.05, 0.5)):
    recs = records(path)
    vof = [r for r in recs if r[1] == "vof"][0][3]
    pts = [r for r in recs if r[1] == "vof_pts"]
    assert len(pts) == 1, "one vof_pts record"
    pts = pts[0][3]
    W, fill = vof["water"][3], vof["fill"][3]
    wet = [t for t in range(len(W)) if W[t] > 0 and fill[t] > fmin]
    assert len(pts["volume"][3]) == 4 * len(wet), (len(pts["volume"][3]), len(wet))
    want = sum(W[t] for t in wet)
    got = sum(pts["volume"][3])
    assert abs(got - want) <= 1e-12 * want, (got, want)
    # every particle inside its tet (barycentrics of the 4-point rule)
    P, tet, X = pts["P"][3], vof["tet"][3], vof["P"][3]
    for i, t in enumerate(wet):
        q = tet[4 * t:4 * t + 4]
        c = [sum(X[3 * n + a] for n in q) / 4 for a in range(3)]
        r = max(sum((X[3 * n + a] - c[a]) ** 2 for a in range(3)) ** 0.5 for n in q)
        for s in range(4):
            p = P[12 * i + 3 * s:12 * i + 3 * s + 3]
            assert sum((p[a] - c[a]) ** 2 for a in range(3)) ** 0.5 < 0.8 * r, "outside its tet"
    counts = locals().setdefault("counts", [])
    counts.append(len(wet))
    print("%s: %d tets, %d particles, %.6e m^3" % (os.path.basename(path), len(wet), 4 * len(wet), got))
assert counts[1] < counts[0], "--min-fill 0.5 draws fewer tets"
PY
	echo "# $output" >&3
	assert_success
	# the pool alone and united with the water on the mesh: one surface,
	# larger, on the same lattice (the ball's solid is not subtracted from phi)
	surfacer "$T/f0.slc" -v -o /dev/null 2>"$T/a.log"
	surfacer --particles vof_pts --kernel yu-turk "$T/r.slc" -v -o "$T/s.slc" 2>"$T/b.log"
	a=$(sed -n 's/.*volume \([0-9.e+-]*\),.*/\1/p' "$T/a.log")
	b=$(sed -n 's/.*volume \([0-9.e+-]*\),.*/\1/p' "$T/b.log")
	python3 -c "import sys; sys.exit(0 if $b > $a > 0 else 1)"
	# the same bytes twice
	mv "$T/r.slc" "$T/first.slc"
	vofstep render "$T/f0.slc" -o "$T/r.slc"
	cmp "$T/r.slc" "$T/first.slc"
}
