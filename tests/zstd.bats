#!/usr/bin/env bats
# The zstd encoding (formats/slc.md, encoding 2): --zstd N in every program,
# round trips raw/zlib/zstd with the same payload bytes, a reader written
# from the document alone (Python, zstandard), damaged records, bombs.

load common

# Debian's python3 (python3-zstandard, `make deps`), whatever python3 is
# first on PATH
PY=/usr/bin/python3

mk() { "$ROOT/build/tests/gen_stream" "$@"; }

@test "--zstd N writes zstd records, read back transparently" {
	mkprim pool --res 16 --zstd 3 -o "$T/z.slc"
	run slcinfo "$T/z.slc"
	assert_success
	assert_output --partial "grid 'phi' time 0, zstd"
	refute_output --partial ", raw,"
	refute_output --partial ", zlib,"
	# a stage reads it and writes raw
	run advect "$T/z.slc" -o "$T/a.slc"
	assert_success
	run slcinfo "$T/a.slc"
	assert_output --partial "grid 'phi' time 0.0416667, raw"
	refute_output --partial ", zstd,"
}

@test "raw -> zstd -> zlib -> zstd -> raw: every payload byte for byte" {
	mkprim pool --res 16 -o "$T/raw.slc"
	mk "$T/gen.slc"
	for s in raw gen; do
		slccat --reencode --zstd 1 "$T/$s.slc" -o "$T/$s.z1.slc"
		slccat --reencode --zlib 6 "$T/$s.z1.slc" -o "$T/$s.zl.slc"
		slccat --reencode --zstd 19 "$T/$s.zl.slc" -o "$T/$s.z19.slc"
		slccat --reencode "$T/$s.z19.slc" -o "$T/$s.back.slc"
		run slcinfo "$T/$s.z1.slc"
		assert_output --partial ", zstd,"
		refute_output --partial ", zlib,"
		# the decoded payloads are the same, each read by a reader
		# written from formats/slc.md
		for f in z1 zl z19 back; do
			run "$PY" "$ROOT/tests/zstd_reader.py" "$T/$s.slc" "$T/$s.$f.slc"
			assert_success
		done
		# and the raw stream that comes back is the original byte for
		# byte, up to its provenance record
		n=$("$PY" -c 'import sys,struct
d=open(sys.argv[1],"rb").read(); p=0
while True:
    dl,=struct.unpack_from("<I",d,p+24); sl,=struct.unpack_from("<Q",d,p+32)
    nl,=struct.unpack_from("<H",d,p+48)
    if d[p+50:p+50+nl]==b"provenance" or d[p+8:p+12]==b"\0\0\0\0": break
    p+=48+dl+sl+4
print(p)' "$T/$s.slc")
		[ "$n" -gt 0 ]
		run cmp -n "$n" "$T/$s.slc" "$T/$s.back.slc"
		assert_success
	done
}

@test "a record passed on still encoded keeps its zstd payload" {
	mkprim pool --res 16 --zstd 5 -o "$T/z.slc"
	slccat --rename phi=psi "$T/z.slc" -o "$T/r.slc"
	run slcinfo "$T/r.slc"
	assert_output --partial "grid 'psi' time 0, zstd"
	run "$PY" "$ROOT/tests/zstd_reader.py" "$T/z.slc"
	want=$(echo "$output" | awk '$1 == "phi" { print $3 }')
	run "$PY" "$ROOT/tests/zstd_reader.py" "$T/r.slc"
	got=$(echo "$output" | awk '$1 == "psi" { print $3 }')
	[ -n "$want" ] && [ "$want" = "$got" ]
}

@test "--zlib and --zstd exclude each other; --zstd out of range" {
	mk "$T/a.slc"
	run slccat --zlib 1 --zstd 3 "$T/a.slc"
	assert_failure 2
	assert_output --partial "slccat: --zlib 1 and --zstd 3: give one encoding"
	run slccat --zstd 20 "$T/a.slc"
	assert_failure 2
	assert_output --partial "--zstd: 20, expected 1..19"
	run slccat --zstd 0 "$T/a.slc"
	assert_failure 2
	run mkprim pool --res 8 --zlib 0 --zstd 1
	assert_failure 2
	run slccat --help
	assert_output --partial "--zstd N"
}

@test "a damaged zstd record is refused: crc, and zstd's own check" {
	mkprim pool --res 16 --zstd 3 -o "$T/z.slc"
	cp "$T/z.slc" "$T/bad.slc"
	# record 1 (phi) starts after the scene record: a byte of its payload
	off=$("$PY" -c 'import sys,struct
d=open(sys.argv[1],"rb").read(); p=0
dl,=struct.unpack_from("<I",d,24); sl,=struct.unpack_from("<Q",d,32); p=48+dl+sl+4
dl,=struct.unpack_from("<I",d,p+24)
sl,=struct.unpack_from("<Q",d,p+32)
print(p+48+dl+sl//2)' "$T/z.slc")
	flip_byte "$T/bad.slc" "$off"
	run slcinfo "$T/bad.slc"
	assert_failure 1
	assert_output --partial "record 1 at byte"
	assert_output --partial "crc mismatch"
	# the same byte with the crc made right: zstd finds the damage
	"$PY" -c 'import sys,struct,zlib
d=bytearray(open(sys.argv[1],"rb").read())
dl,=struct.unpack_from("<I",d,24); sl,=struct.unpack_from("<Q",d,32); p=48+dl+sl+4
dl,=struct.unpack_from("<I",d,p+24); sl,=struct.unpack_from("<Q",d,p+32)
e=p+48+dl+sl; struct.pack_into("<I",d,e,zlib.crc32(bytes(d[p:e])))
open(sys.argv[1],"wb").write(d)' "$T/bad.slc"
	run slcinfo "$T/bad.slc"
	assert_failure 1
	assert_output --regexp "record 1 '[a-z]+' at byte [0-9]+: zstd frame (is damaged|declares|is cut short)"
	run slccat "$T/bad.slc"
	assert_failure 1
}

# A particles record 'p' of N f32 x3 points whose header declares RAW
# bytes, its payload the zstd frame FRAME (hex), then an end record:
# bomb FILE N RAW FRAME
bomb() {
	"$PY" - "$@" <<'EOF'
import struct, sys, zlib
path, n, raw, frame = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), bytes.fromhex(sys.argv[4])
def rec(kind, enc, desc, payload, raw_len):
    desc += b"\0" * (-len(desc) % 8)
    b = b"SLCR" + struct.pack("<HHIIdIIQQ", 1, 0, kind, enc, 0.0, len(desc), 0,
                              len(payload), raw_len) + desc + payload
    return b + struct.pack("<I", zlib.crc32(b))
desc = struct.pack("<H", 1) + b"p" + struct.pack("<II", 0, 1) + struct.pack("<H", 1) + b"P" + \
       bytes([4, 3, 1, 0]) + struct.pack("<Q", n)
end = rec(0, 0, b"\0" * 10, b"", 0)
open(path, "wb").write(rec(5, 2, desc, frame, raw) + end)
EOF
}

# a zstd frame (single segment, content size SIZE as 8 bytes) of RLE
# blocks of 128 KiB zeros, BLOCKS of them: rle_frame SIZE BLOCKS
rle_frame() {
	"$PY" -c 'import struct, sys
size, blocks = int(sys.argv[1]), int(sys.argv[2])
f = struct.pack("<I", 0xFD2FB528) + bytes([0xE0]) + struct.pack("<Q", size)
for k in range(blocks):
    h = (131072 << 3) | (1 << 1) | (k == blocks - 1)
    f += h.to_bytes(3, "little") + b"\0"
print(f.hex())' "$@"
}

@test "zstd bombs are refused before their size is allocated" {
	# a tiny record whose header declares 1 TiB: beyond any zstd ratio
	bomb "$T/ratio.slc" $((1 << 36)) $((12 << 36)) "$(rle_frame 0 1)"
	run sh -c "ulimit -v 200000; slcinfo '$T/ratio.slc'"
	assert_failure 1
	assert_output --partial "beyond any zstd ratio"
	# a 32 KiB frame declaring 1 GiB, in a record whose header says 24
	bomb "$T/declares.slc" 2 24 "$(rle_frame $((1 << 30)) 8192)"
	run sh -c "ulimit -v 200000; slcinfo '$T/declares.slc'"
	assert_failure 1
	assert_output --partial "zstd frame declares 1073741824 decoded bytes, the header declares 24"
	# a frame declaring 24 bytes (as the header does) whose one block
	# inflates to 128 KiB
	frame=$(rle_frame 24 1)
	bomb "$T/inflates.slc" 2 24 "$frame"
	run sh -c "ulimit -v 200000; slcinfo '$T/inflates.slc'"
	assert_failure 1
	assert_output --partial "zstd frame is damaged"
	run sh -c "ulimit -v 200000; slccat '$T/inflates.slc'"
	assert_failure 1
	assert_output --partial "zstd frame is damaged"
	# 48 MiB of zeros in 1.5 KiB, honestly declared: within the ratio, read
	bomb "$T/honest.slc" $((1 << 22)) $((12 << 22)) "$(rle_frame $((12 << 22)) 384)"
	run slccat "$T/honest.slc" -o "$T/out.slc"
	assert_success
}

@test "large records of a file are mapped: the same bytes as through a pipe, the file unchanged" {
	# 64^3: every grid record is over the 1 MiB from which records of a
	# regular file are mapped instead of read
	mkprim pool --res 64 -o "$T/f.slc"
	slccat --reencode --zstd 1 "$T/f.slc" -o "$T/z.slc"
	before=$(md5sum < "$T/f.slc")
	advect --seed 1 "$T/f.slc" -o "$T/a.slc"
	cat "$T/f.slc" | advect --seed 1 -o "$T/b.slc"
	[ "$(md5sum < "$T/f.slc")" = "$before" ]
	run "$PY" "$ROOT/tests/zstd_reader.py" "$T/a.slc" "$T/b.slc"
	assert_success
	# a concatenation: records at offsets that are not page-aligned
	cat "$T/f.slc" "$T/z.slc" > "$T/two.slc"
	run sh -c "slccat '$T/two.slc' | slcinfo"
	assert_success
	[ "$(echo "$output" | grep -c "grid 'phi'")" -eq 2 ]
	run sh -c "slccat --reencode < '$T/two.slc' | md5sum"
	pipe=$output
	run sh -c "cat '$T/two.slc' | slccat --reencode | md5sum"
	[ "$output" = "$pipe" ]
}
