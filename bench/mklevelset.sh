#!/bin/sh
# mklevelset: mesh -> signed distance on a bumpy torus of 100352 triangles
# with a 3-cell band, on 128^3 and 256^3 grids (a cube around the torus).
#   narrow: exact band + sign voting, +-3 dx beyond (what OpenVDB computes)
#   full:   the whole dense grid (closest-triangle sweeps beyond the band)
# Beside it, OpenVDB's tools::meshToLevelSet on the same mesh, voxel size
# and half-width, when its headers are installed (bench only: built here
# with g++, never by make; Debian: libopenvdb-dev and libboost-dev).
# Times are the best of 3 in one run (full: one run).  The machine is
# shared: "cpu s" is the process's CPU time (all threads; other processes
# do not inflate it), "s" the wall clock; compare columns within one table.
cd "$(dirname "$0")/.." || exit 2
b=build/bench/bench_mklevelset
v=build/bench/vdb_mklevelset
d=bench/out/mklevelset
# idle OpenMP threads sleep instead of spinning, so CPU time is work
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY
mkdir -p "$d"
[ -x "$b" ] || { echo "mklevelset: $b missing (make)"; exit 1; }
$b mesh "$d/torus.bin" || exit 1
vdb=0
if [ -f /usr/include/openvdb/openvdb.h ] && command -v g++ >/dev/null; then
	if [ ! -x "$v" ] || [ bench/vdb_mklevelset.cpp -nt "$v" ]; then
		# OpenVDB 10 links Imath where it is a separate library
		g++ -O2 -std=c++17 -o "$v" bench/vdb_mklevelset.cpp -lopenvdb -ltbb \
			$(ls /usr/lib/*/libImath*.so >/dev/null 2>&1 && echo -lImath) \
			2> "$d/vdb_build.log" || echo "(OpenVDB bench did not build: see $d/vdb_build.log)"
	fi
	[ -x "$v" ] && vdb=1
fi
printf '%-5s %-12s %9s | %8s %8s %10s %10s | %8s %10s | %8s %8s %10s %10s %7s %7s\n' \
	res grid triangles "narrow s" "cpu s" "cells/s" "tris/s" "full s" "cells/s" \
	"vdb s" "cpu s" "cells/s" "tris/s" "vdb/us" "cpu"
for res in 128 256; do
	set -- $($b run $res narrow) || exit 1
	cells=$1 tn=$2 tris=$3 dx=$4 ni=$8 nj=$9
	shift 9
	nk=$1 cn=$2
	set -- $($b run $res full) || exit 1
	tf=$2
	tv=- cv=-
	if [ $vdb = 1 ]; then
		set -- $($v "$d/torus.bin" "$dx" 3) && tv=$2 cv=$3
	fi
	echo "$res ${ni}x${nj}x${nk} $tris $cells $tn $tf $tv $cn $cv" | awk '{
		printf "%-5s %-12s %9d | %8.3f %8.3f %10.3g %10.3g | %8.3f %10.3g | ",
			$1, $2, $3, $5, $8, $4 / $5, $3 / $5, $6, $4 / $6
		if ($7 == "-") printf "%8s %8s %10s %10s %7s %7s\n", "-", "-", "-", "-", "-", "-"
		else printf "%8.3f %8.3f %10.3g %10.3g %7.2f %7.2f\n", $7, $9, $4 / $7, $3 / $7,
			$7 / $5, $9 / $8 }'
done
rm -f "$d/torus.bin"
echo "(cells/s: cells of the dense grid box per wall-clock second; vdb/us: OpenVDB's"
echo " wall time over ours (narrow), cpu: the same for CPU time; > 1 = we are faster)"
[ $vdb = 1 ] || echo "(OpenVDB headers not installed: libopenvdb-dev and libboost-dev give the comparison)"
