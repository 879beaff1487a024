/* The per-element steps of isotropic remeshing (dynamic.h states the rules), written once for
 * the host driver (remesh.c) and the CUDA kernels (remesh.cu), as flip_step.h and sc_step.h do
 * for the templates: which edges seed a split, a collapse or a flip, where a collapse puts its
 * vertex, and each vertex's relaxation target before its projection. Double precision through
 * flip_step.h's MMX__D* (never fused on the device), sums in fixed orders (a vertex's faces
 * ascending, its neighbours as E lists them), so both backends compute the same bits and so
 * make the same edits. */
#ifndef MMX_DYNAMIC_REMESH_STEP_H
#define MMX_DYNAMIC_REMESH_STEP_H

#include "sc_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most rounds of each step per iteration (dynamic.h: mmx_remesh). */
#define MMX__RM_SPLIT_ROUNDS 64
#define MMX__RM_COLLAPSE_ROUNDS 64
#define MMX__RM_FLIP_ROUNDS 16
#define MMX__RM_RELAX_ROUNDS 64

/* The most triangles the projection of a relaxed vertex onto the input may test (bvh_step.h's
 * budget). A query on an ordinary surface tests tens; where many long input triangles' boxes
 * hold the point (the spokes of a fan), it would test them all, O(n) a vertex and O(n^2) a
 * step: past the budget the vertex is not moved in that step. */
#define MMX__RM_PROJECT_TESTS 256

/* A new face is refused when its quality (mmx__hd_tri_quality) is under this and worse than
 * the face(s) it replaces: the remesher never makes needles, and may still work where the
 * input has them (0.05 is a smallest angle of about 3 degrees). */
#define MMX__RM_SLIVER 0.05

/* What the steps read besides the topology: the positions, the feature edges (sorted keys,
 * mmx__rm_key), the tagged corners (pin) and, for collapses and moves, the feature vertices
 * (fv: boundary, pinned, or an end of a feature edge) and each vertex's number of feature
 * edges (fdeg); lo2 = (4/5 L)^2, hi2 = (4/3 L)^2. All in one memory space. */
typedef struct mmx__rm_view {
    mmx__sc_view t;
    const float *pos;
    const uint64_t *feat;
    mmx_index nfeat;
    const unsigned char *pin, *fv;
    const mmx_index *fdeg;
    double lo2, hi2;
} mmx__rm_view;

/* Edge {a, b}'s key: lower end << 32 | higher end. */
static inline MMX__HD uint64_t mmx__rm_key(mmx_index a, mmx_index b)
{
    const mmx_index lo = a < b ? a : b, hi = a < b ? b : a;
    return (uint64_t)(uint32_t)lo << 32 | (uint32_t)hi;
}

/* The position of key k in the sorted keys[0..n), or -1. */
static inline MMX__HD mmx_index mmx__rm_find(const uint64_t *keys, mmx_index n, uint64_t k)
{
    const mmx_index at = mmx__fu_below(keys, n, k);
    return at < n && keys[at] == k ? at : -1;
}

static inline MMX__HD int mmx__rm_is_feature(const mmx__rm_view *r, mmx_index a, mmx_index b)
{
    return r->nfeat > 0 && mmx__rm_find(r->feat, r->nfeat, mmx__rm_key(a, b)) >= 0;
}

static inline MMX__HD double mmx__rm_len2(const float *pos, mmx_index a, mmx_index b)
{
    double A[3], B[3];
    mmx__hd_point(pos, a, A);
    mmx__hd_point(pos, b, B);
    return mmx__hd_dist2(A, B);
}

static inline MMX__HD int mmx__rm_worse_sliver(double q_new, double q_old)
{
    return q_new < MMX__RM_SLIVER && q_new < q_old;
}

/* The sine of the smallest angle of (P, Q, R): twice its area over the product of its two
 * longest sides (0 when degenerate). The smallest angle is at most 60 degrees, where the sine
 * grows with the angle, so comparing sines compares smallest angles without a libm call. */
static inline MMX__HD double mmx__rm_sin_min(const double P[3], const double Q[3],
                                             const double R[3])
{
    double n[3];
    mmx__hd_tri_normal(P, Q, R, n);
    const double x = mmx__hd_dist2(P, Q), y = mmx__hd_dist2(Q, R), z = mmx__hd_dist2(R, P);
    const double p = x <= y && x <= z ? MMX__DMUL(y, z) : y <= z ? MMX__DMUL(x, z) : MMX__DMUL(x, y);
    return p > 0 ? sqrt(mmx__hd_dot(n, n)) / sqrt(p) : 0;
}

