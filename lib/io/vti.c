/* vti.c: sluice grid records to VTK ImageData XML files (.vti) for
 * ParaView and other VTK readers.
 *
 * The file layout follows the VTK XML file format (VTKFile type
 * "ImageData", version 1.0): one Piece covering WholeExtent, its arrays in
 * CellData or PointData, either inline ascii or appended raw binary, each
 * appended block a UInt64 byte count followed by the bytes.
 *
 * Where the samples go: a cell-centred grid of ni x nj x nk cells is the
 * cell data of the image whose points are the cell corners (extent 0..ni,
 * origin the grid's minimum corner), so ParaView shows each value on its
 * cell.  Node and face-staggered grids are point data on the lattice of
 * their samples: sample (i,j,k) sits at origin + dx*(i+oi, j+oj, k+ok)
 * (slc.h), so the image origin is the grid origin shifted by dx/2 on the
 * cell-centred axes (y and z for face-x) and the extent is 0..n-1.
 */
#include "io/meshio.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/gridplace.h"
#include "core/name.h"
#include "io/meshio_chan.h"

/* Values per line of an ascii DataArray (any count is valid VTK). */
#define ASCII_PER_LINE 9

static const char *
vtk_type(uint32_t t)
{
	switch (t) {
	case SLC_U8: return "UInt8";
	case SLC_I32: return "Int32";
	case SLC_U32: return "UInt32";
	case SLC_F32: return "Float32";
	case SLC_F64: return "Float64";
	case SLC_I64: return "Int64";
	default: return "UInt64";
	}
}

/* A name as XML attribute text: escaped first (core/name.h), which leaves
 * no control character (XML 1.0 allows none but tab, LF and CR, and an
 * attribute value turns those into spaces) and valid UTF-8; then the
 * characters XML gives a meaning. */
