/* The eight first-order queries by algebra (query.h): each read off the mesh matrix M and its
 * adjacency (E, F, FE, EV: mesh.h).
 *
 *   FV = the columns of M;  FE = fe >> 1 per corner;  EV = ev;
 *   EF = the transpose of the corner -> edge incidence (a stable sort of the corners by edge:
 *        faces ascending within an edge);
 *   FF = per corner of f, the faces of its edge in EF other than f;
 *   VF, VE, VV = walks around each vertex: from v's corner in face f, with u before v, the
 *        next face counter-clockwise is F(v, u) when E(u, v) = 2 (query_steps.h).
 *
 * Rows are counted, the counts scanned into row pointers, then filled. The flow (sizes,
 * allocation, the one read-back) is here for both backends; the stages run on the host below
 * or on the device in query.cu, the vertex walks through the same steps (query_steps.h). */
#include <string.h>
#include "query_steps.h"

static const char *const names[MMX_QUERY_COUNT] = {"VV", "VE", "VF", "EV", "EF", "FV", "FE", "FF"};

const char *mmx_query_name(mmx_query_kind kind)
{
    return (int)kind >= 0 && kind < MMX_QUERY_COUNT ? names[kind] : "?";
}

mmx_status mmx_query_parse(mmx_ctx *ctx, const char *name, mmx_query_kind *kind)
{
    if (!name || !kind) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query_parse: name or kind is NULL");
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        const char *n = names[k];
        int same = strlen(name) == 2;
        for (int i = 0; same && i < 2; i++) same = name[i] == n[i] || name[i] == n[i] - 'A' + 'a';
        if (same) {
            *kind = (mmx_query_kind)k;
            return MMX_OK;
        }
    }
    return mmx__fail(ctx, MMX_ERR_ARG,
                     "unknown query '%s' (expected VV, VE, VF, EV, EF, FV, FE or FF)", name);
}

void mmx_csr_free(mmx_csr *A)
{
    if (!A) return;
    /* Device arrays go back to the maker's pool, after the work queued on its stream. */
    mmx_mem_free(A->ctx, A->space, (void *)A->rowptr);
    mmx_mem_free(A->ctx, A->space, (void *)A->colidx);
    mmx_mem_free(A->ctx, A->space, (void *)A->val);
    free(A);
}

/* ---- the host stages ------------------------------------------------------------------- */

/* The corners sorted by their edge (by_edge) or their vertex: a counting sort, corners visited
 * in ascending order, so each key's corners (and their faces) come out ascending. */
static mmx_status sort_corners_host(mmx_ctx *ctx, const mmx__query_topo *T, int by_edge,
                                    mmx_index nkeys, mmx_index *faces, mmx_index *corners)
{
    mmx_index *next = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nkeys + 1, sizeof *next, (void **)&next);
    if (s) return s;
    memset(next, 0, ((size_t)nkeys + 1) * sizeof *next);
    for (mmx_index c = 0; c < T->nnz; c++) next[(by_edge ? T->fe[c] >> 1 : T->M[c]) + 1]++;
    for (mmx_index k = 0; k < nkeys; k++) next[k + 1] += next[k];
    for (mmx_index f = 0; f < T->nf; f++) {
        const mmx_index a = mmx__query_face_start(T, f);
        const mmx_index b = T->order ? a + T->order : T->colptr[f + 1];
        for (mmx_index c = a; c < b; c++) {
            const mmx_index slot = next[by_edge ? T->fe[c] >> 1 : T->M[c]]++;
            if (faces) faces[slot] = f;
            if (corners) corners[slot] = c;
        }
    }
    free(next);
    return MMX_OK;
}

/* The smallest inconsistent edge, as a rank that folds by maximum from 0. */
static mmx_status check_host(const mmx__query_topo *T, const mmx_index *ev, mmx_index ne,
                             mmx__query_report *r)
{
    for (mmx_index e = 0; e < ne; e++)
        if (mmx__query_inconsistent(T, ev, e)) {
            r->bad_rank = ne - e;
            break;
        }
    return MMX_OK;
}

