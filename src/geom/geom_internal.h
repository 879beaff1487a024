/* Private declarations of the geometry module: the per-face formulas (one statement, compiled
 * for the host and for CUDA kernels alike, so both backends evaluate the same code), the
 * steps the public operations are made of, and the CUDA halves of those steps. */
#ifndef MMX_GEOM_INTERNAL_H
#define MMX_GEOM_INTERNAL_H

#include <math.h>
#include "core/core_internal.h"
#include "spla/spla_internal.h"
#include "mesh/mesh_internal.h" /* mmx__edge_find */
#include "meshmatrix/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the formulas, per face ---------------------------------------------------------------- */

static inline MMX__HD void mmx__v3_sub(const float *a, const float *b, float *d)
{
    d[0] = a[0] - b[0], d[1] = a[1] - b[1], d[2] = a[2] - b[2];
}

static inline MMX__HD float mmx__v3_dot(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline MMX__HD void mmx__v3_cross(const float *a, const float *b, float *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Vertex v's position. */
static inline MMX__HD const float *mmx__p(const float *pos, mmx_index v)
{
    return pos + 3 * (int64_t)v;
}

/* Newell's vector of the face whose c vertices are v[0 .. c): the sum of the cross products
 * of consecutive vertices, taken from v[0] (the terms with p_0 vanish, the others are
 * translation-invariant in sum), which for a triangle is (p1 - p0) x (p2 - p0). */
static inline MMX__HD void mmx__newell(const float *pos, const mmx_index *v, int64_t c, float *N)
{
    N[0] = N[1] = N[2] = 0.0f;
    const float *p0 = mmx__p(pos, v[0]);
    float a[3], b[3], x[3];
    mmx__v3_sub(mmx__p(pos, v[1]), p0, a);
    for (int64_t i = 2; i < c; i++) {
        mmx__v3_sub(mmx__p(pos, v[i]), p0, b);
        mmx__v3_cross(a, b, x);
        N[0] += x[0], N[1] += x[1], N[2] += x[2];
        a[0] = b[0], a[1] = b[1], a[2] = b[2];
    }
}

/* The angle at corner t of the face whose c vertices are v[0 .. c), in [0, pi] (0 if an edge
 * at the corner has zero length). */
static inline MMX__HD float mmx__corner_angle(const float *pos, const mmx_index *v, int64_t c,
                                              int64_t t)
{
    float e1[3], e2[3], x[3];
    const float *pv = mmx__p(pos, v[t]);
    mmx__v3_sub(mmx__p(pos, v[t + 1 < c ? t + 1 : 0]), pv, e1);
    mmx__v3_sub(mmx__p(pos, v[t > 0 ? t - 1 : c - 1]), pv, e2);
    mmx__v3_cross(e1, e2, x);
    /* atan2 of sine and cosine (each scaled by |e1||e2|) stays accurate near 0 and pi, where
     * acos of the normalised dot product loses half its digits. */
    const float s = sqrtf(mmx__v3_dot(x, x)), co = mmx__v3_dot(e1, e2);
    return s == 0.0f && co == 0.0f ? 0.0f : atan2f(s, co);
}

/* The mixed Voronoi area of corner t of the triangle v[0 .. 3) (geom.h, MMX_MASS_VORONOI), len
 * = |N| of the triangle (twice its area). */
static inline MMX__HD float mmx__corner_voronoi(const float *pos, const mmx_index *v, float len,
                                                int64_t t)
{
    const float *pi = mmx__p(pos, v[t]), *pj = mmx__p(pos, v[(t + 1) % 3]),
                *pk = mmx__p(pos, v[(t + 2) % 3]);
    float ij[3], ik[3], ji[3], jk[3], ki[3], kj[3];
    mmx__v3_sub(pj, pi, ij), mmx__v3_sub(pk, pi, ik);
    mmx__v3_sub(pi, pj, ji), mmx__v3_sub(pk, pj, jk);
    mmx__v3_sub(pi, pk, ki), mmx__v3_sub(pj, pk, kj);
    /* d_x = |e1||e2| cos(angle at x): its sign says whether the angle is obtuse, and d_x / |N|
     * is the angle's cotangent. */
    const float di = mmx__v3_dot(ij, ik), dj = mmx__v3_dot(ji, jk), dk = mmx__v3_dot(ki, kj);
    const float area = 0.5f * len;
    if (len == 0.0f) return 0.0f;
    if (di < 0.0f) return 0.5f * area;
    if (dj < 0.0f || dk < 0.0f) return 0.25f * area;
    return (mmx__v3_dot(ik, ik) * dj + mmx__v3_dot(ij, ij) * dk) / (8.0f * len);
}

/* What mmx__geom_face computes for a face (per face) or for each of its corners (per corner,
 * in M's storage order). */
typedef enum mmx__face_what {
    MMX__FACE_NEWELL = 0, /* out[3f..]: N_f */
    MMX__FACE_UNIT,       /* out[3f..]: N_f / |N_f| (0 if degenerate); out2[f]: |N_f| / 2;
                             either may be NULL */
    MMX__FACE_SHARE,      /* out[f]: area_f / c_f, the barycentric share of each corner */
    MMX__CORNER_ANGLE,    /* out[q]: the angle at corner q, in [0, pi] (0 if an edge at the
                             corner has zero length) */
    MMX__CORNER_COT,      /* triangles: out[q] = cot(angle at the corner opposite the edge from
                             corner q to the next) / 2, 0 in a degenerate triangle */
    MMX__CORNER_VORONOI   /* triangles: out[q] = the mixed Voronoi area of corner q's vertex in
                             the face (geom.h, MMX_MASS_VORONOI) */
} mmx__face_what;

/* The quantity `what` of face f (c = colptr[f+1] - colptr[f] vertices at v = rowidx + a, a its
 * first entry). Triangles only for the last two (the caller has checked). */
static inline MMX__HD void mmx__geom_face(const float *pos, const mmx_index *v, int64_t a,
                                          int64_t c, mmx_index f, mmx__face_what what,
                                          float *out, float *out2)
{
    float N[3];
    mmx__newell(pos, v, c, N);
    const float len = sqrtf(mmx__v3_dot(N, N));
    switch (what) {
    case MMX__FACE_NEWELL:
        for (int d = 0; d < 3; d++) out[3 * (int64_t)f + d] = N[d];
        break;
    case MMX__FACE_UNIT:
        if (out)
            for (int d = 0; d < 3; d++) out[3 * (int64_t)f + d] = len > 0.0f ? N[d] / len : 0.0f;
        if (out2) out2[f] = 0.5f * len;
        break;
    case MMX__FACE_SHARE:
        out[f] = 0.5f * len / (float)c;
        break;
    case MMX__CORNER_ANGLE:
        for (int64_t t = 0; t < c; t++) out[a + t] = mmx__corner_angle(pos, v, c, t);
        break;
    case MMX__CORNER_COT:
        for (int t = 0; t < 3; t++) {
            /* The corner opposite the edge t -> t+1 is t+2; its cotangent is
             * (e1 . e2) / |e1 x e2|, and |e1 x e2| = |N| at every corner of a triangle. */
            const int o = (t + 2) % 3;
            float e1[3], e2[3];
            const float *po = mmx__p(pos, v[o]);
            mmx__v3_sub(mmx__p(pos, v[t]), po, e1);
            mmx__v3_sub(mmx__p(pos, v[(t + 1) % 3]), po, e2);
            out[a + t] = len > 0.0f ? 0.5f * mmx__v3_dot(e1, e2) / len : 0.0f;
        }
        break;
    default: /* MMX__CORNER_VORONOI */
        for (int t = 0; t < 3; t++) out[a + t] = mmx__corner_voronoi(pos, v, len, t);
        break;
    }
}

/* Vertex j's normal (geom.h, mmx_vertex_normals) in one gather: its faces from Mt's column j
 * (ascending face order; Mt's values are j's 1-based corner in each face), each face's value
 * read from the per-face table F (3 floats per face, mmx__geom_face's MMX__FACE_NEWELL for
 * area weights, MMX__FACE_UNIT otherwise: computed once per face, so a face of c corners costs
 * O(c), not O(c^2) as when each of its vertices recomputed it), times the angle at j's corner
 * (angle), summed in float in that order, then normalised: the fast path. These are the
 * values, the order and the arithmetic of the reference (the face table, the SpMV Mᵀ<map> x
 * with op = T and the normalisation: mmx__vertex_normals_product), so the host's normals are
 * its bits (tests/test_geom.c). */
static inline MMX__HD void mmx__vertex_normal(const mmx_csc *M, const mmx_csc *Mt,
                                              const float *pos, const float *F,
                                              mmx_normal_weight weight, mmx_index j,
                                              float *normals)
{
    int64_t a, b;
    mmx__csc_col(Mt, j, &a, &b);
    float acc[3] = {0.0f, 0.0f, 0.0f};
    for (int64_t q = a; q < b; q++) {
        const mmx_index f = Mt->rowidx[q];
        float m = 1.0f;
        if (weight == MMX_NORMAL_ANGLE) {
            int64_t fa, fb;
            mmx__csc_col(M, f, &fa, &fb);
            m = mmx__corner_angle(pos, M->rowidx + fa, fb - fa, Mt->val[q] - 1);
        }
        for (int d = 0; d < 3; d++) acc[d] += m * F[3 * (int64_t)f + d];
    }
    const float len = sqrtf(acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2]);
    for (int d = 0; d < 3; d++) normals[3 * (int64_t)j + d] = len > 0.0f ? acc[d] / len : 0.0f;
}

/* Vertex j's area (geom.h, mmx_vertex_areas) in one gather over its faces in Mt's column j:
 * the barycentric share |N_f| / 2 / c_f read from `share` (mmx__geom_face's MMX__FACE_SHARE,
 * once per face), or the Voronoi area of j's corner (triangles: computed here), summed in
 * float in ascending face order (the fast path): the values and order of the reference, the
 * per-face (or per-corner) table and the SpMV Mᵀ<map> x (mmx__vertex_areas_product), so the
 * host's areas are its bits. share may be NULL for MMX_MASS_VORONOI. */
static inline MMX__HD float mmx__vertex_area(const mmx_csc *M, const mmx_csc *Mt, const float *pos,
                                             const float *share, mmx_mass_kind kind, mmx_index j)
{
    int64_t a, b;
    mmx__csc_col(Mt, j, &a, &b);
    float acc = 0.0f;
    for (int64_t q = a; q < b; q++) {
        if (kind != MMX_MASS_VORONOI) {
            acc += share[Mt->rowidx[q]];
            continue;
        }
        int64_t fa, fb;
        mmx__csc_col(M, Mt->rowidx[q], &fa, &fb);
        const mmx_index *fv = M->rowidx + fa;
        float N[3];
        mmx__newell(pos, fv, fb - fa, N);
        acc += mmx__corner_voronoi(pos, fv, sqrtf(mmx__v3_dot(N, N)), Mt->val[q] - 1);
    }
    return acc;
}

/* mmx__vertex_area for every vertex, one thread per vertex. */
mmx_status mmx__vertex_areas_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                  const float *pos, const float *share, mmx_mass_kind kind,
                                  float *areas);

