#!/usr/bin/env bats
# options.bats: a value outside an option's range is a usage error (exit
# 2) naming the tool, the option, the value and the range, as the option
# table says (tools/tool.h, struct opt_range): "tool: --NAME: VALUE,
# expected RANGE", then a pointer to --help; nothing is written.

bats_require_minimum_version 1.5.0
load common

# usage_error TOOL EXPECTED-FIRST-LINE ARGS...: exit 2, that message first
usage_error() {
	local tool=$1 want=$2
	shift 2
	run_split "$tool" "$@" -o "$T/out"
	echo "$tool $*: status $status: $stderr"
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "$tool: $want" ]
	[[ "$stderr" == *"try '$tool --help'"* ]]
	[ ! -e "$T/out" ]
}

@test "--zlib 12 is refused by every tool that writes streams" {
	for tool in mklevelset surfacer slccat slcconv slcinfo mkprim; do
		usage_error "$tool" "--zlib: 12, expected 0..9" --zlib 12
	done
	usage_error slccat "--zlib: -1, expected 0..9" --zlib=-1
}

@test "mklevelset: --band, --res, --pad, --dx, --width name their ranges" {
	usage_error mklevelset "--band: 0.5, expected at least 1" --band 0.5
	usage_error mklevelset "--res: 0, expected at least 1" --res 0
	usage_error mklevelset "--pad: -1, expected at least 0" --pad -1
	usage_error mklevelset "--dx: -0.1, expected at least 0" --dx -0.1
	usage_error mklevelset "--width: -2, expected at least 0" --redistance --width -2
}

@test "surfacer: --smooth, --refine, --support, --radius, --dx name their ranges" {
	usage_error surfacer "--smooth: 1001, expected 0..1000" --smooth 1001
	usage_error surfacer "--smooth: -1, expected 0..1000" --smooth -1
	usage_error surfacer "--refine: 0, expected 1..16" --refine 0
	usage_error surfacer "--support: 0.5, expected 1..64" --support 0.5
	usage_error surfacer "--radius: -1, expected at least 0" --radius -1
	usage_error surfacer "--dx: -1, expected at least 0" --dx -1
}

@test "rasterize: --fov, --aa, --albedo, --sigma, --ambient, --shell-eps, --radius name their ranges" {
	usage_error rasterize "--fov: 180, expected (0, 180)" --fov 180
	usage_error rasterize "--fov: 0, expected (0, 180)" --fov 0
	usage_error rasterize "--aa: 9, expected 1..8" --aa 9
	usage_error rasterize "--albedo: 1.5, expected 0..1" --albedo 1.5
	usage_error rasterize "--sigma: -1, expected at least 0" --sigma -1
	usage_error rasterize "--ambient: -0.5, expected at least 0" --ambient -0.5
	usage_error rasterize "--shell-eps: 0, expected more than 0" --shell-eps 0
	usage_error rasterize "--radius: -1, expected at least 0" --radius -1
	# a check on the whole vector stays in the tool, naming the option
	usage_error rasterize "--light: 0,0,0, expected a nonzero direction" --light 0,0,0
}

@test "values in range are accepted" {
	mkprim sphere --subdiv 1 > "$T/s.slc"
	mklevelset --band 1 --res 8 --pad 0 --zlib 9 "$T/s.slc" > "$T/l.slc"
	surfacer --field solid --smooth 0 --refine 16 --support 64 "$T/l.slc" > "$T/m.slc"
	rasterize --fov 179 --aa 1 --albedo 1 --sigma 0 --size 8x8 "$T/l.slc" > "$T/p.png"
}

@test "a stage's message prints a record name from input escaped: no raw control byte" {
	"$ROOT/build/tests/gen_big" "$T/nan.slc" 4 --nan
	slccat --rename big=$'bad\e[2J\nname' "$T/nan.slc" -o "$T/esc.slc"
	run surfacer --field $'bad\e[2J\nname' "$T/esc.slc"
	assert_failure 1
	assert_output "surfacer: field 'bad\\x1b[2J\\nname' channel 'big', time 0: 1 NaN and 0 Inf values, first at sample (1,2,3)"
	! printf '%s' "$output" | LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]'
	run surfacer --field x "$T/nope"$'\e'
	assert_failure 1
	[[ "$output" == *'nope\x1b'* ]]
}
