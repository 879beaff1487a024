/* Reverse Cuthill-McKee ordering (Cuthill and McKee 1969, George 1971), with the
 * pseudo-peripheral starting vertex of George and Liu (1979).
 *
 * The graph is the pattern of S + Sᵀ without the diagonal: vertices i and j are neighbours
 * when S(i,j) or S(j,i) is stored. For a symmetric pattern (E, the Laplacian) that is the
 * pattern of S itself; an unsymmetric one is symmetrised rather than refused, since checking
 * symmetry costs as much as symmetrising. */
#include <string.h>
#include "spla_internal.h"

/* Neighbour lists: adj[ptr[v] .. ptr[v+1]), each sorted by (degree, index), deg[v] its length. */
typedef struct rcm_graph {
    mmx_index n;
    int64_t *ptr;
    mmx_index *adj, *deg;
} rcm_graph;

static void graph_free(rcm_graph *g)
{
    free(g->ptr);
    free(g->adj);
    free(g->deg);
}

/* (degree, index) packed so that comparing keys compares degrees first, then indices. */
static uint64_t degree_key(const rcm_graph *g, mmx_index v)
{
    return (uint64_t)(uint32_t)g->deg[v] << 32 | (uint32_t)v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts a neighbour list by (degree, index): insertion sort for the short lists of a mesh,
 * qsort for long ones, so that the whole costs O(nnz log maxdeg). */
static void sort_by_degree(const rcm_graph *g, mmx_index *list, mmx_index len, uint64_t *key)
{
    for (mmx_index t = 0; t < len; t++) key[t] = degree_key(g, list[t]);
    if (len <= 16) {
        for (mmx_index t = 1; t < len; t++) {
            uint64_t x = key[t];
            mmx_index u = t;
            for (; u > 0 && key[u - 1] > x; u--) key[u] = key[u - 1];
            key[u] = x;
        }
    } else {
        qsort(key, (size_t)len, sizeof *key, cmp_u64);
    }
    for (mmx_index t = 0; t < len; t++) list[t] = (mmx_index)(key[t] & 0xffffffffu);
}

/* Builds the neighbour lists of S + Sᵀ: every off-diagonal entry (i, j) puts j in i's list
 * and i in j's; repeats (an entry stored both ways) are then dropped with a per-vertex stamp,
 * and the lists are sorted. */
static mmx_status graph_build(mmx_ctx *ctx, const mmx_csc *S, rcm_graph *g)
{
    const mmx_index n = S->nrows;
    memset(g, 0, sizeof *g);
    g->n = n;
    mmx_index *stamp = NULL;
    uint64_t *key = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *g->ptr, (void **)&g->ptr);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *g->deg, (void **)&g->deg);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *stamp, (void **)&stamp);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)S->nnz, sizeof *g->adj, (void **)&g->adj);
    if (s) goto done;

    /* count both directions of every off-diagonal entry, then place them */
    for (mmx_index v = 0; v <= n; v++) g->ptr[v] = 0;
    for (mmx_index j = 0; j < S->ncols; j++) {
        int64_t a, b;
        mmx__csc_col(S, j, &a, &b);
        for (int64_t k = a; k < b; k++)
            if (S->rowidx[k] != j) g->ptr[S->rowidx[k] + 1]++, g->ptr[j + 1]++;
    }
    for (mmx_index v = 0; v < n; v++) g->ptr[v + 1] += g->ptr[v];
    for (mmx_index v = 0; v < n; v++) g->deg[v] = 0; /* fill cursor for now */
    for (mmx_index j = 0; j < S->ncols; j++) {
        int64_t a, b;
        mmx__csc_col(S, j, &a, &b);
        for (int64_t k = a; k < b; k++) {
            mmx_index i = S->rowidx[k];
            if (i == j) continue;
            g->adj[g->ptr[i] + g->deg[i]++] = j;
            g->adj[g->ptr[j] + g->deg[j]++] = i;
        }
    }

    /* drop repeats, compacting the lists leftwards in place */
    for (mmx_index v = 0; v < n; v++) stamp[v] = -1;
    int64_t w = 0;
    mmx_index maxdeg = 0;
    for (mmx_index v = 0; v < n; v++) {
        int64_t a = g->ptr[v], b = g->ptr[v + 1];
        g->ptr[v] = w;
        for (int64_t k = a; k < b; k++) {
            mmx_index u = g->adj[k];
            if (stamp[u] == v) continue;
            stamp[u] = v;
            g->adj[w++] = u;
        }
        g->deg[v] = (mmx_index)(w - g->ptr[v]);
        if (g->deg[v] > maxdeg) maxdeg = g->deg[v];
    }
    g->ptr[n] = w;

    s = mmx__host_alloc(ctx, (size_t)maxdeg, sizeof *key, (void **)&key);
    if (s) goto done;
    for (mmx_index v = 0; v < n; v++) sort_by_degree(g, g->adj + g->ptr[v], g->deg[v], key);