/* A valence flip is refused when a new face's smallest angle is under the one of this sine
 * (about 25 degrees) and smaller than before; a flip that keeps the valences is taken when it
 * raises the quad's smallest angle's sine by this factor. On fandisk, the bunny and nefertiti
 * (bench/results/remesh.md, "Angles at the features") the two raise the 1st percentile of the
 * smallest angle from 32.8 / 31.9 / 28.4 to 34.4 / 33.0 / 31.4 degrees. */
#define MMX__RM_FLIP_SIN 0.42
#define MMX__RM_FLIP_GAIN 1.05

/* ---- the set-up ------------------------------------------------------------------------------ */

/* 1 when edge e is a feature of the input: a boundary edge, or (by_angle) an interior edge
 * whose faces' normals make an angle with cosine under cos_bound (cos of the feature angle,
 * computed once by the caller). */
static inline MMX__HD int mmx__rm_feature_edge(const mmx__sc_view *t, const float *pos,
                                               mmx_index e, int by_angle, double cos_bound)
{
    if (t->sides[e] == 1) return 1;
    mmx_index q[4];
    if (!by_angle || !mmx__fv_quad(&t->f, e, q)) return 0;
    double A[3], B[3], C[3], D[3], n0[3], n1[3];
    mmx__hd_point(pos, q[0], A);
    mmx__hd_point(pos, q[1], B);
    mmx__hd_point(pos, q[2], C);
    mmx__hd_point(pos, q[3], D);
    mmx__hd_tri_normal(A, B, C, n0);
    mmx__hd_tri_normal(B, A, D, n1);
    const double l0 = sqrt(mmx__hd_dot(n0, n0)), l1 = sqrt(mmx__hd_dot(n1, n1));
    const double c = mmx__hd_dot(n0, n1) / MMX__DMUL(l0, l1);
    return l0 > 0 && l1 > 0 && c < cos_bound;
}

/* The set-up's sums (the edge lengths, for the mean; the face areas, for the size check) run
 * in one fixed order on both backends: items in blocks of MMX__RM_SUM_BLOCK consecutive ones,
 * each block summed in order (one device thread per block), then the blocks' sums in order
 * (on the host). */
#define MMX__RM_SUM_BLOCK 1024

/* Block b's sum of the edge lengths (what = 0) or of the face areas (what = 1). */
static inline MMX__HD double mmx__rm_block_sum(const mmx__flip_view *f, const float *pos, int what,
                                               mmx_index b)
{
    const mmx_index n = what ? f->nfaces : f->nedges;
    const long long first = (long long)b * MMX__RM_SUM_BLOCK;
    const long long last = first + MMX__RM_SUM_BLOCK < n ? first + MMX__RM_SUM_BLOCK : n;
    double s = 0;
    for (long long i = first; i < last; i++) {
        if (!what) {
            s = MMX__DADD(s, sqrt(mmx__rm_len2(pos, f->ev[2 * i], f->ev[2 * i + 1])));
            continue;
        }
        double P[3], Q[3], R[3], x[3];
        mmx__hd_point(pos, f->verts[3 * i], P);
        mmx__hd_point(pos, f->verts[3 * i + 1], Q);
        mmx__hd_point(pos, f->verts[3 * i + 2], R);
        mmx__hd_tri_normal(P, Q, R, x);
        s = MMX__DADD(s, MMX__DMUL(0.5, sqrt(mmx__hd_dot(x, x))));
    }
    return s;
}

static inline MMX__HD mmx_index mmx__rm_blocks(mmx_index n)
{
    return (mmx_index)(((long long)n + MMX__RM_SUM_BLOCK - 1) / MMX__RM_SUM_BLOCK);
}

/* ---- split -------------------------------------------------------------------------------- */

/* Face f's longest edge, squared. */
static inline MMX__HD double mmx__rm_longest(const mmx__rm_view *r, mmx_index f)
{
    const mmx_index *v = r->t.f.verts + 3 * (size_t)f;
    return fmax(mmx__rm_len2(r->pos, v[0], v[1]),
                fmax(mmx__rm_len2(r->pos, v[1], v[2]), mmx__rm_len2(r->pos, v[2], v[0])));
}

