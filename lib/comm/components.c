/* components.c: components joined across slabs (comm/components.h). */
#include "comm/components.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/unionfind.h"

/* Every rank's n items of size es into *all (malloc'd), in rank order;
 * *total items.  0 or -1. */
static int
gather_all(slc_comm *c, const void *mine, size_t n, size_t es, void **all, size_t *total,
	   slc_err *err)
{
	long long *cnt = slc_calloc((size_t)c->size, sizeof *cnt, err);
	long long me = (long long)n, sum = 0;
	int r, rc;

	*all = NULL;
	if (!cnt)
		return -1;
	rc = MPI_Allgather(&me, 1, MPI_LONG_LONG, cnt, 1, MPI_LONG_LONG, c->c);
	if (rc != MPI_SUCCESS) {
		free(cnt);
		return slc_fail(err, "components: MPI error");
	}
	for (r = 0; r < c->size; r++) {
		if ((unsigned long long)cnt[r] * es > (unsigned long long)INT_MAX ||
		    sum * (long long)es > INT_MAX) {
			free(cnt);
			return slc_fail(err, "components: too many labels for one message");
		}
		c->cnt[r] = (int)(cnt[r] * (long long)es);
		c->disp[r] = (int)(sum * (long long)es);
		sum += cnt[r];
	}
	free(cnt);
	*total = (size_t)sum;
	if (!(*all = slc_malloc(sum ? (size_t)sum : 1, es, err)))
		return -1;
	rc = MPI_Allgatherv(mine, (int)(n * es), MPI_BYTE, *all, c->cnt, c->disp, MPI_BYTE, c->c);
	if (rc != MPI_SUCCESS) {
		free(*all);
		*all = NULL;
		return slc_fail(err, "components: MPI error");
	}
	return 0;
}

/* The index of label l in s->lab, or -1. */
static long long
index_of(const slc_components *s, int64_t l)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->lab[mid] < l)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->lab[lo] == l ? (long long)lo : -1;
}

int32_t
slc_components_find(const slc_components *s, int64_t l)
{
	long long q = index_of(s, l);

	return q < 0 ? -1 : s->num[q];
}

int
slc_components_join(slc_comm *c, const int64_t *lab, const uint8_t *flag, size_t nlab,
		    const int64_t *pair, size_t npair, slc_components *out, slc_err *err)
{
	void *lv = NULL, *fv = NULL, *pv = NULL;
	size_t nl = 0, nf = 0, np = 0, q, *up = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (gather_all(c, lab, nlab, sizeof *lab, &lv, &nl, err) ||
	    gather_all(c, flag, nlab, 1, &fv, &nf, err) ||
	    gather_all(c, pair, npair, 2 * sizeof *pair, &pv, &np, err))
		goto done;
	out->lab = lv;
	out->n = nl;
	lv = NULL;
	for (q = 1; q < nl; q++)
		if (out->lab[q] <= out->lab[q - 1]) {
			slc_fail(err, "components: label %lld after %lld", (long long)out->lab[q],
				 (long long)out->lab[q - 1]);
			goto done;
		}
	if (!(up = slc_malloc(nl ? nl : 1, sizeof *up, err)) ||
	    !(out->num = slc_malloc(nl ? nl : 1, sizeof *out->num, err)))
		goto done;
	slc_uf_init(up, nl);
	for (q = 0; q < np; q++) {
		const int64_t *p = (const int64_t *)pv + 2 * q;
		long long a = index_of(out, p[0]), b = index_of(out, p[1]);

		if (a < 0 || b < 0) {
			slc_fail(err, "components: a pair names label %lld, given by no rank",
				 (long long)(a < 0 ? p[0] : p[1]));
			goto done;
		}
		slc_uf_join(up, (size_t)a, (size_t)b);
	}
	/* roots are the smallest labels: numbered in label order */
	for (q = 0; q < nl; q++)
		out->num[q] = slc_uf_find(up, q) == q ? out->ncomp++ : out->num[slc_uf_find(up, q)];
	if (!(out->flag = slc_calloc(out->ncomp ? (size_t)out->ncomp : 1, 1, err)))
		goto done;
	for (q = 0; q < nl; q++)
		out->flag[out->num[q]] |= ((const uint8_t *)fv)[q];
	rc = 0;
done:
	free(lv);
	free(fv);
	free(pv);
	free(up);
	if (rc)
		slc_components_free(out);
	return rc;
}

void
slc_components_free(slc_components *s)
{
	free(s->lab);
	free(s->num);
	free(s->flag);
	memset(s, 0, sizeof *s);
}
