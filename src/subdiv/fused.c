/* The fused path's levels (fused.h): the input level from the input's adjacency, one pass per
 * level writing the child, and the chain that mmx_subdivide and the plans run. The host runs
 * the per-element rules of fused.h in loops; fused.cu runs them as kernels. */
#include <string.h>
#include "fused.h"

/* Scratch and level arrays of n items of `size` bytes in the context's space: the host's
 * heap, or the context's stream-ordered pool (no sync, so a chain of levels queues without
 * waiting). */
static mmx_status fz_alloc(mmx_ctx *ctx, size_t n, size_t size, void **out)
{
    size_t bytes;
    *out = NULL;
    if (!mmx__mul_ok(n, size, &bytes))
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "allocation of %zu x %zu bytes overflows", n, size);
    return mmx_mem_alloc(ctx, mmx_ctx_space(ctx), bytes, out);
}

/* Back to the host's heap or, in stream order, to the context's pool. */
static void fz_free(mmx_ctx *ctx, void *p)
{
    mmx_mem_free(ctx, mmx_ctx_space(ctx), p);
}

void mmx__fz_level_free(mmx_ctx *ctx, mmx__fz_level *L)
{
    if (L->block) { /* a child level: its arrays are carved from the block */
        fz_free(ctx, L->block);
        memset(L, 0, sizeof *L);
        return;
    }
    if (!L->borrowed) {
        fz_free(ctx, L->M);
        fz_free(ctx, L->colptr);
        fz_free(ctx, L->pos);
    }
    fz_free(ctx, L->fe);
    fz_free(ctx, L->twin);
    fz_free(ctx, L->owner);
    fz_free(ctx, L->cnt);
    fz_free(ctx, L->goff);
    fz_free(ctx, L->bcut);
    if (L->level > 0) { /* the input level's edge sharpness is the caller's */
        fz_free(ctx, L->esharp);
        fz_free(ctx, L->eends);
    }
    memset(L, 0, sizeof *L);
}

mmx__fz_in mmx__fz_view(mmx_scheme scheme, const mmx__fz_level *L)
{
    mmx__fz_in v;
    v.scheme = scheme;
    v.boundary = L->boundary;
    v.vsharp = L->vsharp, v.nv0 = L->nv0, v.level = L->level;
    v.esharp = L->esharp, v.chaikin = L->chaikin, v.smooth_tris = L->smooth_tris;
    v.nv = L->nv, v.nf = L->nf, v.ne = L->ne, v.nnz = L->nnz, v.order = L->order;
    v.colptr = L->colptr, v.M = L->M, v.fe = L->fe, v.twin = L->twin, v.owner = L->owner;
    v.goff = L->goff, v.pos = L->pos;
    v.maxcol = L->maxcol;
    v.bcut = L->bcut;
    v.fpts = NULL;
    return v;
}

/* The number of groups of the child's edges that a level's cnt counts. */
static mmx_index fz_groups(mmx_scheme scheme, const mmx__fz_level *L)
{
    return scheme == MMX_SCHEME_SQRT3 ? L->nf : L->ne;
}

