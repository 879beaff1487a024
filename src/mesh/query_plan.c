/* Query plans (query.h): what the eight queries of one mesh need, computed once, then one pass
 * per query into a result allocated beforehand.
 *
 * The plan is built with the algebraic path's own steps (query_steps.h): the corners sorted
 * by vertex and the walks over F find each vertex's fans and their start corners (in the
 * order mmx__query_vertex_row lists them), the orientation check finds the smallest
 * inconsistent edge, and the row lengths are counted and scanned. Then one walk per vertex
 * from its start corners across the half-edge view's mates lists the corner behind each entry
 * of its VF row and of its VV/VE row (the sources: one list when no fan is open, as then the
 * rows coincide), and the start corners are dropped. A run is then a gather per entry: the
 * entry's source, and M, fe or the face at it (mmx__qplan_vertex_entry), every entry apart;
 * an edge's faces are its smallest corner's face and its mate's, a face's neighbours its
 * corners' mates' faces. Edges of three faces or more read EF's entries, kept in the plan for
 * them. The flow is here for both backends; the stages run on the host below or in
 * query_plan.cu. */
#include <string.h>
#include "query_steps.h"

struct mmx_query_plan {
    mmx_ctx *ctx;
    mmx_space space;
    const mmx_adjacency *adj;
    mmx_adjacency *own;          /* the adjacency, when the plan computed it */
    mmx__halfedge H;             /* its mates */
    mmx_index *vstart, *fans, *vf_ptr, *vv_ptr, *ecorner, *ef_ptr, *ff_ptr;
    mmx_index *fsrc, *vsrc;      /* the sources (vsrc NULL when it is fsrc) */
    mmx_csr *ef_full;            /* EF, when an edge has three faces or more */
    mmx__qplan P;
    unsigned long long vv_total, ff_total;
    mmx_index face_order;        /* FV and FE are reduced when > 0 */
    int bad;                     /* an inconsistent edge: bad_e {bad_a, bad_b} */
    mmx_index bad_e, bad_a, bad_b;
};

static int on_cuda(const mmx_ctx *ctx) { return mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA; }

static mmx_status plan_alloc(mmx_query_plan *Q, size_t n, size_t size, void **p)
{
    size_t bytes;
    *p = NULL;
    if (!mmx__mul_ok(n, size, &bytes))
        return mmx__fail(Q->ctx, MMX_ERR_OVERFLOW, "query plan: %zu entries overflow memory", n);
    return mmx_mem_alloc(Q->ctx, Q->space, bytes, p);
}

void mmx_query_plan_free(mmx_query_plan *Q)
{
    if (!Q) return;
    mmx_ctx *ctx = Q->ctx;
    mmx__halfedge_free(&Q->H);
    void *arrays[] = {Q->vstart, Q->fans, Q->vf_ptr, Q->vv_ptr, Q->ecorner,
                      Q->ef_ptr, Q->ff_ptr, Q->fsrc, Q->vsrc};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) mmx_mem_free(ctx, Q->space, arrays[i]);
    mmx_csr_free(Q->ef_full);
    mmx_adjacency_free(Q->own);
    free(Q);
}

/* ---- the host stages ------------------------------------------------------------------- */

static void count_host(const mmx__query_topo *T, unsigned char *seen, mmx_index *vstart,
                       mmx_index *vv_len, mmx_index *fan_len, mmx_index *ff_len,
                       mmx_index *ecorner, mmx_index ne, mmx__qplan_report *r)
{
    for (mmx_index v = 0; v < T->nv; v++) {
        mmx_index first = -1, opens;
        const mmx_index n = mmx__query_vertex_starts(T, v, seen, &first, 1);
        vstart[v] = n ? first : -1;
        vv_len[v] = mmx__query_vertex_count(T, MMX_QUERY_VV, v, &opens);
        fan_len[v] = n > 1 ? n + 1 : 0;
        r->vv_total += (unsigned long long)(T->Lptr[v + 1] - T->Lptr[v]) + (unsigned long long)opens;
        r->fans_total += (unsigned long long)fan_len[v];
    }
    for (mmx_index f = 0; f < T->nf; f++) {
        const int64_t n = mmx__query_ff_count(T, f);
        ff_len[f] = (mmx_index)n; /* wraps only when the total is refused */
        r->ff_total += (unsigned long long)n;
    }
    for (mmx_index e = 0; e < ne; e++) ecorner[e] = -1;
    for (mmx_index c = T->nnz - 1; c >= 0; c--) ecorner[T->fe[c] >> 1] = c; /* the smallest last */
}