/* A vertex-normal plan (geom.h): the mesh matrix (the mesh's arrays, not owned), its
 * transpose (owned) and the per-face table the gather reads (owned, 3 floats per face,
 * rewritten by each call in stream order). */
struct mmx_normals_plan {
    mmx_csc M;
    mmx_csc *Mt;
    float *face;
    mmx_space space;
    mmx_ctx *ctx;
};

/* mmx__vertex_normal for every vertex, one thread per vertex (F filled before, in stream
 * order). */
mmx_status mmx__vertex_normals_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                    const float *pos, const float *F, mmx_normal_weight weight,
                                    float *normals);

/* ---- steps (dispatch in the .c files, CUDA halves in the .cu files) ------------------------- */

/* Checks that the mesh can be used here: ctx and mesh not NULL, the mesh in the context's
 * space, with positions when `needs_pos`. `what` names the operation in the detail. */
mmx_status mmx__geom_check(mmx_ctx *ctx, const mmx_mesh *mesh, int needs_pos, const char *what);

/* Checks that every face is a triangle: from adj->face_order when adj is not NULL, else from
 * M (mmx_mesh_uniform_order); otherwise MMX_ERR_MESH naming the first face of another order
 * (its face lists read on the host: a wait on CUDA, on this error path only). */
mmx_status mmx__geom_triangles(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               const char *what);