static mmx_status counts_host(const mmx__query_topo *T, mmx_query_kind kind, mmx_index *counts,
                              mmx__query_report *r)
{
    if (kind == MMX_QUERY_FF) {
        for (mmx_index f = 0; f < T->nf; f++) {
            const int64_t n = mmx__query_ff_count(T, f);
            counts[f] = (mmx_index)n; /* wraps only when the total is refused */
            r->total += (unsigned long long)n;
        }
        return MMX_OK;
    }
    for (mmx_index v = 0; v < T->nv; v++) {
        mmx_index opens;
        counts[v] = mmx__query_vertex_count(T, kind, v, &opens);
        r->total += (unsigned long long)(T->Lptr[v + 1] - T->Lptr[v]) +
                    (kind == MMX_QUERY_VF ? 0u : (unsigned long long)opens);
    }
    return MMX_OK;
}

static void fill_host(const mmx__query_topo *T, mmx_query_kind kind, const mmx_index *ef_ptr,
                      const mmx_index *ef, unsigned char *seen, const mmx_index *rowptr,
                      mmx_index *colidx)
{
    if (kind == MMX_QUERY_FF) {
        for (mmx_index f = 0; f < T->nf; f++) mmx__query_ff_row(T, ef_ptr, ef, f, colidx + rowptr[f]);
        return;
    }
    for (mmx_index v = 0; v < T->nv; v++)
        mmx__query_vertex_row(T, kind, v, seen, colidx + rowptr[v], rowptr[v + 1] - rowptr[v]);
}

/* ---- dispatch of a stage by backend ---------------------------------------------------- */

static int on_cuda(const mmx_ctx *ctx) { return mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA; }

mmx_status mmx__query_sort_corners(mmx_ctx *ctx, const mmx__query_topo *T, int by_edge,
                                   mmx_index nkeys, mmx_index *faces, mmx_index *corners)
{
    if (T->nnz == 0) return MMX_OK;
    return on_cuda(ctx) ? mmx__query_sort_corners_cuda(ctx, T, by_edge, nkeys, faces, corners)
                        : sort_corners_host(ctx, T, by_edge, nkeys, faces, corners);
}

mmx_status mmx__query_check(mmx_ctx *ctx, const mmx__query_topo *T, const mmx_index *ev,
                            mmx_index ne, mmx__query_report *r)
{
    if (ne == 0) return MMX_OK;
    return on_cuda(ctx) ? mmx__query_check_cuda(ctx, T, ev, ne, r) : check_host(T, ev, ne, r);
}

/* ---- the flow ---------------------------------------------------------------------------- */

/* What one query holds while it runs: the result and its scratch. */
typedef struct job {
    mmx_ctx *ctx;
    mmx_space space;
    mmx__query_topo T;
    const mmx_adjacency *adj;
    mmx_csr *out;
    mmx_index *rowptr, *colidx; /* the result's arrays, as the job writes them */
    mmx_index *counts, *ef_ptr, *ef, *L, *Lptr;
    unsigned char *seen;
} job;

static mmx_status job_alloc(job *J, size_t n, size_t size, void **p)
{
    size_t bytes;
    if (!mmx__mul_ok(n, size, &bytes))
        return mmx__fail(J->ctx, MMX_ERR_OVERFLOW, "query: %zu entries overflow memory", n);
    return mmx_mem_alloc(J->ctx, J->space, bytes, p);
}

static void job_release(job *J)
{
    mmx_mem_free(J->ctx, J->space, J->counts);
    mmx_mem_free(J->ctx, J->space, J->ef_ptr);
    mmx_mem_free(J->ctx, J->space, J->ef);
    mmx_mem_free(J->ctx, J->space, J->L);
    mmx_mem_free(J->ctx, J->space, J->Lptr);
    mmx_mem_free(J->ctx, J->space, J->seen);
}

/* The result's rows as a general matrix of rows x cols with nnz entries (rowptr allocated,
 * colidx allocated unless the caller sets it). */
static mmx_status result_general(job *J, mmx_index rows, mmx_index cols, mmx_index nnz)
{
    if (rows == MMX_INDEX_MAX)
        return mmx__fail(J->ctx, MMX_ERR_OVERFLOW, "query: %d rows do not fit 32-bit row pointers", rows);
    J->out->nrows = rows;
    J->out->ncols = cols;
    J->out->nnz = nnz;
    mmx_status s = job_alloc(J, (size_t)rows + 1, sizeof(mmx_index), (void **)&J->rowptr);
    J->out->rowptr = J->rowptr;
    if (!s) s = job_alloc(J, (size_t)nnz, sizeof(mmx_index), (void **)&J->colidx);
    J->out->colidx = J->colidx;
    return s;
}