/* 1 when edge e seeds a split: longer than 4/3 L and the longest edge of each of its faces
 * (Rivara's bisection: a split never cuts a triangle across its shorter side, which, repeated,
 * makes needles; the others wait for their faces' longest). longest: per face. */
static inline MMX__HD int mmx__rm_split_seed(const mmx__rm_view *r, const double *longest,
                                             mmx_index e)
{
    const double l = mmx__rm_len2(r->pos, r->t.f.ev[2 * (size_t)e], r->t.f.ev[2 * (size_t)e + 1]);
    const mmx_index f0 = r->t.hf[2 * (size_t)e], f1 = r->t.hf[2 * (size_t)e + 1];
    return l > r->hi2 && (f0 < 0 || l >= longest[f0]) && (f1 < 0 || l >= longest[f1]);
}

/* ---- collapse ------------------------------------------------------------------------------ */

/* The position the merged vertex of {a, b} gets: the stored midpoint, or where one end is a
 * feature vertex (keep >= 0: that end), that end's position. */
static inline MMX__HD void mmx__rm_merged(const float *pos, mmx_index a, mmx_index b,
                                          mmx_index keep, double M[3])
{
    for (int k = 0; k < 3; k++)
        M[k] = keep >= 0 ? (double)pos[3 * (size_t)keep + k] : (double)mmx__sc_mid(pos, a, b, k);
}

/* 1 when M is within 4/3 L of every other neighbour of a and of b. */
static inline MMX__HD int mmx__rm_short_enough(const mmx__rm_view *r, mmx_index a, mmx_index b,
                                               const double M[3])
{
    const mmx_index ends[2] = {a, b};
    for (int h = 0; h < 2; h++)
        for (mmx_index q = r->t.E_colptr[ends[h]]; q < r->t.E_colptr[ends[h] + 1]; q++) {
            const mmx_index w = r->t.E_rowidx[q];
            if (w == a || w == b) continue;
            double W[3];
            mmx__hd_point(r->pos, w, W);
            if (mmx__hd_dist2(W, M) > r->hi2) return 0;
        }
    return 1;
}

/* 1 when no face left at a or b after the collapse (both at M) is folded (against its old
 * normal), degenerate, or a sliver worse than it was. With M at the midpoint the template
 * checks the folds again; at a feature end (where the remesher then puts the vertex) this
 * check is the one that counts, and exact: a kept collapse's faces hold no other kept
 * collapse's vertices. */
static inline MMX__HD int mmx__rm_faces_ok(const mmx__rm_view *r, mmx_index a, mmx_index b,
                                           const double M[3])
{
    const mmx_index ends[2] = {a, b};
    for (int h = 0; h < 2; h++)
        for (mmx_index k = r->t.vf_ptr[ends[h]]; k < r->t.vf_ptr[ends[h] + 1]; k++) {
            const mmx_index *f = r->t.f.verts + 3 * (size_t)r->t.vf[k];
            const int ha = f[0] == a || f[1] == a || f[2] == a;
            const int hb = f[0] == b || f[1] == b || f[2] == b;
            if (ha && hb) continue; /* removed */
            double P[3][3], Q[3][3], n[3];
            for (int j = 0; j < 3; j++) {
                mmx__hd_point(r->pos, f[j], Q[j]);
                for (int k2 = 0; k2 < 3; k2++)
                    P[j][k2] = f[j] == a || f[j] == b ? M[k2] : Q[j][k2];
            }
            mmx__hd_tri_normal(Q[0], Q[1], Q[2], n);
            if (mmx__hd_bad_triangle(P[0], P[1], P[2], n)) return 0;
            if (mmx__rm_worse_sliver(mmx__hd_tri_quality(P[0], P[1], P[2]),
                                     mmx__hd_tri_quality(Q[0], Q[1], Q[2])))
                return 0;
        }
    return 1;
}

/* 1 when feature edge {v, k} may collapse v onto k: v lies inside a feature line (two feature
 * edges, no corner tag) and is within L / 10 of the segment from k to its other feature
 * neighbour o, so the line keeps its shape (on nefertiti's noisy 60-degree lines, L / 20 left
 * more short feature edges and their thin neighbours: the 1st percentile of the smallest
 * angle 24 degrees against 27, with a Hausdorff distance as large). */