/* mmx__geom_face for every face of the mesh, on the context's backend (queued on CUDA). out
 * has 3 nfaces floats (NEWELL, UNIT), nfaces (SHARE) or nnz (the corner kinds). */
mmx_status mmx__geom_faces(mmx_ctx *ctx, const mmx_mesh *mesh, mmx__face_what what, float *out,
                           float *out2);
mmx_status mmx__geom_faces_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                mmx__face_what what, float *out, float *out2);

/* A per-corner table of M (nnz floats, M's storage order) moved to the order of Mt = Mᵀ's
 * entries (mmx_csc_transpose keeps each entry's value, its 1-based position in its face):
 * out[q'] = corner[start(f) + val[q'] - 1], f = Mt->rowidx[q']. So that Mt with the map
 * MMX_MAP_BY_ENTRY(out) sums per-corner weights per vertex. */
mmx_status mmx__geom_corners_to_mt(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                   const float *corner, float *out);
mmx_status mmx__geom_corners_to_mt_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                        const float *corner, float *out);

/* x[i] = value for i < n, in the context's space (queued on CUDA). */
mmx_status mmx__geom_fill(mmx_ctx *ctx, float *x, int64_t n, float value);
mmx_status mmx__geom_fill_cuda(mmx_ctx *ctx, float *x, int64_t n, float value);

/* Rows of 3: x[v] = x[v] / |x[v]|, or 0 where |x[v]| = 0 (in place). */
mmx_status mmx__geom_normalize(mmx_ctx *ctx, float *x, mmx_index n);
mmx_status mmx__geom_normalize_cuda(mmx_ctx *ctx, float *x, mmx_index n);

