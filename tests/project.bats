#!/usr/bin/env bats
# project: pressure projection of a frame; pass-through, options, metadata,
# rigid bodies, bad input; end to end, the divergence left against --tol and
# idempotence.

load common
bats_require_minimum_version 1.5.0

F() { "$ROOT/build/tests/test_project_frames" "$@"; }

# meta KEY FILE: value of KEY in the 'project' metadata record
meta() {
	slcinfo "$2" | sed -n "/meta 'project'/,/^[0-9]/p" | sed -n "s/^ *$1=//p"
}

# body FILE NAME: the listing lines of record NAME, without its header
body() {
	slcinfo "$1" | awk -v n="'$2'" '/^[0-9]+ / { p = index($0, n) > 0; next } p'
}

# stat FILE RECORD FIELD(min|max|mean): a channel statistic from slcinfo
stat() {
	slcinfo "$1" | grep -A2 "'$2'" | grep " $2 " | sed "s/.* $3 \([^ ]*\).*/\1/"
}

# vel FILE TAG: the velocity u, v, w of FILE exported as ASCII VTI files
# $T/TAG.u.vti, $T/TAG.v.vti, $T/TAG.w.vti (slcconv, nine digits: float
# values exactly)
vel() {
	local r
	for r in u v w; do
		slcconv -a -r $r -o "$T/$2.$r.vti" "$1" || return 1
	done
}

# velawk N PROGRAM TAG...: run the awk PROGRAM (an END block) with the
# face arrays of the TAGs loaded: u[t, idx], v[t, idx], w[t, idx] for the
# t-th TAG (from 1), n = N cells per axis
velawk() {
	local n=$1 prog=$2
	shift 2
	awk -v n="$n" -v dir="$T" -v tags="$*" "$VTI_AWK"'
	BEGIN {
		nt = split(tags, tag, " ")
		for (t = 1; t <= nt; t++) {
			vti_load(dir "/" tag[t] ".u.vti", u, t SUBSEP, (n + 1) * n * n)
			vti_load(dir "/" tag[t] ".v.vti", v, t SUBSEP, (n + 1) * n * n)
			vti_load(dir "/" tag[t] ".w.vti", w, t SUBSEP, (n + 1) * n * n)
		}
	}
	'"END { if (vti_failed) exit 1; $prog }" /dev/null
}

# div N TAG: "MAX EXCESS ROUND": the largest |outward flux| / dx^2 of a
# cell (all faces at weight 1: no solid), the largest of it less the
# float rounding of the cell's six faces (2^-24 sum |u_f|: each face is
# one float rounding away from the value computed in double), and the
# largest such rounding
div() {
	velawk "$1" '
		e = -1; r = 0; m = 0
		for (k = 0; k < n; k++)
			for (j = 0; j < n; j++)
				for (i = 0; i < n; i++) {
					x = i + (n + 1) * (j + n * k); y = i + n * (j + (n + 1) * k)
					z = i + n * (j + n * k)
					d = u[1, x + 1] - u[1, x] + v[1, y + n] - v[1, y] + w[1, z + n * n] - w[1, z]
					s = 0
					s += u[1, x + 1] < 0 ? -u[1, x + 1] : u[1, x + 1]
					s += u[1, x] < 0 ? -u[1, x] : u[1, x]
					s += v[1, y + n] < 0 ? -v[1, y + n] : v[1, y + n]
					s += v[1, y] < 0 ? -v[1, y] : v[1, y]
					s += w[1, z + n * n] < 0 ? -w[1, z + n * n] : w[1, z + n * n]
					s += w[1, z] < 0 ? -w[1, z] : w[1, z]
					s *= 2 ^ -24
					if (d < 0) d = -d
					if (d > m) m = d
					if (d - s > e) e = d - s
					if (s > r) r = s
				}
		printf "%.9g %.9g %.9g\n", m, e, r' "$2"
}

# veldiff N A B: "MAXDIFF MAXABS": the largest |A - B| over all faces and the
# largest |A|
veldiff() {
	velawk "$1" '
		nf = (n + 1) * n * n
		for (f = 0; f < nf; f++) {
			d = u[1, f] - u[2, f]; if (d < 0) d = -d; if (d > m) m = d
			d = v[1, f] - v[2, f]; if (d < 0) d = -d; if (d > m) m = d
			d = w[1, f] - w[2, f]; if (d < 0) d = -d; if (d > m) m = d
			a = u[1, f]; if (a < 0) a = -a; if (a > b) b = a
			a = v[1, f]; if (a < 0) a = -a; if (a > b) b = a
			a = w[1, f]; if (a < 0) a = -a; if (a > b) b = a
		}
		printf "%.9g %.9g\n", m, b' "$2" "$3"
}

