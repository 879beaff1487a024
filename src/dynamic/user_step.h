/* The per-cavity steps of the user cavity template (mmx_cavity_user_round, dynamic.h states
 * its rules), written once for the host round (user_cavity.c) and the CUDA kernels
 * (user_cavity.cu): whether a face set is a topological disk, its boundary loop in the fill's
 * order, the new vertex (the loop's vertex centroid) and the fan's validity (the
 * double-precision degenerate and fold tests of flip_step.h, unfused on the device).
 * A cavity of k faces works in O(k^2) (its faces are compared pairwise) and in a scratch of
 * 4k indices: a union-find over its faces (k) and its boundary half-edges (at most 3k). */
#ifndef MMX_DYNAMIC_USER_STEP_H
#define MMX_DYNAMIC_USER_STEP_H

#include "sc_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The root of j in the union-find uf (path halving). */
static inline MMX__HD mmx_index mmx__uc_find(mmx_index *uf, mmx_index j)
{
    while (uf[j] != j) {
        uf[j] = uf[uf[j]];
        j = uf[j];
    }
    return j;
}

/* A boundary half-edge, coded 3 j + c: corner c of the cavity's face j to the next corner. */
static inline MMX__HD mmx_index mmx__uc_from(const mmx_index *verts, const mmx_index *F,
                                             mmx_index code)
{
    return verts[3 * (size_t)F[code / 3] + code % 3];
}

static inline MMX__HD mmx_index mmx__uc_to(const mmx_index *verts, const mmx_index *F,
                                           mmx_index code)
{
    return verts[3 * (size_t)F[code / 3] + (code % 3 + 1) % 3];
}

/* The new vertex: the average of the loop's vertices (each half-edge's start, in loop order),
 * summed in double in that order, divided by their number, rounded to float. */
static inline MMX__HD void mmx__uc_centroid(const mmx_index *verts, const float *pos,
                                            const mmx_index *F, const mmx_index *loop,
                                            mmx_index nloop, float m[3])
{
    for (int x = 0; x < 3; x++) {
        double s = 0;
        for (mmx_index b = 0; b < nloop; b++)
            s = MMX__DADD(s, (double)pos[3 * (size_t)mmx__uc_from(verts, F, loop[b]) + x]);
        m[x] = (float)(s / (double)nloop);
    }
}

/* Cavity F[0..k) (face ids, checked to be faces by the caller): 1 when it is valid, with its
 * boundary loop in loop[0..*nloop) (coded half-edges, in the loop's order, starting at the one
 * that leaves the loop's smallest vertex); scratch uf (k) and loop (3k). Valid (dynamic.h):
 *   - k >= 1 distinct faces;
 *   - every edge of a face is held by at most one other face of F, which runs it the other way
 *     (an interior edge), else it is a boundary edge of F;
 *   - F is connected through its interior edges; V - E + F = 1 (V, E its distinct vertices
 *     and edges); its boundary half-edges form one simple loop (each vertex starts at most
 *     one; following them from any one comes back after all of them): a disk;
 *   - every vertex of F not on the loop has all its faces in F (it is left without faces);
 *   - with positions, no fan face (p, q, m) for a loop half-edge p -> q is degenerate or
 *     folded against N, the sum of the cavity's faces' normals (area-weighted), in F's order. */
