/* One level of sqrt3 subdivision (thesis 4.1.2, the face-centric form), as mapped SpMVs:
 *
 *   b  = Mᵀ p,  (1,2,3) -> 1/3                                   face centres     (4.8)
 *   p~ = F p,   v -> alpha_v / n_v                               old vertices     (4.9)
 *      + I p,   v -> 1 - alpha_v                                                   (4.2)
 *
 * F(i,j) is the face running the half-edge i -> j; on a closed, consistently oriented mesh its
 * pattern is the vertex graph's, column j holding j's neighbours, so F p is computed as the
 * gather Fᵀ p. The new positions are [p~ | b]; each triangle's three children take the centre
 * across each of its edges from F (Table 4.1), in mmx__subdiv_topology.
 *
 * A mesh with boundary follows Kobbelt's rule (rules.h), by the level's generation:
 *   even: the same products; a boundary vertex's tables keep it (self 1, ring 0: F misses some
 *         of its neighbours, but its ring weight is 0), and its boundary edges keep their
 *         children (v_s, v_s+1, c).
 *   odd:  boundary vertices 19/27 p + 4/27 bp, bp = E p, 1 -> 1, 2 -> 0 (the sum of the two
 *         neighbours across boundary edges), as Loop's crease term:
 *           p~ += I bp, v -> 4/27 (boundary; 0 inside)
 *         A face with a boundary edge a -> b has, in its face slot, the cut point l near a and
 *         gets one more vertex after the face slots, r near b (the cut faces in face order);
 *         with W M's pattern numbered entry by entry (so that a map can weigh each corner):
 *           b  = Wᵀ p, q -> 1/3 inside; a 16/27, b 9/27, x 0 in a cut face
 *              + Wᵀ bp, q -> 0 inside; a 1/27, others 0 in a cut face
 *           r  = Bᵀ p, (1, 2) -> (9/27, 16/27) + Bᵀ bp, (1, 2) -> (0, 1/27)
 *         B the cut faces' boundary edges (a, b) as a reduced matrix of order 2.
 *         New positions [p~ | b | r].
 * The children of a level with boundary are read off F on the host (a CUDA context copies M
 * and F up and the children down: a wait per level), as are W's and B's tables. */
#include <string.h>
#include "subdiv_internal.h"

/* What a level with boundary needs beyond the closed products, built on the host from M and F
 * (host copies): the children (rows, 9 per face) and, on an odd generation, the cut faces'
 * tables. */
typedef struct boundary_level {
    mmx_index nb;     /* faces cut (odd generation), else 0 */
    mmx_index *rows;  /* 9 nf: the children, subdiv.h's layout */
    mmx_csc *W;       /* odd: nv x nf, M's pattern, entry q holding q + 1 (host) */
    float *wp, *wb;   /* odd: nnz: each corner's weights of p and of bp in its face slot */
    mmx_index *ends;  /* odd: 2 nb: each cut face's boundary edge a -> b, in face order */
} boundary_level;

static void boundary_level_free(boundary_level *L)
{
    free(L->rows), free(L->wp), free(L->wb), free(L->ends);
    mmx_csc_free(L->W);
    memset(L, 0, sizeof *L);
}

/* The face running the half-edge to -> from (the face across from -> to), or -1 on a
 * boundary: F's column `from` holds row `to` (mmx__subdiv_children). */
static mmx_index across_face(const mmx_csc *F, mmx_index from, mmx_index to)
{
    const mmx_index hi = F->colptr[from + 1];
    const mmx_index q = mmx__lower_bound(F->rowidx, F->colptr[from], hi, to);
    return q == hi || F->rowidx[q] != to ? -1 : F->val[q];
}

/* The vertex that face k's split puts opposite its edge s (a flip joins it to the one across):
 * the centre nv + k, or on an odd generation in a face cut at its edge t, the cut point next
 * to s: l (the face slot) beside edge t + 2, r (nv + nf + cut[k]) beside edge t + 1. */
