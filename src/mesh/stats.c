/* Mesh inspection: sizes, face orders, edges, boundary loops, non-manifold elements,
 * orientation, components, Euler characteristic and genus, in O(nnz) time and memory on the host.
 *
 * Everything is read off the vertex stars. Every corner becomes a record (its vertex, the vertex
 * before it and the one after it in its face), and the records are grouped by vertex with a
 * counting sort done in two cache-sized steps (first by the high bits of the vertex into a few
 * thousand runs, then by the low bits inside each run), because one global scatter over millions
 * of vertices misses the cache on every record when the input is in scanned (shuffled) order.
 *
 * In the star of v, each corner gives two edge ends: (v, next), run v -> next, and (prev, v),
 * run prev -> v. Grouping the ends by their other vertex u (a small sort inside the star) gives
 * every edge (v, u) with its face sides: counted once, at the smaller end, as boundary (one
 * side), interior (two; inconsistent when both run it the same way) or non-manifold (three or
 * more). Corners whose faces share an edge at v are joined in a small union-find: its classes
 * are v's fans. A boundary edge links the fan at each of its ends; loops are the components of
 * that graph over fans, so two holes that touch at a vertex are still told apart. Components
 * come from a union-find over vertices joined along edges. */
#include <string.h>
#include "mesh_internal.h"

#if defined(__GNUC__)
#define MMX__PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define MMX__PREFETCH_W(p) ((void)(p))
#endif

/* A corner of a face: its vertex, and the vertices before and after it. */
typedef struct corner_rec {
    mmx_index v, prev, next;
} corner_rec;

/* A corner in its vertex's star. */
typedef struct star_rec {
    mmx_index prev, next;
} star_rec;

/* A boundary edge seen from its smaller end, waiting for its larger end: the fan at lo. */
typedef struct bnd_rec {
    mmx_index lo, hi, fan;
} bnd_rec;

