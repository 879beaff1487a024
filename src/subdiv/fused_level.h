/* The fused path of the subdivision (fused.c, fused.cu): one pass per level that writes every
 * new position and the child topology, from a half-edge view of the level that is carried from
 * level to level in closed form, so that only the input mesh is hashed (by mmx_adjacency).
 *
 * A level is its reduced mesh matrix (corner c of face f at c = order f + s; order 0 only for
 * Catmull-Clark's polygonal input, read through colptr) and, per corner c (the half-edge from
 * the corner's vertex to the next one in its face):
 *   fe[c]    2e + d as in mmx_adjacency: e the edge's number, d = 1 when c runs it from its
 *            higher end
 *   twin[c]  the corner running the same edge the other way, -1 on a boundary
 * per vertex v:
 *   owner[v] the corner where a walk around v starts (for a boundary vertex, the corner whose
 *            arriving half-edge is on the boundary, so that the walk twin -> next meets every
 *            face in order and ends at the leaving boundary edge), -1 for a vertex in no face
 * and the offsets of the child's edge groups, goff = the exclusive scan of cnt (below).
 *
 * The input level's twins and owners are the mates and start corners of its half-edge view
 * (mesh/halfedge.h), whose steps (a corner's face, next and previous corner, a turn around a
 * vertex) the pass uses too; the children's follow in closed form.
 *
 * Edge numbers. The child's edges must be numbered as mmx_adjacency would number them (by their
 * higher end, then their lower end), so that the fused path's topology equals the algebraic
 * path's. Every child edge's higher end is a new vertex, so the child's edges come in groups,
 * one per parent element that made that vertex, in the parent's order:
 *   Catmull-Clark, group of edge e (offset 2e + goff[e], cnt[e] = the faces of e):
 *       (a, e'), (b, e'), (f1, e'), (f2, e')        a < b the ends, f1 < f2 the faces, e' the
 *                                                    edge point
 *   Loop, group of edge e (offset 2e + goff[e], cnt[e] = the edges e2 < e sharing a face with e):
 *       (a, e'), (b, e'), then (e2', e') for those e2 by increasing e2
 *   sqrt3, group of face f (offset 3f + goff[f], cnt[f] = the faces across f's edges below f):
 *       (u, f') for f's three vertices u by increasing number, then (g', f') for those faces g
 *       by increasing g
 * The pass that writes a child also writes the child's cnt, in closed form, so between two
 * levels there is only the scan.
 *
 * Child faces are numbered as in subdiv.h (children of a face together); the child's corners,
 * twins and owners follow in closed form (the derivations are next to each rule, in fused_cc.h, fused_loop.h and fused_sqrt3.h). */
#ifndef MMX_SUBDIV_FUSED_LEVEL_H
#define MMX_SUBDIV_FUSED_LEVEL_H

#include "subdiv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One level as the pass reads it (by value, a kernel parameter). */
typedef struct mmx__fz_in {
    mmx_scheme scheme;
    mmx_boundary boundary;           /* the boundary mode (rules.h's vertex rule reads it) */
    const float *vsharp;             /* the input's vertex sharpness (corner tags), nv0 entries,
                                        or NULL for none; old vertices keep their numbers, so
                                        vertex v < nv0 is input vertex v at every level */
    mmx_index nv0;
    int level;                       /* 0 for the input level: the sharpness's decay */
    mmx_index nv, nf, ne, nnz;
    mmx_index order;                 /* 3 or 4; 0: general faces read through colptr */
    const mmx_index *colptr;         /* order 0 only */
    const mmx_index *M, *fe, *twin, *owner, *goff;
    const float *pos;                /* NULL: topology only */
    mmx_index maxcol;                /* order 0 only: the longest face (which faces need the
                                        wide face-point kernel) */
    const float *fpts;               /* Catmull-Clark on general faces: the face points,
                                        written by a pass before the level's pass (the output's
                                        positions from nv on), so that an edge or a vertex of a
                                        face of order n reads its point instead of summing n
                                        corners: linear time in the face order. NULL: summed */
} mmx__fz_in;

/* What the pass writes; a NULL array is skipped: pos for a topology-only pass, M for a
 * positions-only pass (re-evaluation), twin/fe/owner/cnt at the last level. */
typedef struct mmx__fz_out {
    mmx_index *M, *fe, *twin, *owner, *cnt;
    float *pos;
} mmx__fz_out;

/* ---- small helpers ------------------------------------------------------------------------- */

/* The face holding corner c: its first corner and its order (halfedge.h's step). */
static inline MMX__HD mmx_index mmx__fz_face_of(const mmx__fz_in *L, mmx_index c, mmx_index *a,
                                                mmx_index *n)
{
    return mmx__corner_face(L->order, L->colptr, L->nf, c, a, n);
}

/* r[i & 3] by selects: a kernel indexing a small array with a value known only at run time
 * would put the array in local memory. */
static inline MMX__HD mmx_index mmx__fz_pick4(const mmx_index *r, mmx_index i)
{
    i &= 3;
    return i == 0 ? r[0] : i == 1 ? r[1] : i == 2 ? r[2] : r[3];
}

