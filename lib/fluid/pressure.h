/* pressure.h: the variational pressure system on a MAC grid (batty2007).
 *
 * Unknowns live at cell centres of an ni x nj x nk grid, indexed
 * c = i + ni*(j + nj*k).  The solve is written for the scaled pressure
 * x = p*dt/(rho*dx) (m/s), so that the pressure update of a face is
 * u -= x[high] - x[low] and the system A x = b is dimensionless in its
 * coefficients and independent of dt:
 *
 *   A = D^T W D_theta + (rho/dx) sum_bodies G^T M^-1 G      (batty2007 (6), §3.1)
 *
 * with W the fluid fractions of the face control volumes (lib/fluid/weights.h),
 * D_theta the face differences with the second-order ghost fluid of Gibou
 * et al. at a free surface (batty2007 §2.1), and G the per-cell J operator
 * of each rigid body.  A is symmetric positive semi-definite; its null
 * space (constants on each region without a free surface) is handled as in
 * selle2008 §4.4.2.  The faces of the domain box follow ps->bc (PS_BC_*).
 */
#ifndef SLC_PRESSURE_H
#define SLC_PRESSURE_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/err.h"

/* Cell types. */
enum { PS_OFF = 0,      /* no unknown: solid, or liquid with no open face */
       PS_FLUID = 1,    /* an unknown */
       PS_AIR = 2 };    /* outside the liquid: p = 0 (Dirichlet) */

/* The faces of the domain box. */
enum { PS_BC_WALL = 0,  /* a wall at rest, its part covered by a solid
			   moving with the adjacent cell's solid velocity */
       PS_BC_STORED = 1, /* a wall moving at the stored face velocity
			   (inflow, outflow): never changed */
       PS_BC_OPEN = 2 }; /* open: p = 0 just outside (Dirichlet) */

/* Smallest ghost-fluid interface fraction theta: a surface closer than
 * this fraction of dx to a cell centre is moved to it, which bounds the
 * diagonal at w/THETA_MIN (a conditioning safeguard, as is usual for the
 * Gibou et al. 2002 discretization). */
#define PS_THETA_MIN 1e-2

/* Grids with fewer cells than this run their loops on one thread: the cost
 * of starting a parallel region would exceed the work. */
#define PS_PAR_MIN 32768

/* A rigid body coupled two ways (batty2007 §3).  In: volume fractions of
 * the body in each face control volume (face grids as in lib/fluid/weights.h),
 * centre of mass, mass, world-frame inertia tensor about the centre of
 * mass, generalized velocity V = (v, omega).  psys_update writes the new
 * V back.  mass = INFINITY is a scripted body: its V is prescribed and
 * enters the right-hand side only (M^-1 = 0), it is left unchanged, and
 * it does not join the pressure regions on its sides. */
typedef struct ps_body {
	const float *bx, *by, *bz;  /* body volume fractions per face, borrowed */
	double com[3];              /* m, world */
	double mass;                /* kg */
	double inertia[9];          /* kg m^2, row-major, symmetric */
	double V[6];                /* m/s and rad/s */
	/* set by psys_init */
	double Minv[36];            /* inverse 6x6 mass matrix */
	size_t ncell;               /* cells with a nonzero J column (over
				       MPI ranks: this rank's owned ones) */
	size_t *cell;               /* increasing: grid order */
	double *g;                  /* 6 per cell: sum over its faces of
				       +-beta*Phi_f, so J p = dx^2 sum_c p_c g_c */
} ps_body;

/* A thin shell's nodes coupled two ways (the shell counterpart of
 * ps_body, batty2007 §3 with the shell's nodes as the bodies): nface cut
 * faces, face q between cells lo[q] and hi[q] (hi above lo on axis
 * ax[q]), its crossing on the triangle of nodes node[3q..3q+2] with
 * barycentric weights w[3q..3q+2].  The face's velocity is the
 * interpolated node velocity, u_q = sum_e w_e V_(node e) . e_ax, so the
 * operator is J with (J p)_node = sum_q w (p_lo - p_hi) dx^2 e_ax, and
 * the system gains (rho/dx) J^T M^-1 J.  minv: 1/mass per node (0 for a
 * pinned node, infinite mass: its V enters the right-hand side only).  V:
 * 3 per node, the velocity before the solve (m/s); psys_update adds the
 * pressure's change.  resp: NULL, the nodes answer a force with their
 * mass alone (M^-1 = diag(minv)); else the shell's whole response, which
 * replaces M^-1: resp(ctx, t) overwrites t (3 per node, N) with R t
 * (m/s per N s = 1/kg), R linear, symmetric positive semi-definite and
 * zero on and from the nodes of minv 0 (a cloth's implicit system
 * inverted, stage/shell_resp.h); minv then only marks the free nodes
 * (> 0).  Arrays borrowed; the cut faces must also be closed (weight 0)
 * and held (psys_in.held) at 0. */
