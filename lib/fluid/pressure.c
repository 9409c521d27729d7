/* pressure.c: assembly, right-hand side and update of the variational
 * pressure system (batty2007 §2.1-3.1, selle2008 §4.4.2); see pressure.h. */
#include "fluid/pressure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/unionfind.h"
#include "fluid/rigid.h"

#ifdef SLC_MPI
#include "comm/components.h"
#include "comm/halo.h"
#endif

#define FX(ps, i, j, k) ((size_t)(i) + (size_t)((ps)->ni + 1) * ((size_t)(j) + (size_t)(ps)->nj * (size_t)(k)))
#define FY(ps, i, j, k) ((size_t)(i) + (size_t)(ps)->ni * ((size_t)(j) + (size_t)((ps)->nj + 1) * (size_t)(k)))
#define FZ(ps, i, j, k) ((size_t)(i) + (size_t)(ps)->ni * ((size_t)(j) + (size_t)(ps)->nj * (size_t)(k)))

/* The index of cell (i, j, k): c = i + ni*(j + nj*k) (pressure.h). */
static inline size_t
cell_index(const psys *ps, int i, int j, int k)
{
	return (size_t)i + (size_t)ps->ni * ((size_t)j + (size_t)ps->nj * (size_t)k);
}

/* The cells of the owned planes, [*c0, *c1) (every cell for one
 * process). */
static inline void
owned_cells(const psys *ps, size_t *c0, size_t *c1)
{
	size_t sk = (size_t)ps->ni * (size_t)ps->nj;

	*c0 = sk * (size_t)ps->ko0;
	*c1 = sk * (size_t)ps->ko1;
}

int
psys_plane_sums(const psys *ps, const double *part, int nsum, double *sum)
{
#ifdef SLC_MPI
	if (ps->comm) {
		slc_err err;
		double t = MPI_Wtime();
		int rc = slc_comm_plane_sums(ps->comm, part + (size_t)ps->ko0 * nsum, nsum, sum, &err);

		*ps->tcomm += MPI_Wtime() - t;
		if (rc) {
			*ps->cfail = 1;
			memset(sum, 0, (size_t)nsum * sizeof *sum);
			return -1;
		}
		return 0;
	}
#endif
	for (int s = 0; s < nsum; s++) {
		double t = 0;
		for (int k = 0; k < ps->nk; k++)
			t += part[(size_t)k * nsum + s];
		sum[s] = t;
	}
	return 0;
}

void
psys_halo(const psys *ps, void *a, size_t esize)
{
#ifdef SLC_MPI
	slc_err err;

	if (!ps->comm)
		return;
	double t = MPI_Wtime();
	if (slc_halo_cells(ps->comm, a, esize * (size_t)ps->ni * ps->nj, &err))
		*ps->cfail = 1;
	*ps->tcomm += MPI_Wtime() - t;
#else
	(void)ps;
	(void)a;
	(void)esize;
#endif
}

/* The largest of m over every rank (m itself for one process). */
static double
all_max(const psys *ps, double m)
{
#ifdef SLC_MPI
	slc_err err;

	if (!ps->comm)
		return m;
	double t = MPI_Wtime();
	if (slc_comm_max(ps->comm, &m, 1, &err))
		*ps->cfail = 1;
	*ps->tcomm += MPI_Wtime() - t;
#else
	(void)ps;
#endif
	return m;
}

/* Gibou et al. 2002 (batty2007 §2.1): fraction of the way from the fluid
 * cell centre to the air cell centre where the liquid level set crosses
 * zero, from the linear interpolant. */
static double
ghost_theta(const float *phi, size_t f, size_t a)
{
	double t = phi[f] / ((double)phi[f] - phi[a]);
	return t < PS_THETA_MIN ? PS_THETA_MIN : t > 1 ? 1 : t;
}

/* The face of cell c on axis ax, side s (0 low, 1 high): its index, the
 * neighbour cell (or -1 at the domain boundary) and its fluid fraction. */
static const float *
face_arr(const psys *ps, int ax)
{
	return ax == 0 ? ps->wx : ax == 1 ? ps->wy : ps->wz;
}

static size_t
face_index(const psys *ps, int ax, int i, int j, int k)
{
	return ax == 0 ? FX(ps, i, j, k) : ax == 1 ? FY(ps, i, j, k) : FZ(ps, i, j, k);
}

/* Neighbour of (i,j,k) across side s of axis ax; -1 outside.  *f gets the
 * face index. */
static long long
neighbour(const psys *ps, int i, int j, int k, int ax, int s, size_t *f)
{
	int q[3] = {i, j, k}, dim[3] = {ps->ni, ps->nj, ps->nk};

	q[ax] += s;
	*f = face_index(ps, ax, ax == 0 ? i + s : i, ax == 1 ? j + s : j,
			ax == 2 ? k + s : k);
	q[ax] -= s;
	q[ax] += s ? 1 : -1;
	if (q[ax] < 0 || q[ax] >= dim[ax])
		return -1;
	return (long long)cell_index(ps, q[0], q[1], q[2]);
}

static int
inv3(const double a[9], double r[9])
{
	double c0 = a[4] * a[8] - a[5] * a[7];
	double c1 = a[5] * a[6] - a[3] * a[8];
	double c2 = a[3] * a[7] - a[4] * a[6];
	double det = a[0] * c0 + a[1] * c1 + a[2] * c2;

	if (!(fabs(det) > 0) || !isfinite(det))
		return -1;
	r[0] = c0 / det;
	r[1] = (a[2] * a[7] - a[1] * a[8]) / det;
	r[2] = (a[1] * a[5] - a[2] * a[4]) / det;
	r[3] = c1 / det;
	r[4] = (a[0] * a[8] - a[2] * a[6]) / det;
	r[5] = (a[2] * a[3] - a[0] * a[5]) / det;
	r[6] = c2 / det;
	r[7] = (a[1] * a[6] - a[0] * a[7]) / det;
	r[8] = (a[0] * a[4] - a[1] * a[3]) / det;
	return 0;
}

/* Per-cell J columns of one body (batty2007 (10), (12)): for the face f
 * between cells a and b (a below), with body fraction beta and
 * Phi_f = (e_axis, (x_f - X_com) x e_axis), cell a gains +beta*Phi_f and b
 * gains -beta*Phi_f.  Summed over a cell wholly inside the body these
 * cancel exactly, so only cells at the surface keep a column, and J p =
 * dx^2 sum_c p_c g_c.  Only fluid cells are kept: air has p = 0.  The
 * cells are listed in grid order, so that J x sums by k plane
 * (bodies_J).  Over MPI ranks the ghost planes' cells are listed too:
 * J^T applies there as the grid part of A does (the preconditioner
 * reads them), J x sums the owned planes only. */