static void fans_host(const mmx__query_topo *T, unsigned char *seen, const mmx_index *fan_ptr,
                      mmx_index *vstart, mmx_index *fans)
{
    for (mmx_index v = 0; v < T->nv; v++) {
        const mmx_index o = fan_ptr[v], n = fan_ptr[v + 1] - o - 1;
        if (n < 1) continue;
        fans[o] = n;
        mmx__query_vertex_starts(T, v, seen, fans + o + 1, n);
        vstart[v] = -2 - o;
    }
}

static void sources_host(const mmx__qplan *P, mmx_index *fsrc, mmx_index *vsrc)
{
    for (mmx_index v = 0; v < P->nv; v++) {
        mmx__qplan_vertex_sources(P, 0, v, fsrc + P->vf_ptr[v], P->vf_ptr[v + 1] - P->vf_ptr[v]);
        if (vsrc)
            mmx__qplan_vertex_sources(P, 1, v, vsrc + P->vv_ptr[v], P->vv_ptr[v + 1] - P->vv_ptr[v]);
    }
}

static void run_host(const mmx__qplan *P, mmx_query_kind kind, mmx_index *rowptr, mmx_index *colidx)
{
    switch (kind) {
    case MMX_QUERY_VV:
    case MMX_QUERY_VE:
    case MMX_QUERY_VF: {
        const mmx_index *ptr = kind == MMX_QUERY_VF ? P->vf_ptr : P->vv_ptr;
        const mmx_index *src = kind == MMX_QUERY_VF ? P->fsrc : P->vsrc;
        memcpy(rowptr, ptr, ((size_t)P->nv + 1) * sizeof *ptr);
        for (mmx_index i = 0; colidx && i < ptr[P->nv]; i++) /* colidx NULL: no entries */
            colidx[i] = mmx__qplan_vertex_entry(P, kind, src[i]);
        break;
    }
    case MMX_QUERY_EF:
        for (mmx_index e = 0; e <= P->ne; e++) rowptr[e] = mmx__qplan_ef_at(P, e);
        for (mmx_index e = 0; colidx && e < P->ne; e++) mmx__qplan_ef_row(P, e, colidx + rowptr[e]);
        break;
    case MMX_QUERY_FF:
        for (mmx_index f = 0; f <= P->nf; f++) rowptr[f] = mmx__qplan_ff_at(P, f);
        for (mmx_index f = 0; colidx && f < P->nf; f++) mmx__qplan_ff_row(P, f, colidx + rowptr[f]);
        break;
    default: /* FV, FE and EV: mmx_query_plan_run */
        break;
    }
}

/* ---- creation ---------------------------------------------------------------------------- */

/* The counts, the scans and the one read-back; then the fan lists and EF's entries where
 * needed. */