/* Rows of 3: y[v] = scale * x[v] / m[v], or 0 where m[v] = 0. */
mmx_status mmx__geom_scale_rows(mmx_ctx *ctx, const float *x, const float *m, float scale,
                                mmx_index n, float *y);
mmx_status mmx__geom_scale_rows_cuda(mmx_ctx *ctx, const float *x, const float *m, float scale,
                                     mmx_index n, float *y);

/* The sum per vertex of per-face values x (k floats per face) through Mᵀ, or, with a corner
 * table (nnz floats in M's order, NULL for none), of corner[q] * x[f]: y = Mt<map>ᵀ x, op = T.
 * Transposes M itself (the wait of mmx_csc_transpose on CUDA). */
mmx_status mmx__geom_vertex_sum(mmx_ctx *ctx, const mmx_csc *M, const float *corner,
                                const float *x, int k, float *y);

/* The Laplacians' pattern (E plus the diagonal) and weights: `cot` NULL gives the uniform
 * weights; else cot is the per-corner table of MMX__CORNER_COT and ef the EF query. */
typedef struct mmx__lap_in {
    mmx_csc E;               /* the adjacency's E (general form, rows ascending) */
    const mmx_index *edge_ptr, *ev, *fe;
    mmx_csc M;               /* the mesh matrix (either form) */
    const float *cot;        /* NULL: uniform */
    const mmx_index *ef_ptr; /* EF's rows: NULL when EF is reduced (ef_order > 0) */
    const mmx_index *ef;
    mmx_index ef_order;
} mmx__lap_in;

/* The weight of the edge e = {i, j} of L: 1 (uniform), or the sum over the edge's faces (EF's
 * row, ascending) of the half cotangent stored at the face's corner that starts the edge. */
static inline MMX__HD float mmx__lap_edge_weight(const mmx__lap_in *in, mmx_index e)
{
    if (!in->cot) return 1.0f;
    const int64_t r0 = in->ef_order ? (int64_t)in->ef_order * e : in->ef_ptr[e];
    const int64_t r1 = in->ef_order ? r0 + in->ef_order : in->ef_ptr[e + 1];
    float w = 0.0f;
    for (int64_t r = r0; r < r1; r++) {
        int64_t a, b;
        mmx__csc_col(&in->M, in->ef[r], &a, &b);
        for (int64_t q = a; q < b; q++)
            if ((in->fe[q] >> 1) == e) w += in->cot[q];
    }
    return w;
}

/* Column j of L: E's column j with the diagonal inserted where its row falls (rows stay
 * ascending), the stored values the positions, the weights the edges' and, on the diagonal,
 * minus their sum in row order. colptr[j] = E.colptr[j] + j: every earlier column gained one
 * entry. One call per column, on either backend; the caller sets colptr[nverts]. */
static inline MMX__HD void mmx__lap_column(const mmx__lap_in *in, mmx_index j, mmx_index *colptr,
                                           mmx_index *rowidx, mmx_index *val, float *w)
{
    const int64_t e0 = in->E.colptr[j], e1 = in->E.colptr[j + 1];
    const int64_t start = e0 + j;
    int64_t out = start, diag = -1;
    float sum = 0.0f;
    colptr[j] = (mmx_index)start;
    for (int64_t p = e0; p < e1; p++) {
        const mmx_index i = in->E.rowidx[p];
        if (diag < 0 && i > j) diag = out++;
        /* Column j's rows below j are the edges edge_ptr[j] .. in order (mesh.h); an edge
         * with a higher end i lives in column i. */
        const mmx_index e = i < j ? in->edge_ptr[j] + (mmx_index)(p - e0)
                                  : mmx__edge_find(in->edge_ptr, in->ev, i, j);
        const float wij = mmx__lap_edge_weight(in, e);
        rowidx[out] = i;
        val[out] = (mmx_index)(out - start + 1);
        w[out] = wij;
        sum += wij;
        out++;
    }
    if (diag < 0) diag = out;
    rowidx[diag] = j;
    val[diag] = (mmx_index)(diag - start + 1);
    w[diag] = -sum;
}

/* A cotangent Laplacian kept across the steps of a smoothing whose positions change and whose
 * topology does not: the pattern, the EF rows and the arrays are made on the first update, and
 * each later update refreshes the weights in place from the current positions (the same
 * values mmx_cotan_laplacian gives). `adj` is the mesh's adjacency (not NULL). */
typedef struct mmx__cotan_op {
    mmx_weighted *L;
    mmx_csr *ef;
} mmx__cotan_op;
mmx_status mmx__cotan_op_update(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                mmx__cotan_op *op);
void mmx__cotan_op_free(mmx__cotan_op *op);