static inline MMX__HD void mmx__fz_get(const float *P, mmx_index v, float *x)
{
    const int64_t i = 3 * (int64_t)v;
    x[0] = P[i], x[1] = P[i + 1], x[2] = P[i + 2];
}

static inline MMX__HD void mmx__fz_add(float *acc, const float *P, mmx_index v, float w)
{
    float x[3];
    mmx__fz_get(P, v, x);
    acc[0] += w * x[0], acc[1] += w * x[1], acc[2] += w * x[2];
}

static inline MMX__HD void mmx__fz_store(float *P, mmx_index v, const float *x)
{
    const int64_t i = 3 * (int64_t)v;
    P[i] = x[0], P[i + 1] = x[1], P[i + 2] = x[2];
}

/* Faces of more corners than MMX__FZ_LANES are summed in that many lanes (corner s into lane
 * s mod MMX__FZ_LANES, in corner order), then the lanes pairwise: lane l += lane l + h for
 * h = MMX__FZ_LANES / 2, ..., 1. That is the order a block of the device's wide face-point
 * kernel follows (one thread per lane, fused.cu), so a large face is spread over a block and
 * host and device still agree bit for bit. The pairwise step, unrolled, adds
 * T(r, k) = T(r, k + 1) + T(r + 2^k, k + 1) with T(l, 8) = lane l, and mmx__fz_centroid computes
 * the same T serially: the lanes in bit-reversed order, merged like a binary counter. */
#define MMX__FZ_LANES 256
#define MMX__FZ_LANE_BITS 8

/* Lane `lane` of face [a, a + n): its corners' w-weighted positions in corner order. */
static inline MMX__HD void mmx__fz_lane_sum(const mmx__fz_in *L, mmx_index a, mmx_index n,
                                            mmx_index lane, float w, float *out)
{
    out[0] = out[1] = out[2] = 0.0f;
    for (mmx_index s = lane; s < n; s += MMX__FZ_LANES) mmx__fz_add(out, L->pos, L->M[a + s], w);
}

/* The centroid of the face starting at corner a with n corners (Catmull-Clark's face point,
 * sqrt3's centre): the sum of the corners, each weighted 1/n as the algebraic path's map, in
 * corner order up to MMX__FZ_LANES corners, in the lanes' order above beyond. */
static inline MMX__HD void mmx__fz_centroid(const mmx__fz_in *L, mmx_index a, mmx_index n,
                                            float *out)
{
    const float w = mmx__rule_face_weight(n);
    if (n <= MMX__FZ_LANES) {
        out[0] = out[1] = out[2] = 0.0f;
        for (mmx_index s = 0; s < n; s++) mmx__fz_add(out, L->pos, L->M[a + s], w);
        return;
    }
    float stack[MMX__FZ_LANE_BITS + 1][3];
    int depth = 0;
    for (unsigned i = 0; i < MMX__FZ_LANES; i++) {
        unsigned lane = 0;
        for (int b = 0; b < MMX__FZ_LANE_BITS; b++) lane |= ((i >> b) & 1u) << (MMX__FZ_LANE_BITS - 1 - b);
        mmx__fz_lane_sum(L, a, n, (mmx_index)lane, w, stack[depth++]);
        /* Leaf i closes one subtree per trailing 1 bit: add each right half to its left. */
        for (unsigned t = i; t & 1u; t >>= 1) {
            depth--;
            for (int c = 0; c < 3; c++) stack[depth - 1][c] = stack[depth - 1][c] + stack[depth][c];
        }
    }
    out[0] = stack[0][0], out[1] = stack[0][1], out[2] = stack[0][2];
}

/* Face f's point (first corner a, order n): read from the face-point pass where there was
 * one, else the centroid. */
static inline MMX__HD void mmx__fz_face_point(const mmx__fz_in *L, mmx_index f, mmx_index a,
                                              mmx_index n, float *out)
{
    if (L->fpts) mmx__fz_get(L->fpts, f, out);
    else mmx__fz_centroid(L, a, n, out);
}

/* Four consecutive indices (a reduced quad's row, 16-byte aligned): one vector load on the
 * device. */
static inline MMX__HD void mmx__fz_load4(const mmx_index *p, mmx_index *o)
{
#ifdef __CUDA_ARCH__
    const int4 x = __ldg((const int4 *)p);
    o[0] = x.x, o[1] = x.y, o[2] = x.z, o[3] = x.w;
#else
    o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = p[3];
#endif
}

/* ---- vertex points: a walk around the vertex --------------------------------------------- */

/* One step of a walk around a vertex, next(twin[c]), -1 at a boundary (halfedge.h's step on
 * an oriented level). */
static inline MMX__HD mmx_index mmx__fz_turn(const mmx__fz_in *L, mmx_index c)
{
    return mmx__he_turn(L->order, L->colptr, L->nf, L->twin, c);
}

