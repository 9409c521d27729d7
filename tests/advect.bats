#!/usr/bin/env bats
# advect: frames advected through their MAC velocity, forces, substeps,
# metadata, pass-through, bad input.

bats_require_minimum_version 1.5.0
load common

# A smoke frame: 16x32x16 cells of 1/16 m, a density/temperature ball at
# (0.5, 0.5, 0.5), zero velocity, frame length 0.1 s.
smoke() {
	mkprim smoke --res 32 --center 0.5,0.5,0.5 --radius 0.15 --dt 0.1 "$@"
}

# The smoke frame with a uniform velocity: one frame of advect with only
# "gravity" (X,Y,Z)/0.1 s leaves the fields still and sets u, v, w.
moving() {
	smoke > "$T/s0.slc"
	advect --gravity "$1" --cfl 0 < "$T/s0.slc" > "$T/moving.slc"
}

# poke IN OUT OP REC ARGS...: a hostile copy of a frame (tests/slcpoke.py)
poke() { python3 "$ROOT/tests/slcpoke.py" "$@"; }

@test "advect --help lists the schemes and forces" {
	run advect --help
	assert_success
	assert_output --partial "--scheme S"
	assert_output --partial "--limiter L"
	assert_output --partial "--buoyancy ALPHA,BETA"
	assert_output --partial "--confinement EPS"
}

@test "advect: usage errors exit 2" {
	run advect --scheme weno
	assert_failure 2
	run advect --buoyancy 1
	assert_failure 2
	run advect --cfl -1
	assert_failure 2
}

@test "advect: a ball moves with a uniform velocity, every scheme" {
	moving 2,1,0        # u = 0.2 m/s, v = 0.1 m/s over a 0.1 s frame
	read -r s0 x0 y0 z0 < <(slcgrid "$T/moving.slc" moments density)
	# unlimited: mass and centroid kept (linear interpolation keeps both
	# exactly); the limiters are not conservative: looser
	for c in sl,none,0.002,0.002 maccormack,none,0.002,0.002 bfecc,none,0.002,0.01 \
		 maccormack,revert,0.02,0.08 bfecc,clamp,0.02,0.08; do
		IFS=, read -r s l tol mtol <<< "$c"
		advect --scheme "$s" --limiter "$l" --gravity 0,0,0 --dt 1 < "$T/moving.slc" > "$T/$s.slc"
		read -r s1 x1 y1 z1 < <(slcgrid "$T/$s.slc" moments density)
		python3 -c "
s0, x0, y0, z0, s1, x1, y1, z1 = map(float, '$s0 $x0 $y0 $z0 $s1 $x1 $y1 $z1'.split())
assert abs(x1 - x0 - 0.2) < $tol and abs(y1 - y0 - 0.1) < $tol and abs(z1 - z0) < $tol, ('$c', x1 - x0, y1 - y0, z1 - z0)
assert abs(s1 / s0 - 1) < $mtol, ('$c', s1 / s0)
"
	done
}

@test "advect: the velocity advects itself and stays uniform" {
	moving 2,1,0
	advect --gravity 0,0,0 --dt 1 < "$T/moving.slc" > "$T/a.slc"
	slcjson "$T/a.slc" '
for n, want in (("u", 0.2), ("v", 0.1), ("w", 0.0)):
    c = r[n]["channels"][0]
    assert abs(c["min"] - want) < 1e-5 and abs(c["max"] - want) < 1e-5, (n, c)
'
}

@test "advect: scene frame and time advance; times of advected records" {
	smoke > "$T/s0.slc"
	advect < "$T/s0.slc" > "$T/s1.slc"
	slcjson "$T/s1.slc" '
assert r["scene"]["meta"]["frame"] == "1" and float(r["scene"]["meta"]["time"]) == 0.1, r["scene"]
assert r["density"]["time"] == 0.1 and r["u"]["time"] == 0.1
assert r["source"]["time"] == 0
'
}