mmx_status mmx__fz_input(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                         const mmx_adjacency *adj, mmx__fz_source source, int fans_ok,
                         mmx__fz_level *L, mmx__fault *fault)
{
    *fault = (mmx__fault){MMX__FAULT_NONE, 0};
    const mmx_csc *M = mesh->M;
    memset(L, 0, sizeof *L);
    L->nv = M->nrows, L->nf = M->ncols, L->nnz = M->nnz, L->ne = adj->nedges;
    L->maxcol = M->maxcol;
    /* The adjacency measured the faces' orders: no wait to read colptr. */
    mmx_index order = M->order ? M->order : adj->face_order;
    mmx_status s = MMX_OK;
    /* A mesh without faces is a level of any order: its vertices stay where they are. */
    if (!M->ncols) order = mmx__scheme_quads(scheme) ? 4 : 3;
    if (!mmx__scheme_quads(scheme) && order != 3) {
        *fault = (mmx__fault){MMX__FAULT_NOT_TRIANGLES, 0};
        return MMX_OK;
    }
    /* Triangles and quads are read as reduced levels whatever their form; other faces (only
     * Catmull-Clark takes them) through colptr. */
    L->order = order == 3 || order == 4 ? order : 0;
    const size_t nnz = (size_t)M->nnz, nv = (size_t)M->nrows, ne = (size_t)adj->nedges;
    const mmx_space sp = mesh->space;
    if (source == MMX__FZ_COPY) {
        s = fz_alloc(ctx, nnz, sizeof(mmx_index), (void **)&L->M);
        if (!s) s = mmx_mem_copy(ctx, L->M, sp, M->rowidx, sp, nnz * sizeof(mmx_index));
        if (!s && !L->order) {
            s = fz_alloc(ctx, (size_t)M->ncols + 1, sizeof(mmx_index), (void **)&L->colptr);
            if (!s) s = mmx_mem_copy(ctx, L->colptr, sp, M->colptr, sp,
                                     ((size_t)M->ncols + 1) * sizeof(mmx_index));
        }
        if (!s) s = fz_alloc(ctx, nv * 3, sizeof(float), (void **)&L->pos);
        if (!s) s = mmx_mem_copy(ctx, L->pos, sp, mesh->pos, sp, nv * 3 * sizeof(float));
    } else {
        L->borrowed = 1;
        L->M = M->rowidx;
        L->colptr = L->order ? NULL : M->colptr;
        L->pos = mesh->pos;
    }
    /* The half-edge view: its mates are the level's twins (on a level that passes its
     * checks), its start corners the owners, and its fault record the first two checks. */
    const mmx_index groups = fz_groups(scheme, L);
    mmx__halfedge H;
    memset(&H, 0, sizeof H);
    if (!s) s = mmx__halfedge_build(ctx, mesh, adj, &H);
    if (!s) {
        L->twin = H.mate, L->owner = H.first;
        H.mate = H.first = NULL;
    }
    if (!s) s = fz_alloc(ctx, nnz, sizeof(mmx_index), (void **)&L->fe);
    if (!s) s = mmx_mem_copy(ctx, L->fe, sp, adj->fe, sp, nnz * sizeof(mmx_index));
    /* A device mesh's coordinates against subdiv.h's bound, into the same record (the host's
     * were checked by mmx__subdiv_prepare, without a wait). */
    if (!s && sp == MMX_SPACE_DEVICE) s = mmx__fz_coords_cuda(ctx, mesh->pos, (int64_t)nv * 3, H.fault);
    if (!s) s = fz_alloc(ctx, (size_t)groups, sizeof(mmx_index), (void **)&L->cnt);
    if (!s) s = fz_alloc(ctx, (size_t)groups + 1, sizeof(mmx_index), (void **)&L->goff);
    /* Catmull-Clark counts each edge's faces, which the adjacency has. */
    if (!s && mmx__scheme_quads(scheme))
        s = mmx_mem_copy(ctx, L->cnt, sp, adj->sides, sp, ne * sizeof(mmx_index));
    const mmx__fz_in in = mmx__fz_view(scheme, L);
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    /* Loop and sqrt3 check the triangles' neighbours too, into the same record. */
    if (!s && !mmx__scheme_quads(scheme)) {
        if (cuda) s = mmx__fz_pairs_cuda(ctx, in, H.fault);
        for (mmx_index f = 0; !cuda && f < L->nf; f++)
            if (!mmx__fz_tri_neighbours_ok(&in, f)) {
                const unsigned long long r = (unsigned long long)MMX__FAULT_TRIANGLE_PAIR << 32 | (uint32_t)f;
                if (r < *H.fault) *H.fault = r;
                break;
            }
    }
    /* The input's one wait: the verdict is a fault to report, and it decides what comes next.
     * Counts on a bad level could point anywhere: not computed. */
    if (!s) s = mmx__halfedge_fault(ctx, &H, fault);
    /* Vertices of several fans that the caller made corners: their walks, over one fan, are
     * not read (a corner keeps its place). FANS is the last kind: no other fault is hidden. */
    if (!s && fans_ok && fault->kind == MMX__FAULT_FANS) *fault = (mmx__fault){MMX__FAULT_NONE, 0};
    if (!s && !fault->kind && !mmx__scheme_quads(scheme)) {
        if (cuda) s = mmx__fz_counts_cuda(ctx, in, L->cnt);
        else if (scheme == MMX_SCHEME_LOOP)
            for (mmx_index f = 0; f < L->nf; f++) mmx__fz_loop_count(&in, f, L->cnt);
        else
            for (mmx_index f = 0; f < L->nf; f++) mmx__fz_sqrt3_count(&in, f, L->cnt);
    }
    mmx__halfedge_free(&H);
    if (!s && !fault->kind) s = mmx__scan_offsets(ctx, L->cnt, groups, L->goff);
    if (s || fault->kind) mmx__fz_level_free(ctx, L);
    return s;
}

