/* strand_self.c: stiction, repulsions and collisions between strands on a
 * mass-spring body (selle2008 thesis §7.5.2-7.5.3; see strand_self.h). */
#include "cloth/strand_self.h"

#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_sys.h"

void
strand_self_free(strand_self *ss)
{
	collide_self_free(ss->cs);
	if (ss->has_stic)
		stiction_free(&ss->stic);
	free(ss->xs);
	free(ss->moved);
	memset(ss, 0, sizeof *ss);
}

int
strand_self_init(strand_self *ss, masspring *ms, size_t nseg,
		 const uint32_t *seg, const strand_self_params *p,
		 slc_err *err)
{
	size_t n3;

	memset(ss, 0, sizeof *ss);
	ss->par = *p;
	ss->ms = ms;
	if (slc_mul(ms->np, 3, &n3))
		return slc_fail(err, "point count overflows");
	if (p->repulse || p->collide) {
		/* §7.5.3: edge/edge only, no rigid impact zones */
		collide_self_params cp = {
			.thickness = p->thickness, .k_rep = p->k_rep,
			.mu_self = p->mu_self, .coll_iters = p->coll_iters,
			.zones = 0, .strands = 1,
		};
		if (!(p->thickness > 0))
			return slc_fail(err, "strand thickness %g is not positive",
					p->thickness);
		ss->cs = collide_self_new_lists(ms->np, ms->m, ms->fixed, nseg,
						seg, 0, NULL, &cp, err);
		if (!ss->cs)
			return -1;
	}
	if (p->stiction) {
		if (stiction_init(&ss->stic, ms->np, nseg, seg, &p->stic, err)) {
			strand_self_free(ss);
			return -1;
		}
		ss->has_stic = 1;
	}
	ss->xs = slc_calloc(n3 + 1, sizeof *ss->xs, err);
	ss->moved = slc_calloc(ms->np + 1, 1, err);
	if (!ss->xs || !ss->moved) {
		strand_self_free(ss);
		return -1;
	}
	return 0;
}

/* The bonds into the body's springs, its system's block sparsity and the
 * collisions' skip set. */
static int
apply_bonds(strand_self *ss, slc_err *err)
{
	masspring *ms = ss->ms;

	if (stiction_springs(&ss->stic, &ms->spr, err))
		return -1;
	cloth_sys_free(&ms->sys);
	if (cloth_sys_build(&ms->sys, &ms->spr, err))
		return -1;
	if (ss->cs && collide_self_skip(ss->cs, ss->stic.nb, ss->stic.bseg, err))
		return -1;
	ss->st.bonds = ss->stic.nb;
	return 0;
}

int
strand_self_load(strand_self *ss, size_t n, const uint32_t *name,
		 const double *frac, slc_err *err)
{
	if (!ss->has_stic)
		return slc_fail(err, "stiction bonds given with stiction off");
	if (stiction_load(&ss->stic, n, name, frac, err))
		return -1;
	return apply_bonds(ss, err);
}

int
strand_self_begin(strand_self *ss, double span, slc_err *err)
{
	masspring *ms = ss->ms;

	memcpy(ss->xs, ms->x, 3 * ms->np * sizeof *ss->xs);
	if (ss->has_stic) {
		/* §7.5.2 SPEC: break, then make, at the start of the step */
		size_t nbroken = stiction_break(&ss->stic, ms->x);
		long nmade = stiction_create(&ss->stic, ms->x, err);
		if (nmade < 0)
			return -1;
		if ((nbroken || nmade) && apply_bonds(ss, err))
			return -1;
		ss->st.made = ss->stic.made;
		ss->st.broken = ss->stic.broken;
	}
	if (ss->cs && ss->par.repulse) {
		if (collide_self_pairs(ss->cs, ms->x, ms->v, span, err))
			return -1;
		ss->st.pairs += (long)collide_self_npairs(ss->cs);
	}
	return 0;
}

void
strand_self_repulse(void *ctx, const double *x, double *v, double dt,
		    int elastic)
{
	strand_self *ss = ctx;

	if (ss->cs && ss->par.repulse)
		collide_self_repulse(ss->cs, x, v, dt, elastic);
}

int
strand_self_end(strand_self *ss, double span, slc_err *err)
{
	masspring *ms = ss->ms;
	long nzones = 0;

	if (!ss->cs || !ss->par.collide)
		return 0;
	memset(ss->moved, 0, ms->np);
	if (collide_self_resolve(ss->cs, ss->xs, ms->x, span, ss->moved,
				 &ss->st.collisions, &nzones, err))
		return -1;
	for (size_t i = 0; i < ms->np; i++)
		if (ss->moved[i] && !ms->fixed[i])
			for (int d = 0; d < 3; d++)
				ms->v[3 * i + d] = (ms->x[3 * i + d] -
						    ss->xs[3 * i + d]) / span;
	collide_self_counts(ss->cs, &ss->st.unresolved, &ss->st.skipped);
	return 0;
}