@test "advect: scene gravity, and --dt over the scene's" {
	smoke > "$T/s0.slc"
	advect --dt 0.5 < "$T/s0.slc" > "$T/s1.slc"
	slcjson "$T/s1.slc" '
c = r["v"]["channels"][0]
assert abs(c["min"] + 9.81 * 0.5) < 1e-4 and abs(c["max"] + 9.81 * 0.5) < 1e-4, c
'
}

@test "advect: buoyancy lifts hot smoke and replaces scene gravity" {
	smoke > "$T/s0.slc"
	advect --buoyancy 0,2 < "$T/s0.slc" > "$T/s1.slc"
	slcjson "$T/s1.slc" '
c = r["v"]["channels"][0]
assert c["min"] == 0 and abs(c["max"] - 0.2) < 1e-4, c    # beta T dt, T = 1
'
}

@test "advect: a source injects density and velocity" {
	smoke --source-density 0 --temperature 0 > "$T/s0.slc"
	advect --source source --source-density 0.7 --source-velocity 0,1.5,0 \
		--gravity 0,0,0 < "$T/s0.slc" > "$T/s1.slc"
	slcjson "$T/s1.slc" '
assert abs(r["density"]["channels"][0]["max"] - 0.7) < 1e-6
assert abs(r["v"]["channels"][0]["max"] - 1.5) < 1e-6
assert r["temperature"]["channels"][0]["max"] == 1    # at least the default 1
'
}

@test "advect: records it does not advect pass byte-identical" {
	smoke > "$T/s0.slc"
	advect < "$T/s0.slc" > "$T/s1.slc"
	slccat --only source < "$T/s0.slc" > "$T/a.slc"
	slccat --only source < "$T/s1.slc" > "$T/b.slc"
	run sh -c "slcinfo $T/a.slc | grep -A2 \"'source'\""
	a=$output
	run sh -c "slcinfo $T/b.slc | grep -A2 \"'source'\""
	assert_equal "$output" "$a"
}

@test "advect: same bytes on every run and thread count, all schemes" {
	moving 2,1,0.5
	for s in sl maccormack bfecc; do
		OMP_NUM_THREADS=1 advect --scheme "$s" --confinement 0.5 --buoyancy 0.1,1 < "$T/moving.slc" > "$T/a.slc"
		OMP_NUM_THREADS=2 advect --scheme "$s" --confinement 0.5 --buoyancy 0.1,1 < "$T/moving.slc" > "$T/b.slc"
		cmp "$T/a.slc" "$T/b.slc"
	done
}

@test "advect: CFL substeps" {
	moving 40,0,0        # 4 m/s: 6.4 cells per 0.1 s frame
	run advect -v --cfl 1 --gravity 0,0,0 < "$T/moving.slc"
	assert_success
	run sh -c "advect -v --cfl 1 --gravity 0,0,0 < $T/moving.slc 2>&1 >/dev/null"
	assert_output --partial "7 substeps"
	run sh -c "advect -v --cfl 0 --gravity 0,0,0 < $T/moving.slc 2>&1 >/dev/null"
	assert_output --partial "1 substeps"
}

@test "advect: --substep: fixed substeps, the last one shortened; same as one advect per substep" {
	moving 40,0,0
	run sh -c "advect -v --substep 0.03 --gravity 0,0,0 < $T/moving.slc 2>&1 >/dev/null"
	assert_output --partial "4 substeps"     # 0.03 0.03 0.03 0.01
	run sh -c "advect -v --substep 0.025 --cfl 0.1 --gravity 0,0,0 < $T/moving.slc 2>&1 >/dev/null"
	assert_output --partial "4 substeps"     # not 0.025 + rounding, and --cfl unused
	args="--buoyancy 0.1,1 --confinement 0.3"
	advect $args --substep 0.025 < "$T/moving.slc" > "$T/one.slc"
	cp "$T/moving.slc" "$T/c0.slc"
	for n in 1 2 3 4; do
		advect $args --cfl 0 --dt 0.025 < "$T/c$((n - 1)).slc" > "$T/c$n.slc"
	done
	for g in u v w density temperature; do
		a=$(slcgrid "$T/one.slc" md5 $g)
		b=$(slcgrid "$T/c4.slc" md5 $g)
		[ "$a" = "$b" ]
	done
	# and not what one step of the frame gives
	advect $args --cfl 0 < "$T/moving.slc" > "$T/whole.slc"
	a=$(slcgrid "$T/one.slc" md5 u)
	b=$(slcgrid "$T/whole.slc" md5 u)
	[ "$a" != "$b" ]
	run_split advect --substep -1 < "$T/moving.slc"
	assert_failure 2
}

