/* The per-seed steps of an edge-flip round, written once for the host loops (cavity.c,
 * delaunay.c, flip_topo.c) and the CUDA kernels (cavity.cu, delaunay.cu), as
 * patch/patch_block.h does for the patch queries: the priority, the quad around an edge, the
 * flip's validity (the double-precision degenerate and fold tests), the Delaunay bound and the
 * fill. So the host tests exercise the very code the device runs.
 *
 * Identical bits on both backends: the geometric tests use only +, -, * and sqrt in double
 * precision, each correctly rounded by IEEE 754 on the CPU and the GPU. A compiler may fuse
 * a * b + c into one rounding (nvcc does by default), so the arithmetic goes through MMX__DMUL,
 * MMX__DADD and MMX__DSUB, which are the _rn intrinsics (never fused) in device code; the host
 * C is compiled with -ffp-contract=off (meson.build). No transcendental function is called:
 * the Delaunay bound is decided from the sine and cosine of the angle sum (mmx__violates), so
 * no libm and CUDA ulp differences can split the backends. */
#ifndef MMX_DYNAMIC_FLIP_STEP_H
#define MMX_DYNAMIC_FLIP_STEP_H

#include <math.h>
#include <stdint.h>
#include "meshmatrix/dynamic.h"
#include "mesh/mesh_internal.h" /* MMX__HD, mmx__edge_find */