/* Fills L (allocated: nverts x nverts, nnz(E) + nverts entries, general) and w. */
mmx_status mmx__geom_laplacian_fill_cuda(mmx_ctx *ctx, const mmx__lap_in *in, mmx_csc *L,
                                         float *w);

/* mmx_mass_matrix with the mesh's adjacency when the caller has one (NULL: none), whose face
 * order spares the triangle check of a general device mesh its read of colptr. */
mmx_status mmx__geom_mass(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                          const mmx_adjacency *adj, mmx_weighted **out);

/* The n x n diagonal pattern (reduced form of order 1: entry v is (v, v)) of a mass matrix,
 * in the context's space. */
mmx_status mmx__geom_diag_pattern(mmx_ctx *ctx, mmx_index n, mmx_csc **out);

/* ---- the references by the algebra (operator.c) ------------------------------------------- */

/* The Laplacians by a masked valued product (spla.h, mmx_spgemm_valued) on the pattern E + I:
 *   uniform: L = M <CYCLE_BOTH p=1, 1 * 1, MAX> Mᵀ (1 per edge),
 *   cotan:   L = M <CYCLE_BOTH p=1, TAIL of the corners' half cotangents, SUM> Mᵀ,
 * then the diagonal L_ii = -(L 1)_i by an SpMV (the diagonal still 0). A valued mmx_csc with
 * the pattern, positions and floats of mmx_uniform_laplacian / mmx_cotan_laplacian (the fast
 * path, mmx__lap_column): the same bits on the host (same additions in the same order). */
mmx_status mmx__laplacian_product(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                  int cotan, mmx_csc **out);

/* Vertex areas as the SpMV Mᵀ<map> x (op = T): barycentric, the face shares with the map 1;
 * Voronoi, ones with the corners' Voronoi areas as the map. The same bits as
 * mmx_vertex_areas on the host. */
mmx_status mmx__vertex_areas_product(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                                     float *areas);

/* Vertex normals as the SpMV Mᵀ<map> N (op = T) of the face normals N (Newell vectors, or unit
 * normals, with the corners' angles as the map for MMX_NORMAL_ANGLE), then normalised: the
 * reference of mmx_vertex_normals (the same bits on the host). */
mmx_status mmx__vertex_normals_product(mmx_ctx *ctx, const mmx_mesh *mesh,
                                       mmx_normal_weight weight, float *normals);

/* out[j] = j for j < n (mmx_index), for the mass matrix's diagonal pattern. */
mmx_status mmx__geom_iota_cuda(mmx_ctx *ctx, mmx_index *out, mmx_index n);

/* ---- smoothing (smooth.c, bilateral.c, mcf.c; CUDA halves smooth.cu, bilateral.cu) ---------- */

/* Whether vertex v is kept fixed: fixed is NULL (none) or one byte per vertex. */
static inline MMX__HD int mmx__smooth_fixed(const unsigned char *fixed, int64_t v)
{
    return fixed && fixed[v];
}

/* An explicit step's per-vertex factor. Assembled path: d = -L_vv (the sum of the edge
 * weights at v), scale = 1/d; patch path: d = the VV row's length, scale = 1/d. 0 (the vertex
 * does not move) for a fixed vertex and where d is not > 0 (no neighbour; an obtuse cotangent
 * fan). NaN where d is not finite (cotangent weights that overflowed on huge coordinates), so
 * that the vertex's position turns NaN and mmx_smooth's final check refuses the call, where
 * it would have stayed put as if smoothed. `neg` says d is the diagonal itself (assembled)
 * rather than a count. */
static inline MMX__HD float mmx__smooth_scale_of(float d, int neg, int fixed)
{
    const float dd = neg ? -d : d;
    if (fixed) return 0.0f;
    if (!mmx__finite((double)dd)) return dd - dd; /* NaN */
    return !(dd > 0.0f) ? 0.0f : 1.0f / dd;
}

/* One assembled explicit step at vertex j fused with its product: s = (L x)_j gathered from
 * L's column j (L symmetric: column j is row j) in storage order, acc += w * x in float (the
 * arithmetic and order of mmx_spmv's op = T on the host), then
 *   x'_j = x_j + lambda (scale_j s_j),
 * x_j kept bit for bit where scale_j = 0. out must not be x (the neighbours' old positions are
 * read): the loop double-buffers. */
