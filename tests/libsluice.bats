#!/usr/bin/env bats
# libsluice installed (make install into a temporary PREFIX): stages built
# against it with nothing but pkg-config (examples/wind.c shared and
# static, the example of man/libsluice.3), run in a pipe between advect
# and project; their effect checked against tests/slcrec.py, a reader
# written from formats/slc.md alone; the soname and the headers.

bats_require_minimum_version 1.5.0
load common

# one install shared by the tests below
setup_file() {
	export P=$BATS_FILE_TMPDIR/prefix
	make --no-print-directory -C "$ROOT" -j2 install PREFIX="$P" \
		>"$BATS_FILE_TMPDIR/install.log" 2>&1 ||
		{ tail -20 "$BATS_FILE_TMPDIR/install.log"; return 1; }
}

# pkg-config on the installed copy alone
pc() {
	PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_LIBDIR=$P/lib/pkgconfig pkg-config "$@"
}

# a smoke frame with a moving velocity: one baked frame, then advect
moving_frame() {
	mkprim smoke --res 16 --dt 0.1 > "$T/f0.slc"
	advect --dt 0.1 --buoyancy 0.1,4 < "$T/f0.slc" | project > "$T/f1.slc"
}

# check_drag BEFORE AFTER WX WY WZ K: every face of u, v, w in AFTER is
# wind + (before - wind) exp(-K dt) (dt the scene's), every other record
# equal to BEFORE's, and the mean u moved toward the wind by (1 - exp(-K dt))
# of its distance
check_drag() {
	python3 - "$@" <<'EOF'
import math, os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
before, after = slcrec.records(sys.argv[1]), slcrec.records(sys.argv[2])
wind, k = [float(x) for x in sys.argv[3:6]], float(sys.argv[6])
assert [r[:3] for r in before] == [r[:3] for r in after], "records differ"
scene = dict(l.split("=") for l in bytes(before[0][3]["text"][3]).decode().split())
decay = math.exp(-k * float(scene["dt"]))
moved = 0
for kind, name, time, chans in before:
    new = next(r for r in after if r[1] == name)[3]
    if name not in ("u", "v", "w"):
        assert new == chans, name
        continue
    a = "uvw".index(name)
    old, got = chans[name][3], new[name][3]
    for x, y in zip(old, got):
        want = wind[a] + (x - wind[a]) * decay
        assert abs(y - want) <= 1e-6 * (1 + abs(want)), (name, x, y, want)
    m0, m1 = sum(old) / len(old), sum(got) / len(got)
    assert abs((m1 - m0) - (wind[a] - m0) * (1 - decay)) < 1e-5, (name, m0, m1)
    moved += abs(m1 - m0) > 1e-3
assert moved >= 1, "no mean moved"
EOF
}

@test "libsluice: the installed files, the soname and the version" {
	[ -f "$P/lib/libsluice.a" ]
	v=$(pc --modversion sluice)
	[ "$v" = "$(advect --version | awk '{ print $3 }')" ]
	so=libsluice.so.${v%.*}
	[ -f "$P/lib/$so" ] && [ ! -L "$P/lib/$so" ]
	[ "$(readlink "$P/lib/libsluice.so.${v%%.*}")" = "$so" ]
	[ "$(readlink "$P/lib/libsluice.so")" = "libsluice.so.${v%%.*}" ]
	run readelf -d "$P/lib/$so"
	assert_output --partial "Library soname: [libsluice.so.${v%%.*}]"
	[ -f "$P/share/man/man3/libsluice.3" ]
	# no header of the tree's layout: every include names a sibling
	run grep -ho '#include "[^"]*"' "$P"/include/sluice/*.h
	assert_output --partial '#include "slc.h"'
	refute_output --partial '/'
	# each public header compiles alone from include/sluice/
	for h in "$P"/include/sluice/*.h; do
		printf '#include <sluice/%s>\n' "${h##*/}" |
			cc -std=c11 -Wall -Wextra -Werror $(pc --cflags sluice) -fsyntax-only -x c -
	done
}