static int
body_columns(psys *ps, ps_body *bd, slc_err *err)
{
	size_t *slot = slc_calloc(ps->n, sizeof *slot, err);
	double *acc = NULL;
	size_t m = 0;

	if (!slot)
		return -1;
	/* slot[c] = 1 + list position for touched fluid cells */
	for (int pass = 0; pass < 2; pass++) {
		for (int ax = 0; ax < 3; ax++) {
			const float *beta = ax == 0 ? bd->bx : ax == 1 ? bd->by : bd->bz;
			for (int k = 0; k < ps->nk; k++)
				for (int j = 0; j < ps->nj; j++)
					for (int i = 0; i < ps->ni; i++) {
						size_t f;
						long long nb = neighbour(ps, i, j, k, ax, 1, &f);
						if (nb < 0 || !(beta[f] > 0))
							continue;
						size_t a = cell_index(ps, i, j, k);
						size_t cc[2] = {a, (size_t)nb};
						double x[3] = {ps->origin[0] + ps->dx * (i + 0.5),
							       ps->origin[1] + ps->dx * (j + 0.5),
							       ps->origin[2] + ps->dx * (k + ps->kof + 0.5)};
						x[ax] += 0.5 * ps->dx;
						double r[3] = {x[0] - bd->com[0], x[1] - bd->com[1],
							       x[2] - bd->com[2]};
						double phi6[6] = {0, 0, 0, 0, 0, 0};
						phi6[ax] = 1;
						/* r x e_ax */
						if (ax == 0) { phi6[4] = r[2]; phi6[5] = -r[1]; }
						if (ax == 1) { phi6[3] = -r[2]; phi6[5] = r[0]; }
						if (ax == 2) { phi6[3] = r[1]; phi6[4] = -r[0]; }
						for (int s = 0; s < 2; s++) {
							size_t c = cc[s];
							if (ps->type[c] != PS_FLUID)
								continue;
							if (pass == 0) {
								if (!slot[c])
									slot[c] = ++m;
								continue;
							}
							double sg = s == 0 ? beta[f] : -beta[f];
							for (int q = 0; q < 6; q++)
								acc[6 * (slot[c] - 1) + q] += sg * phi6[q];
						}
					}
		}
		if (pass == 0) {
			m = 0;
			for (size_t c = 0; c < ps->n; c++)
				if (slot[c])
					slot[c] = ++m;
			bd->ncell = m;
			bd->cell = slc_calloc(m ? m : 1, sizeof *bd->cell, err);
			acc = slc_calloc(m ? 6 * m : 1, sizeof *acc, err);
			if (!bd->cell || !acc) {
				free(slot);
				free(acc);
				return -1;
			}
			for (size_t c = 0; c < ps->n; c++)
				if (slot[c])
					bd->cell[slot[c] - 1] = c;
		}
	}
	bd->g = acc;
	free(slot);
	return 0;
}

/* The regions (ps->region, before renumbering) of the fluid cells on the
 * two sides of every cut face touching the same free shell node are
 * joined in par: the node's J couples them, as a rigid body's does. */
static int
shell_join(psys *ps, size_t *par, slc_err *err)
{
	const ps_shell *sh = ps->shell;
	size_t *first = slc_malloc(sh->nnode + 1, sizeof *first, err);

	if (!first)
		return -1;
	for (size_t q = 0; q < sh->nnode; q++)
		first[q] = SIZE_MAX;
	for (size_t q = 0; q < sh->nface; q++)
		for (int e = 0; e < 3; e++) {
			uint32_t nd = sh->node[3 * q + e];
			if (!(sh->minv[nd] > 0) || !(sh->w[3 * q + e] != 0))
				continue;
			size_t cc[2] = {sh->lo[q], sh->hi[q]};
			for (int s = 0; s < 2; s++) {
				if (ps->type[cc[s]] != PS_FLUID)
					continue;
				size_t r = (size_t)ps->region[cc[s]];
				if (first[nd] == SIZE_MAX)
					first[nd] = r;
				else
					slc_uf_join(par, first[nd], r);
			}
		}
	free(first);
	return 0;
}

/* A region with fluid on only one side of a cut face that moves with a
 * free shell node is not enclosed: a constant pressure in it pushes that
 * node (J^T 1 != 0 there), so the constant is no null vector of A (a
 * bag of water pushes its walls out; the fluid's level in it is the
 * solve's, not free). */
static void
shell_unenclose(psys *ps)
{
	const ps_shell *sh = ps->shell;

	for (size_t q = 0; q < sh->nface; q++) {
		int lo = ps->type[sh->lo[q]] == PS_FLUID, hi = ps->type[sh->hi[q]] == PS_FLUID;
		int free = 0;
		for (int e = 0; e < 3; e++)
			free |= sh->minv[sh->node[3 * q + e]] > 0 && sh->w[3 * q + e] != 0;
		if (free && lo != hi)
			ps->enclosed[ps->region[lo ? sh->lo[q] : sh->hi[q]]] = 0;
	}
}

/* selle2008 §4.4.2: flood fill over the fluid cells with the Neumann and
 * Dirichlet faces as fill boundaries (the couplings cx, cy, cz are
 * nonzero exactly across the open faces between fluid cells), as a
 * union-find in grid order: regions are numbered in the order of their
 * first cell.  Rigid bodies join the regions they touch (their J couples
 * them).  A region with no Dirichlet face (dir[c] set by the assembly)
 * is enclosed. */
static int
regions(psys *ps, const uint8_t *dir, slc_err *err)
{
	size_t *up = slc_calloc(ps->n, sizeof *up, err);
	size_t sj = (size_t)ps->ni, sk = sj * (size_t)ps->nj;
	int32_t nr = 0;

	if (!up)
		return -1;
	slc_uf_init(up, ps->n);
	for (int k = 0; k < ps->nk; k++)
		for (int j = 0; j < ps->nj; j++)
			for (int i = 0; i < ps->ni; i++) {
				size_t c = cell_index(ps, i, j, k);
				if (ps->type[c] != PS_FLUID)
					continue;
				if (i > 0 && ps->cx[c - 1] > 0)
					slc_uf_join(up, c, c - 1);
				if (j > 0 && ps->cy[c - sj] > 0)
					slc_uf_join(up, c, c - sj);
				if (k > 0 && ps->cz[c - sk] > 0)
					slc_uf_join(up, c, c - sk);
			}
	for (size_t c = 0; c < ps->n; c++) {
		if (ps->type[c] != PS_FLUID) {
			ps->region[c] = -1;
			continue;
		}
		size_t r = slc_uf_find(up, c);
		ps->region[c] = r == c ? nr++ : ps->region[r];
	}
	free(up);
	size_t *par = slc_calloc(nr ? (size_t)nr : 1, sizeof *par, err);
	int32_t *map = slc_calloc(nr ? (size_t)nr : 1, sizeof *map, err);
	if (!par || !map) {
		free(par);
		free(map);
		return -1;
	}
	slc_uf_init(par, (size_t)nr);
	for (int b = 0; b < ps->nbody; b++) {
		const ps_body *bd = &ps->body[b];
		for (size_t q = 1; q < bd->ncell && !isinf(bd->mass); q++)
			slc_uf_join(par, (size_t)ps->region[bd->cell[0]],
				    (size_t)ps->region[bd->cell[q]]);
	}
	if (ps->shell && shell_join(ps, par, err)) {
		free(par);
		free(map);
		return -1;
	}
	int32_t m = 0;
	for (int32_t r = 0; r < nr; r++)
		map[r] = slc_uf_find(par, (size_t)r) == (size_t)r ? m++ : -1;
	for (size_t c = 0; c < ps->n; c++)
		if (ps->region[c] >= 0)
			ps->region[c] = map[slc_uf_find(par, (size_t)ps->region[c])];
	free(par);
	free(map);
	ps->nregion = m;
	ps->enclosed = slc_calloc(m ? (size_t)m : 1, 1, err);
	if (!ps->enclosed)
		return -1;
	memset(ps->enclosed, 1, m ? (size_t)m : 1);
	for (size_t c = 0; c < ps->n; c++)
		if (dir[c])
			ps->enclosed[ps->region[c]] = 0;
	if (ps->shell)
		shell_unenclose(ps);
	ps->nenclosed = 0;
	for (int r = 0; r < m; r++)
		ps->nenclosed += ps->enclosed[r];
	return 0;
}

#ifdef SLC_MPI
/* The pairs of labels (regions_slab) that the dynamic bodies join, as
 * regions() joins every region a body touches: for each body, the label
 * of the first of its owned cells on the lowest rank owning one (the
 * smallest over the ranks of each rank's first) with each label of this
 * rank's owned cells of the body (a run of equal labels once), appended
 * at pair[2 *npair].  Collective.  0, or -1 with err. */
