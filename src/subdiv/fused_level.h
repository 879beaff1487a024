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
    const float *esharp;             /* the level's edge sharpness (crease tags, decayed level by
                                        level), ne entries, or NULL for none: then only the
                                        boundary is sharp */
    int chaikin;                     /* the crease method (rules.h's child sharpness) */
    int smooth_tris;                 /* Catmull-Clark's smooth-triangle edge rule (rules.h) */
    int level;                       /* 0 for the input level: the sharpness's decay */
    mmx_index nv, nf, ne, nnz;
    mmx_index order;                 /* 3 or 4; 0: general faces read through colptr */
    const mmx_index *colptr;         /* order 0 only */
    const mmx_index *M, *fe, *twin, *owner, *goff;
    const float *pos;                /* NULL: topology only */
    mmx_index maxcol;                /* order 0 only: the longest face (which faces need the
                                        wide face-point kernel) */
    const mmx_index *bcut;           /* sqrt3 on an odd generation with boundary (Kobbelt's
                                        rule, rules.h): per face, the number of faces with a
                                        boundary edge before it (its cut point r is vertex
                                        nv + nf + bcut[f]), -1 for a face without one; NULL on
                                        other levels */
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
    float *esharp; /* the child's edge sharpness, where the level has creases and the child a
                      pass of its own (or carries creases): zeroed before the pass (the edges
                      inside faces are smooth), then each half of an edge written by the walk
                      around its old vertex */
    mmx_index *eends; /* the halves' ends (old vertex, edge point), 2 per child edge, where the
                         child carries creases (the last level) */
} mmx__fz_out;

/* ---- small helpers ------------------------------------------------------------------------- */

/* The child's vertex number of edge e's point (subdiv.h's layout): after the old vertices, and
 * for Catmull-Clark's children after the face points. */
static inline MMX__HD mmx_index mmx__fz_edge_point(const mmx__fz_in *L, mmx_index e)
{
    return L->nv + (mmx__scheme_quads(L->scheme) ? L->nf : 0) + e;
}

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

/* The semi-sharp edges around the vertex of owner corner c0 (0 < s < 10): their number and
 * sharpness sum, which Chaikin's child sharpness reads (rules.h). */
static inline MMX__HD void mmx__fz_semi_sharp(const mmx__fz_in *L, mmx_index c0, int *count,
                                              float *sum)
{
    *count = 0, *sum = 0.0f;
    mmx_index c = c0, n = 0;
    do { /* the arriving boundary edge, if any, is infinitely sharp: not semi-sharp */
        const float s = mmx__rule_edge_sharpness(L->esharp, L->fe[c] >> 1, L->twin[c] < 0);
        if (s > 0.0f && s < MMX__SHARP_INF) ++*count, *sum += s;
        c = mmx__fz_turn(L, c);
    } while (c >= 0 && c != c0 && ++n <= L->nnz);
}

/* The weight of the sharp rule in the point of edge e (rules.h) between u and w, the edge
 * being on the boundary when `boundary`: with Chaikin's method each half's child sharpness
 * reads the semi-sharp edges around its end. */
static inline MMX__HD float mmx__fz_edge_weight(const mmx__fz_in *L, mmx_index e, int boundary,
                                                mmx_index u, mmx_index w)
{
    const float s = mmx__rule_edge_sharpness(L->esharp, e, boundary);
    if (!L->chaikin || s <= 0.0f || s >= MMX__SHARP_INF) {
        const float cs = mmx__rule_edge_child_sharpness(s, 0, 0.0f, 0);
        return mmx__rule_edge_weight(s, cs, cs);
    }
    int nu, nw;
    float su, sw;
    mmx__fz_semi_sharp(L, L->owner[u], &nu, &su);
    mmx__fz_semi_sharp(L, L->owner[w], &nw, &sw);
    return mmx__rule_edge_weight(s, mmx__rule_edge_child_sharpness(s, 1, su, nu),
                                 mmx__rule_edge_child_sharpness(s, 1, sw, nw));
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
    const float s0 = L->vsharp && v < L->nv0 ? L->vsharp[v] : 0.0f;
    const mmx__vertex_rule w =
        mmx__rule_vertex_boundary(L->scheme, n, boundary, L->boundary, s0, L->level);
    float acc[3];
    for (int i = 0; i < 3; i++) {
        /* The crease rule weighs the neighbours across the two sharp (boundary) edges: the one
         * before the walk's first face (arriving) and the last face's leaving one (pw). */
        if (w.crease != 0.0f) acc[i] = w.crease * first[i] + w.crease * pw[i];
        else acc[i] = w.ring * ring[i] + w.ring * faces[i];
        out[i] = acc[i] + w.self * p[i];
    }
}

