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