static mmx_status plan_build(mmx_query_plan *Q, const mmx_mesh *mesh)
{
    mmx_ctx *ctx = Q->ctx;
    const mmx_csc *M = mesh->M;
    const mmx_adjacency *adj = Q->adj;
    const mmx_index nv = M->nrows, nf = M->ncols, ne = adj->nedges, nnz = M->nnz;
    const size_t ix = sizeof(mmx_index);
    mmx__query_topo T = {nv, nf, nnz, M->order, M->colptr, M->rowidx, adj->fe, adj->sides,
                         adj->F->colptr, adj->F->rowidx, adj->F->val, NULL, NULL};
    mmx_index *L = NULL, *vv_len = NULL, *fan_len = NULL, *ff_len = NULL, *fan_ptr = NULL;
    unsigned char *seen = NULL;
    mmx__readback rb = {0};
    mmx__query_report *crep = NULL;
    mmx__qplan_report *prep = NULL;
    mmx_status s = mmx__halfedge_build(ctx, mesh, adj, &Q->H);
    if (!s) {
        /* Only the mates are read. */
        mmx_mem_free(ctx, Q->space, Q->H.first);
        mmx_mem_free(ctx, Q->space, Q->H.one_fan);
        Q->H.first = NULL, Q->H.one_fan = NULL;
    }
    if (!s) s = plan_alloc(Q, (size_t)nv + 1, ix, (void **)&Q->vf_ptr);
    if (!s) s = plan_alloc(Q, (size_t)nv + 1, ix, (void **)&Q->vv_ptr);
    if (!s) s = plan_alloc(Q, (size_t)nv + 1, ix, (void **)&fan_ptr);
    if (!s) s = plan_alloc(Q, (size_t)nf + 1, ix, (void **)&Q->ff_ptr);
    if (!s) s = plan_alloc(Q, (size_t)ne + 1, ix, (void **)&Q->ef_ptr);
    if (!s) s = plan_alloc(Q, (size_t)nv, ix, (void **)&Q->vstart);
    if (!s) s = plan_alloc(Q, (size_t)nv, ix, (void **)&vv_len);
    if (!s) s = plan_alloc(Q, (size_t)nv, ix, (void **)&fan_len);
    if (!s) s = plan_alloc(Q, (size_t)nf, ix, (void **)&ff_len);
    if (!s) s = plan_alloc(Q, (size_t)ne, ix, (void **)&Q->ecorner);
    if (!s) s = plan_alloc(Q, (size_t)nnz, ix, (void **)&L);
    if (!s) s = plan_alloc(Q, (size_t)nnz, 1, (void **)&seen);
    if (!s && nnz) s = mmx__mem_zero(ctx, seen, (size_t)nnz);
    /* The corner lists: VF's row pointers are the valences' offsets. */
    if (!s) s = mmx__scan_offsets(ctx, adj->valence, nv, Q->vf_ptr);
    T.Lptr = Q->vf_ptr, T.L = L;
    if (!s) s = mmx__query_sort_corners(ctx, &T, 0, nv, NULL, L);
    if (!s) s = mmx__readback_open(ctx, &rb);
    if (!s) s = mmx__readback_slot(&rb, sizeof *crep, (void **)&crep);
    if (!s) s = mmx__readback_slot(&rb, sizeof *prep, (void **)&prep);
    if (!s) s = mmx__query_check(ctx, &T, adj->ev, ne, crep);
    if (!s && (nv || nf || ne))
        s = on_cuda(ctx) ? mmx__qplan_count_cuda(ctx, &T, seen, Q->vstart, vv_len, fan_len, ff_len,
                                                 Q->ecorner, ne, prep)
                         : (count_host(&T, seen, Q->vstart, vv_len, fan_len, ff_len, Q->ecorner, ne, prep),
                            MMX_OK);
    if (!s) s = mmx__scan_offsets(ctx, vv_len, nv, Q->vv_ptr);
    if (!s) s = mmx__scan_offsets(ctx, fan_len, nv, fan_ptr);
    if (!s) s = mmx__scan_offsets(ctx, ff_len, nf, Q->ff_ptr);
    if (!s) s = mmx__scan_offsets(ctx, adj->sides, ne, Q->ef_ptr);
    /* The one wait: the sizes and the orientation verdict. */
    if (!s) s = mmx__readback_wait(&rb);
    mmx__query_report cr = {0, 0, 0};
    mmx__qplan_report pr = {0, 0, 0};
    if (!s) {
        cr = *(const mmx__query_report *)mmx__readback_host(&rb, crep);
        pr = *(const mmx__qplan_report *)mmx__readback_host(&rb, prep);
    }
    mmx__readback_close(&rb);
    Q->vv_total = pr.vv_total;
    Q->ff_total = pr.ff_total;
    if (!s && pr.fans_total > (unsigned long long)MMX_INDEX_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "query plan: %llu fan starts do not fit 32-bit indices",
                      pr.fans_total);
    if (!s && pr.fans_total) {
        s = plan_alloc(Q, (size_t)pr.fans_total, ix, (void **)&Q->fans);
        if (!s) {
            if (on_cuda(ctx)) s = mmx__qplan_fans_cuda(ctx, &T, seen, fan_ptr, Q->vstart, Q->fans);
            else fans_host(&T, seen, fan_ptr, Q->vstart, Q->fans);
        }
    }
    if (!s && cr.bad_rank > 0) {
        /* The edge's ends, read from the device when it lives there (a refusal to come). */
        mmx_index ends[2];
        Q->bad = 1;
        Q->bad_e = ne - cr.bad_rank;
        s = mmx_mem_copy(ctx, ends, MMX_SPACE_HOST, adj->ev + 2 * (size_t)Q->bad_e, Q->space, sizeof ends);
        Q->bad_a = ends[0], Q->bad_b = ends[1];
    }
    if (!s && adj->nonmanifold_edges > 0) s = mmx_query(ctx, mesh, adj, MMX_QUERY_EF, &Q->ef_full);
    mmx_mem_free(ctx, Q->space, L);
    mmx_mem_free(ctx, Q->space, seen);
    mmx_mem_free(ctx, Q->space, vv_len);
    mmx_mem_free(ctx, Q->space, fan_len);
    mmx_mem_free(ctx, Q->space, ff_len);
    mmx_mem_free(ctx, Q->space, fan_ptr);
    if (s) return s;
    /* Row pointers that follow from the sizes are not kept: no open fan (VV's are VF's), every
     * edge of two faces (EF's row e at 2e; FF's row f at order f when faces have one order). */
    if (Q->vv_total == (unsigned long long)nnz) {
        mmx_mem_free(ctx, Q->space, Q->vv_ptr);
        Q->vv_ptr = NULL;
    }
    const int two_sided = adj->boundary_edges == 0 && adj->nonmanifold_edges == 0;
    if (two_sided) {
        mmx_mem_free(ctx, Q->space, Q->ef_ptr);
        Q->ef_ptr = NULL;
    }
    if (two_sided && M->order) {
        mmx_mem_free(ctx, Q->space, Q->ff_ptr);
        Q->ff_ptr = NULL;
    }
    Q->face_order = M->order ? M->order : adj->face_order;
    Q->P = (mmx__qplan){nv, nf, ne, nnz, M->order, M->colptr, M->rowidx, adj->fe, Q->H.mate,
                        Q->vstart, Q->fans, Q->vf_ptr, Q->vv_ptr ? Q->vv_ptr : Q->vf_ptr,
                        NULL, NULL, Q->ecorner, Q->ef_ptr,
                        Q->ef_full ? Q->ef_full->colidx : NULL, Q->ff_ptr};
    /* The sources: VF's always; VV's apart only when a fan is open (else the rows coincide),
     * and not when VV's entries overflow an index (its runs are refused then). */
    const int vv_apart = Q->vv_ptr && Q->vv_total <= (unsigned long long)MMX_INDEX_MAX;
    s = plan_alloc(Q, (size_t)nnz, ix, (void **)&Q->fsrc);
    if (!s && vv_apart) s = plan_alloc(Q, (size_t)Q->vv_total, ix, (void **)&Q->vsrc);
    if (!s && nnz) { /* no corners: no entries, no sources (fsrc may be NULL) */
        if (on_cuda(ctx)) s = mmx__qplan_sources_cuda(ctx, &Q->P, Q->fsrc, Q->vsrc);
        else sources_host(&Q->P, Q->fsrc, Q->vsrc);
    }
    if (s) return s;
    /* The start corners are read only by the walks above. */
    mmx_mem_free(ctx, Q->space, Q->vstart);
    mmx_mem_free(ctx, Q->space, Q->fans);
    Q->vstart = NULL, Q->fans = NULL;
    Q->P.vstart = NULL, Q->P.fans = NULL;
    Q->P.fsrc = Q->fsrc;
    Q->P.vsrc = Q->vv_ptr ? Q->vsrc : Q->fsrc;
    return MMX_OK;
}

