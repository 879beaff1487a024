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
 * twins and owners follow in closed form (the derivations are next to each rule below). */
#ifndef MMX_SUBDIV_FUSED_H
#define MMX_SUBDIV_FUSED_H

#include "subdiv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One level as the pass reads it (by value, a kernel parameter). */
typedef struct mmx__fz_in {
    mmx_scheme scheme;
    mmx_index nv, nf, ne, nnz;
    mmx_index order;                 /* 3 or 4; 0: general faces read through colptr */
    const mmx_index *colptr;         /* order 0 only */
    const mmx_index *M, *fe, *twin, *owner, *goff;
    const float *pos;                /* NULL: topology only */
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

/* The face holding corner c: its first corner and its order. */
static inline MMX__HD mmx_index mmx__fz_face_of(const mmx__fz_in *L, mmx_index c, mmx_index *a,
                                                mmx_index *n)
{
    if (L->order) {
        const mmx_index f = c / L->order;
        *a = f * L->order;
        *n = L->order;
        return f;
    }
    const mmx_index f = mmx__lower_bound(L->colptr, 0, L->nf + 1, c + 1) - 1;
    *a = L->colptr[f];
    *n = L->colptr[f + 1] - *a;
    return f;
}

static inline MMX__HD mmx_index mmx__fz_next(mmx_index a, mmx_index n, mmx_index c)
{
    return c + 1 == a + n ? a : c + 1;
}

static inline MMX__HD mmx_index mmx__fz_prev(mmx_index a, mmx_index n, mmx_index c)
{
    return c == a ? a + n - 1 : c - 1;
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

/* The centroid of the face starting at corner a with n corners (Catmull-Clark's face point,
 * sqrt3's centre): the sum of the corners, each weighted 1/n as the algebraic path's map. */
static inline MMX__HD void mmx__fz_centroid(const mmx__fz_in *L, mmx_index a, mmx_index n,
                                            float *out)
{
    const float w = 1.0f / (float)n;
    out[0] = out[1] = out[2] = 0.0f;
    for (mmx_index s = 0; s < n; s++) mmx__fz_add(out, L->pos, L->M[a + s], w);
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

/* One step of a walk around a vertex: from its corner c to its corner in the face across c's
 * leaving edge, next(twin[c]); -1 when that edge is on the boundary. */
static inline MMX__HD mmx_index mmx__fz_turn(const mmx__fz_in *L, mmx_index c)
{
    const mmx_index t = L->twin[c];
    if (t < 0) return -1;
    mmx_index a, k;
    mmx__fz_face_of(L, t, &a, &k);
    return mmx__fz_next(a, k, t);
}

/* Whether corner c starts its vertex's fan on a boundary: its arriving half-edge has no twin.
 * Such a corner owns its vertex, so that a walk from it meets every face. */
static inline MMX__HD int mmx__fz_fan_start(const mmx__fz_in *L, mmx_index c)
{
    mmx_index a, k;
    mmx__fz_face_of(L, c, &a, &k);
    return L->twin[mmx__fz_prev(a, k, c)] < 0;
}

/* The new position of vertex v (its owner corner c0, -1 when in no face), walking the faces
 * around it: from corner c the next face's corner is next(twin[c]). Sums the ring (the vertex
 * leaving each corner) and, for Catmull-Clark, the face points, then the boundary or inner
 * rule of mmx__subdiv_vertex_weights with the small terms first, the old position last.
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
    const int cc = L->scheme == MMX_SCHEME_CATMULL_CLARK, quads = cc && L->order == 4;
    float ring[3] = {0, 0, 0}, faces[3] = {0, 0, 0}, pw[3], pp[3], first[3];
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
            for (int i = 0; i < 3; i++) faces[i] += 0.25f * p[i] + 0.25f * pw[i] + 0.25f * po[i] + 0.25f * pp[i];
        } else {
            mmx__fz_get(P, L->M[mmx__fz_next(a, k, c)], pw);
            if (cc) {
                float fp[3];
                mmx__fz_face_point(L, f, a, k, fp);
                faces[0] += fp[0], faces[1] += fp[1], faces[2] += fp[2];
            }
            if (n == 0) mmx__fz_get(P, L->M[mmx__fz_prev(a, k, c)], first);
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
    float self, rw;
    mmx__subdiv_vertex_weights(L->scheme, n, boundary, &self, &rw);
    float acc[3];
    for (int i = 0; i < 3; i++) {
        /* Boundary: 1/8 of the neighbours along the boundary, the one before the walk's first
         * face (arriving) and the last face's leaving one (pw). */
        if (boundary && L->scheme != MMX_SCHEME_SQRT3) acc[i] = 0.125f * first[i] + 0.125f * pw[i];
        else acc[i] = rw * ring[i] + rw * faces[i];
        out[i] = acc[i] + self * p[i];
    }
}

/* The child's owner of an old vertex: the child of its owner corner that holds it, at the same
 * corner; a boundary vertex's arriving half-edge there stays on the boundary (see the twins). */
static inline MMX__HD mmx_index mmx__fz_vertex_owner(mmx_scheme scheme, mmx_index c0)
{
    if (c0 < 0) return -1;
    if (scheme == MMX_SCHEME_CATMULL_CLARK) return 4 * c0;      /* child c0, corner 0 */
    if (scheme == MMX_SCHEME_SQRT3) return 3 * c0;              /* child c0, corner 0 */
    return 3 * (4 * (c0 / 3) + 1 + c0 % 3);                     /* Loop: corner child, corner 0 */
}

/* ---- Catmull-Clark ----------------------------------------------------------------------- */

/* Face f (first corner a, order n; its corners' vertices v, edges fe and twins tw, read by the
 * caller, possibly with vector loads). Child quad of corner c = a + s is number c:
 * (v_s, e(e_s), f, e(e_s-1)), corners 4c .. 4c + 3; the face's children's corners, edges and
 * twins go to cm, cfe, ctw (4n each: the child arrays from corner 4a on, or a kernel's
 * registers that it stores with vector writes). */
static inline MMX__HD void mmx__fz_cc_face(const mmx__fz_in *L, const mmx__fz_out *O, mmx_index f,
                                           mmx_index a, mmx_index n, const mmx_index *v,
                                           const mmx_index *fe, const mmx_index *tw,
                                           mmx_index *cm, mmx_index *cfe, mmx_index *ctw)
{
    const mmx_index nv = L->nv, fpt = nv + f, epts = nv + L->nf;
    if (O->pos) {
        /* A quad's corners are read once and kept; other faces are read again as needed. */
        const int quad = L->order == 4;
        float q[4][3], fp[3];
        if (quad) {
            for (int s = 0; s < 4; s++) mmx__fz_get(L->pos, v[s], q[s]);
            for (int i = 0; i < 3; i++)
                fp[i] = 0.25f * q[0][i] + 0.25f * q[1][i] + 0.25f * q[2][i] + 0.25f * q[3][i];
        } else {
            mmx__fz_face_point(L, f, a, n, fp);
        }
        if (!L->fpts) mmx__fz_store(O->pos, fpt, fp);
        /* Each edge's point is written by its face of the lower number (the only one on a
         * boundary): 1/4 (ends) + 1/4 (face points), or the midpoint. */
        for (mmx_index s = 0; s < n; s++) {
            const mmx_index c = a + s, t = tw[s], sn = s + 1 == n ? 0 : s + 1;
            if (t >= 0 && t < c) continue;
            float pu[3], pw[3], x[3], fq[3];
            if (quad) {
                for (int i = 0; i < 3; i++) pu[i] = q[s][i], pw[i] = q[sn][i];
            } else {
                mmx__fz_get(L->pos, v[s], pu);
                mmx__fz_get(L->pos, v[sn], pw);
            }
            if (t < 0) {
                for (int i = 0; i < 3; i++) x[i] = 0.5f * pu[i] + 0.5f * pw[i];
            } else {
                mmx_index b, m;
                const mmx_index g = mmx__fz_face_of(L, t, &b, &m);
                if (quad) {
                    /* The face across runs w -> u from corner t: its other two corners. */
                    mmx_index r[4];
                    float pc[3], pd[3];
                    mmx__fz_load4(L->M + b, r);
                    const mmx_index st = t - b;
                    mmx__fz_get(L->pos, mmx__fz_pick4(r, st + 2), pc);
                    mmx__fz_get(L->pos, mmx__fz_pick4(r, st + 3), pd);
                    for (int i = 0; i < 3; i++)
                        fq[i] = 0.25f * pw[i] + 0.25f * pu[i] + 0.25f * pc[i] + 0.25f * pd[i];
                } else {
                    mmx__fz_face_point(L, g, b, m, fq);
                }
                for (int i = 0; i < 3; i++)
                    x[i] = (0.25f * pu[i] + 0.25f * pw[i]) + (0.25f * fp[i] + 0.25f * fq[i]);
            }
            mmx__fz_store(O->pos, epts + (fe[s] >> 1), x);
        }
    }
    if (O->M) {
        for (mmx_index s = 0; s < n; s++) {
            mmx_index *q = cm + 4 * s;
            q[0] = v[s];
            q[1] = epts + (fe[s] >> 1);
            q[2] = fpt;
            q[3] = epts + (fe[s == 0 ? n - 1 : s - 1] >> 1);
        }
    }
    if (!O->twin) return;
    O->owner[fpt] = 4 * a + 2;
    for (mmx_index s = 0; s < n; s++) {
        const mmx_index c = a + s, sp = s == 0 ? n - 1 : s - 1, sn = s + 1 == n ? 0 : s + 1;
        const mmx_index e = fe[s] >> 1, d = fe[s] & 1, ep = fe[sp] >> 1, dp = fe[sp] & 1;
        const mmx_index off = 2 * e + L->goff[e], offp = 2 * ep + L->goff[ep];
        /* Is f the higher-numbered face of e (resp. of the edge arriving at s)? */
        const mmx_index hi = tw[s] >= 0 && tw[s] < c, hip = tw[sp] >= 0 && tw[sp] < a + sp;
        mmx_index *qe = cfe + 4 * s, *qt = ctw + 4 * s;
        /* 0: v_s -> e(e_s), the half of e at v_s (v_s is e's lower end when d = 0).
         * 1: e(e_s) -> f, the inner edge (f, e_s) run from its higher end.
         * 2: f -> e(e_s-1), the inner edge (f, e_s-1) from its lower end.
         * 3: e(e_s-1) -> v_s, the half of e_s-1 at v_s, its upper end when dp = 0. */
        qe[0] = 2 * (off + d);
        qe[1] = 2 * (off + 2 + hi) + 1;
        qe[2] = 2 * (offp + 2 + hip);
        qe[3] = 2 * (offp + 1 - dp) + 1;
        /* 0: the other face f' runs e_s from v_s+1 (at corner t) to v_s (at next(t)); its child
         *    there has e(e_s) -> v_s as corner 3.
         * 1, 2: the neighbouring children of f.
         * 3: the face across e_s-1 holds v_s at corner tw[sp]; its child there starts with
         *    v_s -> e(e_s-1). */
        if (tw[s] < 0) {
            qt[0] = -1;
        } else {
            mmx_index b, m;
            mmx__fz_face_of(L, tw[s], &b, &m);
            qt[0] = 4 * mmx__fz_next(b, m, tw[s]) + 3;
        }
        qt[1] = 4 * (a + sn) + 2;
        qt[2] = 4 * (a + sp) + 1;
        qt[3] = tw[sp] < 0 ? -1 : 4 * tw[sp];
        /* The edge's group, by its lower face: the halves keep e's faces, inner edges have 2.
         * The edge point's walk starts at child c's corner 1, whose arriving half-edge (corner
         * 0, half of e) is on the boundary when e is. */
        if (tw[s] >= 0 && tw[s] < c) continue;
        const mmx_index sides = tw[s] < 0 ? 1 : 2;
        O->cnt[off] = O->cnt[off + 1] = sides;
        O->cnt[off + 2] = 2;
        if (sides == 2) O->cnt[off + 3] = 2;
        O->owner[epts + e] = 4 * c + 1;
    }
}

/* Whether a pass from level L writes the face points first (mmx__fz_in.fpts): Catmull-Clark
 * positions on general faces, whose points the edges and vertices would otherwise sum again. */
static inline MMX__HD int mmx__fz_face_points_first(const mmx__fz_in *L, const mmx__fz_out *O)
{
    return L->scheme == MMX_SCHEME_CATMULL_CLARK && L->order == 0 && O->pos && L->pos && L->nf;
}

/* The face-point pass of a level of general faces (mmx__fz_in.fpts): face f's point into the
 * output positions. */
static inline MMX__HD void mmx__fz_cc_face_point(const mmx__fz_in *L, const mmx__fz_out *O,
                                                 mmx_index f)
{
    mmx_index a, n;
    if (L->order) a = f * L->order, n = L->order;
    else a = L->colptr[f], n = L->colptr[f + 1] - a;
    float fp[3];
    mmx__fz_centroid(L, a, n, fp);
    mmx__fz_store(O->pos, L->nv + f, fp);
}

/* ---- Loop -------------------------------------------------------------------------------- */

/* The number of the child edge between the edge points of x and y, two edges of one face
 * (`q` the face's third edge, `tq` the twin of the corner running the higher of x, y): in the
 * group of m = max(x, y), after its two halves, ranked by the lower one among the edges below
 * m sharing a face with m (this face's third edge, and the other face's two). */
static inline MMX__HD mmx_index mmx__fz_loop_mid(const mmx__fz_in *L, mmx_index x, mmx_index y,
                                                 mmx_index q, mmx_index tm)
{
    const mmx_index m = x > y ? x : y, o = x > y ? y : x;
    mmx_index rank = q < o;
    if (tm >= 0) {
        const mmx_index g = tm / 3;
        for (int i = 0; i < 3; i++) {
            const mmx_index e = L->fe[3 * g + i] >> 1;
            rank += e != m && e < o;
        }
    }
    return 2 * m + L->goff[m] + 2 + rank;
}

/* Face f of a triangle level: corners c_s = 3f + s, vertex v_s, edge e_s from v_s to v_s+1.
 * Children (subdiv.h): 4f = (e0', e1', e2'), and 4f + 1 + s = (v_s, e_s', e_s-1'). */
static inline MMX__HD void mmx__fz_loop_face(const mmx__fz_in *L, const mmx__fz_out *O,
                                             mmx_index f, const mmx_index *v, const mmx_index *fe,
                                             const mmx_index *tw, mmx_index *cm, mmx_index *cfe,
                                             mmx_index *ctw)
{
    const mmx_index nv = L->nv, a = 3 * f;
    const mmx_index e[3] = {fe[0] >> 1, fe[1] >> 1, fe[2] >> 1};
    if (O->pos) {
        /* 1/8 (ends) + 1/8 (the two triangles' vertex sums), or the midpoint; written by the
         * lower face. The face across runs w -> u from corner t, its third corner before t. */
        float q[3][3], t1[3];
        for (int s = 0; s < 3; s++) mmx__fz_get(L->pos, v[s], q[s]);
        for (int i = 0; i < 3; i++) t1[i] = q[0][i] + q[1][i] + q[2][i];
        for (int s = 0; s < 3; s++) {
            const mmx_index t = tw[s];
            if (t >= 0 && t < a + s) continue;
            const float *pu = q[s], *pw = q[s == 2 ? 0 : s + 1];
            float x[3];
            if (t < 0) {
                for (int i = 0; i < 3; i++) x[i] = 0.5f * pu[i] + 0.5f * pw[i];
            } else {
                float pd[3];
                const mmx_index g = t - t % 3;
                mmx__fz_get(L->pos, L->M[t == g ? g + 2 : t - 1], pd);
                for (int i = 0; i < 3; i++)
                    x[i] = (0.125f * pu[i] + 0.125f * pw[i]) +
                           (0.125f * t1[i] + 0.125f * (pw[i] + pu[i] + pd[i]));
            }
            mmx__fz_store(O->pos, nv + e[s], x);
        }
    }
    if (O->M) {
        mmx_index *t = cm;
        t[0] = nv + e[0], t[1] = nv + e[1], t[2] = nv + e[2];
        for (int s = 0; s < 3; s++) {
            t[3 + 3 * s] = v[s];
            t[4 + 3 * s] = nv + e[s];
            t[5 + 3 * s] = nv + e[s == 0 ? 2 : s - 1];
        }
    }
    if (!O->twin) return;
    /* The middle edges: j joins e_j and e_j+1 (third edge e_j+2), ranked in the group of the
     * higher one, whose other face is across the corner running it. */
    mmx_index mid[3];
    for (int j = 0; j < 3; j++) {
        const int k = j == 2 ? 0 : j + 1, q = 3 - j - k;
        mid[j] = mmx__fz_loop_mid(L, e[j], e[k], e[q], e[j] > e[k] ? tw[j] : tw[k]);
    }
    for (int j = 0; j < 3; j++) {
        const int k = j == 2 ? 0 : j + 1;
        /* Middle corner j runs e_j' -> e_k'; its twin is corner 1 of the corner child at v_k. */
        cfe[j] = 2 * mid[j] + (e[j] > e[k]);
        ctw[j] = 3 * (4 * f + 1 + k) + 1;
        /* The next level's count for a middle edge: the two halves of its corner child are
         * below it, and so is each other middle edge with a lower number. */
        O->cnt[mid[j]] = 2 + (mid[k] < mid[j]) + (mid[k == 2 ? 0 : k + 1] < mid[j]);
    }
    for (int s = 0; s < 3; s++) {
        const int sp = s == 0 ? 2 : s - 1;
        const mmx_index d = fe[s] & 1, dp = fe[sp] & 1;
        mmx_index *q = cfe + 3 + 3 * s, *r = ctw + 3 + 3 * s;
        /* 0: v_s -> e_s', the half of e_s at v_s; its twin is corner 2 of the corner child at
         *    v_s in the face across e_s, where v_s follows the twin corner.
         * 1: e_s' -> e_sp', the middle edge sp run backwards; twin: middle corner sp.
         * 2: e_sp' -> v_s, the half of e_sp at v_s; twin: corner 0 of the corner child across
         *    e_sp at v_s (the twin corner itself). */
        q[0] = 2 * (2 * e[s] + L->goff[e[s]] + d);
        q[1] = 2 * mid[sp] + (e[s] > e[sp]);
        q[2] = 2 * (2 * e[sp] + L->goff[e[sp]] + 1 - dp) + 1;
        if (tw[s] < 0) {
            r[0] = -1;
        } else {
            const mmx_index g = tw[s] / 3, sg = tw[s] % 3;
            r[0] = 3 * (4 * g + 1 + (sg == 2 ? 0 : sg + 1)) + 2;
        }
        r[1] = 3 * (4 * f) + sp;
        r[2] = tw[sp] < 0 ? -1 : 3 * (4 * (tw[sp] / 3) + 1 + tw[sp] % 3);
    }
    /* Each edge's group, by its lower face: the halves' counts (a half (u, e') is above the
     * half (u, e2') of the same corner child when e2 < e), and the edge point's owner: corner
     * 1 of the corner child at v_s, whose arriving half-edge is the half of e_s at v_s. */
    for (int s = 0; s < 3; s++) {
        const mmx_index t = tw[s];
        if (t >= 0 && t < a + s) continue;
        const mmx_index off = 2 * e[s] + L->goff[e[s]];
        /* At v_s the other edge is e_s-1, at v_s+1 it is e_s+1; across, the face runs e_s from
         * v_s+1 (corner t) to v_s, so v_s+1's other edge arrives at t and v_s's leaves next(t). */
        mmx_index at_s = e[s == 0 ? 2 : s - 1] < e[s], at_n = e[s == 2 ? 0 : s + 1] < e[s];
        if (t >= 0) {
            const mmx_index g = 3 * (t / 3), st = t % 3;
            at_n += (L->fe[g + (st == 0 ? 2 : st - 1)] >> 1) < e[s];
            at_s += (L->fe[g + (st == 2 ? 0 : st + 1)] >> 1) < e[s];
        }
        const int s_low = (fe[s] & 1) == 0; /* v_s is e_s's lower end */
        O->cnt[off] = s_low ? at_s : at_n;
        O->cnt[off + 1] = s_low ? at_n : at_s;
        O->owner[nv + e[s]] = 3 * (4 * f + 1 + s) + 1;
    }
}

/* Loop's counts on the input level (edge e: the edges below e sharing a face with it), written
 * by e's lower face. */
static inline MMX__HD void mmx__fz_loop_count(const mmx__fz_in *L, mmx_index f, mmx_index *cnt)
{
    for (int s = 0; s < 3; s++) {
        const mmx_index c = 3 * f + s, t = L->twin[c], e = L->fe[c] >> 1;
        if (t >= 0 && t < c) continue;
        mmx_index k = 0;
        for (int i = 0; i < 3; i++) k += (L->fe[3 * f + i] >> 1) < e;
        if (t >= 0)
            for (int i = 0; i < 3; i++) k += (L->fe[3 * (t / 3) + i] >> 1) < e;
        cnt[e] = k;
    }
}

/* ---- sqrt3 ------------------------------------------------------------------------------- */

/* Face f of a closed triangle level: corner s has vertex v_s and the face g_s across the edge
 * v_s -> v_s+1. Child 3f + s = (v_s, g_s', f'), f' the centres. */
static inline MMX__HD void mmx__fz_sqrt3_face(const mmx__fz_in *L, const mmx__fz_out *O,
                                              mmx_index f, const mmx_index *v,
                                              const mmx_index *tw)
{
    const mmx_index nv = L->nv;
    if (O->pos) {
        float x[3];
        mmx__fz_centroid(L, 3 * f, 3, x);
        mmx__fz_store(O->pos, nv + f, x);
    }
    const mmx_index g[3] = {tw[0] / 3, tw[1] / 3, tw[2] / 3};
    if (O->M) {
        mmx_index *t = O->M + 9 * (int64_t)f;
        for (int s = 0; s < 3; s++) t[3 * s] = v[s], t[3 * s + 1] = nv + g[s], t[3 * s + 2] = nv + f;
    }
    if (!O->twin) return;
    const mmx_index off = 3 * f + L->goff[f];
    O->owner[nv + f] = 9 * f + 2;
    for (int s = 0; s < 3; s++) {
        const int sp = s == 0 ? 2 : s - 1;
        const mmx_index c = 3 * f + s, h = g[s], goff_h = 3 * h + L->goff[h];
        mmx_index *q = O->fe + 3 * (int64_t)c, *r = O->twin + 3 * (int64_t)c;
        /* 0: v_s -> h': edge (v_s, h') in h's group, ranked among h's vertices. */
        mmx_index rk = 0;
        for (int i = 0; i < 3; i++) rk += L->M[3 * h + i] < v[s];
        q[0] = 2 * (goff_h + rk);
        /* 1: h' -> f': the flipped edge, in the group of the higher face, ranked by the lower
         *    one among that face's lower neighbours. */
        mmx_index cross;
        if (h < f) {
            rk = 0;
            for (int i = 0; i < 3; i++) rk += g[i] < h;
            cross = off + 3 + rk;
        } else {
            rk = 0;
            for (int i = 0; i < 3; i++) rk += L->twin[3 * h + i] / 3 < f;
            cross = goff_h + 3 + rk;
        }
        q[1] = 2 * cross + (h > f);
        /* 2: f' -> v_s: edge (v_s, f') in f's group. */
        rk = 0;
        for (int i = 0; i < 3; i++) rk += v[i] < v[s];
        q[2] = 2 * (off + rk) + 1;
        /* Twins: h holds v_s+1 at tw[s] and v_s after it, so the child of h at v_s ends with
         * h' -> v_s; the child tw[s] of h runs f' -> h'; the face across e_sp holds v_s at
         * tw[sp], and its child there starts with v_s -> f'. */
        const mmx_index sh = tw[s] % 3;
        r[0] = 3 * (3 * h + (sh == 2 ? 0 : sh + 1)) + 2;
        r[1] = 3 * tw[s] + 1;
        r[2] = 3 * tw[sp];
        /* The next level's count: the child's neighbours (the faces of its twins) below it. */
        O->cnt[c] = (r[0] / 3 < c) + (r[1] / 3 < c) + (r[2] / 3 < c);
    }
}

/* sqrt3's counts on the input level: the faces across f's edges below f. */
static inline MMX__HD void mmx__fz_sqrt3_count(const mmx__fz_in *L, mmx_index f, mmx_index *cnt)
{
    mmx_index k = 0;
    for (int s = 0; s < 3; s++) k += L->twin[3 * f + s] / 3 < f;
    cnt[f] = k;
}

/* ---- the input level --------------------------------------------------------------------- */

/* Twins from the edges: ec[fe[c]] = c for every corner (a manifold, oriented level runs each
 * edge at most once each way), then twin[c] = ec[fe[c] ^ 1]. */
static inline MMX__HD mmx_index mmx__fz_twin(const mmx_index *fe, const mmx_index *ec, mmx_index c)
{
    return ec[fe[c] ^ 1];
}

/* Whether vertex v's walk from its owner meets all its `valence` faces: not so at a vertex
 * whose faces form several fans (the walk stays in one), or where the twins are inconsistent. */
static inline MMX__HD int mmx__fz_fan_ok(const mmx__fz_in *L, mmx_index v, mmx_index valence)
{
    const mmx_index c0 = L->owner[v];
    if (c0 < 0) return valence == 0;
    mmx_index c = c0, n = 0;
    do {
        n++;
        c = mmx__fz_turn(L, c);
    } while (c >= 0 && c != c0 && n <= valence);
    return n == valence;
}

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

/* The level's driver and plan (fused.c). */
typedef struct mmx__fz_level {
    mmx_index nv, nf, ne, nnz, order;
    mmx_index *colptr, *M;        /* M owned unless `borrowed` (the caller's input) */
    mmx_index *fe, *twin, *owner, *cnt, *goff;
    float *pos;
    int borrowed;
} mmx__fz_level;

/* Frees a level's arrays (not the borrowed ones) and zeroes it. */
void mmx__fz_level_free(mmx_ctx *ctx, mmx__fz_level *L);
/* The pass's read-only view of a level. */
mmx__fz_in mmx__fz_view(mmx_scheme scheme, const mmx__fz_level *L);
/* The input level of a mesh from its adjacency: twins, owners, counts and offsets (the mesh's
 * matrix and positions borrowed, or copied when `copy`). The mesh must have passed the fast
 * checks (mmx__subdiv_prepare); the rest is checked here: every half-edge run by one corner
 * (consistent orientation), every vertex's faces in one fan, and triangles for Loop and sqrt3.
 * MMX_ERR_MESH, with no message, when not: mmx__subdiv_refuse then names the problem. */
mmx_status mmx__fz_input(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                         const mmx_adjacency *adj, int copy, mmx__fz_level *L);
/* Allocates the child of P: its matrix when `topo` (and its half-edge arrays unless `last`),
 * its positions when `pos`. */
mmx_status mmx__fz_child_alloc(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *P, int last,
                               int topo, int pos, mmx__fz_level *C);
/* One pass from P to C: whatever C has arrays for (positions only when P has positions), then
 * the scan of C's counts. Queued on the context's stream, no synchronisation. */
mmx_status mmx__fz_pass(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *P,
                        mmx__fz_level *C);
/* The fused chain on an input that passed mmx__subdiv_prepare (levels >= 1), with `lv` zeroed
 * room for levels + 1 levels: the input level (its mesh copied when `keep`, else borrowed),
 * then each level's pass, queued with no synchronisation between them. Without `keep` every
 * level is freed once its child is written; with it the levels stay for re-evaluation. The
 * last level is *out, which owns its matrix and positions (lv[levels] borrows them). trace, if
 * not NULL, gets each level's sizes and time. MMX_ERR_MESH without a message when the input
 * level finds a bad fan or half-edge (mmx__fz_input): the caller names it. */
mmx_status mmx__fz_chain(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                         const mmx_adjacency *adj, int levels, int keep, mmx__fz_level *lv,
                         mmx_subdiv_level *trace, mmx_mesh **out);

#ifdef MMX_HAVE_CUDA
/* The device halves (fused.cu). */
mmx_status mmx__fz_pass_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx__fz_out O);
mmx_status mmx__fz_input_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx_index *ec, mmx_index *twin,
                              mmx_index *owner, mmx_index *cnt, const mmx_index *valence,
                              int *bad);
mmx_status mmx__fz_scan_cuda(mmx_ctx *ctx, const mmx_index *cnt, mmx_index n, mmx_index *goff);
/* The positions-only chain from `in` (level 0's positions) to `out` (level `levels`'), as a
 * CUDA graph captured once per pair of pointers and kept in *graph (freed by
 * mmx__fz_graph_free). */
mmx_status mmx__fz_eval_cuda(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *lv, int levels,
                             const float *in, float *out, void **graph, const float **graph_in,
                             float **graph_out);
void mmx__fz_graph_free(void *graph);
#endif

#ifdef __cplusplus
}
#endif
#endif
