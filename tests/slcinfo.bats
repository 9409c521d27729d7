#!/usr/bin/env bats
# slcinfo: lists records, verifies checksums, and refuses damage with exit 1.

load common
bats_require_minimum_version 1.5.0

# A small stream with a grid, built by the C round-trip test's writer is not
# available here, so use slcinfo's own input: a stream made by mkprim when
# present, else by the gen_stream test helper.
make_stream() {
	"$ROOT/build/tests/gen_stream" "$1" "${2:-0}"
}

@test "slcinfo --help and --version" {
	run slcinfo --help
	assert_success
	assert_output --partial "Usage: slcinfo"
	assert_output --partial "--json"
	assert_output --partial "--output FILE"
	run slcinfo --version
	assert_success
	assert_output --partial "sluice"
}

@test "slcinfo lists every record with statistics" {
	make_stream "$T/a.slc"
	run slcinfo "$T/a.slc"
	assert_success
	assert_output --partial "grid 'u'"
	assert_output --partial "4x3x2 face-x"
	assert_output --partial "min -1 max"
	assert_output --partial "mesh 'tri'"
	assert_output --partial "gravity=0,-9.8,0"
}

@test "slcinfo --json is valid JSON with NaN counts" {
	make_stream "$T/a.slc"
	run slcinfo --json "$T/a.slc"
	assert_success
	echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["streams"][0]["records"]; assert d["streams"][0]["ok"]; assert any(c.get("nan")==1 for x in r for c in x["channels"])'
}

@test "slcinfo reads zlib records and standard input" {
	make_stream "$T/z.slc" 6
	run sh -c "slcinfo < '$T/z.slc'"
	assert_success
	assert_output --partial "zlib"
}

@test "slcinfo: every flipped byte gives exit 1 and a message" {
	make_stream "$T/a.slc"
	size=$(stat -c %s "$T/a.slc")
	for off in 0 5 20 47 60 100 $((size / 2)) $((size - 1)); do
		cp "$T/a.slc" "$T/b.slc"
		flip_byte "$T/b.slc" "$off"
		run slcinfo "$T/b.slc"
		assert_failure 1
		assert_output --regexp "slcinfo: .*b.slc: record [0-9]+"
	done
}

@test "slcinfo: truncation, wrong magic and empty input give exit 1" {
	make_stream "$T/a.slc"
	head -c 100 "$T/a.slc" > "$T/t.slc"
	run slcinfo "$T/t.slc"
	assert_failure 1
	assert_output --partial "truncated"
	printf 'not a stream at all, just some text here that is long\n' > "$T/m.slc"
	run slcinfo "$T/m.slc"
	assert_failure 1
	assert_output --partial "bad magic"
	: > "$T/e.slc"
	run slcinfo "$T/e.slc"
	assert_failure 1
	assert_output --partial "empty input"
	run slcinfo "$T/missing.slc"
	assert_failure 1
	assert_output --partial "missing.slc"
}

@test "slcinfo: a header declaring a payload past the data gives exit 1" {
	make_stream "$T/a.slc"
	# stored_len and raw_len of record 0: u64 at bytes 32 and 40
	# (formats/slc.md, "Record layout"), set to 1 MiB in a 576-byte file
	python3 - "$T/a.slc" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<QQ", b, 32, 1 << 20, 1 << 20)
open(sys.argv[1], "wb").write(b)
PY
	run_split slcinfo "$T/a.slc"
	assert_failure 1
	[[ "$stderr" =~ ^slcinfo:\ .*a\.slc:\ record\ 0\ at\ byte\ 0:\ truncated ]]
	run_split sh -c "cat '$T/a.slc' | slcinfo"
	assert_failure 1
	[[ "$stderr" =~ ^slcinfo:\ \<stdin\>:\ record\ 0.*truncated ]]
}

@test "slcinfo -o writes the listing atomically, never from damage" {
	make_stream "$T/a.slc"
	run slcinfo -o "$T/list.txt" "$T/a.slc"
	assert_success
	assert_output ""
	slcinfo "$T/a.slc" > "$T/stdout.txt"
	cmp "$T/list.txt" "$T/stdout.txt"
	run slcinfo --json --zlib 9 --output "$T/list.json" "$T/a.slc"
	assert_success
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["streams"][0]["ok"]' "$T/list.json"
	cp "$T/a.slc" "$T/bad.slc"
	flip_byte "$T/bad.slc" 100
	run slcinfo -o "$T/new.txt" "$T/a.slc" "$T/bad.slc"
	assert_failure 1
	assert_output --partial "bad.slc: record"
	assert_output --partial "new.txt: not written"
	[ ! -e "$T/new.txt" ]
	run slcinfo -o "$T/list.txt" "$T/bad.slc"
	assert_failure 1
	cmp "$T/list.txt" "$T/stdout.txt"
	[ -z "$(ls -A "$T" | grep '\.tmp\.')" ]
}

@test "slcinfo: usage errors exit 2" {
	run slcinfo --frobnicate
	assert_failure 2
	assert_output --partial "unknown option"
}

# no_ctl TEXT: TEXT holds no control byte but newlines
no_ctl() {
	! printf '%s' "$1" | LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]'
}

@test "slcinfo: names and meta text print escaped, no control byte reaches the terminal" {
	mkprim sphere --subdiv 0 --name $'a\e[2J\nv b\\c\u00e9' -o "$T/s.slc"
	run_split slcinfo "$T/s.slc"
	assert_success
	# no control byte but the newlines ending lines, and none forged
	no_ctl "$output"
	printf '%s\n' "$output" | grep -qxF "0 mesh 'a\\x1b[2J\\nv b\\\\c"$'\u00e9'"' time 0, raw, 492 bytes"
	printf '%s\n' "$output" | grep -A1 "^0 mesh" | tail -1 | grep -q '^  P '
	# the name reached the provenance's text (an option of mkprim): escaped there too
	printf '%s\n' "$output" | grep -qF -- '--name a\x1b[2J'
	# JSON keeps the exact name, with \u escapes
	run slcinfo --json "$T/s.slc"
	no_ctl "$output"
	slcjson "$T/s.slc" 'assert "a\x1b[2J\nv b\\c\u00e9" in r, list(r)'
	# a file name is printed escaped as well
	cp "$T/s.slc" "$T/"$'x\ey.slc'
	run_split slcinfo "$T/"$'x\ey.slc'
	assert_success
	[[ "${lines[0]}" == *'x\x1by.slc:' ]]
}

# meta_stream FILE TEXT: a stream of one meta record 'scene' whose text is
# the bytes TEXT (a Python bytes literal), then the end record
meta_stream() {
	python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from slcrec import _record, END
text = eval(sys.argv[3])
open(sys.argv[2], "wb").write(_record(1, "scene", 0.0, [("text", 1, 1, 0, list(text))]) + END)
' "$ROOT/tests" "$1" "$2"
}

@test "slcinfo: malformed metadata text is refused, well-formed text listed (formats/slc.md, Meta)" {
	meta_stream "$T/ok.slc" 'b"frame=3\ntime=0.125\nnote=caf\xc3\xa9 = ok\n"'
	run_split slcinfo "$T/ok.slc"
	assert_success
	assert_output --partial "    note=café = ok"
	meta_stream "$T/empty.slc" 'b""'
	run slcinfo "$T/empty.slc"
	assert_success
	meta_stream "$T/rep.slc" 'b"frame=3\ntime=0\nframe=4\n"'
	run slcinfo "$T/rep.slc"
	assert_failure 1
	assert_output --partial "metadata key 'frame' repeated (lines 1 and 3)"
	assert_output --partial "record 0"
	meta_stream "$T/sp.slc" 'b"frame=3\nmy key=1\n"'
	run slcinfo "$T/sp.slc"
	assert_failure 1
	assert_output --partial "metadata line 2 'my key=1' is not key=value"
	meta_stream "$T/noeq.slc" 'b"frame=3\njust words\n"'
	run slcinfo "$T/noeq.slc"
	assert_failure 1
	assert_output --partial "metadata line 2 'just words' is not key=value"
	meta_stream "$T/utf.slc" 'b"frame=3\nnote=\xff\xfe\n"'
	run slcinfo "$T/utf.slc"
	assert_failure 1
	assert_output --partial "the value of 'note' is not UTF-8"
	meta_stream "$T/nul.slc" 'b"note=a\0b\n"'
	run slcinfo "$T/nul.slc"
	assert_failure 1
	assert_output --partial "not UTF-8 without NUL"
	meta_stream "$T/nonl.slc" 'b"frame=3"'
	run slcinfo "$T/nonl.slc"
	assert_failure 1
	assert_output --partial "does not end with a newline"
	meta_stream "$T/key0.slc" 'b"=3\n"'
	run slcinfo "$T/key0.slc"
	assert_failure 1
	assert_output --partial "is not key=value"
	# slccat refuses it too: nothing passes it on
	run slccat "$T/rep.slc" -o "$T/out.slc"
	assert_failure 1
	[ ! -e "$T/out.slc" ]
}

# idx_stream FILE KIND TYPE: a mesh (KIND 3, `tri`) or tets (KIND 4, `tet`)
# record whose index channel has element type code TYPE, then the end
idx_stream() {
	python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from slcrec import _record, END
kind, etype = int(sys.argv[3]), int(sys.argv[4])
P = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
idx = ("tri", [0, 1, 2]) if kind == 3 else ("tet", [0, 1, 2, 3])
chans = [("P", 4, 3, 1, P), (idx[0], etype, len(idx[1]), 2, idx[1])]
open(sys.argv[2], "wb").write(_record(kind, "m", 0.0, chans) + END)
' "$ROOT/tests" "$@"
}

@test "slcinfo: tri and tet are u32; i32 indices are refused as every stage refuses them (formats/slc.md, Kinds)" {
	idx_stream "$T/u.slc" 3 3
	run slcinfo "$T/u.slc"
	assert_success
	idx_stream "$T/t.slc" 4 3
	run slcinfo "$T/t.slc"
	assert_success
	idx_stream "$T/i.slc" 3 2
	run slcinfo "$T/i.slc"
	assert_failure 1
	assert_output --partial "channel 'tri' is i32 x3 prim, expected u32 x3 prim"
	idx_stream "$T/it.slc" 4 2
	run slcinfo "$T/it.slc"
	assert_failure 1
	assert_output --partial "channel 'tet' is i32 x4 prim, expected u32 x4 prim"
}

@test "slcinfo: a file name that is not UTF-8 reaches the provenance as \\xNN, so the text stays valid" {
	f="$T/"$'l\xe9'".slc"
	run mkprim sphere --subdiv 0 -o "$f"
	assert_success
	run slcinfo --json "$f"
	assert_success
	slcjson "$f" 'assert any("l\\xe9.slc" in v for v in r["provenance"]["meta"].values()), r["provenance"]'
}