@test "libsluice: examples/wind.c built with pkg-config alone drags the velocity between advect and project" {
	cc -O2 -o "$T/wind" "$ROOT/examples/wind.c" $(pc --cflags --libs sluice)
	run readelf -d "$T/wind"
	assert_output --partial "Shared library: [libsluice.so."
	moving_frame
	set -o pipefail
	advect --dt 0.1 < "$T/f1.slc" | tee "$T/a.slc" |
		LD_LIBRARY_PATH=$P/lib "$T/wind" --wind 2,0.5,-1 --rate 3 | tee "$T/w.slc" |
		project > "$T/f2.slc"
	check_drag "$T/a.slc" "$T/w.slc" 2 0.5 -1 3
	slc_finite "$T/f2.slc"
	run slcinfo "$T/f2.slc"
	assert_output --partial "meta 'project'"
}

@test "libsluice: examples/Makefile STATIC=1 links libsluice.a with pkg-config --static, same bytes" {
	cp "$ROOT/examples/wind.c" "$ROOT/examples/Makefile" "$T/"
	PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_LIBDIR=$P/lib/pkgconfig make -s -C "$T" STATIC=1
	run readelf -d "$T/wind"
	refute_output --partial "libsluice"
	moving_frame
	advect --dt 0.1 < "$T/f1.slc" > "$T/a.slc"
	"$T/wind" --rate 0.5 < "$T/a.slc" > "$T/s.slc"
	check_drag "$T/a.slc" "$T/s.slc" 1 0 0 0.5
	project < "$T/s.slc" > "$T/f2.slc"
	cc -O2 -o "$T/wind-so" "$ROOT/examples/wind.c" $(pc --cflags --libs sluice)
	LD_LIBRARY_PATH=$P/lib "$T/wind-so" --rate 0.5 < "$T/a.slc" | cmp - "$T/s.slc"
}

@test "libsluice: wind's errors: usage exit 2, a frame without velocity exit 1" {
	cc -O2 -o "$T/wind" "$ROOT/examples/wind.c" $(pc --cflags --libs sluice)
	export LD_LIBRARY_PATH=$P/lib
	run -2 "$T/wind" --rate -1
	assert_output --partial "--rate wants a number >= 0, not '-1'"
	run -2 "$T/wind" --wind 1,2
	mkprim smoke --res 8 --dt 0.1 | slccat --drop v > "$T/nov.slc"
	run -1 "$T/wind" "$T/nov.slc"
	assert_output "wind: $T/nov.slc: no grid record 'v' (the velocity)"
}

@test "libsluice: the example stage of man/libsluice.3 builds and fades the density" {
	# the text between .EX and .EE, roff escapes undone
	sed -n '/^\.EX$/,/^\.EE$/p' "$ROOT/man/libsluice.3" | sed '1d;$d' |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' > "$T/fade.c"
	cc -O2 -Wall -Wextra -Werror -o "$T/fade" "$T/fade.c" $(pc --cflags --libs sluice)
	moving_frame
	advect --dt 0.1 < "$T/f1.slc" > "$T/a.slc"
	set -o pipefail
	LD_LIBRARY_PATH=$P/lib "$T/fade" 2 < "$T/a.slc" | tee "$T/d.slc" | project > "$T/f2.slc"
	python3 - "$T/a.slc" "$T/d.slc" <<'EOF'
import math, os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
a, d = slcrec.records(sys.argv[1]), slcrec.records(sys.argv[2])
f = math.exp(-2 * 0.1)
for (_, name, _, old), (_, name2, _, new) in zip(a, d):
    assert name == name2
    if name != "density":
        assert old == new, name
        continue
    x, y = old["density"][3], new["density"][3]
    assert max(x) > 0.1
    assert all(abs(q - p * f) <= 1e-6 * (1 + p) for p, q in zip(x, y))
EOF
}