mmx_status mmx_query_plan_create(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                 mmx_query_plan **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query_plan_create: out is NULL");
    *out = NULL;
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query_plan_create: mesh is NULL");
    const mmx_csc *M = mesh->M;
    mmx_status s = mmx__check_space(ctx, M->space, "mmx_query_plan_create: mesh");
    if (!s && M->space != mmx_ctx_space(ctx))
        s = mmx__fail(ctx, MMX_ERR_SPACE, "mmx_query_plan_create: the mesh is in host memory but the "
                                          "context is on the CUDA backend");
    if (s) return s;
    if (adj && (adj->space != M->space || adj->nverts != M->nrows || adj->nfaces != M->ncols))
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_query_plan_create: the adjacency (%d vertices, %d faces) is not the "
                         "mesh's (%d, %d) or lives in another space",
                         adj->nverts, adj->nfaces, M->nrows, M->ncols);
    if (M->nrows == MMX_INDEX_MAX || M->ncols == MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_query_plan_create: %d rows do not fit 32-bit row "
                                                "pointers", M->nrows > M->ncols ? M->nrows : M->ncols);
    mmx_query_plan *Q = calloc(1, sizeof *Q);
    if (!Q) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a query plan");
    Q->ctx = ctx;
    Q->space = M->space;
    if (!adj) {
        s = mmx_adjacency_compute(ctx, mesh, &Q->own);
        adj = Q->own;
    }
    Q->adj = adj;
    if (!s) s = plan_build(Q, mesh);
    if (s) {
        mmx_query_plan_free(Q);
        return s;
    }
    *out = Q;
    return MMX_OK;
}