@test "advect: no velocity, no frame length, bad velocity: exit 1" {
	smoke > "$T/s0.slc"
	slccat --drop v < "$T/s0.slc" > "$T/nov.slc"
	run_split advect < "$T/nov.slc"
	assert_failure 1
	assert_equal "$stderr" "advect: <stdin>: no grid record 'v'"
	slccat --drop scene < "$T/s0.slc" > "$T/nos.slc"
	run_split advect < "$T/nos.slc"
	assert_failure 1
	assert_output ""
	[[ "$stderr" == *"no frame length"* ]]
	slccat --drop w < "$T/s0.slc" > "$T/now.slc"
	slccat --only u --rename u=w < "$T/s0.slc" > "$T/wu.slc"
	cat "$T/now.slc" "$T/wu.slc" > "$T/badw.slc"
	run_split advect < "$T/badw.slc"
	assert_failure 1
	[[ "$stderr" == *"velocity 'w' is face-x, expected face-z"* ]]
}

@test "advect: a NaN or Inf stops the run naming the frame, field and cell, no output file" {
	moving 1e38,0,0
	run_split advect --cfl 0 --gravity 1e40,0,0 -o "$T/out.slc" < "$T/moving.slc"
	assert_failure 1
	assert_equal "$stderr" "advect: <stdin>: frame 2: field 'u': Inf at cell (0,0,0)"
	[ ! -e "$T/out.slc" ]
	# a NaN in v at sample (3,4,5) of the input (16x33x16 face-y): found
	# when the frame is read, not taken for a slow velocity by the
	# substep loop (a NaN compares false with every speed)
	poke "$T/moving.slc" "$T/nan.slc" set v v $((3 + 16 * (4 + 33 * 5))) 0 nan
	run_split advect --gravity 0,0,0 -o "$T/out.slc" < "$T/nan.slc"
	assert_failure 1
	assert_equal "$stderr" "advect: <stdin>: field 'v' channel 'v', frame 1: 1 NaN and 0 Inf values, first at sample (3,4,5)"
	[ ! -e "$T/out.slc" ]
}

@test "advect: a NaN or Inf in any record read is named where it is, before the step" {
	smoke > "$T/s0.slc"
	# density (16x32x16 cells) at (3,4,5): with buoyancy it would spread
	# to v in the step and be blamed on v
	poke "$T/s0.slc" "$T/d.slc" set density density $((3 + 16 * (4 + 32 * 5))) 0 nan
	run_split advect --buoyancy 1,1 -o "$T/out.slc" "$T/d.slc"
	assert_failure 1
	assert_equal "$stderr" "advect: $T/d.slc: field 'density' channel 'density', frame 0: 1 NaN and 0 Inf values, first at sample (3,4,5)"
	[ ! -e "$T/out.slc" ]
	# a record advect passes on unchanged ('source') is checked as well
	poke "$T/s0.slc" "$T/s.slc" set source source 7 0 inf
	run_split advect -o "$T/out.slc" "$T/s.slc"
	assert_failure 1
	assert_equal "$stderr" "advect: $T/s.slc: field 'source' channel 'source', frame 0: 0 NaN and 1 Inf values, first at sample (7,0,0)"
	[ ! -e "$T/out.slc" ]
}

@test "advect: truncated input exits 1 with no output" {
	smoke > "$T/s0.slc"
	head -c 5000 "$T/s0.slc" > "$T/cut.slc"
	run_split advect -o "$T/out.slc" < "$T/cut.slc"
	assert_failure 1
	[ ! -e "$T/out.slc" ]
}

