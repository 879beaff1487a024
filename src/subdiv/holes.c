/* Holes (OBJ 't hole'): faces that subdivision refines like any other, since their vertices and
 * edges shape their neighbours as in OpenSubdiv, but whose descendants are not part of the
 * surface. The descendants of an input face are one range of the result's faces
 * (mmx__hole_ancestor). The result either leaves them out, with the vertices only they use (the
 * default, as OpenSubdiv's refined surface), or keeps them, tagged as holes, for a later call.
 *
 * Leaving them out is the algebra's column selection (mmx__csc_select_cols) on the context's
 * backend: the kept columns are the faces whose ancestor is not a hole, the kept rows the
 * vertices a kept face uses and those no face uses (an isolated vertex, kept as every other
 * path keeps it), renumbered in their order; the positions gathered by the kept rows' old
 * numbers, and the texture coordinates' index by the same selection on the index read as a
 * matrix (each value stays, some unused). The marking (holes.cu on CUDA) also counts what is
 * kept and reads the new numbers of the carried corners and creases, which are host arrays:
 * one read-back for all of it, and the selection then needs no wait of its own. The mesh's tag
 * entry remembers that read-back (and the hole flags copied up) per scheme, levels and tags,
 * so that a later such call on CUDA waits for nothing here. */
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

/* The memo of a tag entry: the read-backs of the last few calls (a program refines a cage to a
 * few levels, again and again), each under what decides it, compared whole. */
enum { MEMO_SLOTS = 8 };

typedef struct memo_slot {
    mmx_scheme scheme;
    int levels;
    mmx_index nholes, nid;
    mmx_index *key;        /* the holes, then the ids */
    mmx_index *info;       /* 2 + nid: mark's read-back */
    unsigned char *hole0;  /* the input's hole flags on the device (nothing copied up again) */
    mmx_ctx *ctx;          /* whose memory hole0 is */
} memo_slot;

struct mmx__holes_memo {
    memo_slot slot[MEMO_SLOTS];
    int next; /* the slot the next miss replaces */
};

struct mmx__holes_memo *mmx__holes_memo_new(void)
{
    return calloc(1, sizeof(struct mmx__holes_memo));
}

void mmx__holes_memo_free(struct mmx__holes_memo *memo)
{
    if (!memo) return;
    for (int k = 0; k < MEMO_SLOTS; k++) {
        memo_slot *m = &memo->slot[k];
        free(m->key), free(m->info);
        if (m->hole0) mmx_mem_free(m->ctx, MMX_SPACE_DEVICE, m->hole0);
    }
    free(memo);
}

/* The slot of the call of these holes and ids, or NULL. */
static const memo_slot *memo_find(const struct mmx__holes_memo *memo, mmx_scheme scheme, int levels,
                                  const mmx_index *holes, mmx_index nholes, const mmx_index *ids,
                                  mmx_index nid)
{
    for (int k = 0; memo && k < MEMO_SLOTS; k++) {
        const memo_slot *m = &memo->slot[k];
        if (m->info && m->scheme == scheme && m->levels == levels && m->nholes == nholes &&
            m->nid == nid && (!nholes || !memcmp(m->key, holes, (size_t)nholes * sizeof *holes)) &&
            (!nid || !memcmp(m->key + nholes, ids, (size_t)nid * sizeof *ids)))
            return m;
    }
    return NULL;
}

/* Keeps a call's read-back and its device hole flags (*hole0, taken). */
static mmx_status memo_put(mmx_ctx *ctx, struct mmx__holes_memo *memo, mmx_scheme scheme, int levels,
                           const mmx_index *holes, mmx_index nholes, const mmx_index *ids,
                           mmx_index nid, const mmx_index *info, unsigned char **hole0)
{
    memo_slot *m = &memo->slot[memo->next];
    free(m->key), free(m->info);
    if (m->hole0) mmx_mem_free(m->ctx, MMX_SPACE_DEVICE, m->hole0); /* in stream order */
    *m = (memo_slot){scheme, levels, nholes, nid, NULL, NULL, NULL, ctx};
    mmx_status s = mmx__host_alloc(ctx, (size_t)nholes + (size_t)nid + 1, sizeof *m->key, (void **)&m->key);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nid + 2, sizeof *m->info, (void **)&m->info);
    if (s) {
        free(m->key), free(m->info);
        m->key = m->info = NULL;
        return s;
    }
    if (nholes) memcpy(m->key, holes, (size_t)nholes * sizeof *holes);
    if (nid) memcpy(m->key + nholes, ids, (size_t)nid * sizeof *ids);
    memcpy(m->info, info, ((size_t)nid + 2) * sizeof *info);
    m->hole0 = *hole0, *hole0 = NULL;
    memo->next = (memo->next + 1) % MEMO_SLOTS;
    return MMX_OK;
}

