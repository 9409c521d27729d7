#!/bin/sh
# surfacer: marching cubes on a 256^3 level set (a sphere, the usual sparse
# surface, and a gyroid crossing most blocks, the worst case) with 1 and 2
# threads; particles -> surface (1M particles in a block of water;
# 250k with the slower anisotropic kernels); and, where
# the OpenVDB headers are installed, OpenVDB's volumeToMesh on the same
# grids (a small C++ program compiled here, not part of make).
#
# The machine is shared: "per core" rates divide the work by the process's
# CPU seconds (which other processes do not inflate); wall-clock rates are
# shown beside them.  Best of 3 runs each.
cd "$(dirname "$0")/.." || exit 2
b=build/bench/bench_surfacer
d=bench/out/surfacer
N=${SURFACER_N:-256}
NP=${SURFACER_NP:-1000000}
# idle OpenMP threads sleep instead of spinning, so CPU time is work
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY
mkdir -p "$d"
[ -x "$b" ] || { echo "surfacer.sh: build first (make)"; exit 1; }

row() {  # what threads wall cpu items triangles unit
	awk -v w="$1" -v t="$2" -v s="$3" -v c="$4" -v n="$5" -v tri="$6" -v u="$7" 'BEGIN {
		printf "%-28s %3d %9.4f %9.4f %12.2f %12.2f %10d\n", w, t, s, c,
			n / c / 1e6, n / s / 1e6, tri }'
}

printf '%-28s %3s %9s %9s %12s %12s %10s\n' "what" thr "wall s" "cpu s" \
	"M/s per core" "M/s wall" triangles
for shape in sphere gyroid; do
	for t in 1 2; do
		set -- $(OMP_NUM_THREADS=$t $b mc $shape "$N") || exit 1
		row "mcubes $shape $N^3 cells" "$t" "$1" "$2" "$3" "$4"
	done
done
for k in zhu-bridson yu-turk; do
	# the anisotropic kernels are slower: a quarter of the particles
	n=$NP
	[ $k = yu-turk ] && n=$((NP / 4))
	for t in 1 2; do
		set -- $(OMP_NUM_THREADS=$t $b parts $k "$n") || exit 1
		row "particles $k" "$t" "$1" "$2" "$3" "$4"
	done
done

if [ -f /usr/include/openvdb/openvdb.h ] && command -v g++ >/dev/null; then
	cat > "$d/vdb_mesh.cc" <<'EOF'
// vdb_mesh: time openvdb::tools::volumeToMesh on a raw f32 N^3 level set
// (cell-centred samples, dx = 1/N), dense (every voxel active) and as a
// narrow band of 3 voxels (the usual OpenVDB level set).  Prints, per
// variant: wall and CPU seconds (best of 3), cells, quads + triangles.
#include <openvdb/openvdb.h>
#include <openvdb/tools/SignedFloodFill.h>
#include <openvdb/tools/VolumeToMesh.h>
#include <tbb/global_control.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

static double cpu() {
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
	if (argc != 4) return 2;
	int n = std::atoi(argv[2]), threads = std::atoi(argv[3]);
	tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
	std::vector<float> a((size_t)n * n * n);
	FILE *f = std::fopen(argv[1], "rb");
	if (!f || std::fread(a.data(), 4, a.size(), f) != a.size()) return 1;
	std::fclose(f);
	openvdb::initialize();
	double dx = 1.0 / n;
	for (int band = 0; band < 2; band++) {
		float bg = band ? 3 * dx : 1e30f;
		openvdb::FloatGrid::Ptr g = openvdb::FloatGrid::create(bg);
		g->setTransform(openvdb::math::Transform::createLinearTransform(dx));
		g->setGridClass(openvdb::GRID_LEVEL_SET);
		auto acc = g->getAccessor();
		for (int k = 0; k < n; k++)
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++) {
					float v = a[i + (size_t)n * (j + (size_t)n * k)];
					if (!band || std::abs(v) < bg)
						acc.setValue(openvdb::Coord(i, j, k), v);
				}
		if (band)   // inactive inside values become -background
			openvdb::tools::signedFloodFill(g->tree());
		double best = 1e30, bestc = 1e30;
		size_t prims = 0;
		for (int r = 0; r < 3; r++) {
			std::vector<openvdb::Vec3s> pts;
			std::vector<openvdb::Vec3I> tris;
			std::vector<openvdb::Vec4I> quads;
			auto t0 = std::chrono::steady_clock::now();
			double c0 = cpu();
			openvdb::tools::volumeToMesh(*g, pts, tris, quads, 0.0);
			double c = cpu() - c0;
			double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
			if (t < best) best = t;
			if (c < bestc) bestc = c;
			prims = tris.size() + 2 * quads.size();
		}
		std::printf("%s %.6f %.6f %zu %zu\n", band ? "band" : "dense", best, bestc,
			    a.size(), prims);
	}
	return 0;
}
EOF
	# rebuilt only when this script (which holds the source) is newer
	if { [ -x "$d/vdb_mesh" ] && [ "$d/vdb_mesh" -nt "$0" ]; } ||
	   g++ -O2 -std=c++17 -o "$d/vdb_mesh" "$d/vdb_mesh.cc" -lopenvdb -ltbb \
		$(ls /usr/lib/*/libImath*.so >/dev/null 2>&1 && echo -lImath) 2>"$d/vdb_build.log"; then
		for shape in sphere gyroid; do
			$b grid $shape "$N" "$d/$shape.f32" || exit 1
			for t in 1 2; do
				"$d/vdb_mesh" "$d/$shape.f32" "$N" "$t" | while read -r kind s c cells tri; do
					row "openvdb $shape $kind" "$t" "$s" "$c" "$cells" "$tri"
				done
			done
			rm -f "$d/$shape.f32"
		done
	else
		echo "(OpenVDB headers found but the comparison did not build: $d/vdb_build.log)"
	fi
else
	echo "(no /usr/include/openvdb: OpenVDB comparison skipped)"
fi
echo "(mcubes: cells of the level set per second, all of classification, triangle"
echo " emission, welding and gradient normals; goal >= 200 M/s per core on the sphere."
echo " particles: particles per second to a mesh (lattice dx = r, kernel radius 4r);"
echo " goal >= 0.7 M/s per core.  OpenVDB triangles count each quad as two.)"