/* FV, FE, EV: a copy or a map of arrays of the mesh and the adjacency; reduced when every row
 * has one length. */
static mmx_status query_direct(job *J, const mmx_csc *M, mmx_query_kind kind)
{
    const mmx_adjacency *adj = J->adj;
    mmx_csr *R = J->out;
    const size_t ix = sizeof(mmx_index);
    mmx_status s;
    if (kind == MMX_QUERY_EV) {
        R->nrows = adj->nedges;
        R->ncols = adj->nverts;
        if ((int64_t)adj->nedges * 2 > MMX_INDEX_MAX)
            return mmx__fail(J->ctx, MMX_ERR_OVERFLOW, "query EV: 2 x %d edges overflow an index", adj->nedges);
        R->nnz = 2 * adj->nedges;
        R->order = 2;
        s = job_alloc(J, (size_t)R->nnz, ix, (void **)&J->colidx);
        R->colidx = J->colidx;
        if (!s && R->nnz) s = mmx_mem_copy(J->ctx, J->colidx, J->space, adj->ev, J->space, (size_t)R->nnz * ix);
        return s;
    }
    const mmx_index order = M->order ? M->order : adj->face_order;
    const mmx_index cols = kind == MMX_QUERY_FV ? M->nrows : adj->nedges;
    if (order > 0) {
        R->nrows = M->ncols;
        R->ncols = cols;
        R->nnz = M->nnz;
        R->order = order;
        s = job_alloc(J, (size_t)M->nnz, ix, (void **)&J->colidx);
        R->colidx = J->colidx;
    } else {
        s = result_general(J, M->ncols, cols, M->nnz);
        if (!s) s = mmx_mem_copy(J->ctx, J->rowptr, J->space, M->colptr, J->space, ((size_t)M->ncols + 1) * ix);
    }
    if (s || M->nnz == 0) return s;
    if (kind == MMX_QUERY_FV)
        return mmx_mem_copy(J->ctx, J->colidx, J->space, M->rowidx, J->space, (size_t)M->nnz * ix);
    if (on_cuda(J->ctx)) return mmx__query_fe_cuda(J->ctx, adj->fe, M->nnz, J->colidx);
    for (mmx_index c = 0; c < M->nnz; c++) J->colidx[c] = adj->fe[c] >> 1;
    return MMX_OK;
}

/* EF into ef_ptr / ef (the result's arrays for EF, scratch for FF): offsets of E's values,
 * then the corners sorted by edge. */
static mmx_status build_ef(job *J, mmx_index *ef_ptr, mmx_index *ef)
{
    mmx_status s = mmx__scan_offsets(J->ctx, J->adj->sides, J->adj->nedges, ef_ptr);
    return s ? s : mmx__query_sort_corners(J->ctx, &J->T, 1, J->adj->nedges, ef, NULL);
}

/* VV, VE, VF, FF: rows whose lengths need a count; their total and the orientation check come
 * back in one read-back. */