static inline MMX__HD void mmx__smooth_lap_vertex(const mmx_csc *L, const float *w, const float *x,
                                                  const float *scale, float lambda, int64_t j,
                                                  float *out)
{
    const float c = scale[j];
    if (c == 0.0f) {
        for (int d = 0; d < 3; d++) out[3 * j + d] = x[3 * j + d];
        return;
    }
    int64_t a, b;
    mmx__csc_col(L, (mmx_index)j, &a, &b);
    float acc[3] = {0.0f, 0.0f, 0.0f};
    for (int64_t q = a; q < b; q++) {
        const float m = w[q];
        const float *xi = x + 3 * (int64_t)L->rowidx[q];
        for (int d = 0; d < 3; d++) acc[d] += m * xi[d];
    }
    for (int d = 0; d < 3; d++) out[3 * j + d] = x[3 * j + d] + lambda * (c * acc[d]);
}

/* mmx__smooth_lap_vertex for every vertex (one thread each on CUDA). */
mmx_status mmx__smooth_lap_step(mmx_ctx *ctx, const mmx_csc *L, const float *w, const float *x,
                                const float *scale, float lambda, float *out);
mmx_status mmx__smooth_lap_step_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *w,
                                     const float *x, const float *scale, float lambda,
                                     float *out);

/* scale (n floats) from d (n floats: -diag L, or the VV counts) as mmx__smooth_scale_of says. */
mmx_status mmx__smooth_scale(mmx_ctx *ctx, mmx_index n, const float *d, int neg,
                             const unsigned char *fixed, float *scale);
mmx_status mmx__smooth_scale_cuda(mmx_ctx *ctx, mmx_index n, const float *d, int neg,
                                  const unsigned char *fixed, float *scale);

/* MCF's fixed vertices: mask[v] = 1 where boundary (NULL: none) marks v or v is in no face
 * (valence 0: zero mass and no Laplacian row, which would make S singular), else 0. */
mmx_status mmx__smooth_mask(mmx_ctx *ctx, mmx_index n, const mmx_index *valence,
                            const unsigned char *boundary, unsigned char *mask);
mmx_status mmx__smooth_mask_cuda(mmx_ctx *ctx, mmx_index n, const mmx_index *valence,
                                 const unsigned char *boundary, unsigned char *mask);

/* The per-vertex pieces of implicit mean curvature flow (mcf.c), on n x k arrays, A the mass
 * matrix's diagonal (n floats), fixed as above: */
typedef enum mmx__mcf_op {
    MMX__MCF_FIXED_ONLY = 0, /* y = fixed ? x : 0 (the known positions, for the right side) */
    MMX__MCF_FREE_ONLY,      /* y = fixed ? 0 : x (the unknowns: S's fixed columns dropped) */
    MMX__MCF_RHS,            /* y = fixed ? x : A x + h lx (lx = L applied to the fixed part;
                                NULL: none, y = A x) */
    MMX__MCF_APPLY,          /* y = fixed ? x : A x - h lx (lx = L applied to the free part) */
    MMX__MCF_DIAG,           /* k = 1, x = diag L: y = fixed ? 1 : A - h x (S's diagonal) */
    MMX__MCF_RESTORE,        /* y = fixed ? x : y (the fixed rows put back bit for bit) */
    MMX__MCF_NEGATE          /* y = -x (the uniform Laplacian's valences from its diagonal) */
} mmx__mcf_op;

static inline MMX__HD void mmx__mcf_vertex(mmx__mcf_op op, int k, const float *x, const float *A,
                                           const float *lx, float h,
                                           const unsigned char *fixed, int64_t v, float *y)
{
    const int f = mmx__smooth_fixed(fixed, v);
    for (int c = 0; c < k; c++) {
        const int64_t q = (int64_t)k * v + c;
        switch (op) {
        case MMX__MCF_FIXED_ONLY: y[q] = f ? x[q] : 0.0f; break;
        case MMX__MCF_FREE_ONLY: y[q] = f ? 0.0f : x[q]; break;
        case MMX__MCF_RHS: y[q] = f ? x[q] : lx ? A[v] * x[q] + h * lx[q] : A[v] * x[q]; break;
        case MMX__MCF_APPLY: y[q] = f ? x[q] : A[v] * x[q] - h * lx[q]; break;
        case MMX__MCF_DIAG: y[q] = f ? 1.0f : A[v] - h * x[q]; break;
        case MMX__MCF_NEGATE: y[q] = -x[q]; break;
        default: if (f) y[q] = x[q]; break;
        }
    }
}

mmx_status mmx__mcf_per_vertex(mmx_ctx *ctx, mmx__mcf_op op, mmx_index n, int k, const float *x,
                               const float *A, const float *lx, float h,
                               const unsigned char *fixed, float *y);
mmx_status mmx__mcf_per_vertex_cuda(mmx_ctx *ctx, mmx__mcf_op op, mmx_index n, int k,
                                    const float *x, const float *A, const float *lx, float h,
                                    const unsigned char *fixed, float *y);

