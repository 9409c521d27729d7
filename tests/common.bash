# common.bash: loaded by every Bats test of sluice.
#
# Puts the programs under test first on PATH ($SLUICE_BIN, default bin/;
# `SLUICE_BIN=bin-asan` runs the same tests on the sanitizer build), loads
# bats-support and bats-assert, and gives each test a scratch directory $T.

: "${BATS_LIB_PATH:=/usr/lib/bats}"
export BATS_LIB_PATH
bats_load_library bats-support
bats_load_library bats-assert

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
PATH="$ROOT/${SLUICE_BIN:-bin}:$PATH"
export ROOT PATH

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/sluice.XXXXXX")
	export T
}

teardown() {
	rm -rf "$T"
}

# Run a command with stdin from a file and keep stdout and stderr apart:
# $output is stdout, $stderr is stderr.
run_split() {
	local errf="$T/.stderr"
	run --separate-stderr "$@"
}

# Flip one byte of a file in place: flip_byte FILE OFFSET
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $(( b ^ 0x5a )))" |
		dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

# Measures of a stream's grids (tests/slcgrid.py, a reader written from
# formats/slc.md alone): slcgrid FILE MEASURE ARGS...; it exits 1 with a
# message on a missing record or a damaged file.
slcgrid() {
	python3 "$ROOT/tests/slcgrid.py" "$@"
}

# The awk function vti_load(file, a, pre, want), to put before an awk
# program: it reads the values of the DataArray of an ASCII VTI file
# written by `slcconv -a` (one array per file) into a[pre 0] ..
# a[pre (want - 1)] (pre "" gives a[k]; pre t SUBSEP gives a[t, k]) and
# returns their count.  A file that is missing or holds other than `want`
# values sets vti_failed and exits 1 with a message; since awk still runs
# the END rules after an exit, a program with one starts it with
# `if (vti_failed) exit 1`.
VTI_AWK='
function vti_load(file, a, pre, want,    line, on, m, i, f, k) {
	k = 0
	while ((getline line < file) > 0) {
		if (line ~ /<DataArray/) { on = 1; continue }
		if (line ~ /<\/DataArray/) on = 0
		if (!on) continue
		m = split(line, f, " ")
		for (i = 1; i <= m; i++) a[pre k++] = f[i] + 0
	}
	close(file)
	if (k != want) {
		printf "vti_load: %s: %d values, expected %d\n", file, k, want > "/dev/stderr"
		vti_failed = 1
		exit 1
	}
	return k
}
'

# slcjson FILE... PYTHON: run the Python statements PYTHON on the records
# of `slcinfo --json FILE...`: `streams` is its list of streams, `s` the
# same with each stream a dict of record name -> record, `r` is s[0].
# Fails when slcinfo fails or PYTHON raises (a failed assert).
slcjson() {
	local json code=${!#}
	json=$(slcinfo --json "${@:1:$#-1}") || return 1
	printf '%s\n' "$json" | python3 -c '
import json, math, sys
streams = json.load(sys.stdin)["streams"]
s = [{x["name"]: x for x in t["records"]} for t in streams]
r = s[0]
'"$code"
}

# slc_finite FILE: no NaN or Inf in any channel of any record of FILE (the
# counts of slcinfo --json); fails naming the first record that has one.
slc_finite() {
	slcjson "$1" '
for t in streams:
    for x in t["records"]:
        for c in x["channels"]:
            assert c.get("nan", 0) == 0 and c.get("inf", 0) == 0, (x["name"], c)
assert streams and streams[0]["records"], "no records"'
}

# obj_top OBJ: the highest y of the vertices of a Wavefront OBJ file;
# fails when it has none
obj_top() {
	awk '$1 == "v" && (n++ == 0 || $3 > m) { m = $3 } END { if (!n) exit 1; print m }' "$1"
}