/* ---- results ----------------------------------------------------------------------------- */

/* The shape of query kind's result from plan Q, or the refusal that mmx_query gives. */
static mmx_status shape_of(mmx_ctx *ctx, const mmx_query_plan *Q, mmx_query_kind kind,
                           mmx_csr *R)
{
    const mmx__qplan *P = &Q->P;
    const int vertex = kind == MMX_QUERY_VV || kind == MMX_QUERY_VE || kind == MMX_QUERY_VF;
    if (vertex && Q->bad)
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "query %s: edge %d {%d, %d} has two faces that run it the same way "
                         "(%d -> %d): the faces are not consistently oriented",
                         mmx_query_name(kind), Q->bad_e, Q->bad_a, Q->bad_b, Q->bad_a, Q->bad_b);
    const unsigned long long total = kind == MMX_QUERY_FF ? Q->ff_total
                                     : kind == MMX_QUERY_EV ? 2ull * (unsigned long long)P->ne
                                     : kind == MMX_QUERY_VV || kind == MMX_QUERY_VE ? Q->vv_total
                                     : (unsigned long long)P->nnz;
    if (total > (unsigned long long)MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "query %s: %llu entries do not fit 32-bit indices",
                         mmx_query_name(kind), total);
    const mmx_index rows[] = {P->nv, P->nv, P->nv, P->ne, P->ne, P->nf, P->nf, P->nf};
    const mmx_index cols[] = {P->nv, P->ne, P->nf, P->nv, P->nf, P->nv, P->ne, P->nf};
    R->nrows = rows[kind];
    R->ncols = cols[kind];
    R->nnz = (mmx_index)total;
    R->order = kind == MMX_QUERY_EV ? 2
               : (kind == MMX_QUERY_FV || kind == MMX_QUERY_FE) ? Q->face_order : 0;
    return MMX_OK;
}

static mmx_status check_plan_kind(mmx_ctx *ctx, const mmx_query_plan *Q, mmx_query_kind kind,
                                  const char *fn)
{
    if (!Q) return mmx__fail(ctx, MMX_ERR_ARG, "%s: plan is NULL", fn);
    if ((int)kind < 0 || kind >= MMX_QUERY_COUNT)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown query kind %d", fn, (int)kind);
    if (mmx_ctx_space(ctx) != Q->space)
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the plan lives in another memory space than the "
                                             "context's", fn);
    return MMX_OK;
}

mmx_status mmx_query_plan_alloc(mmx_ctx *ctx, const mmx_query_plan *Q, mmx_query_kind kind,
                                mmx_csr **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query_plan_alloc: out is NULL");
    *out = NULL;
    mmx_status s = check_plan_kind(ctx, Q, kind, "mmx_query_plan_alloc");
    if (s) return s;
    mmx_csr *R = calloc(1, sizeof *R);
    if (!R) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a query result");
    R->space = Q->space;
    R->ctx = ctx;
    s = shape_of(ctx, Q, kind, R);
    void *p = NULL;
    if (!s && !R->order) {
        s = mmx_mem_alloc(ctx, Q->space, ((size_t)R->nrows + 1) * sizeof(mmx_index), &p);
        R->rowptr = p;
    }
    if (!s) {
        p = NULL;
        s = mmx_mem_alloc(ctx, Q->space, (size_t)R->nnz * sizeof(mmx_index), &p);
        R->colidx = p;
    }
    if (s) {
        mmx_csr_free(R);
        return s;
    }
    *out = R;
    return MMX_OK;
}