static int
body_pairs(const psys *ps, const int64_t *lab, int64_t *pair, size_t *npair, slc_err *err)
{
	int64_t *rep;
	size_t c0, c1, prev = SIZE_MAX;

	if (!ps->nbody)
		return 0;
	if (!(rep = slc_malloc((size_t)ps->nbody, sizeof *rep, err)))
		return -1;
	owned_cells(ps, &c0, &c1);
	for (int b = 0; b < ps->nbody; b++) {
		const ps_body *bd = &ps->body[b];
		rep[b] = INT64_MAX;
		for (size_t q = 0; q < bd->ncell && rep[b] == INT64_MAX; q++)
			if (bd->cell[q] >= c0 && bd->cell[q] < c1)
				rep[b] = lab[bd->cell[q]];
	}
	if (slc_comm_lmin(ps->comm, rep, ps->nbody, err)) {
		free(rep);
		return -1;
	}
	for (int b = 0; b < ps->nbody; b++) {
		const ps_body *bd = &ps->body[b];
		for (size_t q = 0; q < bd->ncell && !isinf(bd->mass); q++) {
			size_t c = bd->cell[q];
			if (c < c0 || c >= c1)
				continue;
			int64_t l = lab[c];
			if (l != rep[b] && !(prev != SIZE_MAX && l == lab[prev])) {
				pair[2 * *npair] = rep[b];
				pair[2 * (*npair)++ + 1] = l;
			}
			prev = c;
		}
		prev = SIZE_MAX;
	}
	free(rep);
	return 0;
}

/* regions() over the ranks' k slabs (comm/components.h): each rank joins
 * the fluid cells of its owned planes as regions() does, labels each of
 * its pieces with the smallest global cell index in it (the union-find's
 * root), takes the labels of its ghost planes from their owners, pairs
 * the labels that meet across its lower slab face, and every rank
 * numbers the joined regions in the order of their smallest label: the
 * order of their first cell in the grid, regions()'s numbering.  Each
 * dynamic body joins the regions it touches (body_pairs). */
static int
regions_slab(psys *ps, const uint8_t *dir, slc_err *err)
{
	size_t sj = (size_t)ps->ni, sk = sj * (size_t)ps->nj, c0, c1, nlab = 0, npair = 0;
	int64_t base = (int64_t)sk * ps->kof;
	size_t *up = slc_malloc(ps->n, sizeof *up, err);
	int64_t *lab = up ? slc_malloc(ps->n, sizeof *lab, err) : NULL;
	int64_t *mine = NULL, *pair = NULL;
	uint8_t *flag = NULL;
	slc_components cs;
	int rc = -1;

	memset(&cs, 0, sizeof cs);
	if (!lab)
		goto done;
	owned_cells(ps, &c0, &c1);
	slc_uf_init(up, ps->n);
	for (int k = ps->ko0; k < ps->ko1; k++)
		for (int j = 0; j < ps->nj; j++)
			for (int i = 0; i < ps->ni; i++) {
				size_t c = cell_index(ps, i, j, k);
				if (ps->type[c] != PS_FLUID)
					continue;
				if (i > 0 && ps->cx[c - 1] > 0)
					slc_uf_join(up, c, c - 1);
				if (j > 0 && ps->cy[c - sj] > 0)
					slc_uf_join(up, c, c - sj);
				if (k > ps->ko0 && ps->cz[c - sk] > 0)
					slc_uf_join(up, c, c - sk);
			}
	for (size_t c = 0; c < ps->n; c++) {
		lab[c] = -1;
		if (c >= c0 && c < c1 && ps->type[c] == PS_FLUID) {
			size_t r = slc_uf_find(up, c);
			lab[c] = base + (int64_t)r;
			nlab += r == c;
		}
	}
	mine = slc_malloc(nlab ? nlab : 1, sizeof *mine, err);
	flag = mine ? slc_calloc(nlab ? nlab : 1, 1, err) : NULL;
	size_t nbc = 0;
	for (int b = 0; b < ps->nbody; b++)
		nbc += ps->body[b].ncell;
	pair = flag ? slc_malloc(2 * (sk + nbc), sizeof *pair, err) : NULL;
	if (!pair)
		goto done;
	nlab = 0;
	for (size_t c = c0; c < c1; c++)
		if (lab[c] == base + (int64_t)c)
			mine[nlab++] = lab[c];
	for (size_t c = c0; c < c1; c++)
		if (lab[c] >= 0 && dir[c]) {
			size_t lo = 0, hi = nlab;       /* mine is increasing */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (mine[mid] < lab[c])
					lo = mid + 1;
				else
					hi = mid;
			}
			flag[lo] = 1;
		}
	if (slc_halo_cells(ps->comm, lab, sk * sizeof *lab, err))
		goto done;
	if (ps->ko0 > 0)
		for (size_t c = c0; c < c0 + sk; c++)
			if (ps->type[c] == PS_FLUID && ps->cz[c - sk] > 0) {
				pair[2 * npair] = lab[c];
				pair[2 * npair++ + 1] = lab[c - sk];
			}
	if (body_pairs(ps, lab, pair, &npair, err) ||
	    slc_components_join(ps->comm, mine, flag, nlab, pair, npair, &cs, err))
		goto done;
	for (size_t c = 0; c < ps->n; c++)
		ps->region[c] = lab[c] >= 0 ? slc_components_find(&cs, lab[c]) : -1;
	ps->nregion = cs.ncomp;
	if (!(ps->enclosed = slc_calloc(cs.ncomp ? (size_t)cs.ncomp : 1, 1, err)))
		goto done;
	ps->nenclosed = 0;
	for (int32_t r = 0; r < cs.ncomp; r++)
		ps->nenclosed += ps->enclosed[r] = !cs.flag[r];
	rc = 0;
done:
	slc_components_free(&cs);
	free(up);
	free(lab);
	free(mine);
	free(flag);
	free(pair);
	return rc;
}

static int bodies_setup(psys *ps, slc_err *err);

/* psys_init over ranks: the ghost planes of the operator from their
 * owners (each rank assembled its slab, the planes at its ends without
 * their neighbours), the bodies' columns of the owned cells, then the
 * regions across the slabs. */
static int
slab_setup(psys *ps, const uint8_t *dir, slc_err *err)
{
	size_t pl = (size_t)ps->ni * ps->nj;

	if (slc_halo_cells(ps->comm, ps->type, pl, err) ||
	    slc_halo_cells(ps->comm, ps->diag, pl * sizeof *ps->diag, err) ||
	    slc_halo_cells(ps->comm, ps->cx, pl * sizeof *ps->cx, err) ||
	    slc_halo_cells(ps->comm, ps->cy, pl * sizeof *ps->cy, err) ||
	    slc_halo_cells(ps->comm, ps->cz, pl * sizeof *ps->cz, err) ||
	    bodies_setup(ps, err))
		return -1;
	return regions_slab(ps, dir, err);
}
#endif

/* The six faces of cell (i,j,k), in the order -x, +x, -y, +y, -z, +z:
 * index f in its axis' face grid and neighbour cell (or -1 outside the
 * grid). */
static inline void
face_cells(const psys *ps, int i, int j, int k, size_t f[6], long long nb[6])
{
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
	long long c = (long long)cell_index(ps, i, j, k);
	long long sj = ni, sk = (long long)ni * nj;

	f[0] = FX(ps, i, j, k), f[1] = FX(ps, i + 1, j, k);
	f[2] = FY(ps, i, j, k), f[3] = FY(ps, i, j + 1, k);
	f[4] = FZ(ps, i, j, k), f[5] = FZ(ps, i, j, k + 1);
	nb[0] = i > 0 ? c - 1 : -1, nb[1] = i < ni - 1 ? c + 1 : -1;
	nb[2] = j > 0 ? c - sj : -1, nb[3] = j < nj - 1 ? c + sj : -1;
	nb[4] = k > 0 ? c - sk : -1, nb[5] = k < nk - 1 ? c + sk : -1;
}

/* The same with the fluid fraction w of each face (0 for a box face
 * unless open is set). */
static inline void
faces6(const psys *ps, int i, int j, int k, int open, float w[6], long long nb[6])
{
	size_t f[6];

	face_cells(ps, i, j, k, f, nb);
	for (int e = 0; e < 6; e++)
		w[e] = nb[e] < 0 && !open ? 0 : face_arr(ps, e >> 1)[f[e]];
}