static mmx_index opposite(mmx_index k, int s, int odd, const signed char *bedge,
                          const mmx_index *cut, mmx_index nv, mmx_index nf)
{
    if (!odd || bedge[k] < 0) return nv + k;
    return s == (bedge[k] + 1) % 3 ? nv + nf + cut[k] : nv + k;
}

/* Builds L for level `level` of M (host, triangles) with its F (host). Faces with more than
 * one boundary edge on an odd generation cannot arise (rules.h) and are an internal error. */
static mmx_status boundary_build(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *F, int level,
                                 boundary_level *L)
{
    const mmx_index nv = M->nrows, nf = M->ncols;
    const int odd = mmx__rule_sqrt3_trisects(level);
    signed char *bedge = NULL;
    mmx_index *cut = NULL, *across = NULL;
    memset(L, 0, sizeof *L);
    mmx_status s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *bedge, (void **)&bedge);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *cut, (void **)&cut);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nf + 1, sizeof *across, (void **)&across);
    if (!s) s = mmx__host_alloc(ctx, 9 * (size_t)nf + 1, sizeof *L->rows, (void **)&L->rows);
    if (s) goto done;
    /* Each face's neighbours and its boundary edge; the cut faces numbered in face order. */
    for (mmx_index k = 0; k < nf && !s; k++) {
        int64_t a, b;
        mmx__csc_col(M, k, &a, &b);
        const mmx_index *v = M->rowidx + a;
        int nb = 0;
        bedge[k] = -1;
        for (int t = 0; t < 3; t++) {
            across[3 * (size_t)k + t] = across_face(F, v[t], v[(t + 1) % 3]);
            if (across[3 * (size_t)k + t] < 0 && nb++ == 0) bedge[k] = (signed char)t;
        }
        if (odd && nb > 1)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "sqrt3: face %d has %d boundary edges on an odd "
                          "generation (level %d), which an even one leaves none with", k, nb,
                          level);
        cut[k] = odd && bedge[k] >= 0 ? L->nb++ : -1;
    }
    if (s) goto done;
    /* The children of each corner s (rules.h): the flip of edge s, or the boundary's child. */
    for (mmx_index k = 0; k < nf; k++) {
        int64_t a, b;
        mmx__csc_col(M, k, &a, &b);
        const mmx_index *v = M->rowidx + a;
        for (int t = 0; t < 3; t++) {
            mmx_index *child = L->rows + 9 * (size_t)k + 3 * t;
            const mmx_index g = across[3 * (size_t)k + t], to = v[(t + 1) % 3];
            if (g < 0) {
                if (odd) mmx__rule_sqrt3_child(nv + k, nv + nf + cut[k], v[(t + 2) % 3], child);
                else mmx__rule_sqrt3_child(v[t], to, nv + k, child);
                continue;
            }
            /* g runs the edge as to -> v[t]: its edge number is the corner holding `to`. */
            int64_t ga, gb;
            mmx__csc_col(M, g, &ga, &gb);
            int u = 0;
            while (u < 2 && M->rowidx[ga + u] != to) u++;
            mmx__rule_sqrt3_child(v[t], opposite(g, u, odd, bedge, cut, nv, nf),
                                  opposite(k, t, odd, bedge, cut, nv, nf), child);
        }
    }
    if (!odd) goto done;
    /* The cut faces' tables: W numbered entry by entry, each corner's weights, B's ends. */
    const mmx__sqrt3_third w = mmx__rule_sqrt3_third();
    const float third = mmx__rule_face_weight(3);
    const mmx_index nnz = M->nnz;
    s = mmx__csc_alloc(ctx, MMX_SPACE_HOST, nv, nf, nnz, 0, &L->W);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *L->wp, (void **)&L->wp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *L->wb, (void **)&L->wb);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)L->nb + 1, sizeof *L->ends, (void **)&L->ends);
    if (s) goto done;
    L->W->colptr[0] = 0;
    for (mmx_index k = 0; k < nf; k++) {
        int64_t a, b;
        mmx__csc_col(M, k, &a, &b);
        L->W->colptr[k + 1] = (mmx_index)b;
        const int t = bedge[k];
        for (int c = 0; c < 3; c++) {
            const int64_t q = a + c;
            L->W->rowidx[q] = M->rowidx[q];
            L->W->val[q] = (mmx_index)q + 1;
            L->wp[q] = t < 0 ? third : c == t ? w.near : c == (t + 1) % 3 ? w.far : 0.0f;
            L->wb[q] = t >= 0 && c == t ? w.bsum : 0.0f;
        }
        if (t >= 0) {
            L->ends[2 * (size_t)cut[k]] = M->rowidx[a + t];
            L->ends[2 * (size_t)cut[k] + 1] = M->rowidx[a + (t + 1) % 3];
        }
    }
    s = mmx__csc_props(ctx, L->W);