mmx_status mmx__fz_child_alloc(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *P,
                               unsigned parts, float emax, mmx__fz_level *C)
{
    int64_t v, f, e, c;
    memset(C, 0, sizeof *C);
    mmx_subdiv_predict(scheme, P->nv, P->nf, P->ne, P->nnz, 1, &v, &f, &e, &c);
    C->nv = (mmx_index)v, C->nf = (mmx_index)f, C->ne = (mmx_index)e, C->nnz = (mmx_index)c;
    C->order = mmx__scheme_quads(scheme) ? 4 : 3;
    C->maxcol = C->order;
    C->boundary = P->boundary;
    C->vsharp = P->vsharp, C->nv0 = P->nv0, C->level = P->level + 1;
    C->chaikin = P->chaikin, C->smooth_tris = P->smooth_tris;
    /* The child's edge sharpness, where a pass will read it: the level has creases and one of
     * them is still sharp in the child (sharpness falls by one per level, Chaikin's means
     * included, so the input's largest, less the levels, bounds it; infinite stays). Later
     * levels are smooth but for the boundary and take the plain vertex walk. */
    const int creased = P->esharp && (emax >= MMX__SHARP_INF || emax - (float)C->level > 0.0f);
    /* A small level's arrays are carved from one block: a level is a handful of calls then,
     * not seven allocations and seven frees, which a small cage's chain pays more than its
     * bytes. A large level's arrays stay separate: the pool serves them from blocks of their
     * own sizes freed by the calls before, where one large block of a new size made the first
     * calls of a size wait for the pool to grow (measured: armorguy Loop level 4, last level
     * 0.23 -> 0.44 ms on the H100). */
    const size_t ix = sizeof(mmx_index), groups = (size_t)fz_groups(scheme, C);
    const int mat = (parts & MMX__FZ_MATRIX) != 0, he = (parts & MMX__FZ_HALFEDGES) != 0;
    const int carry = (parts & MMX__FZ_CREASES) != 0;
    const struct { void **at; size_t bytes; } part[] = {
        {(void **)&C->M, mat ? (size_t)c * ix : 0},
        {(void **)&C->pos, parts & MMX__FZ_POSITIONS ? (size_t)v * 3 * sizeof(float) : 0},
        {(void **)&C->fe, he ? (size_t)c * ix : 0},
        {(void **)&C->twin, he ? (size_t)c * ix : 0},
        {(void **)&C->owner, he ? (size_t)v * ix : 0},
        {(void **)&C->cnt, he ? groups * ix : 0},
        {(void **)&C->goff, he ? (groups + 1) * ix : 0},
        {(void **)&C->esharp, (he || carry) && creased ? (size_t)e * sizeof(float) : 0},
        {(void **)&C->eends, carry && creased ? 2 * (size_t)e * ix : 0},
    };
    enum { kAlign = 256 }; /* each array starts as the pool's own blocks do */
    const size_t kSmallLevel = (size_t)16 << 20;
    const size_t nparts = sizeof part / sizeof part[0];
    size_t total = 0;
    for (size_t q = 0; q < nparts; q++) total += (part[q].bytes + kAlign - 1) / kAlign * kAlign;
    mmx_status s = MMX_OK;
    if (total <= kSmallLevel) {
        s = fz_alloc(ctx, total, 1, &C->block);
        for (size_t q = 0, at = 0; !s && q < nparts; q++) {
            *part[q].at = part[q].bytes ? (unsigned char *)C->block + at : NULL;
            at += (part[q].bytes + kAlign - 1) / kAlign * kAlign;
        }
    } else {
        for (size_t q = 0; !s && q < nparts; q++)
            if (part[q].bytes) s = fz_alloc(ctx, part[q].bytes, 1, part[q].at);
    }
    if (s) mmx__fz_level_free(ctx, C);
    return s;
}