static inline MMX__HD int mmx__uc_cavity(const mmx__sc_view *t, const float *pos,
                                         const mmx_index *F, mmx_index k, mmx_index *uf,
                                         mmx_index *loop, mmx_index *nloop)
{
    const mmx_index *verts = t->f.verts;
    *nloop = 0;
    if (k < 1) return 0;
    for (mmx_index j = 0; j < k; j++) {
        uf[j] = j;
        for (mmx_index l = 0; l < j; l++)
            if (F[l] == F[j]) return 0;
    }
    /* Edges: interior ones join their faces (each counted from both sides), the others are the
     * boundary half-edges. */
    mmx_index B = 0, interior = 0;
    for (mmx_index j = 0; j < k; j++)
        for (int c = 0; c < 3; c++) {
            const mmx_index *f = verts + 3 * (size_t)F[j];
            const mmx_index p = f[c], q = f[(c + 1) % 3];
            mmx_index same = 0, opp = 0, other = -1;
            for (mmx_index l = 0; l < k; l++) {
                if (l == j) continue;
                const mmx_index *g = verts + 3 * (size_t)F[l];
                for (int d = 0; d < 3; d++) {
                    const mmx_index x = g[d], y = g[(d + 1) % 3];
                    if (x == p && y == q) same++;
                    if (x == q && y == p) opp++, other = l;
                }
            }
            if (same > 0 || opp > 1) return 0;
            if (opp == 1) {
                interior++;
                const mmx_index a = mmx__uc_find(uf, j), b = mmx__uc_find(uf, other);
                if (a != b) uf[a < b ? b : a] = a < b ? a : b;
            } else {
                loop[B++] = 3 * j + c;
            }
        }
    for (mmx_index j = 1; j < k; j++)
        if (mmx__uc_find(uf, j) != mmx__uc_find(uf, 0)) return 0; /* not connected */
    /* Distinct vertices: corners met for the first time. */
    mmx_index V = 0;
    for (mmx_index x = 0; x < 3 * k; x++) {
        const mmx_index w = verts[3 * (size_t)F[x / 3] + x % 3];
        int first = 1;
        for (mmx_index y = 0; y < x && first; y++)
            first = verts[3 * (size_t)F[y / 3] + y % 3] != w;
        V += first;
    }
    if (V - (B + interior / 2) + k != 1 || B < 3) return 0;
    /* One simple loop: distinct starts, then the walk from the smallest start, each next
     * half-edge swapped into place. */
    mmx_index s0 = 0;
    for (mmx_index b = 0; b < B; b++) {
        const mmx_index p = mmx__uc_from(verts, F, loop[b]);
        for (mmx_index x = 0; x < b; x++)
            if (mmx__uc_from(verts, F, loop[x]) == p) return 0;
        if (p < mmx__uc_from(verts, F, loop[s0])) s0 = b;
    }
    mmx_index tmp = loop[0];
    loop[0] = loop[s0], loop[s0] = tmp;
    for (mmx_index b = 1; b < B; b++) {
        const mmx_index q = mmx__uc_to(verts, F, loop[b - 1]);
        mmx_index x = b;
        while (x < B && mmx__uc_from(verts, F, loop[x]) != q) x++;
        if (x == B) return 0; /* the walk left the loop early: several loops */
        tmp = loop[b], loop[b] = loop[x], loop[x] = tmp;
    }
    if (mmx__uc_to(verts, F, loop[B - 1]) != mmx__uc_from(verts, F, loop[0])) return 0;
    /* Vertices inside the loop: all their faces in F. */
    for (mmx_index x = 0; x < 3 * k; x++) {
        const mmx_index w = verts[3 * (size_t)F[x / 3] + x % 3];
        int first = 1;
        for (mmx_index y = 0; y < x && first; y++)
            first = verts[3 * (size_t)F[y / 3] + y % 3] != w;
        if (!first) continue;
        int on_loop = 0;
        for (mmx_index b = 0; b < B && !on_loop; b++)
            on_loop = mmx__uc_from(verts, F, loop[b]) == w;
        if (on_loop) continue;
        mmx_index in = 0;
        for (mmx_index y = 0; y < 3 * k; y++) in += verts[3 * (size_t)F[y / 3] + y % 3] == w;
        if (in != t->vf_ptr[w + 1] - t->vf_ptr[w]) return 0;
    }
    *nloop = B;
    if (!pos) return 1;
    float mf[3];
    mmx__uc_centroid(verts, pos, F, loop, B, mf);
    const double M[3] = {mf[0], mf[1], mf[2]};
    double N[3] = {0, 0, 0};
    for (mmx_index j = 0; j < k; j++) {
        const mmx_index *f = verts + 3 * (size_t)F[j];
        double P[3], Q[3], R[3], n[3];
        mmx__hd_point(pos, f[0], P);
        mmx__hd_point(pos, f[1], Q);
        mmx__hd_point(pos, f[2], R);
        mmx__hd_tri_normal(P, Q, R, n);
        for (int x = 0; x < 3; x++) N[x] = MMX__DADD(N[x], n[x]);
    }
    for (mmx_index b = 0; b < B; b++) {
        double P[3], Q[3];
        mmx__hd_point(pos, mmx__uc_from(verts, F, loop[b]), P);
        mmx__hd_point(pos, mmx__uc_to(verts, F, loop[b]), Q);
        if (mmx__hd_bad_triangle(P, Q, M, N)) return 0;
    }
    return 1;
}

/* The fan of a kept cavity: face g0 + b is (p, q, m) for loop half-edge b, p -> q. */
static inline MMX__HD void mmx__uc_fill(const mmx_index *verts, const mmx_index *F,
                                        const mmx_index *loop, mmx_index nloop, mmx_index m,
                                        mmx_index *out, mmx_index g0)
{
    for (mmx_index b = 0; b < nloop; b++) {
        mmx_index *g = out + 3 * (size_t)(g0 + b);
        g[0] = mmx__uc_from(verts, F, loop[b]);
        g[1] = mmx__uc_to(verts, F, loop[b]);
        g[2] = m;
    }
}

#ifdef __cplusplus
}
#endif

#endif