/* The host statement of holes.cu's marking (mmx__subdiv_holes_mark_cuda says what it
 * makes); used, kuse: room for nv bytes each, rank for nv numbers. */
static void mark_host(const mmx__holes_in *in, unsigned char *keep, unsigned char *row_keep,
                      mmx_index *info, unsigned char *used, unsigned char *kuse, mmx_index *rank)
{
    const mmx_csc *R = in->R;
    const mmx_index nf = R->ncols, nv = R->nrows, c = R->order;
    memset(used, 0, (size_t)nv), memset(kuse, 0, (size_t)nv);
    mmx_index nc = 0, nr = 0;
    for (mmx_index F = 0; F < nf; F++) {
        const int k = !in->hole0[mmx__hole_ancestor(in->scheme, in->order0, in->colptr0, in->ncols0,
                                                    in->levels, F)];
        keep[F] = (unsigned char)k;
        nc += k;
        for (mmx_index j = 0; j < c; j++) {
            const mmx_index r = R->rowidx[(int64_t)c * F + j];
            used[r] = 1;
            if (k) kuse[r] = 1;
        }
    }
    for (mmx_index r = 0; r < nv; r++) {
        row_keep[r] = !used[r];
        rank[r] = kuse[r] || !used[r] ? nr++ : -1;
    }
    info[0] = nr, info[1] = nc;
    for (mmx_index q = 0; q < in->nid; q++) info[2 + q] = rank[in->ids[q]];
}

/* Marks the faces and rows kept (keep, row_keep in the context's space) and, with `read`,
 * reads back info: the kept vertices and faces and the ids' new numbers (host, 2 + nid
 * entries); on CUDA the one wait. */
static mmx_status mark(mmx_ctx *ctx, const mmx__holes_in *in, unsigned char *keep,
                       unsigned char *row_keep, mmx_index *info, int read)
{
    const mmx_index nv = in->R->nrows;
    if (mmx_ctx_space(ctx) == MMX_SPACE_HOST) {
        unsigned char *used = NULL;
        mmx_index *rank = NULL;
        mmx_status s = mmx__host_alloc(ctx, 2 * (size_t)nv + 1, 1, (void **)&used);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof *rank, (void **)&rank);
        if (!s) mark_host(in, keep, row_keep, info, used, used + nv, rank);
        free(used), free(rank);
        return s;
    }
    /* Without `read` (the memo has info) only the flags: no counts, no numbers. */
    mmx_index *d = NULL;
    const size_t bytes = ((size_t)in->nid + 2) * sizeof *d;
    mmx_status s = read ? mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)&d) : MMX_OK;
    if (!s) s = mmx__subdiv_holes_mark_cuda(ctx, in, keep, row_keep, d);
    if (!s && read) s = mmx_mem_copy(ctx, info, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, bytes); /* the wait */
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d);
    return s;
}

/* The descendants of carry's holes, tagged (MMX_HOLES_KEEP): a host loop over the result's
 * faces, reading the input's colptr on the host (a wait for a general-form input on CUDA). */
static mmx_status keep_holes(mmx_ctx *ctx, mmx_scheme scheme, const mmx_csc *M0, int levels,
                             mmx_index nf, const unsigned char *hole0, mmx_mesh_tags *carry)
{
    mmx_index *cp = NULL;
    mmx_status s = MMX_OK;
    if (!M0->order && M0->space != MMX_SPACE_HOST) {
        s = mmx__host_alloc(ctx, (size_t)M0->ncols + 1, sizeof *cp, (void **)&cp);
        if (!s) s = mmx_mem_copy(ctx, cp, MMX_SPACE_HOST, M0->colptr, M0->space,
                                 ((size_t)M0->ncols + 1) * sizeof *cp);
    }
    const mmx_index *colptr0 = cp ? cp : M0->colptr;
    mmx_index n = 0;
    for (mmx_index f = 0; !s && f < nf; f++)
        n += hole0[mmx__hole_ancestor(scheme, M0->order, colptr0, M0->ncols, levels, f)];
    if (!s && n) s = mmx__host_alloc(ctx, (size_t)n, sizeof *carry->holes, (void **)&carry->holes);
    for (mmx_index f = 0; !s && f < nf; f++)
        if (hole0[mmx__hole_ancestor(scheme, M0->order, colptr0, M0->ncols, levels, f)])
            carry->holes[carry->nholes++] = f;
    free(cp);
    return s;
}

