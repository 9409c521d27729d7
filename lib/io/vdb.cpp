// vdb.cpp: grid records to an OpenVDB file through Debian's libopenvdb, the
// only C++ in sluice; the contract is in lib/io/vdb.h.
#include "io/vdb.h"

#include <openvdb/openvdb.h>
#include <openvdb/io/Stream.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>

// Offset of sample (0,0,0) from the grid origin in cells, by staggering
// (formats/slc.md, "Sample (i, j, k) sits at"): 1/2 on cell-centred axes.
static const double sample_offset[SLC_STAGGER_COUNT][3] = {
	{ 0.5, 0.5, 0.5 }, { 0, 0, 0 }, { 0, 0.5, 0.5 }, { 0.5, 0, 0.5 }, { 0.5, 0.5, 0 },
};

// The level sets of a frame (formats/slc.md, "Record names in a frame").
static const char *const level_sets[] = { "phi", "solid", "solid_next", "source", "sdf" };

extern "C" int
slc_vdb_fits(const slc_rec *r)
{
	return r->kind == SLC_GRID && r->nchan == 1 && r->chan[0].ncomp == 1 &&
	       (r->chan[0].type == SLC_F32 || r->chan[0].type == SLC_F64) &&
	       r->grid.stagger < SLC_STAGGER_COUNT;
}

extern "C" int
slc_vdb_is_level_set(const char *name)
{
	for (const char *ls : level_sets)
		if (!std::strcmp(name, ls))
			return 1;
	return 0;
}

// Sample n of channel c as float.
static float
sample(const slc_chan *c, size_t n)
{
	if (c->type == SLC_F64)
		return (float)((const double *)c->data)[n];
	return ((const float *)c->data)[n];
}

// One record as a FloatGrid (see vdb.h for classes, values and activity).
static openvdb::FloatGrid::Ptr
to_grid(const slc_rec *r, double band)
{
	const slc_grid *g = &r->grid;
	const slc_chan *c = &r->chan[0];
	bool ls = g->stagger == SLC_CELL && slc_vdb_is_level_set(r->name);
	float bg = ls ? (float)(band * g->dx) : 0.0f;
	auto grid = openvdb::FloatGrid::create(bg);
	auto xf = openvdb::math::Transform::createLinearTransform(g->dx);
	const double *o = sample_offset[g->stagger];

	xf->postTranslate(openvdb::Vec3d(g->origin[0] + o[0] * g->dx,
					 g->origin[1] + o[1] * g->dx,
					 g->origin[2] + o[2] * g->dx));
	grid->setTransform(xf);
	grid->setName(r->name);
	grid->setGridClass(ls ? openvdb::GRID_LEVEL_SET
			   : g->stagger == SLC_CELL ? openvdb::GRID_FOG_VOLUME
			   : openvdb::GRID_UNKNOWN);
	grid->insertMeta("time", openvdb::DoubleMetadata(r->time));
	auto acc = grid->getAccessor();
	size_t n = 0;
	for (int32_t k = 0; k < g->nk; k++)
		for (int32_t j = 0; j < g->nj; j++)
			for (int32_t i = 0; i < g->ni; i++, n++) {
				float v = sample(c, n);
				openvdb::Coord ijk(i, j, k);

				if (ls && !(std::fabs(v) < bg)) {
					// outside the band: +bg is the background
					if (v < 0)
						acc.setValueOff(ijk, -bg);
				} else if (ls || v != 0.0f) {
					acc.setValueOn(ijk, v);
				}
			}
	grid->tree().prune();
	return grid;
}

// The file header (openvdb/io/Archive.cc, writeHeader): magic " BDV" and
// four zero bytes, file format version, library major and minor (u32
// each), the has-grid-offsets byte, then a 36-character random UUID.
#define HEADER_UUID_AT 21
#define UUID_LEN 36
// FNV-1a, 64 bits (Fowler, Noll and Vo): offset basis and prime.
#define FNV_BASIS 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static uint64_t
fnv1a(const std::string &s, size_t from, uint64_t h)
{
	for (size_t i = from; i < s.size(); i++)
		h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
	return h;
}

// Put a UUID made from the bytes after the header in place of OpenVDB's
// random one, so that the same grids give the same file (sluice's output
// is deterministic).  It has the form of a random (version 4) UUID, which
// readers only compare.  -1 if the header is not where it is expected.
static int
fix_uuid(std::string &b)
{
	size_t body = HEADER_UUID_AT + UUID_LEN;
	static const int dash[] = { 8, 13, 18, 23 };

	if (b.size() < body || b.compare(0, 4, " BDV") != 0)
		return -1;
	for (int d : dash)
		if (b[HEADER_UUID_AT + d] != '-')
			return -1;
	uint64_t h[2] = { fnv1a(b, body, FNV_BASIS), fnv1a(b, body, FNV_BASIS ^ 0x5555555555555555ull) };
	char u[UUID_LEN + 1];
	std::snprintf(u, sizeof u, "%08x-%04x-4%03x-%04x-%012llx",
		      (unsigned)(h[0] >> 32), (unsigned)(h[0] >> 16 & 0xffff),
		      (unsigned)(h[0] & 0xfff), (unsigned)(0x8000 | (h[1] >> 48 & 0x3fff)),
		      (unsigned long long)(h[1] & 0xffffffffffffull));
	b.replace(HEADER_UUID_AT, UUID_LEN, u, UUID_LEN);
	return 0;
}

extern "C" int
slc_vdb_write(FILE *f, const slc_rec *const *grids, size_t n, double band, slc_err *err)
{
	if (!(band > 0) || !std::isfinite(band))
		return slc_fail(err, "vdb: band half-width %g is not a positive number of voxels", band);
	for (size_t i = 0; i < n; i++) {
		if (!slc_vdb_fits(grids[i]))
			return slc_fail(err, "vdb: record '%s' is not a grid of one f32 or f64 channel",
					grids[i]->name);
		if (grids[i]->encoded)
			return slc_fail(err, "vdb: record '%s' is not decoded", grids[i]->name);
	}
	std::string bytes;
	try {
		openvdb::initialize();
		openvdb::GridPtrVec out;
		for (size_t i = 0; i < n; i++)
			out.push_back(to_grid(grids[i], band));
		std::ostringstream os(std::ios_base::binary);
		openvdb::io::Stream(os).write(out);
		bytes = os.str();
		if (fix_uuid(bytes))
			return slc_fail(err, "vdb: OpenVDB wrote an unexpected file header");
	} catch (const std::exception &e) {
		return slc_fail(err, "vdb: %s", e.what());
	}
	if (fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
		return slc_fail(err, "vdb: write error");
	return 0;
}