@test "--help lists the options; bad options are usage errors" {
	run project --help
	assert_success
	assert_output --partial "--precond P"
	assert_output --partial "--weights W"
	assert_output --partial "--density RHO"
	run project --precond jacobi
	assert_equal "$status" 2
	run project --tol -1
	assert_equal "$status" 2
	run project --maxiter 0
	assert_equal "$status" 2
}

@test "a closed box: projected, converged, other records passed through unchanged" {
	F box "$T/in.slc"
	run_split project -v -o "$T/out.slc" "$T/in.slc"
	assert_success
	[[ "$stderr" == *"mg-pcg:"*"iterations, residual"* ]]
	[ "$(meta converged "$T/out.slc")" = 1 ]
	[ "$(meta enclosed "$T/out.slc")" = 1 ]
	[ "$(meta precond "$T/out.slc")" = mg ]
	[ "$(meta iterations "$T/out.slc")" -le 20 ]
	for r in density note solid scene; do
		a=$(body "$T/in.slc" $r)
		b=$(body "$T/out.slc" $r)
		[ -n "$a" ]
		[ "$a" = "$b" ]
	done
	run slcinfo "$T/out.slc"
	assert_output --partial "grid 'p'"
	[ "$(stat "$T/in.slc" u max)" != "$(stat "$T/out.slc" u max)" ]
}

@test "projecting twice changes nothing beyond the tolerance; mic0 agrees with mg" {
	F box "$T/in.slc"
	project --tol 1e-8 -o "$T/a.slc" "$T/in.slc"
	project --tol 1e-8 -o "$T/b.slc" "$T/a.slc"
	project --tol 1e-8 --precond mic0 -o "$T/c.slc" "$T/in.slc"
	[ "$(meta precond "$T/c.slc")" = mic0 ]
	[ "$(meta iterations "$T/c.slc")" -gt "$(meta iterations "$T/a.slc")" ]
	for s in min max mean; do
		a=$(stat "$T/a.slc" v $s); b=$(stat "$T/b.slc" v $s); c=$(stat "$T/c.slc" v $s)
		awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { exit !((a-b)^2 < 1e-10 && (a-c)^2 < 1e-10) }'
	done
}

@test "water at rest in a tilted box: hydrostatic pressure, scaled by --density" {
	F tank "$T/in.slc" 24
	project -o "$T/a.slc" "$T/in.slc"
	project --density 500 -o "$T/b.slc" "$T/in.slc"
	# p = rho g (0.53 - y); the lowest fluid cell (open faces into the
	# box's bottom corner) is in row 0, y = dx/2
	pa=$(stat "$T/a.slc" p max); pb=$(stat "$T/b.slc" p max)
	awk -v p="$pa" 'BEGIN { e = 1000 * 9.81 * (0.53 - 0.5 / 24); d = p / e - 1; exit !(d * d < 1e-8) }'
	awk -v a="$pa" -v b="$pb" 'BEGIN { d = a / b - 2; exit !(d * d < 1e-8) }'
	project --weights binary -o "$T/c.slc" "$T/in.slc"
	[ "$(meta weights "$T/c.slc")" = binary ]
}

@test "a light rigid ball in water is pushed up; its other channels pass" {
	F rigid "$T/in.slc"
	project -o "$T/out.slc" "$T/in.slc"
	vy=$(slcinfo -j "$T/out.slc" | grep -o '"name":"v","type":"f32","ncomp":3[^}]*' | sed 's/.*"max":\([^,]*\).*/\1/')
	awk -v v="$vy" 'BEGIN { exit !(v > 0.1) }'
	run slcinfo "$T/out.slc"
	assert_output --partial "orient       f32 x4 point 1  min 0 max 1"
	slccat --drop rigid_phi "$T/in.slc" > "$T/bad.slc"
	run_split project "$T/bad.slc"
	assert_failure 1
	[[ "$stderr" == "project: "*"no 'rigid_phi' record"* ]]
}

