// vdb_mklevelset: OpenVDB's meshToLevelSet on the mesh written by
// `bench_mklevelset mesh FILE`, for bench/mklevelset.sh only (built there
// with g++ when /usr/include/openvdb exists; not part of `make`).
//   vdb_mklevelset FILE DX BAND   prints "active_voxels seconds cpu_seconds"
//                                 (wall clock and process CPU, best of 3)
#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

// CPU seconds of the process so far (every thread).
static double
cpu_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	FILE *f = std::fopen(argv[1], "rb");
	uint32_t h[2];
	if (!f || std::fread(h, sizeof h, 1, f) != 1)
		return 1;
	std::vector<float> P(3 * (size_t)h[0]);
	std::vector<uint32_t> T(3 * (size_t)h[1]);
	if (std::fread(P.data(), sizeof(float), P.size(), f) != P.size() ||
	    std::fread(T.data(), sizeof(uint32_t), T.size(), f) != T.size())
		return 1;
	std::fclose(f);
	double dx = std::atof(argv[2]), band = std::atof(argv[3]);
	openvdb::initialize();
	std::vector<openvdb::Vec3s> pts(h[0]);
	std::vector<openvdb::Vec3I> tris(h[1]);
	for (size_t i = 0; i < h[0]; i++)
		pts[i] = openvdb::Vec3s(P[3 * i], P[3 * i + 1], P[3 * i + 2]);
	for (size_t i = 0; i < h[1]; i++)
		tris[i] = openvdb::Vec3I(T[3 * i], T[3 * i + 1], T[3 * i + 2]);
	auto xf = openvdb::math::Transform::createLinearTransform(dx);
	double best = 1e30, best_cpu = 1e30;
	size_t active = 0;
	for (int rep = 0; rep < 3; rep++) {
		auto t0 = std::chrono::steady_clock::now();
		double c0 = cpu_seconds();
		auto grid = openvdb::tools::meshToLevelSet<openvdb::FloatGrid>(
			*xf, pts, tris, (float)band);
		auto t1 = std::chrono::steady_clock::now();
		double c = cpu_seconds() - c0;
		double s = std::chrono::duration<double>(t1 - t0).count();
		if (s < best)
			best = s;
		if (c < best_cpu)
			best_cpu = c;
		active = grid->activeVoxelCount();
	}
	std::printf("%zu %.6f %.6f\n", active, best, best_cpu);
	return 0;
}