typedef struct ps_shell {
	size_t nface;
	const size_t *lo, *hi;
	const uint8_t *ax;
	const uint32_t *node;
	const double *w;
	size_t nnode;
	const double *minv;
	double *V;
	void (*resp)(void *ctx, double *t);
	void *ctx;
} ps_shell;

typedef struct psys {
	int ni, nj, nk;
	size_t n;                   /* cells */
	double dx, origin[3], rho;
	const float *wx, *wy, *wz;  /* fluid fractions per face, borrowed */
	const float *phi;           /* liquid level set (cells) or NULL */
	uint8_t *type;              /* PS_* per cell */
	double *diag;               /* A_fluid diagonal */
	float *cx, *cy, *cz;        /* coupling of cell c to c+1 along each axis */
	int32_t *region;            /* region id per PS_FLUID cell, else -1 */
	int nregion;
	uint8_t *enclosed;          /* per region: no Dirichlet boundary */
	int nenclosed;
	int nbody;
	ps_body *body;              /* borrowed array, Minv/cell/g owned */
	int voxelized;              /* closed faces keep their stored velocity */
	int bc;                     /* PS_BC_*, from psys_in */
	const uint8_t *held[3];     /* faces held at hv (psys_in), or NULL */
	const float *hv[3];
	ps_shell *shell;            /* borrowed, or NULL */
	double *shell_t;            /* 3 per shell node: workspace of J x */
	double *part;               /* per-k-slab partial sums (workspace of
				       the reductions below) */
	double *bpart;              /* nk x (6 nbody + 1): the bodies' J x
				       and J^T dot plane partials */
	/* An MPI build's k slab (comm/mpicomm.h): the arrays hold the
	 * planes kof .. kof+nk-1 of a grid of nkg planes, this rank owning
	 * the local planes ko0 .. ko1-1 and the others ghosts, refreshed
	 * from their owners where a stencil reads them.  One process: comm
	 * NULL, kof 0, nkg nk, ko0 0, ko1 nk. */
	slc_comm *comm;
	int kof, nkg, ko0, ko1;
	int *cfail;                 /* set when an exchange failed */
	double *tcomm;              /* seconds (MPI_Wtime) spent in the
				       exchanges of the solve's reductions,
				       halos and gathers, waits included */
} psys;

/* Enclosed regions whose means psys_null sums in parallel (more are
 * summed on one thread). */
#define PS_PART_REGIONS 8

/* What a system is built from (as pcg_opts is for the solve): an
 * ni x nj x nk grid of cell size dx (m) with minimum corner origin (3
 * doubles, m); wx, wy, wz: fluid fractions per face (required); phi:
 * liquid level set, negative in liquid, or NULL for a domain full of
 * fluid (smoke); rho: fluid density kg/m^3; body: nbody rigid bodies or
 * NULL; bc: the condition on the faces of the domain box (PS_BC_*; 0 is
 * PS_BC_WALL).  Every array is borrowed and must outlive the system. */
typedef struct psys_in {
	int ni, nj, nk;
	double dx;                  /* m */
	const double *origin;       /* m, 3 doubles */
	double rho;                 /* kg/m^3 */
	const float *wx, *wy, *wz;
	const float *phi;
	ps_body *body;
	int nbody;
	int bc;                     /* PS_BC_* */
	/* Faces held at a given velocity (thin shells' cut faces,
	 * guendelman2005 §4.3 eq 4): held[ax][f] nonzero marks face f of
	 * axis ax, whose flux in the right-hand side is hv[ax][f] over the
	 * whole face and which psys_update sets to hv[ax][f].  The caller
	 * also gives it the weight it wants in the operator (0: a Neumann
	 * face).  NULL: none. */
	const uint8_t *held[3];
	const float *hv[3];
	ps_shell *shell;            /* shell nodes coupled two ways, or NULL */
	slc_comm *comm;             /* MPI builds: the ranks, whose slabs
				       (comm->ghost planes each side) the
				       arrays hold; NULL: the whole grid */
	int k0;                     /* with comm: the global plane of the
				       arrays' first */
} psys_in;