static inline MMX__HD int mmx__rm_line_vertex(const mmx__rm_view *r, mmx_index v, mmx_index k)
{
    if (r->fdeg[v] != 2 || r->pin[v] || !mmx__rm_is_feature(r, v, k)) return 0;
    mmx_index o = -1;
    for (mmx_index q = r->t.E_colptr[v]; q < r->t.E_colptr[v + 1]; q++) {
        const mmx_index w = r->t.E_rowidx[q];
        if (w != k && w != v && mmx__rm_is_feature(r, v, w)) o = w;
    }
    if (o < 0 || o == k) return 0;
    double R[3], K[3], O[3], d[3], x[3];
    mmx__hd_point(r->pos, v, R);
    mmx__hd_point(r->pos, k, K);
    mmx__hd_point(r->pos, o, O);
    double dd = 0, u = 0;
    for (int j = 0; j < 3; j++) {
        d[j] = MMX__DSUB(O[j], K[j]);
        dd = MMX__DADD(dd, MMX__DMUL(d[j], d[j]));
        u = MMX__DADD(u, MMX__DMUL(MMX__DSUB(R[j], K[j]), d[j]));
    }
    u = dd > 0 ? fmin(1.0, fmax(0.0, u / dd)) : 0;
    double e2 = 0;
    for (int j = 0; j < 3; j++) {
        x[j] = MMX__DSUB(MMX__DADD(K[j], MMX__DMUL(u, d[j])), R[j]);
        e2 = MMX__DADD(e2, MMX__DMUL(x[j], x[j]));
    }
    return e2 <= r->lo2 / (0.8 * 0.8) / 100.0; /* (L / 10)^2 */
}

/* The most faces an end of a collapse seed may have. The checks below, the line test and the
 * cavity's selection each walk both ends' rings, so without a bound the edges at a vertex of
 * valence d cost O(d^2) (a fan of 30k triangles: most of a minute); with it, O(d). A collapse
 * there would only raise that valence further: the flips bring it down instead. */
#define MMX__RM_COLLAPSE_VALENCE 64

/* 1 when edge e seeds a collapse; *keep: the end the merged vertex stays at (-1: the
 * midpoint). An edge shorter than 4/5 L with one feature end (not on the boundary, which the
 * template refuses) collapses onto that end; a feature edge collapses when one end lies inside
 * a feature line that stays straight without it (that end goes onto the other); and the
 * merged vertex must stay within 4/3 L of every neighbour and make no fold or sliver. Neither
 * end may be in more than MMX__RM_COLLAPSE_VALENCE faces. */
static inline MMX__HD int mmx__rm_collapse_seed(const mmx__rm_view *r, mmx_index e,
                                                mmx_index *keep)
{
    const mmx_index a = r->t.f.ev[2 * (size_t)e], b = r->t.f.ev[2 * (size_t)e + 1];
    if (mmx__rm_len2(r->pos, a, b) >= r->lo2) return 0;
    if (r->t.vf_ptr[a + 1] - r->t.vf_ptr[a] > MMX__RM_COLLAPSE_VALENCE ||
        r->t.vf_ptr[b + 1] - r->t.vf_ptr[b] > MMX__RM_COLLAPSE_VALENCE)
        return 0;
    mmx_index k = r->fv[a] ? a : r->fv[b] ? b : -1;
    if (r->fv[a] && r->fv[b]) {
        const mmx_index v = mmx__rm_line_vertex(r, b, a)   ? b
                            : mmx__rm_line_vertex(r, a, b) ? a
                                                           : -1;
        if (v < 0) return 0;
        k = v == a ? b : a;
    }
    double M[3];
    mmx__rm_merged(r->pos, a, b, k, M);
    *keep = k;
    return mmx__rm_short_enough(r, a, b, M) && mmx__rm_faces_ok(r, a, b, M);
}

/* ---- flip ------------------------------------------------------------------------------------ */

/* 1 when interior non-feature edge e seeds a flip: the sum of the squared deviations of its
 * quad's valences (deg, per vertex) from 6 (4 on the boundary) decreases, no new face is a
 * sliver worse than the old ones nor has a smallest angle under MMX__RM_FLIP_SIN's that is
 * worse than before; or that sum stays and the quad's smallest angle grows (MMX__RM_FLIP_GAIN).
 * Each kept flip lowers the sum or, keeping it, raises the smallest of its two faces' smallest
 * angles while the other faces stay, so the flips end. */
