#!/usr/bin/env bats
# lib/ layers cleanly (HACKING.md, "Layers"; scripts/layers): no file
# includes a header of a higher folder or of another folder on its own
# layer, includes name their folder, and no two files depend on each
# other through includes or calls.

bats_require_minimum_version 1.5.0
load common

LAYERS="$ROOT/scripts/layers"

# a tree of lib/ and tools/ made of the named files, each "path:include ..."
mktree() {
	local d=$1 spec f
	shift
	mkdir -p "$d/tools"
	for spec in "$@"; do
		f=${spec%%:*}
		mkdir -p "$d/$(dirname "$f")"
		: >"$d/$f"
		for inc in ${spec#*:}; do
			printf '#include "%s"\n' "$inc" >>"$d/$f"
		done
	done
}

@test "layers: sluice's own lib/ and tools/ layer cleanly, calls included" {
	run "$LAYERS" "$ROOT" "$ROOT/build"
	assert_success
	assert_output ""
}

@test "layers: a lower folder including a higher one is refused" {
	mktree "$T/t" lib/core/slc.h: lib/grid/field.h:core/slc.h \
		lib/core/err.c:grid/field.h
	run "$LAYERS" "$T/t" "$T/none"
	assert_failure 1
	assert_output --partial 'lib/core/err.c: #include "grid/field.h": a higher folder'
}

@test "layers: two folders on one layer including each other are refused" {
	mktree "$T/t" lib/io/obj.h: lib/grid/field.h:io/obj.h
	run "$LAYERS" "$T/t" "$T/none"
	assert_failure 1
	assert_output --partial 'a same-layer folder'
}

@test "layers: an include that does not name its folder is refused" {
	mktree "$T/t" lib/grid/field.h: lib/grid/fmm.c:field.h
	run "$LAYERS" "$T/t" "$T/none"
	assert_failure 1
	assert_output --partial 'does not name a folder'
}

@test "layers: two headers including each other are a circle" {
	mktree "$T/t" lib/grid/a.h:grid/b.h lib/grid/b.h:grid/a.h
	run "$LAYERS" "$T/t" "$T/none"
	assert_failure 1
	assert_output --partial 'a circle of includes between files'
}

@test "layers: two files calling each other are a circle" {
	mkdir -p "$T/t/lib/grid" "$T/t/tools" "$T/b/lib/grid"
	printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >"$T/t/lib/grid/a.c"
	printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' >"$T/t/lib/grid/b.c"
	cc -c -o "$T/b/lib/grid/a.o" "$T/t/lib/grid/a.c"
	cc -c -o "$T/b/lib/grid/b.o" "$T/t/lib/grid/b.c"
	run "$LAYERS" "$T/t" "$T/b"
	assert_failure 1
	assert_output --partial 'a circle of calls between files: lib/grid/a -> lib/grid/b'
}

@test "layers: a folder of lib/ missing from the layers is a usage error" {
	mktree "$T/t" lib/attic/old.h:
	run "$LAYERS" "$T/t" "$T/none"
	assert_failure 2
	assert_output --partial 'lib/attic: folder missing from LAYERS'
}

@test "layers: two files of lib/ with one name are refused (one archive holds them)" {
	mktree "$T/t" lib/grid/field.c: lib/fluid/field.c:
	run "$LAYERS" "$T/t" "$T/none"
	assert_failure 1
	assert_output --partial 'lib/grid/field.c: the same file name as lib/fluid/field.c'
}