/* The new mesh of the kept faces: B (taken), positions gathered from r's by old (the kept
 * rows' old numbers), r's texture coordinates (taken) with their index selected by keep. */
static mmx_status rebuild(mmx_ctx *ctx, mmx_mesh *r, mmx_csc *B, const mmx_index *old,
                          const unsigned char *keep, mmx_mesh **fresh)
{
    const mmx_space sp = r->space;
    const mmx_index nr = B->nrows, c = r->M->order;
    mmx_mesh *m = calloc(1, sizeof *m);
    if (!m) {
        mmx_csc_free(B);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    }
    m->space = sp, m->ctx = ctx, m->M = B;
    mmx__mesh_cache_attach(m);
    /* A few bytes more, so that a mesh without vertices still has positions. */
    mmx_status s = mmx_mem_alloc(ctx, sp, (size_t)nr * 3 * sizeof(float) + 4, (void **)&m->pos);
    if (!s && sp == MMX_SPACE_DEVICE && nr) s = mmx__gather_rows3_cuda(ctx, r->pos, old, nr, m->pos);
    for (mmx_index v = 0; !s && sp == MMX_SPACE_HOST && v < nr; v++)
        memcpy(m->pos + 3 * (size_t)v, r->pos + 3 * (size_t)old[v], 3 * sizeof(float));
    /* The coordinates' index: the kept faces' columns of the index read as a matrix of rows
     * `values`, every row kept in place; written over the index's start. */
    if (!s && r->uv && r->uv->space != sp) { /* with their mesh first (CUDA refines both there) */
        mmx_mesh_uv *d = NULL;
        s = mmx__mesh_uv_copy_to(ctx, r->uv, r->M->nnz, sp, &d);
        if (!s) mmx_mesh_uv_free(r->uv), r->uv = d;
    }
    mmx_mesh_uv *uv = r->uv;
    if (!s && uv) {
        const mmx_csc U = {.nrows = uv->nvalues, .ncols = r->M->ncols, .nnz = r->M->nnz,
                           .rowidx = uv->index, .order = c, .space = sp,
                           .maxcol = r->M->ncols > 0 ? c : 0, .minval = r->M->ncols > 0 ? 1 : 0,
                           .maxval = r->M->ncols > 0 ? c : 0, .positional = 1};
        const mmx__col_select sel = {keep, NULL, NULL, 1, B->ncols, uv->nvalues, 0, 0};
        mmx_csc *I = NULL;
        s = mmx__csc_select_cols(ctx, &U, &sel, &I, NULL, NULL);
        if (!s && I->nnz) s = mmx_mem_copy(ctx, uv->index, sp, I->rowidx, sp, (size_t)I->nnz * sizeof *uv->index);
        mmx_csc_free(I); /* device: in stream order, after the copy */
        if (!s) m->uv = uv, r->uv = NULL;
    }
    /* A result without faces in the general form, as a mesh of no faces is made
     * (mmx_mesh_reduce refuses it a face order). */
    if (!s && !B->ncols) s = mmx_mesh_expand(ctx, m);
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    *fresh = m;
    return MMX_OK;
}