static inline MMX__HD int mmx__rm_flip_seed(const mmx__rm_view *r, const mmx_index *deg,
                                            mmx_index e)
{
    mmx_index q[4];
    if (!mmx__fv_quad(&r->t.f, e, q) || mmx__rm_is_feature(r, q[0], q[1])) return 0;
    long long before = 0, after = 0;
    for (int j = 0; j < 4; j++) {
        const long long target = r->t.boundary[q[j]] ? 4 : 6;
        const long long d = (long long)deg[q[j]] - target, d2 = d + (j < 2 ? -1 : 1);
        before += d * d;
        after += d2 * d2;
    }
    if (after > before) return 0;
    double A[3], B[3], C[3], D[3];
    mmx__hd_point(r->pos, q[0], A);
    mmx__hd_point(r->pos, q[1], B);
    mmx__hd_point(r->pos, q[2], C);
    mmx__hd_point(r->pos, q[3], D);
    const double s_new = fmin(mmx__rm_sin_min(A, D, C), mmx__rm_sin_min(D, B, C));
    const double s_old = fmin(mmx__rm_sin_min(A, B, C), mmx__rm_sin_min(B, A, D));
    if (after == before) return s_new > MMX__RM_FLIP_GAIN * s_old;
    if (s_new < MMX__RM_FLIP_SIN && s_new < s_old) return 0;
    const double q_new = fmin(mmx__hd_tri_quality(A, D, C), mmx__hd_tri_quality(D, B, C));
    const double q_old = fmin(mmx__hd_tri_quality(A, B, C), mmx__hd_tri_quality(B, A, D));
    return !mmx__rm_worse_sliver(q_new, q_old);
}

/* ---- relaxation ------------------------------------------------------------------------------ */

/* Vertex v's area-weighted normal (the sum of its faces' cross products, ascending faces) into
 * n and its barycentric area (a third of each face's area) into *a. */
static inline MMX__HD void mmx__rm_normal_area(const mmx__rm_view *r, mmx_index v, double n[3],
                                               double *a)
{
    n[0] = n[1] = n[2] = 0;
    double s = 0;
    for (mmx_index k = r->t.vf_ptr[v]; k < r->t.vf_ptr[v + 1]; k++) {
        const mmx_index *f = r->t.f.verts + 3 * (size_t)r->t.vf[k];
        double P[3], Q[3], R[3], x[3];
        mmx__hd_point(r->pos, f[0], P);
        mmx__hd_point(r->pos, f[1], Q);
        mmx__hd_point(r->pos, f[2], R);
        mmx__hd_tri_normal(P, Q, R, x);
        for (int j = 0; j < 3; j++) n[j] = MMX__DADD(n[j], x[j]);
        s = MMX__DADD(s, sqrt(mmx__hd_dot(x, x)) / 6.0);
    }
    *a = s;
}

/* Vertex v's relaxation point before projection: q + n n.(p - q), q the centroid of its
 * neighbours weighted by their areas va, n its unit normal (from vn), p its position; 0 when it
 * has none (a feature vertex, a vertex in no face, no weight or no normal). */
static inline MMX__HD int mmx__rm_relax_point(const mmx__rm_view *r, const double *vn,
                                              const double *va, mmx_index v, double P[3])
{
    if (r->fv[v] || r->t.vf_ptr[v] == r->t.vf_ptr[v + 1]) return 0;
    double q[3] = {0, 0, 0}, w = 0;
    for (mmx_index e = r->t.E_colptr[v]; e < r->t.E_colptr[v + 1]; e++) {
        const mmx_index u = r->t.E_rowidx[e];
        if (u == v) continue;
        for (int k = 0; k < 3; k++)
            q[k] = MMX__DADD(q[k], MMX__DMUL(va[u], (double)r->pos[3 * (size_t)u + k]));
        w = MMX__DADD(w, va[u]);
    }
    const double *nv = vn + 3 * (size_t)v;
    const double nn = sqrt(mmx__hd_dot(nv, nv));
    if (!(w > 0) || !(nn > 0)) return 0;
    mmx__hd_point(r->pos, v, P);
    double h = 0;
    for (int k = 0; k < 3; k++) q[k] /= w;
    for (int k = 0; k < 3; k++) h = MMX__DADD(h, MMX__DMUL(nv[k] / nn, MMX__DSUB(P[k], q[k])));
    for (int k = 0; k < 3; k++) P[k] = MMX__DADD(q[k], MMX__DMUL(h, nv[k]) / nn); /* tangent plane */
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif
