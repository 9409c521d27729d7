#!/usr/bin/env bats
# slccat: pass-through is byte-identical, selection works, -o is atomic.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	:
}

mk() { "$ROOT/build/tests/gen_stream" "$@"; }

@test "slccat passes records on byte for byte" {
	mk "$T/a.slc"
	run sh -c "slccat '$T/a.slc' > '$T/b.slc'"
	assert_success
	size=$(stat -c %s "$T/a.slc")
	# everything before a's end record (68 bytes) is unchanged in b
	run cmp -n $((size - 68)) "$T/a.slc" "$T/b.slc"
	assert_success
	run slcinfo "$T/b.slc"
	assert_output --partial "stage.0=slccat"
}

@test "slccat concatenates and selects by name and kind" {
	mk "$T/a.slc"
	run sh -c "slccat '$T/a.slc' '$T/a.slc' --only u | slcinfo"
	assert_success
	[ "$(echo "$output" | grep -c "grid 'u'")" -eq 2 ]
	refute_output --partial "mesh 'tri'"
	run sh -c "slccat --kind mesh < '$T/a.slc' | slcinfo"
	assert_output --partial "mesh 'tri'"
	refute_output --partial "grid 'u'"
	run sh -c "slccat --drop u,scene '$T/a.slc' | slcinfo"
	refute_output --partial "grid 'u'"
	refute_output --partial "meta 'scene'"
}

@test "slccat --rename and --reencode --zlib" {
	mk "$T/a.slc"
	run sh -c "slccat --rename u=velx '$T/a.slc' | slcinfo"
	assert_output --partial "grid 'velx'"
	run sh -c "slccat --reencode --zlib 9 '$T/a.slc' | slcinfo"
	assert_success
	assert_output --partial "zlib"
	run slccat --rename nonsense "$T/a.slc"
	assert_failure 2
}

@test "slccat -o: a damaged input leaves no file, or the old one" {
	mk "$T/a.slc"
	cp "$T/a.slc" "$T/bad.slc"
	flip_byte "$T/bad.slc" 150
	run slccat -o "$T/out.slc" "$T/a.slc" "$T/bad.slc"
	assert_failure 1
	assert_output --regexp "^slccat: .*bad.slc: record [0-9]+"
	[ ! -e "$T/out.slc" ]
	[ -z "$(ls -A "$T" | grep '\.tmp\.')" ]
	echo previous > "$T/out.slc"
	run slccat -o "$T/out.slc" "$T/bad.slc"
	assert_failure 1
	[ "$(cat "$T/out.slc")" = previous ]
	run slccat -o "$T/out.slc" "$T/a.slc"
	assert_success
	run slcinfo "$T/out.slc"
	assert_success
}

@test "slccat: same input, same bytes" {
	mk "$T/a.slc" 6
	slccat --reencode --zlib 6 "$T/a.slc" > "$T/x"
	slccat --reencode --zlib 6 "$T/a.slc" > "$T/y"
	cmp "$T/x" "$T/y"
}

@test "slccat -o to a FIFO or a device writes into it, never renames over it" {
	mkprim sphere -o "$T/s.slc"
	mkfifo "$T/fifo"
	cat "$T/fifo" > "$T/got.slc" &
	run slccat "$T/s.slc" -o "$T/fifo"
	assert_success
	wait
	[ -p "$T/fifo" ]                 # still a FIFO
	run slcinfo "$T/got.slc"
	assert_success
	assert_output --partial "mesh 'sphere'"
	run ls -A "$T"
	refute_output --partial ".tmp."  # no temp file left beside it
}

@test "slccat passes a record of an unknown kind on byte for byte" {
	mk "$T/a.slc" 6
	# make record 1 (grid 'u') kind 9, which no 1.0 reader knows, and
	# recompute its crc (formats/slc.md, "Record layout")
	python3 - "$T/a.slc" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
dl, = struct.unpack_from("<I", b, 24)
sl, = struct.unpack_from("<Q", b, 32)
at = 48 + dl + sl + 4
dl, = struct.unpack_from("<I", b, at + 24)
sl, = struct.unpack_from("<Q", b, at + 32)
n = 48 + dl + sl
struct.pack_into("<I", b, at + 8, 9)
struct.pack_into("<I", b, at + n, zlib.crc32(bytes(b[at:at + n])))
open(sys.argv[1], "wb").write(b)
PY
	run slcinfo "$T/a.slc"
	assert_success
	assert_output --partial "1 unknown 'u'"
	slccat "$T/a.slc" > "$T/b.slc"
	size=$(stat -c %s "$T/a.slc")
	# everything before a's end record (68 bytes) is unchanged in b
	cmp -n $((size - 68)) "$T/a.slc" "$T/b.slc"
	slccat --only u "$T/a.slc" | slccat --drop provenance > "$T/c.slc"
	run slcinfo "$T/c.slc"
	assert_success
	assert_output --partial "0 unknown 'u'"
	refute_output --partial "mesh 'tri'"
}