done:
    free(bedge), free(cut), free(across);
    if (s) boundary_level_free(L);
    return s;
}

/* A host array copied into the context's space (a new allocation there). */
static mmx_status to_space(mmx_ctx *ctx, const void *h, size_t bytes, void **out)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_status s = mmx_mem_alloc(ctx, sp, bytes ? bytes : 4, out);
    if (!s && bytes) s = mmx_mem_copy(ctx, *out, sp, h, MMX_SPACE_HOST, bytes);
    return s;
}

/* The odd generation's extra products (the header's b and r) and the child matrix of a level
 * with boundary, into r (positions p~ already there, b holding the centres). */
static mmx_status boundary_level_eval(mmx_ctx *ctx, const mmx_mesh *in,
                                      const mmx__subdiv_ops *ops, mmx_mesh *r)
{
    const mmx_csc *M = in->M;
    const mmx_index nv = M->nrows, nf = M->ncols;
    const mmx_space sp = mmx_ctx_space(ctx);
    const int odd = mmx__rule_sqrt3_trisects(ops->level);
    const float *p = in->pos;
    boundary_level L;
    mmx_csc *Mh = NULL, *Fh = NULL, *W = NULL, *C = NULL;
    float *wp = NULL, *wb = NULL, *bp = NULL;
    mmx_index *ends = NULL;
    memset(&L, 0, sizeof L);
    /* Host copies of M and F (the same matrices on a host context). */
    mmx_status s = mmx_csc_copy(ctx, M, MMX_SPACE_HOST, &Mh);
    if (!s) s = mmx_csc_copy(ctx, ops->adj->F, MMX_SPACE_HOST, &Fh);
    if (!s) s = boundary_build(ctx, Mh, Fh, ops->level, &L);
    const mmx_index nout = nv + nf + L.nb;
    if (!s) s = mmx__csc_alloc(ctx, sp, nout, 3 * nf, 9 * nf, 3, &C);
    if (!s && nf) s = mmx_mem_copy(ctx, C->rowidx, sp, L.rows, MMX_SPACE_HOST,
                                   9 * (size_t)nf * sizeof *L.rows);
    if (!s) s = mmx__csc_props(ctx, C);
    if (!s && odd) {
        const mmx__sqrt3_third w = mmx__rule_sqrt3_third();
        const float rp[2] = {w.far, w.near}, rb[2] = {0.0f, w.bsum};
        float *rpd = NULL, *rbd = NULL;
        const size_t nnz = (size_t)M->nnz;
        s = mmx_csc_copy(ctx, L.W, sp, &W);
        if (!s) s = to_space(ctx, L.wp, nnz * sizeof *wp, (void **)&wp);
        if (!s) s = to_space(ctx, L.wb, nnz * sizeof *wb, (void **)&wb);
        if (!s) s = to_space(ctx, L.ends, 2 * (size_t)L.nb * sizeof *ends, (void **)&ends);
        if (!s) s = to_space(ctx, rp, sizeof rp, (void **)&rpd);
        if (!s) s = to_space(ctx, rb, sizeof rb, (void **)&rbd);
        if (!s) s = mmx_mem_alloc(ctx, sp, 3 * (size_t)nv * sizeof *bp + 4, (void **)&bp);
        if (!s) s = mmx__subdiv_crease_sum(ctx, ops, p, bp);
        float *vp = r->pos, *b = mmx__subdiv_at(vp, 3 * (size_t)nv), *rr = mmx__subdiv_at(b, 3 * (size_t)nf);
        const mmx_map crease = mmx_map_table(MMX_MAP_BY_COL, ops->w_crease, nv);
        if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, crease, bp, 3, 1.0f, vp);
        if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, W, mmx_map_table(MMX_MAP_BY_VALUE, wp, M->nnz),
                             p, 3, 0.0f, b);
        if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, W, mmx_map_table(MMX_MAP_BY_VALUE, wb, M->nnz),
                             bp, 3, 1.0f, b);
        if (!s && L.nb) {
            /* B: the cut edges (a, b) as a reduced matrix of order 2, a view of `ends`. */
            mmx_csc B;
            memset(&B, 0, sizeof B);
            B.nrows = nv, B.ncols = L.nb, B.nnz = 2 * L.nb, B.rowidx = ends, B.order = 2;
            B.space = sp, B.maxcol = 2, B.minval = 1, B.maxval = 2, B.positional = 1;
            s = mmx_spmv(ctx, MMX_OP_T, 1.0f, &B, mmx_map_table(MMX_MAP_BY_VALUE, rpd, 2), p, 3,
                         0.0f, rr);
            if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, &B, mmx_map_table(MMX_MAP_BY_VALUE, rbd, 2),
                                 bp, 3, 1.0f, rr);
        }
        mmx_mem_free(ctx, sp, rpd), mmx_mem_free(ctx, sp, rbd);
    }
    /* The copies above are queued from host arrays freed here: wait for them (CUDA). */
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    if (!s) {
        mmx_csc_free(r->M);
        r->M = C;
        C = NULL;
    }
    mmx_csc_free(C), mmx_csc_free(W), mmx_csc_free(Mh), mmx_csc_free(Fh);
    mmx_mem_free(ctx, sp, wp), mmx_mem_free(ctx, sp, wb), mmx_mem_free(ctx, sp, ends);
    mmx_mem_free(ctx, sp, bp);
    boundary_level_free(&L);
    return s;
}