@test "advect: vortex particles seeded in the source, moved, repeatable by --seed" {
	moving 0,5,0
	args="--source source --vortex-seed 400 --vortex-eps 5 --gravity 0,0,0"
	advect $args --seed 3 < "$T/moving.slc" > "$T/a.slc"
	advect $args --seed 3 < "$T/moving.slc" > "$T/b.slc"
	advect $args --seed 4 < "$T/moving.slc" > "$T/c.slc"
	cmp "$T/a.slc" "$T/b.slc"
	run cmp -s "$T/a.slc" "$T/c.slc"
	assert_failure
	slcjson "$T/a.slc" '
c = {x["name"]: x for x in r["vortex"]["channels"]}
assert 30 <= c["P"]["count"] <= 50, c["P"]             # 400/s over 0.1 s
assert c["omega"]["max"] <= 2e-3 and c["omega"]["min"] >= -2e-3
u = r["u"]["channels"][0]
assert u["max"] > 0 and u["min"] < 0, u                # the particles stir
'
	# a second frame moves the particles up with v = 0.5 m/s
	advect --gravity 0,0,0 < "$T/a.slc" > "$T/d.slc"
	slcjson "$T/a.slc" "$T/d.slc" '
p = [t["vortex"]["channels"][0] for t in s]
assert p[0]["count"] == p[1]["count"]
assert abs(p[1]["mean"] - p[0]["mean"] - 0.05 / 3) < 0.004, (p[0]["mean"], p[1]["mean"])
'
}

@test "advect: --vortex-seed needs --source" {
	smoke > "$T/s0.slc"
	run advect --vortex-seed 10 < "$T/s0.slc"
	assert_failure 2
}

@test "advect: velocity falling onto a solid is stopped at its surface (houston2003)" {
	moving 0,-5,0        # v = -0.5 m/s
	mkprim sphere --radius 0.2 --center 0.5,1,0.5 |
		mklevelset --like "$T/moving.slc" --occlusion > "$T/solid.slc"
	cat "$T/moving.slc" "$T/solid.slc" | advect --gravity 0,0,0 > "$T/a.slc"
	advect --gravity 0,0,0 < "$T/moving.slc" > "$T/b.slc"
	slcjson "$T/a.slc" "$T/b.slc" '
va, vb = s[0]["v"]["channels"][0], s[1]["v"]["channels"][0]
assert vb["min"] == vb["max"] == -0.5, vb
assert va["max"] > -0.25 and va["min"] == -0.5, va
assert s[0]["solid"]["time"] == 0 and "solid_vel" in s[0]
'
}

@test "advect: out-of-range options name the option, the value and its range, exit 2" {
	smoke > "$T/s0.slc"
	run_split advect --pls-per-cell 0 "$T/s0.slc"
	assert_failure 2
	[[ "$stderr" == "advect: --pls-per-cell: 0, expected 1..1000"* ]]
	run_split advect --vortex-radius 0 "$T/s0.slc"
	assert_failure 2
	[[ "$stderr" == "advect: --vortex-radius: 0, expected more than 0"* ]]
	run_split advect --seed -1 "$T/s0.slc"
	assert_failure 2
	[[ "$stderr" == "advect: --seed: -1, expected at least 0"* ]]
	assert_output ""
}