done:
    free(stamp);
    free(key);
    if (s) graph_free(g);
    return s;
}

/* Breadth-first level structure rooted at `root`, in queue[0 .. *count): returns the
 * eccentricity of root (the number of levels after the root's) and the start of the last
 * level in *last. `seen` is all zero on entry and is left so. */
static mmx_index level_structure(const rcm_graph *g, mmx_index root, mmx_index *queue,
                                 unsigned char *seen, mmx_index *last, mmx_index *count)
{
    mmx_index tail = 0, begin = 0, ecc = 0;
    queue[tail++] = root;
    seen[root] = 1;
    for (;;) {
        mmx_index end = tail;
        for (mmx_index h = begin; h < end; h++) {
            mmx_index v = queue[h];
            for (int64_t k = g->ptr[v]; k < g->ptr[v + 1]; k++)
                if (!seen[g->adj[k]]) {
                    seen[g->adj[k]] = 1;
                    queue[tail++] = g->adj[k];
                }
        }
        if (tail == end) break;
        begin = end;
        ecc++;
    }
    for (mmx_index h = 0; h < tail; h++) seen[queue[h]] = 0;
    *last = begin;
    *count = tail;
    return ecc;
}

/* George and Liu's pseudo-peripheral vertex of start's component: root the level structure at
 * a vertex of minimum degree (ties: smallest index) in the last level, as long as that makes
 * the eccentricity grow. */
static mmx_index pseudo_peripheral(const rcm_graph *g, mmx_index start, mmx_index *queue,
                                   unsigned char *seen)
{
    mmx_index last, count, r = start;
    mmx_index ecc = level_structure(g, r, queue, seen, &last, &count);
    for (;;) {
        mmx_index x = queue[last];
        for (mmx_index h = last + 1; h < count; h++)
            if (degree_key(g, queue[h]) < degree_key(g, x)) x = queue[h];
        mmx_index ecc_x = level_structure(g, x, queue, seen, &last, &count);
        if (ecc_x <= ecc) return r;
        r = x;
        ecc = ecc_x;
    }
}

/* The statement: for each component (in order of its smallest vertex), Cuthill-McKee from a
 * pseudo-peripheral vertex: a breadth-first search that numbers the unnumbered neighbours of
 * each vertex in increasing degree (ties by index); then the whole order is reversed. */
static mmx_status rcm_host(mmx_ctx *ctx, const mmx_csc *S, mmx_index *perm)
{
    const mmx_index n = S->nrows;
    rcm_graph g;
    mmx_index *queue = NULL;
    unsigned char *seen = NULL, *numbered = NULL;
    mmx_status s = graph_build(ctx, S, &g);
    if (s) return s;
    s = mmx__host_alloc(ctx, (size_t)n, sizeof *queue, (void **)&queue);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, 1, (void **)&seen);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, 1, (void **)&numbered);
    if (!s) {
        memset(seen, 0, (size_t)n);
        memset(numbered, 0, (size_t)n);
        mmx_index next = 0;
        for (mmx_index start = 0; start < n; start++) {
            if (numbered[start]) continue;
            mmx_index r = pseudo_peripheral(&g, start, queue, seen);
            mmx_index head = next;
            perm[next++] = r;
            numbered[r] = 1;
            while (head < next) {
                mmx_index v = perm[head++];
                for (int64_t k = g.ptr[v]; k < g.ptr[v + 1]; k++)
                    if (!numbered[g.adj[k]]) {
                        numbered[g.adj[k]] = 1;
                        perm[next++] = g.adj[k];
                    }
            }
        }
        for (mmx_index a = 0, b = n - 1; a < b; a++, b--) {
            mmx_index t = perm[a];
            perm[a] = perm[b];
            perm[b] = t;
        }
    }
    free(queue);
    free(seen);
    free(numbered);
    graph_free(&g);
    return s;
}

mmx_status mmx_rcm(mmx_ctx *ctx, const mmx_csc *S, mmx_index *perm)
{
    MMX__NEED_CTX(ctx);
    if (!S) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_rcm: matrix is NULL");
    if (S->nrows != S->ncols)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_rcm: the matrix is %d x %d, not square",
                         S->nrows, S->ncols);
    if (!perm && S->nrows > 0) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_rcm: perm is NULL");
    mmx_status s = mmx__check_space(ctx, S->space, "matrix");
    if (s) return s;
    if (S->space == MMX_SPACE_HOST) return rcm_host(ctx, S, perm);
    /* A sequential graph search: read the device matrix on the host. */
    mmx_csc *H = NULL;
    s = mmx_csc_copy(ctx, S, MMX_SPACE_HOST, &H);
    if (!s) s = rcm_host(ctx, H, perm);
    mmx_csc_free(H);
    return s;
}