/* psys_init's first phase: check the grid, take the input's placement and
 * borrowed arrays, clear the bodies' owned columns (so that psys_free
 * never frees what the caller left in them) and allocate the cell arrays.
 * 0, or -1 with err; the caller then frees ps (psys_free). */
static int
init_alloc(psys *ps, const psys_in *in, slc_err *err)
{
	int ni = in->ni, nj = in->nj, nk = in->nk;

	if (ni < 1 || nj < 1 || nk < 1)
		return slc_fail(err, "bad grid dims %dx%dx%d", ni, nj, nk);
	if (!(in->dx > 0) || !(in->rho > 0))
		return slc_fail(err, "bad dx %g or density %g", in->dx, in->rho);
	if (slc_mul3((size_t)ni, (size_t)nj, (size_t)nk, &ps->n))
		return slc_fail(err, "grid %dx%dx%d overflows", ni, nj, nk);
	ps->ni = ni, ps->nj = nj, ps->nk = nk;
	ps->dx = in->dx, ps->rho = in->rho;
	memcpy(ps->origin, in->origin, sizeof ps->origin);
	ps->wx = in->wx, ps->wy = in->wy, ps->wz = in->wz, ps->phi = in->phi;
	ps->body = in->body, ps->nbody = in->nbody;
	for (int ax = 0; ax < 3; ax++)
		ps->held[ax] = in->held[ax], ps->hv[ax] = in->hv[ax];
	ps->shell = in->shell;
	if (ps->shell && !(ps->shell_t = slc_calloc(3 * ps->shell->nnode + 1,
						   sizeof *ps->shell_t, err)))
		return -1;
	ps->nkg = nk, ps->ko1 = nk;
#ifdef SLC_MPI
	if (in->comm) {
		int k0, k1;

		ps->comm = in->comm;
		slc_comm_owned(in->comm, &k0, &k1);
		ps->kof = in->k0, ps->nkg = in->comm->nk;
		ps->ko0 = k0 - in->k0, ps->ko1 = k1 - in->k0;
		if (ps->ko0 < 0 || ps->ko1 > nk || ps->ko0 >= ps->ko1)
			return slc_fail(err, "slab of planes %d..%d does not hold the owned %d..%d",
					in->k0, in->k0 + nk, k0, k1);
		if (!(ps->cfail = slc_calloc(1, sizeof *ps->cfail, err)) ||
		    !(ps->tcomm = slc_calloc(1, sizeof *ps->tcomm, err)))
			return -1;
		/* a shell's node sums and held faces are not split by plane */
		if (in->shell || in->held[0] || in->held[1] || in->held[2])
			return slc_fail(err, "thin shells run on one rank only");
	}
#endif
	for (int b = 0; b < ps->nbody; b++) {
		ps->body[b].cell = NULL, ps->body[b].g = NULL;
		ps->body[b].ncell = 0;
	}
	ps->type = slc_calloc(ps->n, 1, err);
	ps->diag = ps->type ? slc_calloc(ps->n, sizeof *ps->diag, err) : NULL;
	ps->cx = ps->diag ? slc_calloc(ps->n, sizeof *ps->cx, err) : NULL;
	ps->cy = ps->cx ? slc_calloc(ps->n, sizeof *ps->cy, err) : NULL;
	ps->cz = ps->cy ? slc_calloc(ps->n, sizeof *ps->cz, err) : NULL;
	ps->region = ps->cz ? slc_calloc(ps->n, sizeof *ps->region, err) : NULL;
	ps->part = ps->region ? slc_calloc(2 * PS_PART_REGIONS * (size_t)nk,
					   sizeof *ps->part, err) : NULL;
	/* bodies_J's and apply_bodies' plane partials, then the six sums of
	 * each body: memory of the order of one plane per body, where each
	 * body's face fractions take three grids */
	ps->bpart = ps->part ? slc_calloc(((size_t)nk + 1) * (6 * (size_t)ps->nbody + 1),
					  sizeof *ps->bpart, err) : NULL;
	return ps->bpart ? 0 : -1;
}

/* batty2007 §2.1: the type of each cell: air where the liquid level set
 * is not negative, fluid where some face is open (the box faces count
 * when open is set), else off. */
static void
classify(psys *ps, int open)
{
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
	const float *phi = ps->phi;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = cell_index(ps, i, j, k);
				if (phi && !(phi[c] < 0)) {
					ps->type[c] = PS_AIR;
					continue;
				}
				float w[6];
				long long nb[6];
				faces6(ps, i, j, k, open, w, nb);
				double o = (double)w[0] + w[1] + w[2] + w[3] + w[4] + w[5];
				ps->type[c] = o > 0 ? PS_FLUID : PS_OFF;
			}
}

/* batty2007 §2.1: the fluid operator D^T W D_theta of each fluid cell:
 * its diagonal (with the ghost-fluid term w/theta towards air), its
 * couplings to the fluid cells above it on each axis, and dir[c] = 1
 * where the cell has a Dirichlet face (air, or an open box face). */
static void
assemble(psys *ps, int open, uint8_t *dir)
{
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
	float *cc[3] = {ps->cx, ps->cy, ps->cz};

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = cell_index(ps, i, j, k);
				if (ps->type[c] != PS_FLUID)
					continue;
				float w[6];
				long long nb[6];
				faces6(ps, i, j, k, open, w, nb);
				double d = 0;
				for (int f = 0; f < 6; f++) {
					if (!(w[f] > 0))
						continue;
					if (nb[f] < 0) {        /* open box face: p = 0 outside */
						d += w[f];
						dir[c] = 1;
					} else if (ps->type[nb[f]] == PS_FLUID) {
						d += w[f];
						if (f & 1)
							cc[f >> 1][c] = w[f];
					} else if (ps->type[nb[f]] == PS_AIR) {
						d += w[f] / ghost_theta(ps->phi, c, (size_t)nb[f]);
						dir[c] = 1;
					}
				}
				ps->diag[c] = d;
			}
}

/* batty2007 §3: each rigid body's inverse 6x6 mass matrix (0 for a
 * scripted body of infinite mass) and its J columns (body_columns).
 * 0, or -1 with err (singular mass or inertia, memory). */
static int
bodies_setup(psys *ps, slc_err *err)
{
	for (int b = 0; b < ps->nbody; b++) {
		ps_body *bd = &ps->body[b];
		double Iinv[9];
		memset(bd->Minv, 0, sizeof bd->Minv);
		/* infinite mass: a scripted body, M^-1 = 0 (right-hand side only) */
		if (!isinf(bd->mass) && (!(bd->mass > 0) || inv3(bd->inertia, Iinv)))
			return slc_fail(err, "rigid body %d: singular mass or inertia", b);
		for (int q = 0; q < 3 && !isinf(bd->mass); q++) {
			bd->Minv[7 * q] = 1 / bd->mass;
			for (int r = 0; r < 3; r++)
				bd->Minv[6 * (3 + q) + 3 + r] = Iinv[3 * q + r];
		}
		if (body_columns(ps, bd, err))
			return -1;
	}
	return 0;
}

int
psys_init(psys *ps, const psys_in *in, slc_err *err)
{
	uint8_t *dir = NULL;    /* cells with a Dirichlet face */
	int open = in->bc == PS_BC_OPEN;

	memset(ps, 0, sizeof *ps);
	ps->bc = in->bc;
	if (init_alloc(ps, in, err))
		goto fail;
	dir = slc_calloc(ps->n, 1, err);
	if (!dir)
		goto fail;
	classify(ps, open);
	assemble(ps, open, dir);
#ifdef SLC_MPI
	if (ps->comm) {
		if (slab_setup(ps, dir, err))
			goto fail;
		free(dir);
		return 0;
	}
#endif
	if (bodies_setup(ps, err) || regions(ps, dir, err))
		goto fail;
	free(dir);
	return 0;
fail:
	free(dir);
	psys_free(ps);
	return -1;
}