/* The host's pass: element i is face i and vertex i, as one thread of the kernel. */
static void fz_pass_host(mmx__fz_in *L, const mmx__fz_out *O)
{
    if (mmx__fz_face_points_first(L, O)) {
        for (mmx_index f = 0; f < L->nf; f++) mmx__fz_cc_face_point(L, O, f);
        L->fpts = mmx__subdiv_at(O->pos, 3 * (size_t)L->nv);
    }
    const mmx_index n = L->nf > L->nv ? L->nf : L->nv;
    for (mmx_index i = 0; i < n; i++) {
        if (i < L->nf) {
            mmx_index a, k;
            switch (L->scheme) {
            case MMX_SCHEME_CATMULL_CLARK:
            case MMX_SCHEME_BILINEAR:
                if (L->order) a = i * L->order, k = L->order;
                else a = L->colptr[i], k = L->colptr[i + 1] - a;
                mmx__fz_cc_face(L, O, i, a, k, L->M + a, L->fe + a, L->twin + a,
                                O->M ? O->M + 4 * (int64_t)a : NULL,
                                O->fe ? O->fe + 4 * (int64_t)a : NULL,
                                O->twin ? O->twin + 4 * (int64_t)a : NULL);
                break;
            case MMX_SCHEME_LOOP:
                mmx__fz_loop_face(L, O, i, L->M + 3 * i, L->fe + 3 * i, L->twin + 3 * i,
                                  O->M ? O->M + 12 * (int64_t)i : NULL,
                                  O->fe ? O->fe + 12 * (int64_t)i : NULL,
                                  O->twin ? O->twin + 12 * (int64_t)i : NULL);
                break;
            case MMX_SCHEME_SQRT3:
                mmx__fz_sqrt3_face(L, O, i, L->M + 3 * i, L->twin + 3 * i);
                break;
            }
        }
        if (i < L->nv) {
            mmx__fz_vertex_pass(L, O, i, L->esharp != NULL);
            if (O->owner) O->owner[i] = mmx__fz_vertex_owner(L->scheme, L->owner[i]);
        }
    }
}

mmx_status mmx__fz_pass(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *P,
                        mmx__fz_level *C)
{
    mmx__fz_in L = mmx__fz_view(scheme, P);
    mmx__fz_out O;
    O.M = C->M, O.fe = C->fe, O.twin = C->twin, O.owner = C->owner, O.cnt = C->cnt;
    O.pos = P->pos ? C->pos : NULL;
    O.esharp = C->esharp, O.eends = C->eends;
    /* The child's edges inside faces are smooth; the walks write the halves of edges. */
    mmx_status s = C->esharp ? mmx__mem_zero(ctx, C->esharp, (size_t)C->ne * sizeof(float)) : MMX_OK;
    if (!s && mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) s = mmx__fz_pass_cuda(ctx, L, O);
    else if (!s) fz_pass_host(&L, &O);
    if (!s && C->cnt) s = mmx__scan_offsets(ctx, C->cnt, fz_groups(scheme, C), C->goff);
    return s;
}

