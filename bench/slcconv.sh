#!/bin/sh
# slcconv: read and write speed of each mesh format on an icosphere of
# 327,680 triangles (mkprim sphere --subdiv 7), best of 3 runs to or from
# /dev/null, in MB/s of the file and in triangles per second of CPU time
# (user + system: the machine is shared, so wall time is shown but noisy).
# STL files are made from the OBJ by a Python helper (slcconv writes no
# STL).  Set SUBDIV for another size.
cd "$(dirname "$0")/.." || exit 2
d=bench/out/slcconv
mkdir -p "$d"
[ -x bin/slcconv ] && [ -x bin/mkprim ] || { echo "build first: make"; exit 1; }
bin/mkprim sphere --subdiv "${SUBDIV:-7}" -o "$d/s.slc" || exit 1
ntri=$(bin/slcinfo --no-stats "$d/s.slc" | awk '$1 == "tri" { print $5 }')
best() {   # "wall cpu" seconds of the run with the least CPU of 3: "$@" > /dev/null
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -a -o "$d/time" "$@" > /dev/null || exit 1
	done
	tail -n 3 "$d/time" | awk '{c=$2+$3; if (b=="" || c<b) {b=c; w=$1}} END {print w, b}'
	rm -f "$d/time"
}
row() {   # row LABEL FILE "WALL CPU"
	printf '%-22s ' "$1"
	echo "$(wc -c < "$2") $3 $ntri" | awk '{c=$3>0.001?$3:0.001; printf "%12d %7.3f %7.3f %10.1f %12.3g\n", $1, $2, $3, $1/c/1e6, $4/c}'
}
printf '%-22s %12s %7s %7s %10s %12s\n' "format, direction" bytes wall cpu MB/s triangles/s
bin/slcconv "$d/s.slc" -o "$d/s.obj" || exit 1
bin/slcconv "$d/s.slc" -o "$d/s.ply" || exit 1
bin/slcconv --ascii "$d/s.slc" -o "$d/sa.ply" || exit 1
python3 - "$d/s.obj" "$d/s.stl" "$d/sa.stl" <<'PY' || exit 1
import struct, sys
V, T = [], []
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "v": V.append(tuple(float(x) for x in w[1:4]))
    elif w and w[0] == "f": T.append(tuple(int(x) - 1 for x in w[1:4]))
with open(sys.argv[2], "wb") as f:
    f.write(b"bench".ljust(80, b" ") + struct.pack("<I", len(T)))
    for t in T:
        f.write(struct.pack("<12fH", 0, 0, 0, *V[t[0]], *V[t[1]], *V[t[2]], 0))
with open(sys.argv[3], "w") as f:
    f.write("solid bench\n")
    for t in T:
        f.write("facet normal 0 0 0\n outer loop\n")
        for i in t: f.write("  vertex %.9g %.9g %.9g\n" % V[i])
        f.write(" endloop\nendfacet\n")
    f.write("endsolid bench\n")
PY
row "obj read" "$d/s.obj" "$(best bin/slcconv "$d/s.obj")"
row "ply binary read" "$d/s.ply" "$(best bin/slcconv "$d/s.ply")"
row "ply ascii read" "$d/sa.ply" "$(best bin/slcconv "$d/sa.ply")"
row "stl binary read" "$d/s.stl" "$(best bin/slcconv "$d/s.stl")"
row "stl ascii read" "$d/sa.stl" "$(best bin/slcconv "$d/sa.stl")"
row "obj write" "$d/s.obj" "$(best bin/slcconv --to obj "$d/s.slc")"
row "ply binary write" "$d/s.ply" "$(best bin/slcconv --to ply "$d/s.slc")"
row "ply ascii write" "$d/sa.ply" "$(best bin/slcconv --to ply --ascii "$d/s.slc")"
row "stream read+write" "$d/s.slc" "$(best bin/slcconv --to slc "$d/s.ply")"
