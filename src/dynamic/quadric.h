/* The per-element steps of QEM simplification (Garland and Heckbert 1997; simplify.c drives
 * them, simplify.cu runs them on the device): plane quadrics, the quadric of each vertex, and
 * an edge's collapse cost, placement and validity. Written once for both backends, with the
 * unfused double-precision operations of flip_step.h, so the host and CUDA get the same bits.
 *
 * A quadric is 10 doubles: the symmetric 3x3 A (a11 a12 a13 a22 a23 a33), b (3) and c, the
 * error of a point x being x'Ax + 2 b'x + c. A face's is its plane's (unit normal n, offset
 * d = -n.p) times its area: A = area n n', b = area d n, c = area d^2; trace(A) is then the
 * area, so error / trace(A) is an area-weighted mean squared distance to the planes. */
#ifndef MMX_DYNAMIC_QUADRIC_H
#define MMX_DYNAMIC_QUADRIC_H

#include "sc_step.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MMX__QEM_N 10
/* A collapse is proposed only when neither end lies in more faces: checking it walks both
 * rings, so the bound keeps a round linear in the mesh whatever the valences. */
#define MMX__QEM_MAX_FACES 64

/* Face f's area-weighted plane quadric into q. With N = (Q - P) x (R - P): area n n' =
 * N N' / (2 |N|), and so on. A degenerate face (N = 0) gives 0. */
static inline MMX__HD void mmx__qem_face(const float *pos, const mmx_index *f, double q[10])
{
    double P[3], Q[3], R[3], N[3];
    mmx__hd_point(pos, f[0], P);
    mmx__hd_point(pos, f[1], Q);
    mmx__hd_point(pos, f[2], R);
    mmx__hd_tri_normal(P, Q, R, N);
    const double len = sqrt(mmx__hd_dot(N, N));
    for (int k = 0; k < 10; k++) q[k] = 0;
    if (!(len > 0)) return;
    const double w = 1.0 / MMX__DMUL(2.0, len), d = -mmx__hd_dot(N, P);
    const double Nw[3] = {MMX__DMUL(N[0], w), MMX__DMUL(N[1], w), MMX__DMUL(N[2], w)};
    q[0] = MMX__DMUL(Nw[0], N[0]);
    q[1] = MMX__DMUL(Nw[0], N[1]);
    q[2] = MMX__DMUL(Nw[0], N[2]);
    q[3] = MMX__DMUL(Nw[1], N[1]);
    q[4] = MMX__DMUL(Nw[1], N[2]);
    q[5] = MMX__DMUL(Nw[2], N[2]);
    q[6] = MMX__DMUL(Nw[0], d);
    q[7] = MMX__DMUL(Nw[1], d);
    q[8] = MMX__DMUL(Nw[2], d);
    q[9] = MMX__DMUL(MMX__DMUL(d, d), w);
}

/* Vertex v's quadric: the sum of its faces' in the order of vf (ascending face numbers on
 * both backends), so the sum is the same bits everywhere. */
static inline MMX__HD void mmx__qem_vertex(const mmx__sc_view *t, const float *pos, mmx_index v,
                                           double q[10])
{
    for (int k = 0; k < 10; k++) q[k] = 0;
    for (mmx_index i = t->vf_ptr[v]; i < t->vf_ptr[v + 1]; i++) {
        double f[10];
        mmx__qem_face(pos, t->f.verts + 3 * (size_t)t->vf[i], f);
        for (int k = 0; k < 10; k++) q[k] = MMX__DADD(q[k], f[k]);
    }
}