static mmx_status query_counted(job *J, mmx_query_kind kind)
{
    mmx_ctx *ctx = J->ctx;
    mmx__query_topo *T = &J->T;
    const mmx_adjacency *adj = J->adj;
    const int ff = kind == MMX_QUERY_FF;
    const mmx_index rows = ff ? T->nf : T->nv;
    const size_t ix = sizeof(mmx_index);
    mmx__readback rb;
    mmx__query_report *rep = NULL;
    mmx_status s = mmx__readback_open(ctx, &rb);
    if (s) return s;
    s = mmx__readback_slot(&rb, sizeof *rep, (void **)&rep);
    if (!s) s = job_alloc(J, (size_t)rows + 1, ix, (void **)&J->counts);
    if (!s && ff) {
        s = job_alloc(J, (size_t)adj->nedges + 1, ix, (void **)&J->ef_ptr);
        if (!s) s = job_alloc(J, (size_t)T->nnz, ix, (void **)&J->ef);
        if (!s) s = build_ef(J, J->ef_ptr, J->ef);
    }
    if (!s && !ff) {
        /* The corner lists (Mᵀ's pattern with corner numbers) and the orientation check. */
        s = job_alloc(J, (size_t)T->nv + 1, ix, (void **)&J->Lptr);
        if (!s) s = job_alloc(J, (size_t)T->nnz, ix, (void **)&J->L);
        if (!s) s = mmx__scan_offsets(ctx, adj->valence, T->nv, J->Lptr);
        T->Lptr = J->Lptr;
        T->L = J->L;
        if (!s) s = mmx__query_sort_corners(ctx, T, 0, T->nv, NULL, J->L);
        if (!s) s = mmx__query_check(ctx, T, adj->ev, adj->nedges, rep);
    }
    if (!s && rows > 0)
        s = on_cuda(ctx) ? mmx__query_counts_cuda(ctx, T, kind, J->counts, rep)
                         : counts_host(T, kind, J->counts, rep);
    if (!s) s = result_general(J, rows, ff ? T->nf : kind == MMX_QUERY_VV ? T->nv
                                            : kind == MMX_QUERY_VE ? adj->nedges : T->nf, 0);
    if (!s) s = mmx__scan_offsets(ctx, J->counts, rows, J->rowptr);
    /* The one wait: the result's size and the orientation verdict. */
    if (!s) s = mmx__readback_wait(&rb);
    mmx__query_report r = {0, 0, 0};
    if (!s) r = *(const mmx__query_report *)mmx__readback_host(&rb, rep);
    mmx__readback_close(&rb);
    if (s) return s;
    if (r.bad_rank > 0) {
        /* The edge's ends, read from the device when it lives there (an error path). */
        const mmx_index e = adj->nedges - r.bad_rank;
        mmx_index ends[2];
        s = mmx_mem_copy(ctx, ends, MMX_SPACE_HOST, adj->ev + 2 * (size_t)e, J->space, sizeof ends);
        if (s) return s;
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "query %s: edge %d {%d, %d} has two faces that run it the same way "
                         "(%d -> %d): the faces are not consistently oriented",
                         mmx_query_name(kind), e, ends[0], ends[1], ends[0], ends[1]);
    }
    if (r.total > (unsigned long long)MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "query %s: %llu entries do not fit 32-bit indices",
                         mmx_query_name(kind), r.total);
    J->out->nnz = (mmx_index)r.total;
    mmx_mem_free(ctx, J->space, J->colidx);
    J->colidx = NULL;
    s = job_alloc(J, (size_t)r.total, ix, (void **)&J->colidx);
    J->out->colidx = J->colidx;
    if (!s && !ff) s = job_alloc(J, (size_t)T->nnz, 1, (void **)&J->seen);
    if (!s && !ff && T->nnz) s = mmx__mem_zero(ctx, J->seen, (size_t)T->nnz);
    if (s || r.total == 0) return s; /* nothing to write (no rows, or only empty ones) */
    if (on_cuda(ctx))
        return mmx__query_fill_cuda(ctx, T, kind, J->ef_ptr, J->ef, J->seen, J->rowptr, J->colidx);
    fill_host(T, kind, J->ef_ptr, J->ef, J->seen, J->rowptr, J->colidx);
    return MMX_OK;
}

/* mmx_query without the mesh's cache: query `kind` computed from `adj` (the mesh's, checked by
 * the caller), which is freed at the end when it is `own` (the caller's computed copy). */
static mmx_status query_compute(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                mmx_query_kind kind, mmx_adjacency *own, mmx_csr **out);

static void free_result(void *R) { mmx_csr_free(R); }