mmx_status mmx__sqrt3_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                            mmx_mesh **out)
{
    const mmx_csc *M = in->M, *F = ops->adj->F;
    const mmx_index nv = M->nrows, nf = M->ncols;
    const int bnd = ops->adj->boundary_edges > 0;
    /* An odd generation with boundary has one more vertex per boundary face; each boundary
     * face has one boundary edge then (rules.h), so boundary_edges counts them. */
    const mmx_index extra = bnd && mmx__rule_sqrt3_trisects(ops->level) ? ops->adj->boundary_edges
                                                                        : 0;
    const float *p = in->pos;
    mmx_mesh *r = NULL;
    mmx_status s = mmx__subdiv_mesh_alloc(ctx, nv + nf + extra, &r);
    if (s) return s;
    float *vp = r->pos, *b = mmx__subdiv_at(vp, 3 * (size_t)nv);
    const mmx_map third = mmx_map_table(MMX_MAP_BY_VALUE, ops->face_w, ops->len_face_w);
    const mmx_map self = mmx_map_table(MMX_MAP_BY_COL, ops->w_self, nv);
    const mmx_map ring = mmx_map_table(MMX_MAP_BY_COL, ops->w_ring, nv);

    /* With boundary on an odd generation the face slots are boundary_level_eval's. */
    if (!extra) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, M, third, p, 3, 0.0f, b);
    /* The ring first, the old position last, as in catmull_clark.c. */
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, F, ring, p, 3, 0.0f, vp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, self, p, 3, 1.0f, vp);
    if (!s && !bnd) s = mmx__subdiv_topology(ctx, ops, nv + nf, &r->M);
    if (!s && bnd) s = boundary_level_eval(ctx, in, ops, r);
    if (s) {
        mmx_mesh_free(r);
        return s;
    }
    *out = r;
    return MMX_OK;
}