/* The error of x under q. */
static inline MMX__HD double mmx__qem_error(const double q[10], const double x[3])
{
    const double Ax0 = MMX__DADD(MMX__DADD(MMX__DMUL(q[0], x[0]), MMX__DMUL(q[1], x[1])),
                                 MMX__DMUL(q[2], x[2]));
    const double Ax1 = MMX__DADD(MMX__DADD(MMX__DMUL(q[1], x[0]), MMX__DMUL(q[3], x[1])),
                                 MMX__DMUL(q[4], x[2]));
    const double Ax2 = MMX__DADD(MMX__DADD(MMX__DMUL(q[2], x[0]), MMX__DMUL(q[4], x[1])),
                                 MMX__DMUL(q[5], x[2]));
    const double xAx = MMX__DADD(MMX__DADD(MMX__DMUL(x[0], Ax0), MMX__DMUL(x[1], Ax1)),
                                 MMX__DMUL(x[2], Ax2));
    const double bx = MMX__DADD(MMX__DADD(MMX__DMUL(q[6], x[0]), MMX__DMUL(q[7], x[1])),
                                MMX__DMUL(q[8], x[2]));
    const double e = MMX__DADD(MMX__DADD(xAx, MMX__DMUL(2.0, bx)), q[9]);
    return e > 0 ? e : 0; /* rounding can dip below the true minimum, 0 or more */
}

static inline MMX__HD double mmx__qem_det3(double a, double b, double c, double d, double e,
                                           double f, double g, double h, double i)
{
    /* | a b c ; d e f ; g h i | by the first row */
    return MMX__DADD(MMX__DSUB(MMX__DMUL(a, MMX__DSUB(MMX__DMUL(e, i), MMX__DMUL(f, h))),
                               MMX__DMUL(b, MMX__DSUB(MMX__DMUL(d, i), MMX__DMUL(f, g)))),
                     MMX__DMUL(c, MMX__DSUB(MMX__DMUL(d, h), MMX__DMUL(e, g))));
}

/* Where collapsing a and b (quadric q = Qa + Qb) may put the merged vertex, as stored
 * (floats), best first, into x[0..n) with their errors; returns n (3 or 4). First the
 * minimiser of q's error (A x = -b by Cramer's rule) when A is well conditioned
 * (|det A| > 1e-9 max|A_ij|^3) and the minimiser lies within |a - b| of the midpoint (so a
 * nearly flat quadric does not throw the vertex far away); then a, b and the midpoint by
 * increasing error (ties in that order). The caller takes the first its checks accept. */
static inline MMX__HD int mmx__qem_places(const double q[10], const float *pos, mmx_index a,
                                          mmx_index b, float x[4][3], double err[4])
{
    double P[3][3];
    mmx__hd_point(pos, a, P[0]);
    mmx__hd_point(pos, b, P[1]);
    for (int k = 0; k < 3; k++) P[2][k] = (double)mmx__sc_mid(pos, a, b, k);
    int n = 0;
    double s = 0;
    for (int k = 0; k < 6; k++) s = fabs(q[k]) > s ? fabs(q[k]) : s;
    const double det = mmx__qem_det3(q[0], q[1], q[2], q[1], q[3], q[4], q[2], q[4], q[5]);
    if (s > 0 && fabs(det) > MMX__DMUL(1e-9, MMX__DMUL(s, MMX__DMUL(s, s)))) {
        const double r0 = -q[6], r1 = -q[7], r2 = -q[8];
        double X[3];
        X[0] = (double)(float)(mmx__qem_det3(r0, q[1], q[2], r1, q[3], q[4], r2, q[4], q[5]) / det);
        X[1] = (double)(float)(mmx__qem_det3(q[0], r0, q[2], q[1], r1, q[4], q[2], r2, q[5]) / det);
        X[2] = (double)(float)(mmx__qem_det3(q[0], q[1], r0, q[1], q[3], r1, q[2], q[4], r2) / det);
        if (isfinite(X[0]) && isfinite(X[1]) && isfinite(X[2]) &&
            mmx__hd_dist2(X, P[2]) <= mmx__hd_dist2(P[0], P[1])) {
            for (int k = 0; k < 3; k++) x[0][k] = (float)X[k];
            err[0] = mmx__qem_error(q, X);
            n = 1;
        }
    }
    for (int c = 0; c < 3; c++) {
        const double e = mmx__qem_error(q, P[c]);
        int j = n++;
        for (; j > 0 && j > n - 1 - c && err[j - 1] > e; j--) { /* insertion among the three */
            err[j] = err[j - 1];
            for (int k = 0; k < 3; k++) x[j][k] = x[j - 1][k];
        }
        err[j] = e;
        for (int k = 0; k < 3; k++) x[j][k] = (float)P[c][k];
    }
    return n;
}