mmx_status mmx__subdiv_holes(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                             mmx_hole_mode mode, mmx_mesh **out, mmx_mesh_tags *carry,
                             mmx_index **kept, struct mmx__holes_memo *memo)
{
    if (kept) *kept = NULL;
    const mmx_space sp = (*out)->space;
    const mmx_csc *M0 = mesh->M, *R = (*out)->M;
    const mmx_index nf0 = M0->ncols, nf = R->ncols, nv = R->nrows;
    const mmx_index nid = carry->ncorners + 2 * carry->ncreases;
    unsigned char *hole0 = NULL, *dhole0 = NULL, *keep = NULL, *row_keep = NULL;
    mmx_index *ids = NULL, *dids = NULL, *info = NULL, *old = NULL;
    mmx_csc *B = NULL;
    mmx_mesh *fresh = NULL;
    mmx_status s = mmx__host_alloc(ctx, nf0 ? (size_t)nf0 : 1, 1, (void **)&hole0);
    if (s) return s;
    memset(hole0, 0, (size_t)nf0);
    for (mmx_index k = 0; k < carry->nholes; k++) hole0[carry->holes[k]] = 1;
    mmx_index *holes = carry->holes, nholes = carry->nholes; /* the memo's key, freed below */
    carry->holes = NULL, carry->nholes = 0;
    if (mode == MMX_HOLES_KEEP) {
        s = keep_holes(ctx, scheme, M0, levels, nf, hole0, carry);
        free(hole0), free(holes);
        return s;
    }
    if (!R->order) {
        free(hole0), free(holes);
        return mmx__fail(ctx, MMX_ERR_INTERNAL, "holes: the refined mesh is not in the reduced form");
    }
    /* The vertices whose new numbers the host needs: the corners', then the creases' ends. */
    s = mmx__host_alloc(ctx, (size_t)nid + 2, sizeof *ids, (void **)&ids);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nid + 2, sizeof *info, (void **)&info);
    if (!s) {
        if (carry->ncorners) memcpy(ids, carry->corner_verts, (size_t)carry->ncorners * sizeof *ids);
        if (carry->ncreases)
            memcpy(ids + carry->ncorners, carry->crease_verts, 2 * (size_t)carry->ncreases * sizeof *ids);
    }
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)nf + 1, (void **)&keep);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)nv + 1, (void **)&row_keep);
    if (!s) s = mmx_mem_alloc(ctx, sp, ((size_t)nv + 1) * sizeof *old, (void **)&old);
    /* On CUDA, an earlier call of the same levels and tags left its read-back and device hole
     * flags in the memo: nothing copied up, nothing read back. (The host backend waits for
     * nothing: no memo.) */
    const int dev = sp != MMX_SPACE_HOST;
    const memo_slot *hit = !s && dev ? memo_find(memo, scheme, levels, holes, nholes, ids, nid) : NULL;
    if (!s && dev && !hit) { /* the host arrays stay until the read-back's wait */
        s = mmx_mem_alloc(ctx, sp, (size_t)nf0 + 1, (void **)&dhole0);
        if (!s) s = mmx_mem_alloc(ctx, sp, ((size_t)nid + 1) * sizeof *dids, (void **)&dids);
        if (!s && nf0) s = mmx_mem_copy(ctx, dhole0, sp, hole0, MMX_SPACE_HOST, (size_t)nf0);
        if (!s && nid) s = mmx_mem_copy(ctx, dids, sp, ids, MMX_SPACE_HOST, (size_t)nid * sizeof *ids);
    }
    if (!s) {
        const mmx__holes_in in = {scheme, levels, M0->order, M0->ncols, M0->colptr,
                                  hit ? hit->hole0 : dhole0 ? dhole0 : hole0, R,
                                  hit ? NULL : dids ? dids : ids, hit ? 0 : nid};
        s = mark(ctx, &in, keep, row_keep, info, !hit);
        if (!s && hit) memcpy(info, hit->info, ((size_t)nid + 2) * sizeof *info);
        if (!s && dev && memo && !hit)
            s = memo_put(ctx, memo, scheme, levels, holes, nholes, ids, nid, info, &dhole0);
    }
    /* The kept faces and rows, their counts known: no wait. */
    if (!s) {
        const mmx__col_select sel = {keep, NULL, row_keep, 0, info[1], info[0], 0, 0};
        s = mmx__csc_select_cols(ctx, R, &sel, &B, NULL, old);
    }
    if (!s) s = rebuild(ctx, *out, B, old, keep, &fresh); /* B taken */
    /* The carried corners and creases, renumbered; those on a vertex left out go. */
    const mmx_index *nc = s ? NULL : info + 2, *ne = s ? NULL : info + 2 + carry->ncorners;
    mmx_index m = 0;
    for (mmx_index q = 0; !s && q < carry->ncorners; q++)
        if (nc[q] >= 0) carry->corner_verts[m] = nc[q], carry->corner_sharpness[m++] = carry->corner_sharpness[q];
    if (!s) carry->ncorners = m;
    m = 0;
    for (mmx_index q = 0; !s && q < carry->ncreases; q++) {
        if (ne[2 * q] < 0 || ne[2 * q + 1] < 0) continue;
        carry->crease_verts[2 * m] = ne[2 * q], carry->crease_verts[2 * m + 1] = ne[2 * q + 1];
        carry->crease_sharpness[m++] = carry->crease_sharpness[q];
    }
    if (!s) carry->ncreases = m;
    if (!s) {
        mmx_mesh_free(*out);
        *out = fresh;
        if (kept) *kept = old, old = NULL; /* the kept vertices' old numbers, for a plan's gather */
    }
    /* Device arrays: in stream order, after the work that reads them. */
    mmx_mem_free(ctx, sp, keep), mmx_mem_free(ctx, sp, row_keep), mmx_mem_free(ctx, sp, old);
    if (dhole0) mmx_mem_free(ctx, sp, dhole0);
    if (dids) mmx_mem_free(ctx, sp, dids);
    free(hole0), free(holes), free(ids), free(info);
    return s;
}