/* The child's sharpness cs of the half of edge e at its end v (its `upper` end or not: child
 * edge 2e + goff[e] + upper, fused_level.h's numbering), and its ends where O asks. A boundary
 * edge's halves get the child of its tagged sharpness, not of the boundary's infinite one: the
 * boundary is sharp by its topology at every level, and the carried tags name true creases. */
static inline MMX__HD void mmx__fz_half(const mmx__fz_in *L, const mmx__fz_out *O, mmx_index v,
                                        mmx_index e, mmx_index upper, float cs)
{
    /* A smooth half (most of them): the pass zeroed the child's sharpness before (mmx__fz_pass),
     * and its ends are read only where the sharpness is positive (fz_creases): nothing to
     * write, where every vertex wrote each of its halves. */
    if (!(cs > 0.0f)) return;
    const int64_t h = 2 * (int64_t)e + L->goff[e] + upper;
    if (O->esharp) O->esharp[h] = cs;
    if (O->eends) O->eends[2 * h] = v, O->eends[2 * h + 1] = mmx__fz_edge_point(L, e);
}

/* The vertex pass on a level with creases (L->esharp): vertex v's new position, as
 * mmx__fz_vertex but with every edge's sharpness (rules.h's vertex rule: kinds now and in the
 * child, the blend, the crease sum over the sharp edges of the rule's set), and the child's
 * sharpness of each half of an edge at v, which only v's walk writes (child edge 2e + goff[e]
 * + 0 at e's lower end, + 1 at its higher end). Positions as far as the level and O have them. */