/* The matrix-free y = S x at vertex j (k <= 4 columns), S = A - h L with the fixed rows and
 * columns the identity's: y_j = x_j for a fixed j, else A_j x_j - h (L x_free)_j, the product
 * gathered from L's column j (L symmetric) in storage order with the fixed neighbours read as
 * 0, acc += w * x in float: the arithmetic and order of the FREE_ONLY pass, the op = T SpMV
 * and the APPLY pass it fuses. y must not be x. */
static inline MMX__HD void mmx__mcf_apply_vertex(const mmx_csc *L, const float *wL, const float *A,
                                                 float h, const unsigned char *fixed,
                                                 const float *x, int k, int64_t j, float *y)
{
    if (mmx__smooth_fixed(fixed, j)) {
        for (int c = 0; c < k; c++) y[(int64_t)k * j + c] = x[(int64_t)k * j + c];
        return;
    }
    int64_t a, b;
    mmx__csc_col(L, (mmx_index)j, &a, &b);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t q = a; q < b; q++) {
        const mmx_index i = L->rowidx[q];
        const int fi = mmx__smooth_fixed(fixed, i);
        const float m = wL[q];
        for (int c = 0; c < k; c++) acc[c] += m * (fi ? 0.0f : x[(int64_t)k * i + c]);
    }
    for (int c = 0; c < k; c++) y[(int64_t)k * j + c] = A[j] * x[(int64_t)k * j + c] - h * acc[c];
}

mmx_status mmx__mcf_apply(mmx_ctx *ctx, const mmx_csc *L, const float *wL, const float *A, float h,
                          const unsigned char *fixed, const float *x, int k, float *y);
mmx_status mmx__mcf_apply_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *wL, const float *A,
                               float h, const unsigned char *fixed, const float *x, int k,
                               float *y);

/* Column j of S = A - h L on L's pattern (rows ascending, the diagonal stored): wS[q] =
 * [i == j] A_j - h wL[q]; with fixed vertices, an entry in a fixed row or column is
 * [i == j] (the identity's). */
static inline MMX__HD void mmx__mcf_column(const mmx_csc *L, const float *wL, const float *A,
                                           float h, const unsigned char *fixed, mmx_index j,
                                           float *wS)
{
    int64_t a, b;
    mmx__csc_col(L, j, &a, &b);
    const int fj = mmx__smooth_fixed(fixed, j);
    for (int64_t q = a; q < b; q++) {
        const mmx_index i = L->rowidx[q];
        if (fj || mmx__smooth_fixed(fixed, i)) wS[q] = i == j ? 1.0f : 0.0f;
        else wS[q] = i == j ? A[j] - h * wL[q] : -h * wL[q];
    }
}

mmx_status mmx__mcf_assemble(mmx_ctx *ctx, const mmx_csc *L, const float *wL, const float *A,
                             float h, const unsigned char *fixed, float *wS);
mmx_status mmx__mcf_assemble_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *wL,
                                  const float *A, float h, const unsigned char *fixed, float *wS);

/* Bilateral filtering at vertex v (geom.h, MMX_SMOOTH_BILATERAL): its neighbours are the VV
 * row [r0, r1) of nb; n the unit vertex normals; sc, ss the sigmas (0: per vertex). Sums in
 * float in the row's order.
 *
 * Conditioning: the formula is evaluated so that rounding (a contracted FMA on CUDA, another
 * expf) moves the result by rounding only. The offsets' spread is the two-pass variance
 * (sum of (h_j - mean)^2, never negative; the one-pass E[h^2] - mean^2 cancels to noise where
 * the offsets are nearly equal, and sqrt of that noise made sigma_s, and with it every
 * weight, arbitrary). The weights are exp(e_j - e_max), e_j = -t_j^2 / (2 sc^2) - h_j^2 /
 * (2 ss^2) and e_max the largest exponent of the row: the same ratio w_j / sum w, but the
 * largest weight is 1, so the sum never underflows to 0 (before, a vertex whose offsets were
 * all large against a tiny sigma_s got every weight 0 and did not move on one backend while
 * it moved on the other). */