void
psys_free(psys *ps)
{
	for (int b = 0; b < ps->nbody; b++) {
		free(ps->body[b].cell);
		free(ps->body[b].g);
		ps->body[b].cell = NULL;
		ps->body[b].g = NULL;
		ps->body[b].ncell = 0;
	}
	free(ps->type);
	free(ps->diag);
	free(ps->cx);
	free(ps->cy);
	free(ps->cz);
	free(ps->region);
	free(ps->enclosed);
	free(ps->part);
	free(ps->bpart);
	free(ps->shell_t);
	free(ps->cfail);
	free(ps->tcomm);
	memset(ps, 0, sizeof *ps);
}

/* selle2008 §4.4.2: the net flow b, the boundary area acell and the cells
 * of each enclosed region, summed in grid order (sum, area, count zeroed
 * by the caller). */
static void
region_sums(const psys *ps, const double *b, const double *acell, double *sum,
	    double *area, long long *count)
{
	size_t c0, c1;

	owned_cells(ps, &c0, &c1);
	for (size_t c = c0; c < c1; c++)
		if (ps->type[c] == PS_FLUID && ps->enclosed[ps->region[c]]) {
			sum[ps->region[c]] += b[c];
			area[ps->region[c]] += acell[c];
			count[ps->region[c]]++;
		}
}

#ifdef SLC_MPI
/* region_sums over the ranks in grid order (slc_comm_chain_in, _out):
 * sum and area (2 nr doubles) and count, the same bits as one process.
 * 0, or -1 with err. */
static int
region_sums_chain(const psys *ps, const double *b, const double *acell, double *sum,
		  long long *count, slc_err *err)
{
	size_t nr = (size_t)ps->nregion;

	if (slc_comm_chain_in(ps->comm, sum, 2 * nr * sizeof *sum, err) ||
	    slc_comm_chain_in(ps->comm, count, nr * sizeof *count, err))
		return -1;
	region_sums(ps, b, acell, sum, sum + nr, count);
	return slc_comm_chain_out(ps->comm, sum, 2 * nr * sizeof *sum, err) ||
	       slc_comm_chain_out(ps->comm, count, nr * sizeof *count, err) ||
	       slc_comm_chain_end(ps->comm, sum, 2 * nr * sizeof *sum, err) ||
	       slc_comm_chain_end(ps->comm, count, nr * sizeof *count, err) ? -1 : 0;
}
#endif

/* Solid fraction of a face not taken by fluid or by a rigid body. */
static double
static_fraction(const psys *ps, int ax, size_t f)
{
	double s = 1 - face_arr(ps, ax)[f];

	for (int b = 0; b < ps->nbody; b++) {
		const ps_body *bd = &ps->body[b];
		s -= (ax == 0 ? bd->bx : ax == 1 ? bd->by : bd->bz)[f];
	}
	return s > 0 ? s : 0;
}

/* The velocity of box face f (axis ax) of cell c under PS_BC_WALL: the
 * box is a wall at rest, but the part of the face a solid covers moves
 * with the cell's solid velocity.  A solid velocity extrapolated far
 * from its solid (mklevelset and kdsmbake march it through the grid)
 * must not move the box's resting walls: that pumped liquid into a box
 * whose moving body never touched its walls. */
static double
box_wall(const psys *ps, const float *us, int ax, size_t f, size_t c)
{
	return us ? static_fraction(ps, ax, f) * us[3 * c + ax] : 0;
}

/* psys_rhs's first phase: b = -(outward flux) of each fluid cell, 0
 * elsewhere.  The flux of a face between two cells is its fluid fraction
 * times the velocity, plus the solid velocity on its static solid part;
 * the faces of the box follow ps->bc. */
static void
rhs_divergence(const psys *ps, const float *const vel[3], const float *us, double *b)
{
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = cell_index(ps, i, j, k);
				double out = 0;
				if (ps->type[c] != PS_FLUID) {
					b[c] = 0;
					continue;
				}
				size_t f6[6];
				long long nb[6];
				face_cells(ps, i, j, k, f6, nb);
				for (int e = 0; e < 6; e++) {
					int ax = e >> 1, s = e & 1;
					size_t f = f6[e];
					double flux = vel[ax][f];
					if (nb[e] < 0 && ps->bc == PS_BC_WALL)
						flux = box_wall(ps, us, ax, f, c);
					else if (nb[e] < 0 && ps->bc == PS_BC_OPEN && !ps->voxelized)
						flux *= face_arr(ps, ax)[f];
					if (nb[e] >= 0 && ps->held[ax] && ps->held[ax][f])
						flux = ps->hv[ax][f];   /* a shell's cut face */
					else if (nb[e] >= 0 && !ps->voxelized) {
						flux *= face_arr(ps, ax)[f];
						if (us)
							flux += static_fraction(ps, ax, f) * 0.5 *
								((double)us[3 * c + ax] + us[3 * (size_t)nb[e] + ax]);
					}
					out += s ? flux : -flux;
				}
				b[c] = -out;
			}
}

/* batty2007 §3.1: the solid part of faces covered by rigid bodies moves
 * with their V: b -= J^T V, body by body. */
static void
rhs_bodies(const psys *ps, double *b)
{
	for (int q = 0; q < ps->nbody; q++) {
		const ps_body *bd = &ps->body[q];
		for (size_t m = 0; m < bd->ncell; m++)
			b[bd->cell[m]] -= rigid_JT_cell(bd, m, bd->V);
	}
}

/* selle2008 §4.4.2: the solid area of each cell of an enclosed region on
 * the region's boundary (box faces whole, faces to other regions their
 * solid fraction), 0 elsewhere. */
static void
boundary_area(const psys *ps, double *acell)
{
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = cell_index(ps, i, j, k);
				double a = 0;
				acell[c] = 0;
				if (ps->type[c] != PS_FLUID || !ps->enclosed[ps->region[c]])
					continue;
				size_t f6[6];
				long long nb[6];
				face_cells(ps, i, j, k, f6, nb);
				for (int e = 0; e < 6; e++)
					if (nb[e] < 0)
						a += 1;
					else if (ps->region[nb[e]] != ps->region[c])
						a += 1 - face_arr(ps, e >> 1)[f6[e]];
				acell[c] = a;
			}
}

/* selle2008 §4.4.2: the net flow sum[r] of each enclosed region spread
 * over its boundary cells in proportion to their area (evenly over its
 * cells when it has no boundary area) and taken out of b. */
static void
compat_correct(const psys *ps, const double *sum, const double *area,
	       const long long *count, const double *acell, double *b)
{
	for (size_t c = 0; c < ps->n; c++)
		if (ps->type[c] == PS_FLUID && ps->enclosed[ps->region[c]]) {
			int r = ps->region[c];
			if (area[r] > 0)
				b[c] -= sum[r] * acell[c] / area[r];
			else
				b[c] -= sum[r] / (double)count[r];
		}
}

/* selle2008 §4.4.2: the compatibility condition in each enclosed region.
 * The net flow into the region is spread over its boundary faces in
 * proportion to their solid area, which gives the temporary boundary
 * velocities with no net flow across the region's boundary.  *removed
 * gets the sum of the regions' |net flow|.  0, or -1 with err (memory). */
static int
rhs_compat(const psys *ps, double *b, double *removed, slc_err *err)
{
	int nr = ps->nregion;
	double *sum = slc_calloc(2 * (size_t)nr, sizeof *sum, err);
	double *acell = sum ? slc_malloc(ps->n, sizeof *acell, err) : NULL;
	long long *count = acell ? slc_calloc((size_t)nr, sizeof *count, err) : NULL;

	if (!count) {
		free(sum);
		free(acell);
		return -1;
	}
	double *area = sum + nr;
	boundary_area(ps, acell);
#ifdef SLC_MPI
	if (ps->comm) {
		if (region_sums_chain(ps, b, acell, sum, count, err)) {
			free(count);
			free(sum);
			free(acell);
			return -1;
		}
	} else
#endif
		region_sums(ps, b, acell, sum, area, count);
	compat_correct(ps, sum, area, count, acell, b);
	*removed = 0;
	for (int r = 0; r < nr; r++)
		*removed += fabs(sum[r]);
	free(count);
	free(sum);
	free(acell);
	return 0;
}