@test "no time step: the velocity is projected but p is not written" {
	F box "$T/in.slc"
	slccat --drop scene "$T/in.slc" | project -v -o "$T/out.slc"
	run slcinfo "$T/out.slc"
	refute_output --partial "grid 'p'"
	project --dt 0.01 -o "$T/out2.slc" "$T/out.slc"
	run slcinfo "$T/out2.slc"
	assert_output --partial "grid 'p'"
}

@test "same input, same bytes, on 1 or 2 threads" {
	F tank "$T/in.slc" 40
	OMP_NUM_THREADS=1 project < "$T/in.slc" > "$T/a.slc"
	OMP_NUM_THREADS=2 project < "$T/in.slc" > "$T/b.slc"
	cmp "$T/a.slc" "$T/b.slc"
}

@test "bad input: missing velocity, NaN, mismatched grids, damage; no output" {
	F box "$T/in.slc"
	slccat --drop w "$T/in.slc" > "$T/now.slc"
	run_split project -o "$T/o.slc" "$T/now.slc"
	assert_failure 1
	[[ "$stderr" == *"no 'w' grid record"* ]]
	F nan "$T/nan.slc"
	run_split project -o "$T/o.slc" "$T/nan.slc"
	assert_failure 1
	[[ "$stderr" == *"'v'"* && "$stderr" == *"7"* ]]
	F box "$T/big.slc" 20
	slccat --only solid "$T/big.slc" > "$T/solid.slc"
	slccat --drop solid "$T/in.slc" > "$T/nos.slc"
	cat "$T/nos.slc" "$T/solid.slc" > "$T/mis.slc"
	run_split project -o "$T/o.slc" "$T/mis.slc"
	assert_failure 1
	[[ "$stderr" == *"record 'solid'"*"expected the velocity's 16x16x16 cells"* ]]
	head -c 3000 "$T/in.slc" > "$T/cut.slc"
	run_split project -o "$T/o.slc" "$T/cut.slc"
	assert_failure 1
	[ ! -e "$T/o.slc" ]
}

# poke IN OUT OP REC ARGS...: a hostile copy of a frame (tests/slcpoke.py)
poke() { python3 "$ROOT/tests/slcpoke.py" "$@"; }

@test "a NaN or Inf in any record read, passed on or solved, is named where it is; no output" {
	mkprim smoke --res 16 > "$T/s.slc"     # 8x16x8 cells
	# density is only passed on: it once went through with exit 0
	poke "$T/s.slc" "$T/d.slc" set density density $((1 + 8 * (2 + 16 * 3))) 0 nan
	run_split project -o "$T/o.slc" "$T/d.slc"
	assert_failure 1
	assert_equal "$stderr" "project: $T/d.slc: field 'density' channel 'density', frame 0: 1 NaN and 0 Inf values, first at sample (1,2,3)"
	[ ! -e "$T/o.slc" ]
	# u (9x16x8 face-x), on standard input
	poke "$T/s.slc" "$T/u.slc" set u u $((4 + 9 * (5 + 16 * 6))) 0 -inf
	run_split project -o "$T/o.slc" < "$T/u.slc"
	assert_failure 1
	assert_equal "$stderr" "project: <stdin>: field 'u' channel 'u', frame 0: 0 NaN and 1 Inf values, first at sample (4,5,6)"
	[ ! -e "$T/o.slc" ]
}

@test "--boundary: a pool after one advect step rests on the box floor; inflow through a stored wall" {
	mkprim pool --res 16 | advect > "$T/a.slc"
	project -o "$T/w.slc" "$T/a.slc"
	[ "$(meta boundary "$T/w.slc")" = wall ]
	# p = rho g (depth - dx/2) at the lowest cell centres, depth 0.3
	pw=$(stat "$T/w.slc" p max)
	awk -v p="$pw" 'BEGIN { e = 1000 * 9.81 * (0.3 - 0.5 / 16); d = p / e - 1; exit !(d * d < 1e-8) }'
	# 1 m/s into a closed 1 m box through its x = 0 face: 1 m^3/s to remove
	F inflow "$T/in.slc"
	project --boundary stored -o "$T/s.slc" "$T/in.slc"
	project -o "$T/w2.slc" "$T/in.slc"
	awk -v f="$(meta compat_flux "$T/s.slc")" 'BEGIN { exit !((f - 1)^2 < 1e-8) }'
	awk -v f="$(meta compat_flux "$T/w2.slc")" 'BEGIN { exit !(f^2 < 1e-8) }'
	run project --boundary leaky "$T/a.slc"
	assert_equal "$status" 2
}