#ifdef __cplusplus
extern "C" {
#endif

/* What a flip round reads, as plain pointers in one memory space (host arrays of
 * mmx__flip_topo, or the device arrays of mmx__flip_dev): the triangles, the adjacency's edge
 * numbering and per edge its two faces by direction (dynamic_internal.h, ef). */
typedef struct mmx__flip_view {
    mmx_index nverts, nfaces, nedges;
    const mmx_index *verts;    /* 3 per face */
    const mmx_index *edge_ptr; /* nverts + 1 */
    const mmx_index *ev;       /* 2 per edge, lower end first */
    const mmx_index *ef;       /* 2 per edge: the face running it from its lower end, then the
                                  one running it from its higher end; -1 -1 if not both */
} mmx__flip_view;

/* splitmix64's finaliser of (round << 32 | edge): mmx_cavity_priority. A bijection of the
 * 64-bit input, so two distinct edges of one round never share a priority. */
static inline MMX__HD uint64_t mmx__priority(mmx_index edge, uint32_t round)
{
    uint64_t z = ((uint64_t)round << 32 | (uint32_t)edge) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The vertex of triangle f after v. */
static inline MMX__HD mmx_index mmx__fv_after(const mmx__flip_view *t, mmx_index f, mmx_index v)
{
    const mmx_index *p = t->verts + 3 * (size_t)f;
    return p[0] == v ? p[1] : p[1] == v ? p[2] : p[0];
}

/* The quad around interior edge e: q = {a, b, c, d} with (a, b, c) = ef[2e] (a < b) and
 * (b, a, d) = ef[2e + 1]. Returns 0 when e has no two such faces. */
static inline MMX__HD int mmx__fv_quad(const mmx__flip_view *t, mmx_index e, mmx_index q[4])
{
    const mmx_index f0 = t->ef[2 * (size_t)e], f1 = t->ef[2 * (size_t)e + 1];
    if (f0 < 0 || f1 < 0) return 0;
    q[0] = t->ev[2 * (size_t)e];
    q[1] = t->ev[2 * (size_t)e + 1];
    q[2] = mmx__fv_after(t, f0, q[1]); /* f0 runs a -> b -> c */
    q[3] = mmx__fv_after(t, f1, q[0]); /* f1 runs b -> a -> d */
    return 1;
}

/* 1 when {u, v} is an edge (mmx__edge_number). */
static inline MMX__HD int mmx__fv_has_edge(const mmx__flip_view *t, mmx_index u, mmx_index v)
{
    return mmx__edge_number(t->edge_ptr, t->ev, u, v) >= 0;
}

/* ---- the triangle checks (double precision) ---------------------------------------------- */

static inline MMX__HD void mmx__hd_point(const float *pos, mmx_index v, double p[3])
{
    for (int k = 0; k < 3; k++) p[k] = (double)pos[3 * (size_t)v + k];
}

/* n = (Q - P) x (R - P). */
static inline MMX__HD void mmx__hd_tri_normal(const double P[3], const double Q[3],
                                              const double R[3], double n[3])
{
    const double u[3] = {MMX__DSUB(Q[0], P[0]), MMX__DSUB(Q[1], P[1]), MMX__DSUB(Q[2], P[2])};
    const double v[3] = {MMX__DSUB(R[0], P[0]), MMX__DSUB(R[1], P[1]), MMX__DSUB(R[2], P[2])};
    n[0] = MMX__DSUB(MMX__DMUL(u[1], v[2]), MMX__DMUL(u[2], v[1]));
    n[1] = MMX__DSUB(MMX__DMUL(u[2], v[0]), MMX__DMUL(u[0], v[2]));
    n[2] = MMX__DSUB(MMX__DMUL(u[0], v[1]), MMX__DMUL(u[1], v[0]));
}

static inline MMX__HD double mmx__hd_dot(const double a[3], const double b[3])
{
    return MMX__DADD(MMX__DADD(MMX__DMUL(a[0], b[0]), MMX__DMUL(a[1], b[1])), MMX__DMUL(a[2], b[2]));
}

static inline MMX__HD double mmx__hd_dist2(const double P[3], const double Q[3])
{
    const double d[3] = {MMX__DSUB(Q[0], P[0]), MMX__DSUB(Q[1], P[1]), MMX__DSUB(Q[2], P[2])};
    return mmx__hd_dot(d, d);
}

/* mmx__bad_triangle (dynamic_internal.h): 1 when (P, Q, R) is degenerate (area at most 1e-12
 * times its longest edge squared) or folded (its normal not the way of N). */
static inline MMX__HD int mmx__hd_bad_triangle(const double P[3], const double Q[3],
                                               const double R[3], const double N[3])
{
    double n[3];
    mmx__hd_tri_normal(P, Q, R, n);
    double l = mmx__hd_dist2(P, Q);
    const double qr = mmx__hd_dist2(Q, R), rp = mmx__hd_dist2(R, P);
    if (qr > l) l = qr;
    if (rp > l) l = rp;
    if (MMX__DMUL(0.5, sqrt(mmx__hd_dot(n, n))) <= MMX__DMUL(1e-12, l)) return 1;
    return mmx__hd_dot(n, N) <= 0;
}

/* mmx__tri_quality (dynamic_internal.h): twice the area over the longest edge squared, from 0
 * (degenerate) to sqrt(3)/2 (equilateral). */
static inline MMX__HD double mmx__hd_tri_quality(const double P[3], const double Q[3],
                                                 const double R[3])
{
    double n[3];
    mmx__hd_tri_normal(P, Q, R, n);
    double l = mmx__hd_dist2(P, Q);
    const double qr = mmx__hd_dist2(Q, R), rp = mmx__hd_dist2(R, P);
    if (qr > l) l = qr;
    if (rp > l) l = rp;
    return l > 0 ? sqrt(mmx__hd_dot(n, n)) / l : 0;
}

/* ---- the edge flip ------------------------------------------------------------------------ */

/* Seed edge e's flip cavity into *sd (faces, new_edge; the other fields untouched); 1 when it
 * is valid (dynamic.h's rules): two faces running e opposite ways, third vertices c != d not
 * joined by an edge, and with positions neither new face (a, d, c), (d, b, c) degenerate or
 * folded against the summed normal of the old two. */
static inline MMX__HD int mmx__fv_flip_cavity(const mmx__flip_view *t, const float *pos,
                                              mmx_index e, mmx_cavity_seed *sd)
{
    mmx_index q[4];
    sd->faces[0] = sd->faces[1] = sd->new_edge[0] = sd->new_edge[1] = -1;
    if (!mmx__fv_quad(t, e, q)) return 0;
    sd->faces[0] = t->ef[2 * (size_t)e];
    sd->faces[1] = t->ef[2 * (size_t)e + 1];
    const mmx_index a = q[0], b = q[1], c = q[2], d = q[3];
    /* c == d: the two faces are a pillow's; an existing {c, d}: the flip would double it. */
    if (c == d || mmx__fv_has_edge(t, c, d)) return 0;
    if (pos) {
        double n0[3], n1[3], A[3], B[3], C[3], D[3];
        mmx__hd_point(pos, a, A);
        mmx__hd_point(pos, b, B);
        mmx__hd_point(pos, c, C);
        mmx__hd_point(pos, d, D);
        mmx__hd_tri_normal(A, B, C, n0);
        mmx__hd_tri_normal(B, A, D, n1);
        const double N[3] = {MMX__DADD(n0[0], n1[0]), MMX__DADD(n0[1], n1[1]),
                             MMX__DADD(n0[2], n1[2])};
        if (mmx__hd_bad_triangle(A, D, C, N) || mmx__hd_bad_triangle(D, B, C, N)) return 0;
    }
    sd->new_edge[0] = c < d ? c : d;
    sd->new_edge[1] = c < d ? d : c;
    return 1;
}

/* Fills a kept flip of edge e in place into out (3 per face, a copy of t->verts): the same two
 * face ids, across the other diagonal: (a, b, c), (b, a, d) become (a, d, c), (d, b, c). */
static inline MMX__HD void mmx__fv_fill_flip(const mmx__flip_view *t, mmx_index e, mmx_index *out)
{
    mmx_index q[4];
    if (!mmx__fv_quad(t, e, q)) return; /* a kept flip always has its quad */
    const mmx_index f0 = t->ef[2 * (size_t)e], f1 = t->ef[2 * (size_t)e + 1];
    mmx_index *p0 = out + 3 * (size_t)f0, *p1 = out + 3 * (size_t)f1;
    p0[0] = q[0], p0[1] = q[3], p0[2] = q[2]; /* (a, d, c) */
    p1[0] = q[3], p1[1] = q[1], p1[2] = q[2]; /* (d, b, c) */
}

/* ---- the Delaunay bound ------------------------------------------------------------------- */

/* tan(MMX_DELAUNAY_TOL) = 1e-6 + 1e-18 / 3 + ..., the double nearest. */
#define MMX__TAN_DELAUNAY_TOL 1.0000000000003334e-06

/* The sine and cosine of the angle at c of triangle (a, b, c), each times |a - c| |b - c|:
 * s = |u x v| >= 0, co = u . v with u = a - c, v = b - c. */
static inline MMX__HD void mmx__hd_corner(const float *pos, mmx_index a, mmx_index b, mmx_index c,
                                          double *s, double *co)
{
    double A[3], B[3], C[3], n[3];
    mmx__hd_point(pos, a, A);
    mmx__hd_point(pos, b, B);
    mmx__hd_point(pos, c, C);
    mmx__hd_tri_normal(C, A, B, n); /* (A - C) x (B - C) */
    const double u[3] = {MMX__DSUB(A[0], C[0]), MMX__DSUB(A[1], C[1]), MMX__DSUB(A[2], C[2])};
    const double v[3] = {MMX__DSUB(B[0], C[0]), MMX__DSUB(B[1], C[1]), MMX__DSUB(B[2], C[2])};
    *s = sqrt(mmx__hd_dot(n, n));
    *co = mmx__hd_dot(u, v);
}

/* mmx_delaunay_violates: alpha + beta > pi + tol for the angles alpha at c and beta at d.
 * With theta = alpha + beta - pi in [-pi, pi], and s_i, c_i the scaled sines and cosines of
 * mmx__hd_corner (scale n_i > 0):
 *   S = -(s1 c2 + c1 s2) = -n1 n2 sin(alpha + beta) = n1 n2 sin(theta),
 *   C = s1 s2 - c1 c2    = -n1 n2 cos(alpha + beta) = n1 n2 cos(theta).
 * So theta > tol (0 < tol < pi / 2) exactly when S > 0 and (C <= 0 or S > C tan(tol)).
 * S = 0 with C < 0 means theta = +-pi, alpha = beta = pi (both c_i < 0: over the bound) or
 * alpha = beta = 0 (both c_i > 0: not); S = C = 0 (a zero-length side) is not over the bound,
 * as atan2(0, 0) = 0 made it. */
static inline MMX__HD int mmx__violates(const float *pos, mmx_index a, mmx_index b, mmx_index c,
                                        mmx_index d)
{
    double s1, c1, s2, c2;
    mmx__hd_corner(pos, a, b, c, &s1, &c1);
    mmx__hd_corner(pos, a, b, d, &s2, &c2);
    const double S = -MMX__DADD(MMX__DMUL(s1, c2), MMX__DMUL(c1, s2));
    const double C = MMX__DSUB(MMX__DMUL(s1, s2), MMX__DMUL(c1, c2));
    if (S > 0) return C <= 0 || S > MMX__DMUL(C, MMX__TAN_DELAUNAY_TOL);
    if (S == 0 && C < 0) return c1 < 0;
    return 0;
}

/* Edge e is a Delaunay seed: interior with two faces running it opposite ways, over the bound. */
static inline MMX__HD int mmx__fv_delaunay_seed(const mmx__flip_view *t, const float *pos,
                                                mmx_index e)
{
    mmx_index q[4];
    return mmx__fv_quad(t, e, q) && mmx__violates(pos, q[0], q[1], q[2], q[3]);
}


/* ---- the topology after a flip round (flip_update.c, flip_update.cu) ----------------------
 *
 * A flip round keeps the vertices, the faces' ids and the edge count: each kept flip removes
 * its edge {a, b} and adds {c, d}. The next round's topology is what mmx_adjacency would give
 * the new mesh (the priorities are defined on its edge numbering), and it follows from the old
 * one without recomputing it: edges are numbered by the key (hi, lo) in ascending order, so a
 * surviving old edge e moves to e - (removed edges before e) + (added keys below its key), and
 * the j-th added key (ascending) goes to j + (surviving old keys below it). ef changes only
 * around the flipped quads: (a, b, c), (b, a, d) become (a, d, c), (d, b, c), so {b, c} passes
 * from f0 to f1 and {a, d} from f1 to f0, each in its own direction's slot, {a, c} and {d, b}
 * keep theirs, and {c, d} gets f1 running c -> d and f0 running d -> c. An edge whose pair was
 * not valid (boundary, non-manifold, same direction) stays -1 -1: its faces are not changed. */

/* The sort key of edge {lo, hi}: by higher end, then lower end (mesh.h's numbering). */
static inline MMX__HD uint64_t mmx__fu_key(mmx_index lo, mmx_index hi)
{
    return (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
}

/* The number of keys in the ascending keys[0..n) below k: the lower bound of every sorted
 * 64-bit key list here (remesh_step.h's feature lookup too). */
static inline MMX__HD mmx_index mmx__fu_below(const uint64_t *keys, mmx_index n, uint64_t k)
{
    mmx_index lo = 0, hi = n;
    while (lo < hi) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (keys[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The number of old edges whose key is below that of {lo, hi} (lo < hi). */
static inline MMX__HD mmx_index mmx__fu_old_below(const mmx__flip_view *t, mmx_index lo, mmx_index hi)
{
    return mmx__edge_find(t->edge_ptr, t->ev, lo, hi);
}

/* The added edge of a kept flip of old edge e: its key (the quad's c, d). */
static inline MMX__HD uint64_t mmx__fu_added_key(const mmx__flip_view *old, mmx_index e)
{
    mmx_index q[4] = {0, 0, 0, 0};
    mmx__fv_quad(old, e, q);
    return q[2] < q[3] ? mmx__fu_key(q[2], q[3]) : mmx__fu_key(q[3], q[2]);
}

/* Old edge e (not removed) into the new arrays; R[e] = removed edges before e, added[0..k)
 * the added keys ascending. */
static inline MMX__HD void mmx__fu_move_old(const mmx__flip_view *old, mmx_index e,
                                            const mmx_index *R, const uint64_t *added, mmx_index k,
                                            mmx_index *ev, mmx_index *ef)
{
    const mmx_index lo = old->ev[2 * (size_t)e], hi = old->ev[2 * (size_t)e + 1];
    const mmx_index to = e - R[e] + mmx__fu_below(added, k, mmx__fu_key(lo, hi));
    ev[2 * (size_t)to] = lo, ev[2 * (size_t)to + 1] = hi;
    ef[2 * (size_t)to] = old->ef[2 * (size_t)e], ef[2 * (size_t)to + 1] = old->ef[2 * (size_t)e + 1];
}

/* The j-th added key into the new arrays (its ef is set by mmx__fu_fix). */
static inline MMX__HD void mmx__fu_move_added(const mmx__flip_view *old, mmx_index j,
                                              const mmx_index *R, const uint64_t *added,
                                              mmx_index *ev)
{
    const mmx_index lo = (mmx_index)(uint32_t)added[j], hi = (mmx_index)(added[j] >> 32);
    const mmx_index pos = mmx__fu_old_below(old, lo, hi);
    const mmx_index to = j + pos - R[pos];
    ev[2 * (size_t)to] = lo, ev[2 * (size_t)to + 1] = hi;
}

/* The new edge_ptr[v] (0 <= v <= nverts): old edges of higher end below v that survive, plus
 * the added ones. */
static inline MMX__HD mmx_index mmx__fu_edge_ptr(const mmx__flip_view *old, mmx_index v,
                                                 const mmx_index *R, const uint64_t *added,
                                                 mmx_index k)
{
    const mmx_index p = old->edge_ptr[v];
    return p - R[p] + mmx__fu_below(added, k, (uint64_t)(uint32_t)v << 32);
}

/* Sets the slot of edge {u, v}'s direction u -> v to face f in the new view nv (ef writable),
 * when the edge's pair is valid. */
static inline MMX__HD void mmx__fu_set(const mmx__flip_view *nv, mmx_index *ef, mmx_index u,
                                       mmx_index v, mmx_index f)
{
    const mmx_index lo = u < v ? u : v, hi = u < v ? v : u;
    const mmx_index e = mmx__fu_old_below(nv, lo, hi); /* the edge exists in the new mesh */
    if (ef[2 * (size_t)e] >= 0 && ef[2 * (size_t)e + 1] >= 0) ef[2 * (size_t)e + (u < v ? 0 : 1)] = f;
}

/* The ef changes of the kept flip of old edge e (nv: the new view, its ev and edge_ptr done). */
static inline MMX__HD void mmx__fu_fix(const mmx__flip_view *old, mmx_index e,
                                       const mmx__flip_view *nv, mmx_index *ef)
{
    mmx_index q[4] = {0, 0, 0, 0};
    mmx__fv_quad(old, e, q);
    const mmx_index a = q[0], b = q[1], c = q[2], d = q[3];
    const mmx_index f0 = old->ef[2 * (size_t)e], f1 = old->ef[2 * (size_t)e + 1];
    mmx__fu_set(nv, ef, b, c, f1); /* (d, b, c) runs b -> c */
    mmx__fu_set(nv, ef, a, d, f0); /* (a, d, c) runs a -> d */
    const mmx_index lo = c < d ? c : d, hi = c < d ? d : c;
    const mmx_index n = mmx__fu_old_below(nv, lo, hi);
    ef[2 * (size_t)n] = c < d ? f1 : f0;     /* the face running it from its lower end */
    ef[2 * (size_t)n + 1] = c < d ? f0 : f1;
}

#ifdef __cplusplus
}
#endif
#endif