/* The cut faces of a shell move with its nodes: b -= J^T V (ps_shell),
 * the interpolated node velocity flowing out of the low cell into the
 * high one. */
static void
rhs_shell(const psys *ps, double *b)
{
	const ps_shell *sh = ps->shell;

	for (size_t q = 0; sh && q < sh->nface; q++) {
		double uf = 0;
		for (int e = 0; e < 3; e++)
			uf += sh->w[3 * q + e] * sh->V[3 * (size_t)sh->node[3 * q + e] + sh->ax[q]];
		if (ps->type[sh->lo[q]] == PS_FLUID)
			b[sh->lo[q]] -= uf;
		if (ps->type[sh->hi[q]] == PS_FLUID)
			b[sh->hi[q]] += uf;
	}
}

int
psys_rhs(const psys *ps, const float *u, const float *v, const float *w,
	 const float *us, double *b, double *removed, slc_err *err)
{
	const float *const vel[3] = {u, v, w};

	*removed = 0;
	rhs_divergence(ps, vel, us, b);
	rhs_bodies(ps, b);
	rhs_shell(ps, b);
	if (!ps->nenclosed)
		return 0;
	if (rhs_compat(ps, b, removed, err))
		return slc_failctx(err, "pressure right-hand side: ");
	return 0;
}

/* y where the cell is fluid, else 0.  Bitwise, so that the row loop
 * vectorizes: under the default -ftrapping-math a conditional float
 * expression is not if-converted. */
static inline double
fluid_only(double y, uint8_t type)
{
	uint64_t yb, mask = type == PS_FLUID ? ~(uint64_t)0 : 0;

	memcpy(&yb, &y, sizeof yb);
	yb &= mask;
	memcpy(&y, &yb, sizeof y);
	return y;
}

/* One row (j, k) of the grid part of A: y[i] = (A x)[c0 + i] + beta y[i]
 * for the fluid cells, 0 elsewhere (y is not read when beta is 0).  A row
 * with all its neighbour rows inside the grid runs without a branch: the
 * couplings to cells that are not fluid are 0. */
static inline void
apply_row(const psys *ps, const double *x, int j, int k, double beta, double *y)
{
	int ni = ps->ni;
	size_t sj = (size_t)ni, sk = sj * (size_t)ps->nj, c0 = sj * j + sk * k;
	const uint8_t *type = ps->type + c0;
	const double *d = ps->diag + c0, *xr = x + c0;
	const float *cx = ps->cx + c0, *cy = ps->cy + c0, *cz = ps->cz + c0;
	const float *cym = j > 0 ? cy - sj : NULL, *czm = k > 0 ? cz - sk : NULL;
	int jp = j < ps->nj - 1, kp = k < ps->nk - 1;

	if (!memchr(type, PS_FLUID, (size_t)ni)) {
		memset(y, 0, (size_t)ni * sizeof *y);
		return;
	}
	if (cym && czm && jp && kp && ni > 2) {
		const double *xjm = xr - sj, *xjp = xr + sj, *xkm = xr - sk, *xkp = xr + sk;
		for (int i = 0; i < ni; i += ni - 1) {
			double s = d[i] * xr[i];
			if (i > 0)
				s -= cx[i - 1] * xr[i - 1];
			if (i < ni - 1)
				s -= cx[i] * xr[i + 1];
			s -= cym[i] * xjm[i];
			s -= cy[i] * xjp[i];
			s -= czm[i] * xkm[i];
			s -= cz[i] * xkp[i];
			y[i] = fluid_only(beta != 0 ? s + beta * y[i] : s, type[i]);
		}
#define PS_ROW_SUM(i) (d[i] * xr[i] - cx[(i) - 1] * xr[(i) - 1] - cx[i] * xr[(i) + 1] - \
		       cym[i] * xjm[i] - cy[i] * xjp[i] - czm[i] * xkm[i] - cz[i] * xkp[i])
		if (beta != 0) {
#pragma omp simd
			for (int i = 1; i < ni - 1; i++)
				y[i] = fluid_only(PS_ROW_SUM(i) + beta * y[i], type[i]);
		} else {
#pragma omp simd
			for (int i = 1; i < ni - 1; i++)
				y[i] = fluid_only(PS_ROW_SUM(i), type[i]);
		}
#undef PS_ROW_SUM
		return;
	}
	for (int i = 0; i < ni; i++) {
		if (type[i] != PS_FLUID) {
			y[i] = 0;
			continue;
		}
		double s = d[i] * xr[i];
		if (i > 0)
			s -= cx[i - 1] * xr[i - 1];
		if (i < ni - 1)
			s -= cx[i] * xr[i + 1];
		if (cym)
			s -= cym[i] * xr[(long)i - (long)sj];
		if (jp)
			s -= cy[i] * xr[i + sj];
		if (czm)
			s -= czm[i] * xr[(long)i - (long)sk];
		if (kp)
			s -= cz[i] * xr[i + sk];
		y[i] = beta != 0 ? s + beta * y[i] : s;
	}
}

/* batty2007 (10): t[6 q + r] = (J x / dx^2)_r of every body q, each a
 * sum of k plane partials (the runs of its cells in one plane, in grid
 * order) added in plane order (psys_plane_sums): the same bits over any
 * number of MPI ranks, each holding the partials of its own planes.
 * Collective over ranks. */
static void
bodies_J(const psys *ps, const double *x, double *t)
{
	int nsum = 6 * ps->nbody;
	size_t sk = (size_t)ps->ni * ps->nj;
	double *bp = ps->bpart;

	memset(bp, 0, (size_t)ps->nk * (size_t)nsum * sizeof *bp);
	for (int q = 0; q < ps->nbody; q++) {
		const ps_body *bd = &ps->body[q];
		size_t m1;
		for (size_t m0 = 0; m0 < bd->ncell; m0 = m1) {
			size_t k = bd->cell[m0] / sk;
			for (m1 = m0 + 1; m1 < bd->ncell && bd->cell[m1] / sk == k; m1++)
				;
			rigid_J_add(bd, x, m0, m1, bp + k * (size_t)nsum + 6 * (size_t)q);
		}
	}
	psys_plane_sums(ps, bp, nsum, t);
}

/* batty2007 §3.1: the bodies' part of A, + dt J^T M^-1 J, in x units
 * rho*dx^3 g^T M^-1 g (a rank-6 term per body, applied as two sums over
 * its cells), added to y.  With s given, returns sum s_c (added)_c, from
 * k plane partials in plane order (bodies in order, cells in grid order
 * within a plane).  Collective over ranks. */
static double
apply_bodies(const psys *ps, const double *x, double *y, const double *s)
{
	double kappa = ps->rho * ps->dx * ps->dx * ps->dx, dot = 0;
	size_t nsum = 6 * (size_t)ps->nbody, sk = (size_t)ps->ni * ps->nj;
	double *dp = ps->bpart + (size_t)ps->nk * nsum, *t = dp + ps->nk;

	if (!ps->nbody)
		return 0;
	bodies_J(ps, x, t);
	if (s)
		memset(dp, 0, (size_t)ps->nk * sizeof *dp);
	for (int q = 0; q < ps->nbody; q++) {
		const ps_body *bd = &ps->body[q];
		double u[6] = {0, 0, 0, 0, 0, 0};
		rigid_minv_add(bd, kappa, t + 6 * (size_t)q, u);
		for (size_t m = 0; m < bd->ncell; m++) {
			double d = rigid_JT_cell(bd, m, u);
			y[bd->cell[m]] += d;
			if (s)
				dp[bd->cell[m] / sk] += s[bd->cell[m]] * d;
		}
	}
	if (s)
		psys_plane_sums(ps, dp, 1, &dot);
	return dot;
}