/* The creases of the last level L: its edges of positive sharpness (the halves of creases
 * still sharp), read back (a wait) and listed lower end first in edge order. */
static mmx_status fz_creases(mmx_ctx *ctx, const mmx__fz_level *L, mmx_mesh_tags *t)
{
    const size_t ne = (size_t)L->ne;
    float *es = NULL;
    mmx_index *ends = NULL;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_status s = mmx__host_alloc(ctx, ne, sizeof *es, (void **)&es);
    if (!s) s = mmx__host_alloc(ctx, 2 * ne, sizeof *ends, (void **)&ends);
    if (!s) s = mmx_mem_copy(ctx, es, MMX_SPACE_HOST, L->esharp, sp, ne * sizeof *es);
    if (!s) s = mmx_mem_copy(ctx, ends, MMX_SPACE_HOST, L->eends, sp, 2 * ne * sizeof *ends);
    mmx_index n = 0;
    for (size_t e = 0; !s && e < ne; e++) n += es[e] > 0.0f;
    if (!s && n) s = mmx__host_alloc(ctx, (size_t)n, sizeof *t->crease_sharpness, (void **)&t->crease_sharpness);
    if (!s && n) s = mmx__host_alloc(ctx, 2 * (size_t)n, sizeof *t->crease_verts, (void **)&t->crease_verts);
    for (size_t e = 0; !s && e < ne; e++) {
        if (!(es[e] > 0.0f)) continue;
        /* The old vertex is the lower end: an edge point's number is above every old one. */
        t->crease_verts[2 * t->ncreases] = ends[2 * e];
        t->crease_verts[2 * t->ncreases + 1] = ends[2 * e + 1];
        t->crease_sharpness[t->ncreases++] = es[e];
    }
    free(es);
    free(ends);
    return s;
}

/* The levels of a chain whose input level lv[0] is made (mmx__fz_chain, mmx__fz_chain_from):
 * each level's pass, the last into the result's arrays. `timer` (running, or NULL) is the
 * chain's and freed here. Without `keep` each level is freed once its child is written, the
 * input level only when `own_input` (else it is the caller's). */
static mmx_status fz_levels(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                            int levels, int keep, int own_input, mmx__fz_level *lv,
                            mmx_subdiv_level *trace, mmx_timer *timer, mmx_mesh **out,
                            const mmx__fault *fault, mmx_mesh_tags *creases, mmx_status s)
{
    mmx_mesh *r = NULL;
    mmx_csc *RM = NULL;
    /* The children copy these. */
    lv[0].boundary = sharp->boundary, lv[0].vsharp = sharp->vsharp, lv[0].nv0 = sharp->nv0;
    lv[0].level = 0;
    lv[0].esharp = sharp->esharp, lv[0].chaikin = sharp->chaikin;
    lv[0].smooth_tris = sharp->smooth_tris;
    for (int l = 1; !s && !fault->kind && l <= levels; l++) {
        const int last = l == levels;
        mmx__fz_level *C = &lv[l];
        /* The last level's matrix and positions are the result mesh's own arrays. */
        const unsigned parts = MMX__FZ_MATRIX | MMX__FZ_HALFEDGES | MMX__FZ_POSITIONS;
        const unsigned carry = creases ? MMX__FZ_CREASES : 0u;
        s = mmx__fz_child_alloc(ctx, scheme, &lv[l - 1], last ? carry : parts, sharp->emax, C);
        if (!s && last) {
            s = mmx__subdiv_mesh_alloc(ctx, C->nv, &r);
            if (!s) s = mmx__csc_alloc(ctx, mmx_ctx_space(ctx), C->nv, C->nf, C->nnz, C->order, &RM);
            if (!s) C->M = RM->rowidx, C->pos = r->pos, C->borrowed = 1;
        }
        if (!s) s = mmx__fz_pass(ctx, scheme, &lv[l - 1], C);
        if (!keep && (l > 1 || own_input)) mmx__fz_level_free(ctx, &lv[l - 1]);
        double ms = 0;
        if (!s && timer) s = mmx_timer_stop(timer, &ms);
        if (!s && timer) {
            trace[l - 1].nverts = C->nv, trace[l - 1].nfaces = C->nf, trace[l - 1].nedges = C->ne;
            trace[l - 1].ms = ms;
            s = mmx_timer_start(timer);
        }
        if (!s && !fault->kind) mmx__progress(ctx, "subdivide level", l, levels);
    }
    if (!s && !fault->kind && creases && lv[levels].eends)
        s = fz_creases(ctx, &lv[levels], creases);
    /* Without keep, what an error left behind (the rest is freed and zeroed already). */
    for (int l = own_input ? 0 : 1; !keep && l <= levels; l++) mmx__fz_level_free(ctx, &lv[l]);
    mmx_timer_free(timer);
    if (!s && fault->kind) return MMX_OK; /* nothing refined: the caller reports the fault */
    /* No wait for the last pass: the result is ready for the next call on the context, and a
     * copy into host memory waits for it (core.h). */
    if (!s) s = mmx__csc_props(ctx, RM);
    if (s) {
        mmx_csc_free(RM);
        mmx_mesh_free(r);
        return s;
    }
    r->M = RM;
    *out = r;
    return MMX_OK;
}