static void
put_xml(FILE *f, const char *name)
{
	char e[SLC_NAME_ESC_BUF];
	const char *s;

	for (s = slc_escstr(name, e, sizeof e); *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

/* The DataArray name of channel c of record r. */
static void
put_name(FILE *f, const slc_rec *r, const slc_chan *c)
{
	put_xml(f, r->name);
	if (r->nchan != 1 || strcmp(c->name, r->name)) {
		fputc('.', f);
		put_xml(f, c->name);
	}
}

/* 0 if every sample of g and the image's corners have finite
 * coordinates: origin + dx * cells, and the origin shifted by dx/2, on
 * each axis (VTK has no way to write an infinite Origin or extent). */
static int
check_extent(const slc_rec *g, slc_err *err)
{
	static const char axis[] = "xyz";
	int32_t cells[3];
	int a;

	slc_grid_cells(&g->grid, cells);
	for (a = 0; a < 3; a++) {
		double o = g->grid.origin[a], dx = g->grid.dx;

		if (!isfinite(o + dx * (cells[a] > 0 ? cells[a] : 1)) || !isfinite(o + 0.5 * dx))
			return slc_fail(err, "record '%s': grid extent overflows on %c: origin %g + %d cells of dx %g is not finite",
					g->name, axis[a], o, cells[a], dx);
	}
	return 0;
}

static int
check(const slc_rec *const *g, size_t n, slc_err *err)
{
	size_t a, b;

	if (n == 0)
		return slc_fail(err, "no grid to write");
	for (a = 0; a < n; a++) {
		if (g[a]->kind != SLC_GRID)
			return slc_fail(err, "record '%s' is a %s, VTK image data takes grids",
					g[a]->name, slc_kind_name(g[a]->kind));
		if (slc_rec_validate(g[a], err))
			return slc_failctx(err, "record '%s': ", g[a]->name);
		if (check_extent(g[a], err))
			return -1;
		if (!slc_grid_same_place(&g[a]->grid, &g[0]->grid, &slc_place_exact))
			return slc_fail(err, "record '%s' (%s %dx%dx%d) is not placed like '%s' (%s %dx%dx%d): write it to its own .vti",
					g[a]->name, slc_stagger_name(g[a]->grid.stagger),
					g[a]->grid.ni, g[a]->grid.nj, g[a]->grid.nk,
					g[0]->name, slc_stagger_name(g[0]->grid.stagger),
					g[0]->grid.ni, g[0]->grid.nj, g[0]->grid.nk);
		for (b = 0; b < a; b++)
			if (!strcmp(g[a]->name, g[b]->name))
				return slc_fail(err, "two grid records named '%s'", g[a]->name);
	}
	return 0;
}

static void
put_ascii(FILE *f, const slc_chan *c)
{
	uint64_t q, n = c->count * c->ncomp;

	for (q = 0; q < n; q++) {
		fputc(q % ASCII_PER_LINE ? ' ' : '\n', f);
		switch (c->type) {
		case SLC_F32:
		case SLC_F64:
			fprintf(f, "%.*g", mio_digits(c->type), mio_get(c, q));
			break;
		case SLC_I64:
			fprintf(f, "%lld", (long long)((const int64_t *)c->data)[q]);
			break;
		case SLC_U64:
			fprintf(f, "%llu", (unsigned long long)((const uint64_t *)c->data)[q]);
			break;
		default:
			fprintf(f, "%.0f", mio_get(c, q));
			break;
		}
	}
	fputc('\n', f);
}

int
slc_vti_write(FILE *f, const slc_rec *const *g, size_t n, int ascii,
	      slc_err *err)
{
	const slc_grid *pl;
	const uint16_t one = 1;
	int little = *(const uint8_t *)&one == 1, cell, ext[3], k;
	double org[3];
	uint64_t offset = 0;
	size_t a;
	uint32_t c;

	if (check(g, n, err))
		return -1;
	pl = &g[0]->grid;
	cell = pl->stagger == SLC_CELL;
	ext[0] = cell ? pl->ni : pl->ni - 1;
	ext[1] = cell ? pl->nj : pl->nj - 1;
	ext[2] = cell ? pl->nk : pl->nk - 1;
	for (k = 0; k < 3; k++) {
		/* slc.h: the offset of sample 0 is dx/2 on cell-centred axes */
		int staggered = pl->stagger == SLC_NODE ||
				(int)pl->stagger == SLC_FACE_X + k;

		org[k] = pl->origin[k] + (cell || staggered ? 0 : 0.5 * pl->dx);
	}
	fprintf(f, "<?xml version=\"1.0\"?>\n"
		"<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
		"  <ImageData WholeExtent=\"0 %d 0 %d 0 %d\" Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g %.17g\">\n"
		"    <Piece Extent=\"0 %d 0 %d 0 %d\">\n"
		"      <%s>\n",
		little ? "LittleEndian" : "BigEndian", ext[0], ext[1], ext[2],
		org[0], org[1], org[2], pl->dx, pl->dx, pl->dx, ext[0], ext[1],
		ext[2], cell ? "CellData" : "PointData");
	for (a = 0; a < n; a++)
		for (c = 0; c < g[a]->nchan; c++) {
			const slc_chan *ch = &g[a]->chan[c];
			size_t bytes = (size_t)ch->count * ch->ncomp * slc_type_size(ch->type);

			fprintf(f, "        <DataArray type=\"%s\" Name=\"", vtk_type(ch->type));
			put_name(f, g[a], ch);
			fprintf(f, "\" NumberOfComponents=\"%u\" format=\"%s\"",
				ch->ncomp, ascii ? "ascii" : "appended");
			if (ascii) {
				fputc('>', f);
				put_ascii(f, ch);
				fprintf(f, "        </DataArray>\n");
			} else {
				fprintf(f, " offset=\"%llu\"/>\n", (unsigned long long)offset);
				offset += sizeof(uint64_t) + bytes;
			}
		}
	fprintf(f, "      </%s>\n    </Piece>\n  </ImageData>\n",
		cell ? "CellData" : "PointData");
	if (!ascii) {
		fprintf(f, "  <AppendedData encoding=\"raw\">\n   _");
		for (a = 0; a < n; a++)
			for (c = 0; c < g[a]->nchan; c++) {
				const slc_chan *ch = &g[a]->chan[c];
				uint64_t bytes = ch->count * ch->ncomp * slc_type_size(ch->type);

				fwrite(&bytes, sizeof bytes, 1, f);
				fwrite(ch->data, 1, (size_t)bytes, f);
			}
		fprintf(f, "\n  </AppendedData>\n");
	}
	fprintf(f, "</VTKFile>\n");
	if (fflush(f) != 0 || ferror(f))
		return slc_fail(err, "write error");
	return 0;
}