@test "advect: a frame of many records, with every record advect adds, comes out whole and in order" {
	# a pool (a liquid without marker particles), a ball without its
	# rigid_phi, a smoke source to seed vortex particles in and 5000
	# particle records: advect adds vortex, pls_pos, pls_neg, spray and
	# rigid_phi after the records it read
	mkprim pool --res 16 > "$T/pool.slc"
	mkprim ball --res 16 | slccat --drop rigid_phi > "$T/ball.slc"
	mkprim smoke --res 16 --box 1,1,1 > "$T/smoke.slc"
	slccat --only source "$T/smoke.slc" > "$T/src.slc"
	advect --source source --vortex-seed 400 --gravity 0,0,0 < "$T/smoke.slc" |
		slccat --only vortex > "$T/vort.slc"
	# the vortex record (16 points) copied 5000 times as q00000 ... q04999
	python3 - "$T/vort.slc" 5000 "$T/q.slc" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
dlen, = struct.unpack_from("<I", data, 24)
slen, = struct.unpack_from("<Q", data, 32)
rec = data[:48 + dlen + slen + 4]
assert rec[50:56] == b"vortex"
out = bytearray()
for i in range(int(sys.argv[2])):
    r = bytearray(rec)
    r[50:56] = b"q%05d" % i
    struct.pack_into("<I", r, len(r) - 4, zlib.crc32(bytes(r[:-4])))
    out += r
open(sys.argv[3], "wb").write(out)
EOF
	cat "$T/q.slc" "$T/src.slc" > "$T/qsrc.slc"
	slccat "$T/pool.slc" "$T/ball.slc" "$T/qsrc.slc" -o "$T/f0.slc"
	advect --source source --vortex-seed 400 --seed 1 "$T/f0.slc" > "$T/f1.slc"
	names() { slcinfo "$1" | sed -n "s/^[0-9]* \([a-z]*\) '\([^']*\)'.*/\1 \2/p"; }
	names "$T/f0.slc" | grep -v "^meta provenance" > "$T/want"
	[ "$(wc -l < "$T/want")" -eq 5008 ]
	printf '%s\n' "particles vortex" "particles pls_pos" "particles pls_neg" \
		"particles spray" "grid rigid_phi" "meta provenance" >> "$T/want"
	names "$T/f1.slc" > "$T/got"
	diff "$T/want" "$T/got"
	# every copy whole: its 16 points
	run sh -c "slcinfo $T/f1.slc | grep -A1 \"^[0-9]* particles 'q0\" | grep -c ' P  *f32 x3 point 16 '"
	assert_output 5000
}


# The stored bytes of the first record named NAME of stream FILE, as they
# are in the file (formats/slc.md: 48-byte prefix, descriptor, payload, crc).
record_bytes() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
at = 0
while at < len(b):
    desc_len, = struct.unpack_from("<I", b, at + 24)
    stored, = struct.unpack_from("<Q", b, at + 32)
    n = 48 + desc_len + stored + 4
    nlen, = struct.unpack_from("<H", b, at + 48)
    if b[at + 50:at + 50 + nlen] == sys.argv[2].encode():
        sys.stdout.buffer.write(b[at:at + n])
        sys.exit(0)
    at += n
sys.exit(1)
PY
}

@test "advect passes an unrelated 256 MiB zlib grid on still encoded: little memory, byte for byte" {
	# 'p' is not moved by advect: it is passed on unread
	"$ROOT/build/tests/gen_big" "$T/big.slc" 256 --frame --name p
	run /usr/bin/time -f "maxrss %M" advect --dt 0.01 -o "$T/out.slc" "$T/big.slc"
	assert_success
	kb=$(echo "$output" | sed -n 's/^maxrss //p')
	echo "advect max RSS: $kb KiB"
	[ "$kb" -lt 65536 ]                # the record decodes to 262144 KiB
	record_bytes "$T/big.slc" p >"$T/a.rec"
	record_bytes "$T/out.slc" p >"$T/b.rec"
	[ "$(wc -c <"$T/a.rec")" -gt 1000000 ]     # the record, stored
	cmp "$T/a.rec" "$T/b.rec"
}

@test "a NaN in a record advect passes on encoded is left for the stage that reads it" {
	"$ROOT/build/tests/gen_big" "$T/nan.slc" 4 --frame --name p --nan
	run advect --dt 0.01 -o "$T/a.slc" "$T/nan.slc"
	assert_success
	"$ROOT/build/tests/gen_big" "$T/nan2.slc" 4 --frame --name density --nan
	run advect --dt 0.01 -o "$T/b.slc" "$T/nan2.slc"
	assert_failure 1
	assert_output --partial "field 'density' channel 'density', time 0: 1 NaN and 0 Inf values, first at sample (1,2,3)"
	run slcinfo --no-stats "$T/a.slc"
	assert_success
}