/* Union-find over indices; roots are their own parents. Find halves the path as it goes. */
static mmx_index uf_find(mmx_index *p, mmx_index x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* Joins the classes of x and y; 1 if they were apart. Rem's algorithm with splicing: parents
 * always have smaller indices, the two paths are climbed together from the side whose parent is
 * larger, and every step re-points a node to the other path's lower parent. It stops where the
 * paths meet, which is often well below the roots; on scanned (shuffled) vertex order it chases
 * far fewer cache lines than two full finds. */
static int uf_union(mmx_index *p, mmx_index x, mmx_index y)
{
    while (p[x] != p[y]) {
        if (p[x] > p[y]) {
            if (x == p[x]) {
                p[x] = p[y];
                return 1;
            }
            mmx_index z = x;
            x = p[x];
            p[z] = p[y];
        } else {
            if (y == p[y]) {
                p[y] = p[x];
                return 1;
            }
            mmx_index z = y;
            y = p[y];
            p[z] = p[x];
        }
    }
    return 0;
}

typedef struct work {
    mmx_ctx *ctx;
    unsigned shift;       /* vertex v is in run v >> shift of the first sorting step */
    size_t nruns;
    mmx_index *run;       /* nruns + 1: start of each run in rec */
    mmx_index *cur;       /* max(nruns, 1 << shift) + 1: cursors and counts of both steps */
    corner_rec *rec;      /* nnz: corners, grouped by run */
    star_rec *star;       /* nnz: corners grouped by vertex */
    mmx_index *vstart;    /* nv + 1: the star of v is star[vstart[v] .. vstart[v+1]) */
    mmx_index *vpar;      /* nv: vertex union-find (components) */
    mmx_index *bcur;      /* nv: next boundary record of v to be matched from its other end */
    mmx_index maxk;       /* largest star */
    uint64_t *ends, *ends2; /* 2 maxk: (u << 32) | (corner << 1) | (runs v -> u) */
    mmx_index *lpar;      /* maxk: fans of the current star */
    mmx_index *fid;       /* maxk: loop-graph node of each fan of the current star, or -1 */
    uint64_t *bends;      /* 2 maxk: boundary ends of the current star, (u << 32) | corner */
    bnd_rec *brec;        /* growable: boundary edges seen from their smaller end */
    size_t nbrec, capbrec;
    mmx_index *fpar;      /* growable: union-find over the fans that touch the boundary */
    size_t nfans, capfans;
} work;

static void work_free(work *w)
{
    free(w->run);
    free(w->cur);
    free(w->rec);
    free(w->star);
    free(w->vstart);
    free(w->vpar);
    free(w->bcur);
    free(w->ends);
    free(w->ends2);
    free(w->lpar);
    free(w->fid);
    free(w->bends);
    free(w->brec);
    free(w->fpar);
}

/* First entry of face f in either form; order * f cannot overflow as it is at most nnz. */
static inline mmx_index face_begin(const mmx_csc *M, mmx_index f)
{
    return M->order ? M->order * f : M->colptr[f];
}

/* Grows a host array to hold at least n + 1 elements. */
static mmx_status grow(mmx_ctx *ctx, void **a, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return MMX_OK;
    size_t c = *cap ? 2 * *cap : 1024, bytes;
    if (!mmx__mul_ok(c, size, &bytes)) return mmx__fail(ctx, MMX_ERR_NOMEM, "mesh stats: boundary list too large");
    void *p = realloc(*a, bytes);
    if (!p) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for %zu bytes of boundary edges", bytes);
    *a = p;
    *cap = c;
    return MMX_OK;
}

/* Face orders, and the size of every run of the first sorting step. */
static void scan_faces(const mmx_csc *M, work *w, mmx_mesh_stats *st)
{
    const mmx_index *ri = M->rowidx;
    for (mmx_index f = 0; f < M->ncols; f++) {
        mmx_index s = face_begin(M, f), e = face_begin(M, f + 1), n = e - s;
        st->order_hist[n < MMX_STATS_ORDERS - 1 ? n : MMX_STATS_ORDERS - 1]++;
        if (f == 0 || n < st->min_order) st->min_order = n;
        if (n > st->max_order) st->max_order = n;
        for (mmx_index k = s; k < e; k++) w->run[(ri[k] >> w->shift) + 1]++;
    }
    st->uniform_order = M->ncols > 0 && st->min_order == st->max_order ? st->min_order : 0;
}

/* Step one: corner records into their runs. */
static void fill_runs(const mmx_csc *M, work *w)
{
    const mmx_index *ri = M->rowidx;
    for (size_t r = 0; r < w->nruns; r++) w->cur[r] = w->run[r];
    for (mmx_index f = 0; f < M->ncols; f++) {
        mmx_index s = face_begin(M, f), e = face_begin(M, f + 1);
        for (mmx_index k = s; k < e; k++) {
            mmx_index v = ri[k];
            corner_rec c = {v, ri[k > s ? k - 1 : e - 1], ri[k + 1 < e ? k + 1 : s]};
            w->rec[w->cur[v >> w->shift]++] = c;
        }
    }
}

/* Step two: inside each run, a counting sort by vertex; its counts give vstart. */
static void fill_stars(const mmx_csc *M, work *w)
{
    const mmx_index nv = M->nrows;
    w->maxk = 0;
    for (size_t r = 0; r < w->nruns; r++) {
        mmx_index base = (mmx_index)(r << w->shift);
        mmx_index nloc = nv - base < ((mmx_index)1 << w->shift) ? nv - base : (mmx_index)1 << w->shift;
        mmx_index *cnt = w->cur;
        memset(cnt, 0, (size_t)nloc * sizeof *cnt);
        for (mmx_index j = w->run[r]; j < w->run[r + 1]; j++) cnt[w->rec[j].v - base]++;
        mmx_index at = w->run[r];
        for (mmx_index i = 0; i < nloc; i++) {
            mmx_index k = cnt[i];
            if (k > w->maxk) w->maxk = k;
            w->vstart[base + i] = at;
            cnt[i] = at;
            at += k;
        }
        for (mmx_index j = w->run[r]; j < w->run[r + 1]; j++) {
            const corner_rec *c = &w->rec[j];
            w->star[cnt[c->v - base]++] = (star_rec){c->prev, c->next};
        }
    }
    w->vstart[nv] = M->nnz;
}

/* Sorts n edge ends by their other vertex u (the high 32 bits, below 2^wbits): insertion sort
 * for the few ends of an ordinary star, an LSD radix sort on bytes for a high-valence one, so
 * that a pole stays linear. Returns the array holding the result (a or tmp). */
static uint64_t *sort_ends(uint64_t *a, uint64_t *tmp, size_t n, unsigned wbits)
{
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return a;
    }
    return mmx__radix_sort_u64(a, tmp, NULL, NULL, n, 32, 32 + (wbits + 7) / 8 * 8, NULL);
}