@test "end to end: the divergence left is the residual, below --tol times the initial divergence; projecting again gives the exact projection" {
	# the box of smoke without its ball: every face weight is 1, the
	# divergence is the plain difference of the faces; walls at rest
	F box "$T/ball.slc"
	slccat --drop solid "$T/ball.slc" > "$T/in.slc"
	vel "$T/in.slc" in
	read -r d0 _ < <(div 16 in)
	for pc in mg mic0; do
		project --precond $pc -o "$T/a.slc" "$T/in.slc"
		project --precond $pc -o "$T/b.slc" "$T/a.slc"
		project --precond $pc --tol 1e-12 -o "$T/r.slc" "$T/in.slc"
		[ "$(meta converged "$T/r.slc")" = 1 ]
		vel "$T/a.slc" a
		vel "$T/b.slc" b
		vel "$T/r.slc" r
		# psys_rhs makes b = -(outward flux) and the update adds (A x)_c
		# to it: the divergence left is -(b - A x), the residual, whose
		# max norm project stops at tol max|b| = tol d0 (lib/fluid/pcg.h), the
		# net flow being zero; what float storage of u adds is taken off
		# per cell (div's EXCESS) or allowed for (ROUND); the reported
		# residual has six digits (5e-6 relative)
		read -r d1 ex rnd < <(div 16 a)
		res=$(meta residual "$T/a.slc")
		tol=$(meta tol "$T/a.slc")
		echo "$pc: divergence $d1 (beyond rounding $ex) from $d0, residual $res, tol $tol"
		awk -v d0="$d0" -v d1="$d1" -v ex="$ex" -v r="$rnd" -v res="$res" -v tol="$tol" \
			'BEGIN { e = d1 - res * d0; if (e < 0) e = -e
				 exit !(d0 > 1 && ex <= tol * d0 && e <= r + 5e-6 * res * d0) }'
		# projecting again changes u by D A^+ r, the first solve's error,
		# and lands on the exact projection up to the float rounding of
		# both fields (its own solve error allowed for as tol du; see
		# tests/c/test_project.c)
		read -r du um < <(veldiff 16 b a)
		read -r err1 _ < <(veldiff 16 a r)
		read -r err2 _ < <(veldiff 16 b r)
		echo "$pc: second projection changes u by $du (max $um); first error $err1, then $err2"
		awk -v du="$du" -v um="$um" -v e2="$err2" -v tol="$tol" \
			'BEGIN { exit !(du > 0 && e2 <= 2 * 2 ^ -24 * um + tol * du) }'
	done
}

@test "out-of-range options are usage errors naming the option and its range" {
	run project --tol 0
	assert_equal "$status" 2
	assert_output --partial "--tol: 0, expected more than 0"
	run project --maxiter 0
	assert_equal "$status" 2
	assert_output --partial "--maxiter: 0, expected at least 1"
	run project --density -5
	assert_equal "$status" 2
	assert_output --partial "--density: -5, expected more than 0"
	run project --dt 0
	assert_equal "$status" 2
	assert_output --partial "--dt: 0, expected more than 0"
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

@test "project passes an unrelated 256 MiB zlib grid on still encoded: little memory, byte for byte" {
	"$ROOT/build/tests/gen_big" "$T/big.slc" 256 --frame --name density
	run /usr/bin/time -f "maxrss %M" project -o "$T/out.slc" "$T/big.slc"
	assert_success
	kb=$(echo "$output" | sed -n 's/^maxrss //p')
	echo "project max RSS: $kb KiB"
	[ "$kb" -lt 65536 ]                # the record decodes to 262144 KiB
	record_bytes "$T/big.slc" density >"$T/a.rec"
	record_bytes "$T/out.slc" density >"$T/b.rec"
	[ "$(wc -c <"$T/a.rec")" -gt 1000000 ]     # the record, stored
	cmp "$T/a.rec" "$T/b.rec"
}

@test "a NaN in a record project passes on encoded is named by advect, which decodes it" {
	"$ROOT/build/tests/gen_big" "$T/nan.slc" 4 --frame --name density --nan
	run project -o "$T/p.slc" "$T/nan.slc"
	assert_success
	run advect --dt 0.01 "$T/p.slc"
	assert_failure 1
	assert_output "advect: $T/p.slc: field 'density' channel 'density', time 0: 1 NaN and 0 Inf values, first at sample (1,2,3)"
}