/* x on a fluid cell, else 0 (air: p = 0; no unknown: no pressure). */
static inline double
x_fluid(const psys *ps, const double *x, size_t c)
{
	return ps->type[c] == PS_FLUID ? x[c] : 0;
}

/* t (3 per shell node, the pressure's force in x units) becomes the
 * nodes' velocity change: kappa M^-1 t, or kappa R t with the shell's
 * own response (ps_shell.resp). */
static void
shell_respond(const ps_shell *sh, double kappa, double *t)
{
	if (sh->resp)
		sh->resp(sh->ctx, t);
	for (size_t nd = 0; nd < sh->nnode; nd++)
		for (int a = 0; a < 3; a++)
			t[3 * nd + a] *= kappa * (sh->resp ? 1 : sh->minv[nd]);
}

/* The shell nodes' part of A, (rho/dx) J^T M^-1 J in x units rho dx^3
 * (as apply_bodies; R in place of M^-1 with ps_shell.resp): t_node = sum
 * over faces of w (x_lo - x_hi) e_ax, scaled by kappa/m, interpolated back to the faces and taken out of the
 * low cell and put into the high one.  Added to y; with s given,
 * returns sum s_c (added)_c.  Faces in order: deterministic. */
static double
apply_shell(const psys *ps, const double *x, double *y, const double *s)
{
	const ps_shell *sh = ps->shell;
	double kappa = ps->rho * ps->dx * ps->dx * ps->dx, dot = 0;
	double *t = ps->shell_t;

	if (!sh)
		return 0;
	memset(t, 0, 3 * sh->nnode * sizeof *t);
	for (size_t q = 0; q < sh->nface; q++) {
		double d = x_fluid(ps, x, sh->lo[q]) - x_fluid(ps, x, sh->hi[q]);
		for (int e = 0; e < 3; e++)
			t[3 * (size_t)sh->node[3 * q + e] + sh->ax[q]] += sh->w[3 * q + e] * d;
	}
	shell_respond(sh, kappa, t);
	for (size_t q = 0; q < sh->nface; q++) {
		double uf = 0;
		for (int e = 0; e < 3; e++)
			uf += sh->w[3 * q + e] * t[3 * (size_t)sh->node[3 * q + e] + sh->ax[q]];
		if (ps->type[sh->lo[q]] == PS_FLUID) {
			y[sh->lo[q]] += uf;
			if (s)
				dot += s[sh->lo[q]] * uf;
		}
		if (ps->type[sh->hi[q]] == PS_FLUID) {
			y[sh->hi[q]] -= uf;
			if (s)
				dot -= s[sh->hi[q]] * uf;
		}
	}
	return dot;
}

void
psys_apply(const psys *ps, const double *x, double *y)
{
	size_t sj = (size_t)ps->ni, sk = sj * (size_t)ps->nj;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < ps->nk; k++)
		for (int j = 0; j < ps->nj; j++)
			apply_row(ps, x, j, k, 0, y + sj * j + sk * k);
	apply_bodies(ps, x, y, NULL);
	apply_shell(ps, x, y, NULL);
}

double
psys_apply_cg(const psys *ps, const double *z, double beta, double *s, double *q)
{
	size_t sj = (size_t)ps->ni, sk = sj * (size_t)ps->nj;
	double *part = ps->part;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < ps->nk; k++) {
		double t = 0;
		for (int j = 0; j < ps->nj; j++) {
			size_t c0 = sj * j + sk * k;
			double *qr = q + c0, *sr = s + c0;
			const double *zr = z + c0;
			apply_row(ps, z, j, k, beta, qr);
			/* the row's s.q in SIMD lanes: a fixed order per row,
			 * so the sum does not depend on the thread count */
			double tr = 0;
			if (beta != 0) {
#pragma omp simd reduction(+ : tr)
				for (int i = 0; i < ps->ni; i++) {
					sr[i] = zr[i] + beta * sr[i];
					tr += sr[i] * qr[i];
				}
			} else {
#pragma omp simd reduction(+ : tr)
				for (int i = 0; i < ps->ni; i++) {
					sr[i] = zr[i];
					tr += sr[i] * qr[i];
				}
			}
			t += tr;
		}
		part[k] = t;
	}
	double dot;
	psys_plane_sums(ps, part, 1, &dot);
	dot += apply_bodies(ps, z, q, s);
	return dot + apply_shell(ps, z, q, s);
}

double
psys_dot(const psys *ps, const double *a, const double *b)
{
	size_t sk = (size_t)ps->ni * ps->nj;
	double *part = ps->part, s = 0;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < ps->nk; k++) {
		double t = 0;
		for (size_t c = sk * k; c < sk * (k + 1); c++)
			t += a[c] * b[c];
		part[k] = t;
	}
	psys_plane_sums(ps, part, 1, &s);
	return s;
}

double
psys_cg_step(const psys *ps, double alpha, const double *s, const double *q,
	     double *x, double *r)
{
	double m = 0;
	size_t c0, c1;

	owned_cells(ps, &c0, &c1);
#pragma omp parallel for schedule(static) reduction(max : m) if (ps->n > PS_PAR_MIN)
	for (size_t c = 0; c < ps->n; c++) {
		x[c] += alpha * s[c];
		r[c] -= alpha * q[c];
		double a = fabs(r[c]);
		if (a > m && c >= c0 && c < c1)
			m = a;
	}
	return all_max(ps, m);
}

double
psys_maxabs(const psys *ps, const double *a)
{
	double m = 0;
	size_t c0, c1;

	owned_cells(ps, &c0, &c1);
#pragma omp parallel for schedule(static) reduction(max : m) if (ps->n > PS_PAR_MIN)
	for (size_t c = c0; c < c1; c++)
		if (fabs(a[c]) > m)
			m = fabs(a[c]);
	return all_max(ps, m);
}

/* An MPI build: the running per-region sums and counts of region_totals
 * from the rank below (out 0), or passed on and the whole from the last
 * rank (out 1); nothing for one process. */
static void
region_chain(const psys *ps, double *sum, double *cnt, int out)
{
#ifdef SLC_MPI
	size_t nb = (size_t)ps->nregion * sizeof *sum;
	slc_err err;

	if (!ps->comm)
		return;
	double t = MPI_Wtime();
	if ((out ? slc_comm_chain_out(ps->comm, sum, nb, &err) ||
			       slc_comm_chain_out(ps->comm, cnt, nb, &err) ||
			       slc_comm_chain_end(ps->comm, sum, nb, &err) ||
			       slc_comm_chain_end(ps->comm, cnt, nb, &err)
			     : slc_comm_chain_in(ps->comm, sum, nb, &err) ||
			       slc_comm_chain_in(ps->comm, cnt, nb, &err)))
		*ps->cfail = 1;
	*ps->tcomm += MPI_Wtime() - t;
#else
	(void)ps;
	(void)sum;
	(void)cnt;
	(void)out;
#endif
}

/* The sum sum[r] and the count cnt[r] of the cells of each enclosed
 * region r of x (zeroed by the caller): with few regions per-slab partial
 * sums added in slab order, else in grid order on one thread.  Either
 * order is fixed, so the sums do not depend on the thread count. */