/* Build the system described by in: classify cells, assemble the fluid
 * operator, set up the rigid bodies' inverse masses and J columns,
 * flood-fill the regions (joined through rigid bodies) and mark the
 * enclosed ones.  0, or -1 with err (bad grid, memory, singular mass);
 * on failure ps holds nothing to free. */
int psys_init(psys *ps, const psys_in *in, slc_err *err);

/* Free what psys_init allocated (the bodies' columns included); ps is
 * zeroed. */
void psys_free(psys *ps);

/* The voxelized solve (batty2007 §1.1; Foster and Fedkiw 2001, houston2003
 * §4.1): with binary weights, a closed face is a Neumann face whose stored
 * velocity (set by constrained extrapolation in advect) is the boundary
 * condition, untouched by the solve.  Call after psys_init. */
static inline void
psys_set_voxelized(psys *ps, int on)
{
	ps->voxelized = on;
}

/* Right-hand side b (n doubles): minus the outward flux of each PS_FLUID
 * cell divided by dx^2 (m/s), from the face velocities u, v, w (stream
 * layouts), the solid velocity us (cell-centred xyz triples, or NULL for
 * resting solids) on the solid part of each face, and the rigid bodies'
 * V.  Then, in each enclosed region, the compatibility condition of
 * selle2008 §4.4.2: the net flow is removed through the region's boundary
 * faces in proportion to their solid area.  *removed gets the net flow
 * removed (sum of |correction| over regions, m^3/s / dx^2) for reporting.
 * 0, or -1 with err when out of memory (b is then not a right-hand side
 * to solve with). */
int psys_rhs(const psys *ps, const float *u, const float *v, const float *w,
	     const float *us, double *b, double *removed, slc_err *err);

/* y = A x over all cells (y = 0 on non-fluid cells). */
void psys_apply(const psys *ps, const double *x, double *y);

/* The fused step of conjugate gradient: s = z + beta s, q = A z + beta q
 * (= A s), returns s.q.  With beta = 0, s and q are only written. */
double psys_apply_cg(const psys *ps, const double *z, double beta, double *s,
		     double *q);

/* x += alpha s, r -= alpha q; returns the max norm of the new r. */
double psys_cg_step(const psys *ps, double alpha, const double *s,
		    const double *q, double *x, double *r);

/* Remove the mean of x over each enclosed region (the null space of A,
 * selle2008 §4.4.2).  0, or -1 with err when out of memory, x then
 * unchanged. */
int psys_null(const psys *ps, double *x, slc_err *err);

/* Pressure update: u -= D_theta x on every open face next to a fluid cell
 * (batty2007 (5)) and each body's V += rho*dx*M^-1 G x (batty2007 (2)).
 * Faces of the domain box: set to the wall velocity (PS_BC_WALL: the
 * solid velocity us of the adjacent cell, or 0 when us is NULL), left
 * (PS_BC_STORED) or updated against p = 0 outside (PS_BC_OPEN). */
void psys_update(psys *ps, const double *x, float *u, float *v, float *w,
		 const float *us);

/* Pressure in Pa from x: p = x*rho*dx/dt on fluid cells, 0 elsewhere. */
void psys_pressure(const psys *ps, const double *x, double dt, float *p);

/* Deterministic dot product and max-norm over the cells (per-k-slab
 * partial sums added in slab order: independent of the thread count). */
double psys_dot(const psys *ps, const double *a, const double *b);
double psys_maxabs(const psys *ps, const double *a);

/* The sums of nsum per-plane partials part[k nsum + s] of the cell
 * planes (local planes, ps->nk of them): sum[s] adds the owned planes'
 * in plane order from 0, over every rank of an MPI build (the same bits
 * as one process adding every plane).  0, or -1 when an exchange failed
 * (*ps->cfail set). */
int psys_plane_sums(const psys *ps, const double *part, int nsum, double *sum);

/* An MPI build: the ghost planes of the cell array a (esize bytes a
 * cell) from their owners; nothing for one process.  A failure sets
 * *ps->cfail. */
void psys_halo(const psys *ps, void *a, size_t esize);

#endif