mmx_status mmx__fz_chain(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                         const mmx_mesh *mesh, const mmx_adjacency *adj, int levels, int keep,
                         mmx__fz_level *lv, mmx_subdiv_level *trace, mmx_mesh **out,
                         mmx__fault *fault, mmx_mesh_tags *creases)
{
    mmx_timer *timer = NULL;
    *out = NULL;
    mmx_status s = trace ? mmx_timer_create(ctx, &timer) : MMX_OK;
    if (!s && timer) s = mmx_timer_start(timer);
    if (!s)
        s = mmx__fz_input(ctx, scheme, mesh, adj, keep ? MMX__FZ_COPY : MMX__FZ_BORROW,
                          sharp->fan_corners, &lv[0], fault);
    return fz_levels(ctx, scheme, sharp, levels, keep, 1, lv, trace, timer, out, fault, creases, s);
}

mmx_status mmx__fz_chain_from(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                              int levels, mmx__fz_level *lv, mmx_mesh **out)
{
    const mmx__fault none = {MMX__FAULT_NONE, 0};
    *out = NULL;
    return fz_levels(ctx, scheme, sharp, levels, 0, 0, lv, NULL, NULL, out, &none, NULL, MMX_OK);
}

/* An odd generation's cut numbering of level P with boundary (mmx__fz_in.bcut), from its
 * twins read back (a wait on CUDA). */
static mmx_status fz_cuts(mmx_ctx *ctx, mmx__fz_level *P)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t nf = (size_t)P->nf;
    mmx_index *tw = NULL, *cut = NULL;
    mmx_status s = mmx__host_alloc(ctx, 3 * nf + 1, sizeof *tw, (void **)&tw);
    if (!s) s = mmx__host_alloc(ctx, nf + 1, sizeof *cut, (void **)&cut);
    if (!s && nf) s = mmx_mem_copy(ctx, tw, MMX_SPACE_HOST, P->twin, sp, 3 * nf * sizeof *tw);
    mmx_index nb = 0;
    for (size_t f = 0; !s && f < nf; f++)
        cut[f] = tw[3 * f] < 0 || tw[3 * f + 1] < 0 || tw[3 * f + 2] < 0 ? nb++ : -1;
    if (!s) s = fz_alloc(ctx, nf + 1, sizeof *cut, (void **)&P->bcut);
    if (!s && nf) s = mmx_mem_copy(ctx, P->bcut, sp, cut, MMX_SPACE_HOST, nf * sizeof *cut);
    /* The copy above is queued from a host array freed here: wait for it (CUDA). */
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    free(tw), free(cut);
    return s;
}