static void
region_totals(const psys *ps, const double *x, double *sum, double *cnt)
{
	int nr = ps->nregion, nk = ps->nk;
	size_t sk = (size_t)ps->ni * ps->nj;

	if (nr <= PS_PART_REGIONS) {
		double *part = ps->part;
#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
		for (int k = 0; k < nk; k++) {
			double *p = part + 2 * PS_PART_REGIONS * (size_t)k;
			for (int r = 0; r < 2 * PS_PART_REGIONS; r++)
				p[r] = 0;
			for (size_t c = sk * k; c < sk * (k + 1); c++) {
				int32_t r = ps->region[c];
				if (r >= 0 && ps->enclosed[r]) {
					p[r] += x[c];
					p[PS_PART_REGIONS + r] += 1;
				}
			}
		}
		double tot[2 * PS_PART_REGIONS];
		psys_plane_sums(ps, part, 2 * PS_PART_REGIONS, tot);
		for (int r = 0; r < nr; r++) {
			sum[r] = tot[r];
			cnt[r] = tot[PS_PART_REGIONS + r];
		}
	} else {
		size_t c0, c1;
		owned_cells(ps, &c0, &c1);
		region_chain(ps, sum, cnt, 0);
		for (size_t c = c0; c < c1; c++) {
			int32_t r = ps->region[c];
			if (r >= 0 && ps->enclosed[r]) {
				sum[r] += x[c];
				cnt[r] += 1;
			}
		}
		region_chain(ps, sum, cnt, 1);
	}
}

int
psys_null(const psys *ps, double *x, slc_err *err)
{
	if (!ps->nenclosed)
		return 0;
	int nr = ps->nregion;
	double *sum = slc_calloc((size_t)nr, sizeof *sum, err);
	double *cnt = sum ? slc_calloc((size_t)nr, sizeof *cnt, err) : NULL;
	if (!cnt) {
		free(sum);
		return slc_failctx(err, "pressure null space: ");
	}
	region_totals(ps, x, sum, cnt);
	for (int r = 0; r < nr; r++)
		sum[r] = cnt[r] > 0 ? sum[r] / cnt[r] : 0;
#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (size_t c = 0; c < ps->n; c++) {
		int32_t r = ps->region[c];
		if (r >= 0 && ps->enclosed[r])
			x[c] -= sum[r];
	}
	free(sum);
	free(cnt);
	return 0;
}

/* Every held face between two cells takes its held velocity. */
static void
update_held(const psys *ps, float *const vel[3])
{
	for (int ax = 0; ax < 3; ax++) {
		if (!ps->held[ax])
			continue;
		size_t nf = (size_t)(ps->ni + (ax == 0)) * (size_t)(ps->nj + (ax == 1)) *
			    (size_t)(ps->nk + (ax == 2));
		int dim[3] = {ps->ni, ps->nj, ps->nk};
		size_t fi = (size_t)ps->ni + (ax == 0), fj = (size_t)ps->nj + (ax == 1);
		for (size_t f = 0; f < nf; f++) {
			if (!ps->held[ax][f])
				continue;
			size_t id[3] = {f % fi, f / fi % fj, f / fi / fj};
			/* the box's own faces follow ps->bc */
			if (id[ax] == 0 || id[ax] == (size_t)dim[ax])
				continue;
			vel[ax][f] = ps->hv[ax][f];
		}
	}
}

/* The shell's nodes take the pressure's velocity change, V += kappa M^-1
 * J x (ps_shell), and its cut faces the interpolated new velocity. */
static void
update_shell(const psys *ps, const double *x, float *const vel[3])
{
	const ps_shell *sh = ps->shell;

	if (!sh)
		return;
	size_t fi[3] = {(size_t)ps->ni + 1, (size_t)ps->ni, (size_t)ps->ni};
	size_t fj[3] = {(size_t)ps->nj, (size_t)ps->nj + 1, (size_t)ps->nj};
	double kappa = ps->rho * ps->dx * ps->dx * ps->dx, *t = ps->shell_t;
	memset(t, 0, 3 * sh->nnode * sizeof *t);
	for (size_t q = 0; q < sh->nface; q++) {
		double d = x_fluid(ps, x, sh->lo[q]) - x_fluid(ps, x, sh->hi[q]);
		for (int e = 0; e < 3; e++)
			t[3 * (size_t)sh->node[3 * q + e] + sh->ax[q]] += sh->w[3 * q + e] * d;
	}
	shell_respond(sh, kappa, t);
	for (size_t nd = 0; nd < 3 * sh->nnode; nd++)
		sh->V[nd] += t[nd];
	for (size_t q = 0; q < sh->nface; q++) {
		int a = sh->ax[q];
		size_t c = sh->hi[q], i = c % (size_t)ps->ni, j = c / (size_t)ps->ni % (size_t)ps->nj,
		       k = c / (size_t)ps->ni / (size_t)ps->nj;
		double uf = 0;
		for (int e = 0; e < 3; e++)
			uf += sh->w[3 * q + e] * sh->V[3 * (size_t)sh->node[3 * q + e] + a];
		vel[a][i + fi[a] * (j + fj[a] * k)] = (float)uf;
	}
}

void
psys_update(psys *ps, const double *x, float *u, float *v, float *w,
	    const float *us)
{
	float *vel[3] = {u, v, w};
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;

	/* batty2007 (5): u = u~ - dt/rho G p, with the ghost-fluid pressure
	 * p_ghost = p_f (1 - 1/theta) across the free surface. */
#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t a = cell_index(ps, i, j, k);
				size_t f6[6];
				long long nb6[6];
				face_cells(ps, i, j, k, f6, nb6);
				for (int ax = 0; ax < 3; ax++) {
					size_t f = f6[2 * ax + 1];
					if (nb6[2 * ax + 1] < 0 || !(face_arr(ps, ax)[f] > 0))
						continue;
					size_t bb = (size_t)nb6[2 * ax + 1];
					int ta = ps->type[a], tb = ps->type[bb];
					double d;
					if (ta == PS_FLUID && tb == PS_FLUID)
						d = x[bb] - x[a];
					else if (ta == PS_FLUID && tb == PS_AIR)
						d = -x[a] / ghost_theta(ps->phi, a, bb);
					else if (ta == PS_AIR && tb == PS_FLUID)
						d = x[bb] / ghost_theta(ps->phi, bb, a);
					else
						continue;
					vel[ax][f] = (float)(vel[ax][f] - d);
				}
			}
	/* the faces of the domain box */
	if (ps->bc != PS_BC_STORED) {
#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
		for (int k = 0; k < nk; k++)
			for (int j = 0; j < nj; j++)
				for (int i = 0; i < ni; i++) {
					if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1 &&
					    k > 0 && k < nk - 1)
						continue;       /* no face on the box */
					size_t c = cell_index(ps, i, j, k);
					size_t f6[6];
					long long nb[6];
					face_cells(ps, i, j, k, f6, nb);
					for (int ax = 0; ax < 3; ax++)
						for (int s = 0; s < 2; s++) {
							size_t f = f6[2 * ax + s];
							if (nb[2 * ax + s] >= 0)
								continue;
							if (ps->bc == PS_BC_WALL)
								vel[ax][f] = (float)box_wall(ps, us, ax, f, c);
							else if (ps->type[c] == PS_FLUID &&
								 face_arr(ps, ax)[f] > 0)
								/* p = 0 outside: d = x_out - x_in */
								vel[ax][f] = (float)(vel[ax][f] -
									(s ? -x[c] : x[c]));
						}
				}
	}
	/* a shell's cut faces: held at their velocity (guendelman2005 eq 4)
	 * or moving with its nodes, V += dt M^-1 J p (ps_shell) */
	update_held(ps, vel);
	update_shell(ps, x, vel);
	/* batty2007 (2): V += dt M^-1 J p = rho dx^3 M^-1 sum_c g_c x_c */
	double kappa = ps->rho * ps->dx * ps->dx * ps->dx;
	double *t = ps->bpart + (size_t)ps->nk * (6 * (size_t)ps->nbody + 1);
	if (ps->nbody)
		bodies_J(ps, x, t);
	for (int q = 0; q < ps->nbody; q++)
		rigid_minv_add(&ps->body[q], kappa, t + 6 * (size_t)q, ps->body[q].V);
}

void
psys_pressure(const psys *ps, const double *x, double dt, float *p)
{
	double s = ps->rho * ps->dx / dt;

#pragma omp parallel for schedule(static) if (ps->n > PS_PAR_MIN)
	for (size_t c = 0; c < ps->n; c++)
		p[c] = ps->type[c] == PS_FLUID ? (float)(x[c] * s) : 0.0f;
}