static inline MMX__HD void mmx__fz_vertex_creased(const mmx__fz_in *L, const mmx__fz_out *O,
                                                  mmx_index v)
{
    const float *P = O->pos ? L->pos : NULL;
    const mmx_index c0 = L->owner[v];
    float p[3] = {0.0f, 0.0f, 0.0f};
    if (P) mmx__fz_get(P, v, p);
    if (c0 < 0) {
        if (P) mmx__fz_store(O->pos, v, p);
        return;
    }
    int semi = 0;
    float semi_sum = 0.0f;
    if (L->chaikin) mmx__fz_semi_sharp(L, c0, &semi, &semi_sum);
    const int cc = mmx__scheme_quads(L->scheme);
    mmx__vertex_edges k = {0, 0, 0, 0.0f};
    /* ring: every neighbour; faces: Catmull-Clark's face points; now / child: the neighbours
     * across the edges sharp now / sharp in the child at v. */
    float ring[3] = {0, 0, 0}, faces[3] = {0, 0, 0}, now[3] = {0, 0, 0}, child[3] = {0, 0, 0};
    float x[3];
    mmx_index a, m;
    mmx__fz_face_of(L, c0, &a, &m);
    const mmx_index cp = mmx__corner_prev(a, m, c0);
    int boundary = L->twin[cp] < 0;
    if (boundary) { /* the arriving boundary edge, before the walk's first face */
        const mmx_index e = L->fe[cp] >> 1;
        mmx__rule_vertex_edge(&k, MMX__SHARP_INF, MMX__SHARP_INF);
        mmx__fz_half(L, O, v, e, 1 - (L->fe[cp] & 1),
                     mmx__rule_edge_child_sharpness(L->esharp[e], L->chaikin, semi_sum, semi));
        if (P) {
            mmx__fz_get(P, L->M[cp], x);
            for (int i = 0; i < 3; i++) now[i] += x[i], child[i] += x[i];
        }
    }
    /* A reduced quad level (every level after the first): each face's four corners in one
     * load, its point summed from their positions in corner order as mmx__fz_centroid sums
     * it (the same bits), the ring's neighbour taken from them and v's own position not read
     * again: a fifth of the gathers of the general walk below, which creased levels ran for
     * every vertex. */
    const int quads = cc && L->order == 4 && !L->fpts;
    mmx_index c = c0, n = 0;
    for (;;) {
        const mmx_index f = mmx__fz_face_of(L, c, &a, &m), e = L->fe[c] >> 1;
        const float s = mmx__rule_edge_sharpness(L->esharp, e, L->twin[c] < 0);
        const float cs = mmx__rule_edge_child_sharpness(s, L->chaikin, semi_sum, semi);
        mmx__rule_vertex_edge(&k, s, cs);
        mmx__fz_half(L, O, v, e, L->fe[c] & 1,
                     L->twin[c] < 0 ? mmx__rule_edge_child_sharpness(L->esharp[e], L->chaikin, semi_sum, semi) : cs);
        if (P && quads) {
            mmx_index r[4];
            mmx__fz_load4(L->M + a, r);
            const mmx_index nb = mmx__fz_pick4(r, c - a + 1);
            const float w = mmx__rule_face_weight(4);
            float fp[3] = {0.0f, 0.0f, 0.0f};
            for (int j = 0; j < 4; j++) {
                float y[3] = {p[0], p[1], p[2]};
                if (r[j] != v) mmx__fz_get(P, r[j], y);
                if (r[j] == nb) x[0] = y[0], x[1] = y[1], x[2] = y[2];
                fp[0] += w * y[0], fp[1] += w * y[1], fp[2] += w * y[2];
            }
            for (int i = 0; i < 3; i++) {
                ring[i] += x[i];
                if (s > 0.0f) now[i] += x[i];
                if (cs > 0.0f) child[i] += x[i];
                faces[i] += fp[i];
            }
        } else if (P) {
            mmx__fz_get(P, L->M[mmx__corner_next(a, m, c)], x);
            for (int i = 0; i < 3; i++) {
                ring[i] += x[i];
                if (s > 0.0f) now[i] += x[i];
                if (cs > 0.0f) child[i] += x[i];
            }
            if (cc) {
                mmx__fz_face_point(L, f, a, m, x);
                for (int i = 0; i < 3; i++) faces[i] += x[i];
            }
        }
        n++;
        c = mmx__fz_turn(L, c);
        if (c < 0) boundary = 1;
        if (c < 0 || c == c0 || n > L->nnz) break; /* the bound only guards a corrupt level */
    }
    if (!P) return;
    float vs, vs_child;
    mmx__rule_vertex_sharpness(L->vsharp && v < L->nv0 ? L->vsharp[v] : 0.0f, L->level, boundary,
                               n, L->boundary, &vs, &vs_child);
    const mmx__vertex_rule w = mmx__rule_vertex(L->scheme, n, vs, vs_child, &k);
    const float *sharp = w.child_set ? child : now;
    for (int i = 0; i < 3; i++) {
        float acc = 0.0f;
        if (w.ring != 0.0f) acc = w.ring * ring[i] + w.ring * faces[i];
        if (w.crease != 0.0f) acc += w.crease * sharp[i];
        x[i] = acc + w.self * p[i];
    }
    mmx__fz_store(O->pos, v, x);
}

/* The vertex half of a pass for vertex v: its point, and on a level with creases the child's
 * sharpness of the halves of its edges. CREASED is whether the level has creases (a
 * compile-time constant in the kernels, so a level without keeps the plain walk). */
static inline MMX__HD void mmx__fz_vertex_pass(const mmx__fz_in *L, const mmx__fz_out *O,
                                               mmx_index v, int creased)
{
    if (creased) {
        mmx__fz_vertex_creased(L, O, v);
    } else if (O->pos) {
        float x[3];
        mmx__fz_vertex(L, v, x);
        mmx__fz_store(O->pos, v, x);
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