/* The new position of vertex v (its owner corner c0, -1 when in no face), walking the faces
 * around it: from corner c the next face's corner is next(twin[c]). Sums the ring (the vertex
 * leaving each corner) and, for Catmull-Clark, the face points, then the boundary or inner
 * rule (rules.h) with the small terms first, the old position last.
 * On a quad level a face point needs only the two corners not yet read: the one leaving v is
 * the ring's, and the one arriving is the previous face's leaving one. */
static inline MMX__HD void mmx__fz_vertex(const mmx__fz_in *L, mmx_index v, float *out)
{
    const float *P = L->pos;
    const mmx_index c0 = L->owner[v];
    float p[3];
    mmx__fz_get(P, v, p);
    if (c0 < 0) {
        out[0] = p[0], out[1] = p[1], out[2] = p[2];
        return;
    }
    const int cc = mmx__scheme_quads(L->scheme), quads = cc && L->order == 4;
    const float fw = mmx__rule_face_weight(4);
    float ring[3] = {0, 0, 0}, faces[3] = {0, 0, 0}, pw[3], pp[3] = {0, 0, 0}, first[3];
    mmx_index c = c0, n = 0, a, k;
    int boundary = 0;
    for (;;) {
        const mmx_index f = mmx__fz_face_of(L, c, &a, &k);
        if (quads) {
            mmx_index r[4];
            mmx__fz_load4(L->M + a, r);
            const mmx_index s = c - a;
            float po[3];
            mmx__fz_get(P, mmx__fz_pick4(r, s + 1), pw);
            mmx__fz_get(P, mmx__fz_pick4(r, s + 2), po);
            if (n == 0) mmx__fz_get(P, mmx__fz_pick4(r, s + 3), pp), first[0] = pp[0], first[1] = pp[1], first[2] = pp[2];
            for (int i = 0; i < 3; i++) faces[i] += fw * p[i] + fw * pw[i] + fw * po[i] + fw * pp[i];
        } else {
            mmx__fz_get(P, L->M[mmx__corner_next(a, k, c)], pw);
            if (cc) {
                float fp[3];
                mmx__fz_face_point(L, f, a, k, fp);
                faces[0] += fp[0], faces[1] += fp[1], faces[2] += fp[2];
            }
            if (n == 0) mmx__fz_get(P, L->M[mmx__corner_prev(a, k, c)], first);
        }
        ring[0] += pw[0], ring[1] += pw[1], ring[2] += pw[2];
        pp[0] = pw[0], pp[1] = pw[1], pp[2] = pw[2];
        n++;
        c = mmx__fz_turn(L, c);
        if (c < 0) {
            boundary = 1;
            break;
        }
        if (c == c0 || n > L->nnz) break; /* the bound only guards a corrupt level */
    }
    const float s = L->vsharp && v < L->nv0 ? mmx__rule_sharpness_at(L->vsharp[v], L->level) : 0.0f;
    const mmx__vertex_rule w =
        mmx__rule_vertex(L->scheme, n, mmx__rule_vertex_sharp_edges(boundary, n, L->boundary), s);
    float acc[3];
    for (int i = 0; i < 3; i++) {
        /* The crease rule weighs the neighbours across the two sharp (boundary) edges: the one
         * before the walk's first face (arriving) and the last face's leaving one (pw). */
        if (w.crease != 0.0f) acc[i] = w.crease * first[i] + w.crease * pw[i];
        else acc[i] = w.ring * ring[i] + w.ring * faces[i];
        out[i] = acc[i] + w.self * p[i];
    }
}

/* The child's owner of an old vertex: the child of its owner corner that holds it, at the same
 * corner; a boundary vertex's arriving half-edge there stays on the boundary (see the twins). */
static inline MMX__HD mmx_index mmx__fz_vertex_owner(mmx_scheme scheme, mmx_index c0)
{
    if (c0 < 0) return -1;
    if (mmx__scheme_quads(scheme)) return 4 * c0;                /* child c0, corner 0 */
    if (scheme == MMX_SCHEME_SQRT3) return 3 * c0;              /* child c0, corner 0 */
    return 3 * (4 * (c0 / 3) + 1 + c0 % 3);                     /* Loop: corner child, corner 0 */
}

/* ---- the input level (its twins, owners and fans are the half-edge view's: halfedge.h) ---- */

/* Whether triangle f's neighbours across its three edges are three different faces (or the
 * boundary). Not so for two triangles glued along two edges or more, a pillow, whose children
 * would share edges four ways: the input check that stands for subdiv.c's repeated faces on a
 * manifold, oriented level (Loop and sqrt3 only). */
static inline MMX__HD int mmx__fz_tri_neighbours_ok(const mmx__fz_in *L, mmx_index f)
{
    const mmx_index *t = L->twin + 3 * (int64_t)f;
    const mmx_index g0 = t[0] < 0 ? -1 : t[0] / 3, g1 = t[1] < 0 ? -2 : t[1] / 3,
                    g2 = t[2] < 0 ? -3 : t[2] / 3;
    return g0 != g1 && g0 != g2 && g1 != g2;
}

#ifdef __cplusplus
}
#endif
#endif