/* Everything about the star of v that has corners. */
static mmx_status do_star(work *w, mmx_index v, unsigned wbits, mmx_mesh_stats *st)
{
    const star_rec *sr = w->star + w->vstart[v];
    mmx_index k = w->vstart[v + 1] - w->vstart[v];
    for (mmx_index i = 0; i < k; i++) {
        w->ends[2 * i] = (uint64_t)(uint32_t)sr[i].next << 32 | (uint64_t)i << 1 | 1u;
        w->ends[2 * i + 1] = (uint64_t)(uint32_t)sr[i].prev << 32 | (uint64_t)i << 1;
        w->lpar[i] = i;
        w->fid[i] = -1;
    }
    const uint64_t *e = sort_ends(w->ends, w->ends2, 2 * (size_t)k, wbits);
    size_t nbends = 0;
    int nm = 0;
    for (size_t j = 0, m; j < 2 * (size_t)k; j += m) {
        mmx_index u = (mmx_index)(e[j] >> 32);
        for (m = 1; j + m < 2 * (size_t)k && (mmx_index)(e[j + m] >> 32) == u; m++) {
            /* both faces have the edge (v, u), so their corners at v are in one fan */
            uf_union(w->lpar, (mmx_index)((uint32_t)e[j] >> 1), (mmx_index)((uint32_t)e[j + m] >> 1));
        }
        if (m >= 3) nm = 1;
        if (m == 1) w->bends[nbends++] = (e[j] & ~(uint64_t)UINT32_MAX) | ((uint32_t)e[j] >> 1);
        if (u < v) continue;  /* counted at its smaller end */
        st->nedges++;
        uf_union(w->vpar, v, u);
        if (m == 1)
            st->boundary_edges++;
        else if (m == 2 && (e[j] & 1) == (e[j + 1] & 1)) {
            if (st->inconsistent_edges++ == 0) st->inconsistent_edge[0] = v, st->inconsistent_edge[1] = u;
        } else if (m >= 3)
            st->nonmanifold_edges++;
    }
    mmx_index fans = 0;
    for (mmx_index i = 0; i < k; i++) fans += uf_find(w->lpar, i) == i;
    if ((fans > 1 || nm) && st->nonmanifold_verts++ == 0) st->first_nonmanifold_vert = v;

    /* Boundary edges: a node of the loop graph per fan they touch, a link per edge made when its
     * larger end is reached. Records of v are appended in increasing u and looked up in
     * increasing v, so one cursor per vertex finds each without a search. */
    w->bcur[v] = (mmx_index)w->nbrec;
    for (size_t b = 0; b < nbends; b++) {
        mmx_index u = (mmx_index)(w->bends[b] >> 32), r = uf_find(w->lpar, (mmx_index)(uint32_t)w->bends[b]);
        if (w->fid[r] < 0) {
            mmx_status s = grow(w->ctx, (void **)&w->fpar, &w->capfans, w->nfans, sizeof *w->fpar);
            if (s) return s;
            w->fpar[w->nfans] = (mmx_index)w->nfans;
            w->fid[r] = (mmx_index)w->nfans++;
        }
        if (u > v) {
            mmx_status s = grow(w->ctx, (void **)&w->brec, &w->capbrec, w->nbrec, sizeof *w->brec);
            if (s) return s;
            w->brec[w->nbrec++] = (bnd_rec){v, u, w->fid[r]};
            continue;
        }
        /* On a valid mesh the record is always there; the check keeps a malformed matrix (a
         * vertex twice in a face) from reading out of place. */
        mmx_index c = w->bcur[u];
        if ((size_t)c < w->nbrec && w->brec[c].lo == u && w->brec[c].hi == v) {
            st->boundary_loops -= uf_union(w->fpar, w->fid[r], w->brec[c].fan);
            w->bcur[u]++;
        }
    }
    return MMX_OK;
}

/* Used and isolated vertices, components and the bounding box. */
static mmx_index scan_vertices(const mmx_mesh *mesh, work *w, mmx_mesh_stats *st)
{
    mmx_index used = 0;
    for (mmx_index v = 0; v < mesh->M->nrows; v++) {
        if (w->vstart[v + 1] == w->vstart[v]) continue;
        if (uf_find(w->vpar, v) == v) st->components++;
        if (mesh->pos) {
            const float *p = mesh->pos + 3 * (size_t)v;
            for (int d = 0; d < 3; d++) {
                if (used == 0 || p[d] < st->bbox_min[d]) st->bbox_min[d] = p[d];
                if (used == 0 || p[d] > st->bbox_max[d]) st->bbox_max[d] = p[d];
            }
        }
        used++;
    }
    st->isolated_verts = mesh->M->nrows - used;
    return used;
}

