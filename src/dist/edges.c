/* The global edge numbering of a partitioned mesh: the single process's (mmx_adjacency's rule,
 * mesh.h: the edge {i, j}, i < j, is number edge_ptr[j] + the position of i among j's smaller
 * neighbours, so edges run in the order of (j, i)). An edge belongs to the owner of its larger
 * end j, which holds every face at j (ring 1), so its count of edges {i, j} and their order
 * there are the whole mesh's. Rank 0 turns the owned vertices' counts into each vertex's first
 * edge number; an edge whose larger end is a ghost asks that end's owner for its number. */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

/* The local index of global vertex gnum in the ascending gv[0..n), or -1. */
static mmx_index find_vertex(const int64_t *gv, mmx_index n, int64_t gnum)
{
    mmx_index lo = 0, hi = n;
    while (lo < hi) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (gv[mid] < gnum) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && gv[lo] == gnum ? lo : -1;
}

/* The local edge {i, j} (i < j local numbers) in A, or -1: j's edges are ascending in i. */
static mmx_index find_edge(const mmx_adjacency *A, mmx_index i, mmx_index j)
{
    mmx_index lo = A->edge_ptr[j], hi = A->edge_ptr[j + 1];
    while (lo < hi) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (A->ev[2 * mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return lo < A->edge_ptr[j + 1] && A->ev[2 * lo] == i ? lo : -1;
}

mmx_status mmx__dist_edge_numbers(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_adjacency *A,
                                  int64_t **eg, int64_t *gedges)
{
    mmx_dist *d = dm->d;
    const int R = d->size, me = d->rank;
    const mmx_index nl = A->nverts, ne = A->nedges;
    int64_t *num = NULL, *cnt = NULL, *all = NULL, *first = NULL, *vowner = NULL;
    int64_t *ask = NULL, *asked = NULL, *ans = NULL, *got = NULL, *fill = NULL;
    int64_t *sb = NULL, *rb = NULL, *sc = NULL, *rc = NULL;
    int64_t total = 0;
    *eg = NULL, *gedges = 0;
    mmx_status s = mmx__host_alloc(ctx, (size_t)ne, sizeof *num, (void **)&num);
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->nov, sizeof *cnt, (void **)&cnt);
    if (!s) s = mmx__host_alloc(ctx, 5 * (size_t)R, sizeof *sc, (void **)&sc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nl, sizeof *vowner, (void **)&vowner);
    if (!s && me == 0) s = mmx__host_alloc(ctx, (size_t)dm->gverts, sizeof *all, (void **)&all);
    if (!s && me == 0) s = mmx__host_alloc(ctx, (size_t)dm->gverts, sizeof *first, (void **)&first);
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;
    rc = sc + R, fill = sc + 2 * R;
    /* Each owned vertex's count of edges to smaller vertices, in ascending order (gids'). */
    for (mmx_index v = 0, k = 0; v < nl; v++)
        if (dm->ov[v]) cnt[k++] = A->edge_ptr[v + 1] - A->edge_ptr[v];
    for (int q = 0; q < R; q++) sc[q] = q == 0 ? 8 * (int64_t)dm->nov : 0;
    if (me == 0)
        for (int q = 0; q < R; q++) rc[q] = 8 * dm->gcount[q];
    s = mmx__dist_gatherv(ctx, d, cnt, 8 * (int64_t)dm->nov, all, rc, 0);
    dm->cnt->bytes += 8 * (int64_t)dm->nov;
    if (!s && me == 0) {
        /* first[g]: the number of the first edge at vertex g (the counts summed in global
         * vertex order); then each rank's in gids' order */
        for (int64_t i = 0; i < dm->gverts; i++) first[dm->gids[i]] = all[i];
        for (int64_t g = 0; g < dm->gverts; g++) {
            const int64_t c = first[g];
            first[g] = total, total += c;
        }
        for (int64_t i = 0; i < dm->gverts; i++) all[i] = first[dm->gids[i]];
        for (int q = 0; q < R; q++) sc[q] = 8 * dm->gcount[q];
    }
    if (!s) s = mmx__dist_bcast(ctx, d, &total, sizeof total, 0);
    /* rank 0 sends each rank the first numbers of its owned vertices (a scatter) */
    for (int q = 0; q < R; q++) rc[q] = q == 0 ? 8 * (int64_t)dm->nov : 0;
    if (me != 0)
        for (int q = 0; q < R; q++) sc[q] = 0;
    if (!s) s = mmx__dist_alltoallv(ctx, d, all, sc, cnt, rc);
    if (me == 0) dm->cnt->bytes += 8 * dm->gverts + 8;
    if (s) goto out;
    for (mmx_index v = 0, k = 0; v < nl; v++)
        if (dm->ov[v]) {
            for (mmx_index e = A->edge_ptr[v]; e < A->edge_ptr[v + 1]; e++)
                num[e] = cnt[k] + (e - A->edge_ptr[v]);
            k++;
        }

    /* The edges whose larger end is a ghost: asked of its owner as (smaller, larger) global
     * pairs, in local edge order, answered with their numbers. */
    for (mmx_index v = 0; v < nl; v++) vowner[v] = -1;
    for (int q = 0; q < R; q++)
        for (int64_t i = dm->roff[q]; i < dm->roff[q + 1]; i++) vowner[dm->ridx[i]] = q;
    memset(sc, 0, 5 * (size_t)R * sizeof *sc);
    int64_t nask = 0;
    for (mmx_index e = 0; e < ne; e++) {
        const int64_t q = vowner[A->ev[2 * e + 1]];
        if (q >= 0) sc[q]++, nask++;
    }
    s = mmx__host_alloc(ctx, 2 * (size_t)nask, sizeof *ask, (void **)&ask);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nask, sizeof *got, (void **)&got);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_alltoall_i64(ctx, d, sc, rc);
    if (s) goto out;
    int64_t nasked = 0;
    for (int q = 0; q < R; q++) nasked += rc[q];
    s = mmx__host_alloc(ctx, 2 * (size_t)nasked, sizeof *asked, (void **)&asked);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nasked, sizeof *ans, (void **)&ans);
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;
    for (int64_t q = 0, at = 0; q < R; q++) fill[q] = at, at += sc[q];
    for (mmx_index e = 0; e < ne; e++) {
        const int64_t q = vowner[A->ev[2 * e + 1]];
        if (q < 0) continue;
        ask[2 * fill[q]] = dm->gv[A->ev[2 * e]], ask[2 * fill[q] + 1] = dm->gv[A->ev[2 * e + 1]];
        fill[q]++;
    }
    sb = sc + 3 * R, rb = sc + 4 * R; /* the byte counts: 16 a question, 8 an answer */
    for (int q = 0; q < R; q++) sb[q] = 16 * sc[q], rb[q] = 16 * rc[q];
    s = mmx__dist_alltoallv(ctx, d, ask, sb, asked, rb);
    dm->cnt->bytes += 16 * nask;
    for (int64_t i = 0; !s && i < nasked; i++) {
        const mmx_index a = find_vertex(dm->gv, nl, asked[2 * i]);
        const mmx_index b = find_vertex(dm->gv, nl, asked[2 * i + 1]);
        const mmx_index e = a >= 0 && b >= 0 && dm->ov[b] ? find_edge(A, a, b) : -1;
        if (e < 0)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_query: edge {%lld, %lld} asked of its "
                          "owner, which does not hold it", (long long)asked[2 * i],
                          (long long)asked[2 * i + 1]);
        else ans[i] = num[e];
    }
    s = mmx_dist_agree(ctx, d, s);
    for (int q = 0; q < R; q++) sb[q] = 8 * rc[q], rb[q] = 8 * sc[q];
    if (!s) s = mmx__dist_alltoallv(ctx, d, ans, sb, got, rb);
    dm->cnt->bytes += 8 * nasked;
    if (s) goto out;
    for (int64_t q = 0, at = 0; q < R; q++) fill[q] = at, at += sc[q];
    for (mmx_index e = 0; e < ne; e++) {
        const int64_t q = vowner[A->ev[2 * e + 1]];
        if (q >= 0) num[e] = got[fill[q]++];
    }
    *eg = num, *gedges = total;
    num = NULL;
out:
    free(num), free(cnt), free(all), free(first), free(vowner), free(ask), free(asked);
    free(ans), free(got), free(sc);
    return s;
}