static inline MMX__HD void mmx__bilateral_vertex(const float *x, const float *nrm,
                                                 const mmx_index *nb, int64_t r0, int64_t r1,
                                                 float sc, float ss, const unsigned char *fixed,
                                                 int64_t v, float *out)
{
    const float *p = x + 3 * v, *n = nrm + 3 * v;
    out[3 * v] = p[0], out[3 * v + 1] = p[1], out[3 * v + 2] = p[2];
    if (mmx__smooth_fixed(fixed, v) || r1 <= r0 || (n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f))
        return;
    /* First pass: the one-ring's radius and the offsets' mean; second: their spread. */
    float rmax = 0.0f, hs = 0.0f;
    for (int64_t r = r0; r < r1; r++) {
        float e[3];
        mmx__v3_sub(x + 3 * (int64_t)nb[r], p, e);
        const float t = sqrtf(mmx__v3_dot(e, e));
        rmax = t > rmax ? t : rmax;
        hs += mmx__v3_dot(n, e);
    }
    const float cnt = (float)(r1 - r0), mean = hs / cnt;
    float dev = 0.0f;
    for (int64_t r = r0; r < r1; r++) {
        float e[3];
        mmx__v3_sub(x + 3 * (int64_t)nb[r], p, e);
        const float dh = mmx__v3_dot(n, e) - mean;
        dev += dh * dh;
    }
    if (!(sc > 0.0f)) sc = rmax;
    if (!(ss > 0.0f)) ss = sqrtf(dev / cnt);
    /* A sigma of 0 makes its factor 1 (all neighbours alike for that criterion). */
    const float kc = sc > 0.0f ? -0.5f / (sc * sc) : 0.0f, ks = ss > 0.0f ? -0.5f / (ss * ss) : 0.0f;
    float emax = -3.4028235e38f; /* -FLT_MAX: below every finite exponent */
    for (int64_t r = r0; r < r1; r++) {
        float e[3];
        mmx__v3_sub(x + 3 * (int64_t)nb[r], p, e);
        const float h = mmx__v3_dot(n, e), ex = kc * mmx__v3_dot(e, e) + ks * (h * h);
        emax = ex > emax ? ex : emax;
    }
    float sum = 0.0f, norm = 0.0f;
    for (int64_t r = r0; r < r1; r++) {
        float e[3];
        mmx__v3_sub(x + 3 * (int64_t)nb[r], p, e);
        const float h = mmx__v3_dot(n, e), ex = kc * mmx__v3_dot(e, e) + ks * (h * h);
        const float w = expf(ex - emax);
        sum += w * h, norm += w;
    }
    /* norm >= 1 (the largest weight is exp(0)) unless an exponent is not finite (a sigma
     * whose square underflows, overflowing k): then the vertex does not move. */
    if (!(norm > 0.0f) || !mmx__finite((double)(sum / norm))) return;
    const float d = sum / norm;
    for (int c = 0; c < 3; c++) out[3 * v + c] = p[c] + d * n[c];
}

mmx_status mmx__bilateral_step(mmx_ctx *ctx, const mmx_csr *vv, const float *x, const float *nrm,
                               float sc, float ss, const unsigned char *fixed, float *out);
mmx_status mmx__bilateral_step_cuda(mmx_ctx *ctx, const mmx_csr *vv, const float *x,
                                    const float *nrm, float sc, float ss,
                                    const unsigned char *fixed, float *out);

/* Called by the explicit steps on the assembled path (LAPLACIAN, COTAN, TAUBIN): once after
 * their set-up with x NULL, then after every iteration with the current positions x (n x 3,
 * the context's space; the hook may rewrite rows of x), each time with the status so far; the
 * hook returns the status to go on with (the loop stops at its first failure). Every call is
 * made whatever the status, so a hook that agrees the status across processes (the
 * partitioned mesh's halo exchange, src/dist/ops.c) is called the same number of times by
 * every process. */
typedef mmx_status (*mmx__smooth_hook)(mmx_ctx *ctx, mmx_status s, float *x, void *arg);

/* mmx_smooth with a hook (above) between iterations: the same checks, steps and result
 * (bit for bit when the hook does not change x). The hook is taken by the explicit methods on
 * the assembled path only: any other method or path with a hook is MMX_ERR_UNSUPPORTED before
 * any work. Where mmx_smooth fails before the set-up (its checks), the hook is not called. */
mmx_status mmx__smooth_with(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_smooth_options *opts,
                            float *out, mmx_smooth_report *report, mmx__smooth_hook hook,
                            void *arg);

/* The three methods' loops, on checked arguments (smooth.c checks and dispatches): x is the
 * current positions (n x 3, the context's space), updated in place; `view` the mesh with
 * pos = x; adj its adjacency; fixed the boundary mask or NULL; report's method fields are
 * filled. */
typedef struct mmx__smooth_job {
    mmx_mesh view;
    const mmx_adjacency *adj;
    const unsigned char *fixed;
    const mmx_smooth_options *opts;
    float step, mu;
    float *x;
    const float *src;  /* where the input positions are when not in x yet (the explicit
                          assembled steps read them there: mmx_smooth copies nothing) */
    mmx_smooth_report *rep;
    mmx__smooth_hook hook; /* mmx__smooth_with's; NULL for mmx_smooth */
    void *hook_arg;
} mmx__smooth_job;

mmx_status mmx__smooth_bilateral(mmx_ctx *ctx, mmx__smooth_job *job);
mmx_status mmx__smooth_mcf(mmx_ctx *ctx, mmx__smooth_job *job);

#ifdef __cplusplus
}
#endif
#endif