mmx_status mmx__fz_chain_open(mmx_ctx *ctx, const mmx__subdiv_sharp *sharp, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, int levels, int keep, mmx__fz_level *lv,
                              mmx_subdiv_level *trace, mmx_mesh **out, mmx__fault *fault)
{
    const mmx_scheme scheme = MMX_SCHEME_SQRT3;
    mmx_timer *timer = NULL;
    mmx_mesh *cur = NULL;       /* the level being refined after the input (ours) */
    mmx_adjacency *own = NULL;  /* its adjacency (the input's is the caller's) */
    *out = NULL;
    *fault = (mmx__fault){MMX__FAULT_NONE, 0};
    mmx_status s = trace ? mmx_timer_create(ctx, &timer) : MMX_OK;
    if (!s && timer) s = mmx_timer_start(timer);
    for (int l = 1; !s && l <= levels; l++) {
        const mmx_mesh *in = l == 1 ? mesh : cur;
        const mmx_adjacency *a = l == 1 ? adj : own;
        mmx__fz_level *P = &lv[l - 1], *C = &lv[l];
        s = mmx__fz_input(ctx, scheme, in, a, keep ? MMX__FZ_COPY : MMX__FZ_BORROW, 0, P, fault);
        if (s || fault->kind) break;
        P->level = l - 1, P->boundary = sharp->boundary;
        if (mmx__rule_sqrt3_trisects(l - 1) && a->boundary_edges > 0) s = fz_cuts(ctx, P);
        mmx_mesh *next = NULL;
        if (!s) s = mmx__subdiv_level_algebraic(ctx, scheme, sharp, l - 1, in, (mmx_adjacency *)a, &next);
        /* The pass writes the child's positions only (C has no topology arrays yet). */
        if (!s) {
            memset(C, 0, sizeof *C);
            C->nv = next->M->nrows, C->nf = next->M->ncols, C->nnz = next->M->nnz;
            C->order = 3, C->maxcol = 3, C->level = l, C->boundary = sharp->boundary;
            C->pos = next->pos, C->borrowed = 1;
            s = mmx__fz_pass(ctx, scheme, P, C);
            C->M = next->M->rowidx;
        }
        int64_t ne = 0;
        if (!s && trace) {
            mmx_subdiv_predict(scheme, in->M->nrows, in->M->ncols, a->nedges, in->M->nnz, 1, NULL,
                               NULL, &ne, NULL);
            ne += next->M->nrows - ((int64_t)in->M->nrows + in->M->ncols); /* the cut points' */
        }
        if (!keep) mmx__fz_level_free(ctx, P); /* before the mesh whose arrays it borrows */
        mmx_adjacency_free(own);
        own = NULL;
        if (!s && l < levels) s = mmx_adjacency_compute(ctx, next, &own);
        mmx_mesh_free(cur);
        cur = next;
        double ms = 0;
        if (!s && timer) s = mmx_timer_stop(timer, &ms);
        if (!s && timer) {
            trace[l - 1].nverts = C->nv, trace[l - 1].nfaces = C->nf, trace[l - 1].nedges = (mmx_index)ne;
            trace[l - 1].ms = ms;
            s = mmx_timer_start(timer);
        }
        if (!s) mmx__progress(ctx, "subdivide level", l, levels);
    }
    mmx_adjacency_free(own);
    mmx_timer_free(timer);
    for (int l = 0; !keep && l <= levels; l++) mmx__fz_level_free(ctx, &lv[l]);
    if (s || fault->kind) {
        mmx_mesh_free(cur);
        if (keep) lv[levels].borrowed = 1, lv[levels].M = NULL, lv[levels].pos = NULL;
        return s;
    }
    *out = cur;
    return MMX_OK;
}
