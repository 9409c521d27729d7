/* forces.h: body forces added to the intermediate MAC velocity.
 *
 * Each adds dt * f to the face velocities (f an acceleration, m/s^2):
 * gravity; the smoke buoyancy of guendelman2005 §4.1,
 * f = (-alpha rho + beta (T - T_amb)) z with z the upward direction; and the
 * vorticity confinement of selle2008 thesis §3.2.1 (Fedkiw et al. 2001),
 * f = eps dx (N x omega), N = grad|omega| / |grad|omega||.
 */
#ifndef SLC_FORCES_H
#define SLC_FORCES_H

#include "fluid/advect.h"
#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "shell/shell_track.h"
#include "shell/shell_vis.h"

/* The faces a body force acts on: into w (allocated like vel by the
 * caller) the fluid weight of every face, its control volume's fraction
 * outside the solid level set `solid` (batty2007 §2.1, the weights project
 * solves with: weights_variational when solid lies on the velocity's
 * cells).  A solid on other cells is sampled at the faces instead, and a
 * face weighs 1 when its centre is within half a control volume's diagonal
 * (sqrt(3)/2 dx) of the outside, a superset of the faces with fluid for a
 * signed distance.  Faces of weight 0 are inside the solid, where project
 * never sets the velocity and houston2003 §4.2 extrapolation replaces it:
 * a force added there would only pile up.  0, or -1 with err (memory). */
int forces_fluid_weights(const field *solid, macgrid *w, slc_err *err);

/* u += dt g[0], v += dt g[1], w += dt g[2] on every face whose weight in
 * wt (forces_fluid_weights) is positive, or on every face with wt NULL.
 * Never fails. */
void forces_gravity(macgrid *vel, const double g[3], double dt, const macgrid *wt);

/* guendelman2005 §4.1: add dt (-alpha rho + beta (T - T_amb)) up[a] to
 * every face of component a with a positive weight in wt (all faces with
 * wt NULL; wt as for forces_gravity), with rho and T sampled trilinearly at the
 * face (either may be NULL: that term is left out).  up is the unit
 * upward direction; alpha in m^4/(kg s^2) for rho in kg/m^3 (or any
 * density unit), beta in m/(s^2 K).  Never fails. */
void forces_buoyancy(macgrid *vel, const field *rho, const field *T,
		     double alpha, double beta, double T_amb,
		     const double up[3], double dt, const macgrid *wt);

/* thesis §3.2.1: vorticity confinement with strength eps (dimensionless).
 * Vorticity omega = curl u and the location field N are computed at cell
 * centres with central differences (one-sided at the grid's faces), the
 * force f = eps dx (N x omega) is averaged to the faces and dt f added.
 * Where |omega| changes by less than 1e-5 of itself per cell, N is
 * taken as zero.  Its four cell-sized temporaries come from pool (NULL:
 * allocated and freed here).  0, or -1 with err (memory). */
int forces_confinement(macgrid *vel, double eps, double dt, advect_pool *pool,
		       slc_err *err);

/* forces_confinement next to thin shells sh (moving as trk; both may be
 * NULL: none): at the cells near them the curl and the gradient of
 * |omega| are one-sided (lib/fluid/forces_shell.h, guendelman2005 §4.1).
 * 0, or -1 with err (memory). */
int forces_confinement_shell(macgrid *vel, double eps, double dt, advect_pool *pool,
			     const shell_set *sh, const shell_track *trk, slc_err *err);

/* A source: at every sample of f inside the region (level set `region`,
 * sampled trilinearly at the sample, negative inside) set f to value, or
 * with at_least to max(f, value).  Never fails. */
void forces_source(const field *region, field *f, double value, int at_least);

/* A smoke source: inside the region (level set, negative inside) the
 * density rho and temperature T at least d and t (either field may be
 * NULL: left out), and the velocity set to v (m/s) when v is not NULL.
 * Never fails. */
void forces_smoke_source(const field *region, field *rho, field *T, double d, double t,
			 macgrid *vel, const double v[3]);

/* guendelman2005 §4.1 and selle2008 thesis §4.4.1: smoke density and
 * temperature are treated like the velocity at solids, with "a zero
 * density and T_a for visibility rays that intersect the object".  With a
 * solid level set, the samples a ray would find inside the object are
 * those with solid < 0: set rho to 0 and T to T_amb there (either field
 * may be NULL), so that no smoke is kept inside a solid and interpolation
 * stencils reaching into it read clear ambient air.  solid is sampled
 * trilinearly at the samples of rho and T.  Never fails. */
void forces_solid_smoke(const field *solid, field *rho, field *T, double T_amb);

#endif