/* A copy of a query result in the context's space (sizes known on the host: no wait). */
static mmx_status result_copy(mmx_ctx *ctx, const mmx_csr *R, mmx_csr **out)
{
    const size_t ix = sizeof(mmx_index);
    mmx_csr *C = calloc(1, sizeof *C);
    if (!C) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a query result");
    *C = (mmx_csr){R->nrows, R->ncols, R->nnz, NULL, NULL, NULL, R->order, R->space, ctx};
    mmx_index *rowptr = NULL, *colidx = NULL;
    mmx_status s = mmx_mem_alloc(ctx, R->space, (size_t)R->nnz * ix, (void **)&colidx);
    C->colidx = colidx;
    if (!s && R->nnz) s = mmx_mem_copy(ctx, colidx, R->space, R->colidx, R->space, (size_t)R->nnz * ix);
    if (!s && R->rowptr) s = mmx_mem_alloc(ctx, R->space, ((size_t)R->nrows + 1) * ix, (void **)&rowptr);
    C->rowptr = rowptr;
    if (!s && R->rowptr)
        s = mmx_mem_copy(ctx, rowptr, R->space, R->rowptr, R->space, ((size_t)R->nrows + 1) * ix);
    if (s) {
        mmx_csr_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}

/* Query `kind` from the mesh's cache: a copy of the result kept by the first call of the kind,
 * which computed it from the cached adjacency (adj) and kept a copy. */
static mmx_status query_cached(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               mmx_query_kind kind, mmx_csr **out)
{
    const mmx_csr *kept = mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_QUERY + (int)kind);
    if (kept) return result_copy(ctx, kept, out);
    mmx_status s = query_compute(ctx, mesh, adj, kind, NULL, out);
    mmx_csr *copy = NULL;
    /* Keeping the copy is not the call's work: a failure to (memory) only costs the next call
     * its computation. */
    if (!s && !result_copy(ctx, *out, &copy) &&
        !mmx__mesh_cache_put(ctx, mesh, MMX__CACHE_QUERY + (int)kind, copy, free_result,
                             ((size_t)copy->nnz + (copy->rowptr ? (size_t)copy->nrows + 1 : 0)) *
                                 sizeof(mmx_index)))
        mmx_csr_free(copy);
    return s;
}

mmx_status mmx_query(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                     mmx_query_kind kind, mmx_csr **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query: out is NULL");
    *out = NULL;
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query: mesh is NULL");
    if ((int)kind < 0 || kind >= MMX_QUERY_COUNT)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query: unknown query kind %d", (int)kind);
    const mmx_csc *M = mesh->M;
    mmx_status s = mmx__check_space(ctx, M->space, "mmx_query: mesh");
    if (!s && M->space != mmx_ctx_space(ctx))
        s = mmx__fail(ctx, MMX_ERR_SPACE,
                      "mmx_query: the mesh is in host memory but the context is on the CUDA backend");
    if (s) return s;
    if (adj && (adj->space != M->space || adj->nverts != M->nrows || adj->nfaces != M->ncols))
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_query: the adjacency (%d vertices, %d faces) is not the mesh's (%d, %d) "
                         "or lives in another space", adj->nverts, adj->nfaces, M->nrows, M->ncols);
    /* Without an adjacency of the caller's (or with the cached one), the mesh's cache: its
     * adjacency, and the results of the kinds that take more than a copy (mesh.h). */
    mmx_adjacency *own = NULL;
    const mmx_adjacency *cached = mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_ADJ);
    if (!adj || adj == cached) {
        s = mmx__mesh_adjacency(ctx, mesh, &adj, &own);
        if (s) return s;
    }
    /* FV, FE and EV are copies of the mesh's and the adjacency's arrays already. */
    if (!own && adj == mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_ADJ) && kind != MMX_QUERY_FV &&
        kind != MMX_QUERY_FE && kind != MMX_QUERY_EV)
        return query_cached(ctx, mesh, adj, kind, out);
    return query_compute(ctx, mesh, adj, kind, own, out);
}

static mmx_status query_compute(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                mmx_query_kind kind, mmx_adjacency *own, mmx_csr **out)
{
    const mmx_csc *M = mesh->M;
    mmx_status s = MMX_OK;
    job J = {0};
    J.ctx = ctx;
    J.space = M->space;
    J.adj = adj;
    J.T = (mmx__query_topo){M->nrows, M->ncols, M->nnz, M->order, M->colptr, M->rowidx, adj->fe,
                            adj->sides, adj->F->colptr, adj->F->rowidx, adj->F->val, NULL, NULL};
    J.out = calloc(1, sizeof *J.out);
    if (!J.out) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a query result");
    if (!s) {
        J.out->space = J.space;
        J.out->ctx = ctx; /* its arrays come from, and go back to, this context's memory */
        switch (kind) {
        case MMX_QUERY_FV:
        case MMX_QUERY_FE:
        case MMX_QUERY_EV:
            s = query_direct(&J, M, kind);
            break;
        case MMX_QUERY_EF:
            s = result_general(&J, adj->nedges, M->ncols, M->nnz);
            if (!s) s = build_ef(&J, J.rowptr, J.colidx);
            break;
        default:
            s = query_counted(&J, kind);
            break;
        }
    }
    job_release(&J);
    mmx_adjacency_free(own);
    if (s) {
        mmx_csr_free(J.out);
        return s;
    }
    *out = J.out;
    return MMX_OK;
}