@test "slccat -o: a temp file left by kill -9 is removed by the next run, a live one is not" {
	mk "$T/a.slc"
	mkfifo "$T/in"
	slccat -o "$T/out.slc" < "$T/in" &
	pid=$!
	exec 5> "$T/in"                 # slccat waits for input that never comes
	for i in $(seq 50); do
		ls -A "$T" | grep -q "^\.out\.slc\.tmp\.$pid\." && break
		sleep 0.1
	done
	ls -A "$T" | grep -q "^\.out\.slc\.tmp\.$pid\.......$"
	kill -9 "$pid"
	wait "$pid" || true
	exec 5>&-
	ls -A "$T" | grep -q "^\.out\.slc\.tmp\.$pid\."      # kill -9 leaves it
	: > "$T/.out.slc.tmp.$$.abcdef"                         # a live process's
	: > "$T/.other.slc.tmp.999999999.abcdef"                # another output's
	run slccat -o "$T/out.slc" "$T/a.slc"
	assert_success
	[ -z "$(ls -A "$T" | grep "^\.out\.slc\.tmp\.$pid\.")" ]
	[ -e "$T/.out.slc.tmp.$$.abcdef" ]
	[ -e "$T/.other.slc.tmp.999999999.abcdef" ]
}

@test "slccat passes a 256 MiB zlib record on with a few MiB of memory, byte for byte" {
	"$ROOT/build/tests/gen_big" "$T/big.slc" 256
	run /usr/bin/time -f "maxrss %M" slccat -o "$T/b.slc" "$T/big.slc"
	assert_success
	kb=$(echo "$output" | sed -n 's/^maxrss //p')
	echo "slccat max RSS: $kb KiB"
	[ "$kb" -lt 65536 ]                # the record decodes to 262144 KiB
	size=$(stat -c %s "$T/big.slc")
	cmp -n $((size - 68)) "$T/big.slc" "$T/b.slc"
	run /usr/bin/time -f "maxrss %M" slccat --rename big=large "$T/big.slc" -o "$T/c.slc"
	assert_success
	kb=$(echo "$output" | sed -n 's/^maxrss //p')
	[ "$kb" -lt 65536 ]
	run slcinfo "$T/c.slc"
	assert_success
	assert_output --partial "grid 'large'"
}

# odd_stream FILE CASE: a stream, written from formats/slc.md alone, that
# holds what a reader must accept though sluice never writes it
odd_stream() {
	python3 - "$ROOT/tests" "$@" <<'PY'
import struct, sys, zlib
sys.path.insert(0, sys.argv[1])
from slcrec import CODES, END

def rec(kind, name, chans, kblock=b"", pad=0, time=0.0):
    nb = name.encode()
    desc = struct.pack("<H", len(nb)) + nb + struct.pack("<I", len(kblock)) + kblock
    desc += struct.pack("<I", len(chans))
    payload = b""
    for cname, etype, ncomp, dom, vals in chans:
        cb = cname.encode()
        desc += struct.pack("<H", len(cb)) + cb + bytes([etype, ncomp, dom, 0])
        desc += struct.pack("<Q", len(vals) // ncomp)
        arr = struct.pack("<%d%s" % (len(vals), CODES[etype]), *vals)
        payload += arr + b"\0" * (-len(arr) % 8)
    desc += b"\0" * (-len(desc) % 8 + pad)
    head = b"SLCR" + struct.pack("<HHIIdIIQQ", 1, 0, kind, 0, time, len(desc), 0,
                                 len(payload), len(payload))
    return head + desc + payload + struct.pack("<I", zlib.crc32(head + desc + payload))

P = [0, 0, 0, 1, 0, 0, 0, 1, 0]
mesh = [("P", 4, 3, 1, P), ("tri", 3, 3, 2, [0, 1, 2])]
case = sys.argv[3]
out = {
    # 4096 zero bytes of descriptor padding past the fewest
    "pad": rec(3, "m", mesh, pad=4096) + END,
    # a kind block on a 1.0 mesh record: ignored, kept
    "kblock": rec(3, "m", mesh, kblock=b"later!!!") + END,
    # two end records in a row, then another stream
    "ends": rec(3, "a", mesh) + END + END + rec(3, "b", mesh) + END,
    # an end record with a time and a kind block
    "end": rec(3, "m", mesh) + rec(0, "", [], kblock=b"xy", time=5.0),
    # strands 0 and 2 empty: offsets 0 0 3 3
    "empty": rec(6, "h", [("P", 4, 3, 1, P), ("offset", 3, 1, 3, [0, 0, 3, 3])]) + END,
    # falling offsets
    "fall": rec(6, "h", [("P", 4, 3, 1, P), ("offset", 3, 1, 3, [0, 2, 1, 3])]) + END,
}[case]
open(sys.argv[2], "wb").write(out)
PY
}

@test "slccat: padding, kind blocks, repeated end records and empty strands are accepted and passed on (formats/slc.md)" {
	for c in pad kblock empty; do
		odd_stream "$T/$c.slc" $c
		run slccat "$T/$c.slc" -o "$T/$c.out"
		assert_success
		# the record is passed on byte for byte: only the provenance differs
		n=$(( $(stat -c %s "$T/$c.slc") - 68 ))
		cmp -n $n "$T/$c.slc" "$T/$c.out"
	done
	run slcinfo "$T/pad.out"
	assert_success
	run slcinfo "$T/empty.out"
	assert_output --partial "offset       u32 x1 strand 4"
	odd_stream "$T/ends.slc" ends
	run_split slcinfo --no-stats "$T/ends.slc"
	assert_success
	[ "$(printf '%s\n' "$output" | grep -c " mesh '")" = 2 ]
	run slccat --only b "$T/ends.slc" -o "$T/b.slc"
	assert_success
	odd_stream "$T/end.slc" end
	run slcinfo "$T/end.slc"
	assert_success
	odd_stream "$T/fall.slc" fall
	run slcinfo "$T/fall.slc"
	assert_failure 1
	assert_output --partial "strand offset 2 is 1: offsets must rise from 0 to 3"
}
