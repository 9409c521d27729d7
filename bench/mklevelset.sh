#!/bin/sh
# mklevelset: mesh -> signed distance on a bumpy torus of 100352 triangles
# with a 3-cell band, on 128^3 and 256^3 grids (a cube around the torus).
#   narrow: exact band + sign voting, +-3 dx beyond (what OpenVDB computes)
#   full:   the whole dense grid (closest-triangle sweeps beyond the band)
# Beside it, OpenVDB's tools::meshToLevelSet on the same mesh, voxel size
# and half-width, when its headers are installed (bench only: built here
# with g++, never by make).  Times are the best of 3 in one run (full: one
# run); the machine is shared, so compare columns within one table.
cd "$(dirname "$0")/.." || exit 2
b=build/bench/bench_mklevelset
v=build/bench/vdb_mklevelset
d=bench/out/mklevelset
mkdir -p "$d"
[ -x "$b" ] || { echo "mklevelset: $b missing (make)"; exit 1; }
$b mesh "$d/torus.bin" || exit 1
vdb=0
if [ -f /usr/include/openvdb/openvdb.h ] && command -v g++ >/dev/null; then
	if [ ! -x "$v" ] || [ bench/vdb_mklevelset.cpp -nt "$v" ]; then
		g++ -O2 -std=c++17 -o "$v" bench/vdb_mklevelset.cpp -lopenvdb -ltbb \
			2> "$d/vdb_build.log" || echo "(OpenVDB bench did not build: see $d/vdb_build.log)"
	fi
	[ -x "$v" ] && vdb=1
fi
printf '%-5s %-12s %9s | %8s %10s %10s | %8s %10s | %8s %10s %10s %7s\n' \
	res grid triangles "narrow s" "cells/s" "tris/s" "full s" "cells/s" \
	"vdb s" "cells/s" "tris/s" "vdb/us"
for res in 128 256; do
	set -- $($b run $res narrow) || exit 1
	cells=$1 tn=$2 tris=$3 dx=$4 ni=$8 nj=$9
	shift 9
	nk=$1
	set -- $($b run $res full) || exit 1
	tf=$2
	tv=-
	if [ $vdb = 1 ]; then
		set -- $($v "$d/torus.bin" "$dx" 3) && tv=$2
	fi
	echo "$res ${ni}x${nj}x${nk} $tris $cells $tn $tf $tv" | awk '{
		printf "%-5s %-12s %9d | %8.3f %10.3g %10.3g | %8.3f %10.3g | ",
			$1, $2, $3, $5, $4 / $5, $3 / $5, $6, $4 / $6
		if ($7 == "-") printf "%8s %10s %10s %7s\n", "-", "-", "-", "-"
		else printf "%8.3f %10.3g %10.3g %7.2f\n", $7, $4 / $7, $3 / $7, $7 / $5 }'
done
rm -f "$d/torus.bin"
echo "(cells/s: cells of the dense grid box per second; vdb/us: OpenVDB's time over ours (narrow); > 1 = we are faster)"
[ $vdb = 1 ] || echo "(OpenVDB headers not installed: libopenvdb-dev and libboost-dev give the comparison)"