/* Edge e as a collapse candidate: interior (two faces), neither end locked, neither in more
 * than MMX__QEM_MAX_FACES faces, and a place (mmx__qem_places' order, the first that passes)
 * at which the collapse template's rules hold (sc_step.h: the exact link condition, as a
 * collapse with a place takes it, no boundary end, no tetrahedron, no face degenerate or
 * folded). The topological rules are checked once, the folds per place. Returns 1 for a
 * candidate with its cost (the quadric error at the place), its error as a distance,
 * sqrt(cost / trace A) (0 when trace A is 0), and the place. */
static inline MMX__HD int mmx__qem_edge(const mmx__sc_view *t, const float *pos, const double *Q,
                                        const unsigned char *lock, mmx_index e, double *cost,
                                        double *dist, float place[3])
{
    const mmx_index a = t->f.ev[2 * (size_t)e], b = t->f.ev[2 * (size_t)e + 1];
    if (t->sides[e] != 2 || lock[a] || lock[b]) return 0;
    if (t->vf_ptr[a + 1] - t->vf_ptr[a] > MMX__QEM_MAX_FACES ||
        t->vf_ptr[b + 1] - t->vf_ptr[b] > MMX__QEM_MAX_FACES)
        return 0;
    mmx_cavity_seed sd;
    mmx_index two[2] = {-1, -1};
    const int nf = mmx__sc_edge_faces(t, e, &sd, two);
    if (!nf || !mmx__sc_collapse_topo(t, e, 1, two, nf)) return 0;
    double q[10];
    for (int k = 0; k < 10; k++)
        q[k] = MMX__DADD(Q[MMX__QEM_N * (size_t)a + k], Q[MMX__QEM_N * (size_t)b + k]);
    float x[4][3];
    double err[4];
    const int n = mmx__qem_places(q, pos, a, b, x, err);
    for (int c = 0; c < n; c++) {
        const double M[3] = {(double)x[c][0], (double)x[c][1], (double)x[c][2]}; /* as stored */
        if (!mmx__sc_collapse_folds(t, pos, a, b, two, M)) continue;
        const double tr = MMX__DADD(MMX__DADD(q[0], q[3]), q[5]);
        *cost = err[c];
        *dist = tr > 0 ? sqrt(err[c] / tr) : 0;
        for (int k = 0; k < 3; k++) place[k] = x[c][k];
        return 1;
    }
    return 0;
}

/* 1 when edge e is a feature whose ends stay: not an interior edge with two faces running it
 * opposite ways, or (cos_bound > -1) one whose faces' normals make an angle with cosine below
 * cos_bound. */
static inline MMX__HD int mmx__qem_feature(const mmx__sc_view *t, const float *pos, mmx_index e,
                                           double cos_bound)
{
    const mmx_index f0 = t->f.ef[2 * (size_t)e], f1 = t->f.ef[2 * (size_t)e + 1];
    if (t->sides[e] != 2 || f0 < 0 || f1 < 0) return 1;
    if (!(cos_bound > -1)) return 0;
    double P[3], Q[3], R[3], n0[3], n1[3];
    const mmx_index *v0 = t->f.verts + 3 * (size_t)f0, *v1 = t->f.verts + 3 * (size_t)f1;
    mmx__hd_point(pos, v0[0], P);
    mmx__hd_point(pos, v0[1], Q);
    mmx__hd_point(pos, v0[2], R);
    mmx__hd_tri_normal(P, Q, R, n0);
    mmx__hd_point(pos, v1[0], P);
    mmx__hd_point(pos, v1[1], Q);
    mmx__hd_point(pos, v1[2], R);
    mmx__hd_tri_normal(P, Q, R, n1);
    const double l = MMX__DMUL(sqrt(mmx__hd_dot(n0, n0)), sqrt(mmx__hd_dot(n1, n1)));
    return mmx__hd_dot(n0, n1) < MMX__DMUL(cos_bound, l);
}

/* A candidate's key: the cost rounded to float (mmx__rank_key's order) and the edge, so
 * sorting by it lists the candidates cheapest first, ties by edge. */
static inline MMX__HD uint64_t mmx__qem_key(double cost, mmx_index e)
{
    return mmx__rank_key((float)cost, e);
}

#ifdef __cplusplus
}
#endif

#endif