mmx_status mmx_query_plan_run(mmx_ctx *ctx, const mmx_query_plan *Q, mmx_query_kind kind,
                              mmx_csr *out)
{
    mmx_status s = check_plan_kind(ctx, Q, kind, "mmx_query_plan_run");
    if (s) return s;
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_query_plan_run: out is NULL");
    mmx_csr want = {0};
    s = shape_of(ctx, Q, kind, &want);
    if (s) return s;
    if (out->space != Q->space || out->nrows != want.nrows || out->ncols != want.ncols ||
        out->nnz != want.nnz || out->order != want.order || (!want.order && !out->rowptr) ||
        (want.nnz && !out->colidx))
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_query_plan_run: the result (%d x %d, %d entries, order %d) is not what "
                         "mmx_query_plan_alloc makes for query %s (%d x %d, %d entries, order %d)",
                         out->nrows, out->ncols, out->nnz, out->order, mmx_query_name(kind),
                         want.nrows, want.ncols, want.nnz, want.order);
    const mmx__qplan *P = &Q->P;
    mmx_index *rowptr = (mmx_index *)out->rowptr, *colidx = (mmx_index *)out->colidx;
    const size_t ix = sizeof(mmx_index);
    if (kind == MMX_QUERY_EV)
        return mmx_mem_copy(ctx, colidx, Q->space, Q->adj->ev, Q->space, (size_t)want.nnz * ix);
    if (kind == MMX_QUERY_FV || kind == MMX_QUERY_FE) {
        /* The columns of M, or their corners' edges; general: M's column pointers. */
        if (rowptr) s = mmx_mem_copy(ctx, rowptr, Q->space, P->colptr, Q->space, ((size_t)P->nf + 1) * ix);
        if (s || want.nnz == 0) return s;
        if (kind == MMX_QUERY_FV)
            return mmx_mem_copy(ctx, colidx, Q->space, P->M, Q->space, (size_t)want.nnz * ix);
        if (on_cuda(ctx)) return mmx__query_fe_cuda(ctx, P->fe, P->nnz, colidx);
        for (mmx_index c = 0; c < P->nnz; c++) colidx[c] = P->fe[c] >> 1;
        return MMX_OK;
    }
    if (on_cuda(ctx)) return mmx__qplan_run_cuda(ctx, P, kind, want.nnz, rowptr, colidx);
    run_host(P, kind, rowptr, colidx);
    return MMX_OK;
}

double mmx__query_plan_bytes(const mmx_query_plan *Q, mmx_query_kind kind)
{
    const mmx__qplan *P = &Q->P;
    const double nv = P->nv, nf = P->nf, ne = P->ne, nnz = P->nnz;
    const double ef = Q->ef_full ? 4.0 * (double)Q->ef_full->nnz : 0;
    const double general_f = Q->face_order ? 0 : 4.0 * (nf + 1);
    switch (kind) {
    case MMX_QUERY_VV:
    case MMX_QUERY_VE: /* the row pointers read and written, the sources, M or fe; entries */
        return 8.0 * (nv + 1) + 4.0 * (double)Q->vv_total + 4.0 * nnz + 4.0 * (double)Q->vv_total;
    /* (EF and FF below: the row pointers are read only when the plan keeps them) */
    case MMX_QUERY_VF: /* the row pointers read and written, the sources; entries */
        return 8.0 * (nv + 1) + 4.0 * nnz + 4.0 * nnz;
    case MMX_QUERY_EV:
        return 16.0 * ne;
    case MMX_QUERY_EF: /* row pointers read and written, smallest corners, their mates */
        return (P->ef_ptr ? 8.0 : 4.0) * (ne + 1) + 8.0 * ne + ef + 4.0 * nnz;
    case MMX_QUERY_FV:
    case MMX_QUERY_FE:
        return 8.0 * nnz + 2.0 * general_f;
    case MMX_QUERY_FF: /* row pointers, the corners' mates; entries */
        return (P->ff_ptr ? 8.0 : 4.0) * (nf + 1) + 4.0 * nnz + ef + 4.0 * (double)Q->ff_total;
    default:
        return 0;
    }
}

double mmx__query_plan_memory(const mmx_query_plan *Q)
{
    const mmx__qplan *P = &Q->P;
    const double nv = P->nv, nf = P->nf, ne = P->ne, nnz = P->nnz;
    double b = 4.0 * nnz /* mates */ + 4.0 * nnz /* VF's sources */ + 4.0 * ne /* smallest corners */
               + 4.0 * (nv + 1) /* VF's row pointers */;
    if (Q->vsrc) b += 4.0 * (double)Q->vv_total;
    if (Q->vv_ptr) b += 4.0 * (nv + 1);
    if (Q->ef_ptr) b += 4.0 * (ne + 1);
    if (Q->ff_ptr) b += 4.0 * (nf + 1);
    if (Q->ef_full) b += 4.0 * ((double)Q->ef_full->nnz + (Q->ef_full->rowptr ? ne + 1 : 0));
    return b;
}