static mmx_status stats_host(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_stats *st)
{
    const mmx_csc *M = mesh->M;
    const size_t nv = (size_t)M->nrows, nnz = (size_t)M->nnz, ix = sizeof(mmx_index);
    work w;
    memset(&w, 0, sizeof w);
    w.ctx = ctx;
    /* Runs of 2^11 vertices or more, and at most about 4096 runs: the first step writes to few
     * enough places at once, and the counts of the second fit in the L1 or L2 cache. */
    w.shift = 11;
    while ((nv >> w.shift) > 4096) w.shift++;
    w.nruns = nv ? ((nv - 1) >> w.shift) + 1 : 0;
    size_t ncur = w.nruns > ((size_t)1 << w.shift) ? w.nruns : (size_t)1 << w.shift;
    unsigned wbits = 1;
    while (wbits < 31 && (nv - (nv > 0)) >> wbits) wbits++;

    mmx_status s = mmx__host_alloc(ctx, w.nruns + 1, ix, (void **)&w.run);
    if (!s) s = mmx__host_alloc(ctx, ncur + 1, ix, (void **)&w.cur);
    if (!s) s = mmx__host_alloc(ctx, nnz, sizeof *w.rec, (void **)&w.rec);
    if (!s) s = mmx__host_alloc(ctx, nnz, sizeof *w.star, (void **)&w.star);
    if (!s) s = mmx__host_alloc(ctx, nv + 1, ix, (void **)&w.vstart);
    if (s) goto done;
    memset(w.run, 0, (w.nruns + 1) * ix);
    scan_faces(M, &w, st);
    for (size_t r = 0; r < w.nruns; r++) w.run[r + 1] += w.run[r];
    fill_runs(M, &w);
    fill_stars(M, &w);
    free(w.rec);
    w.rec = NULL;

    s = mmx__host_alloc(ctx, nv, ix, (void **)&w.vpar);
    if (!s) s = mmx__host_alloc(ctx, nv, ix, (void **)&w.bcur);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)w.maxk, sizeof *w.ends, (void **)&w.ends);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)w.maxk, sizeof *w.ends2, (void **)&w.ends2);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)w.maxk, sizeof *w.bends, (void **)&w.bends);
    if (!s) s = mmx__host_alloc(ctx, (size_t)w.maxk, ix, (void **)&w.lpar);
    if (!s) s = mmx__host_alloc(ctx, (size_t)w.maxk, ix, (void **)&w.fid);
    if (s) goto done;
    for (size_t v = 0; v < nv; v++) w.vpar[v] = (mmx_index)v;
    /* boundary_loops counts down one per link that joins two parts of the loop graph. */
    for (mmx_index v = 0; v < M->nrows && !s; v++) {
        /* The union-find entries of the neighbours are the random reads of this pass: ask for
         * those of a star a little ahead so that their misses overlap. */
        const mmx_index ahead = 16;
        if (v < M->nrows - ahead)
            for (mmx_index j = w.vstart[v + ahead]; j < w.vstart[v + ahead + 1]; j++)
                MMX__PREFETCH_W(&w.vpar[w.star[j].next]);
        if (w.vstart[v + 1] > w.vstart[v]) s = do_star(&w, v, wbits, st);
    }
    if (s) goto done;
    st->boundary_loops += (mmx_index)w.nfans;
    mmx_index used = scan_vertices(mesh, &w, st);

    st->euler = (int64_t)used - st->nedges + M->ncols;
    st->manifold = st->nonmanifold_edges == 0 && st->nonmanifold_verts == 0;
    st->oriented = st->manifold && st->inconsistent_edges == 0;
    if (st->oriented) {
        /* Each oriented manifold component has euler = 2 - 2 genus - loops. The sum is even
         * and non-negative on such a mesh; the checks keep a bug from reading as a genus. */
        int64_t g2 = 2 * (int64_t)st->components - st->euler - st->boundary_loops;
        if (g2 >= 0 && g2 % 2 == 0 && g2 / 2 <= MMX_INDEX_MAX) {
            st->genus_valid = 1;
            st->genus = (mmx_index)(g2 / 2);
        }
    }
done:
    work_free(&w);
    return s;
}

mmx_status mmx_mesh_stats_compute(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_stats *st)
{
    if (!mesh || !mesh->M || !st)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_stats_compute: NULL argument");
    memset(st, 0, sizeof *st);
    st->first_nonmanifold_vert = st->inconsistent_edge[0] = st->inconsistent_edge[1] = -1;
    st->repeated_face[0] = st->repeated_face[1] = -1;
    const mmx_mesh *h;
    mmx_status s = mmx__mesh_host_view(ctx, mesh, &h);
    if (s) return s;
    st->nverts = h->M->nrows;
    st->nfaces = h->M->ncols;
    st->ncorners = h->M->nnz;
    s = stats_host(ctx, h, st);
    mmx__repeated rep;
    if (!s) s = mmx__mesh_repeated_faces(ctx, h->M, &rep);
    if (!s) {
        st->repeated_faces = rep.count;
        st->repeated_face[0] = rep.first, st->repeated_face[1] = rep.second;
        st->repeated_orientation = rep.relation;
    }
    mmx__mesh_host_release(mesh, h);
    if (s) memset(st, 0, sizeof *st);  /* no half-filled result */
    return s;
}
