/* The per-seed steps of the edge split and edge collapse templates (dynamic.h states their
 * rules), written once for the host round (split_collapse.c) and the CUDA kernels
 * (split_collapse.cu), as flip_step.h does for the flip: the cavity, its validity (the
 * double-precision degenerate and fold tests of flip_step.h, unfused on the device) and the
 * midpoint a fill writes. So the host tests exercise the very code the device runs. */
#ifndef MMX_DYNAMIC_SC_STEP_H
#define MMX_DYNAMIC_SC_STEP_H

#include "flip_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a split or collapse round reads, as plain pointers in one memory space (the host
 * arrays of mmx__flip_topo, or device arrays): the flip view's, plus per edge its faces by
 * direction with boundary edges included (hf), the adjacency's sides, boundary flags and E
 * (colptr, rowidx: rows ascending), and the faces at each vertex (vf_ptr, vf; any order). */
typedef struct mmx__sc_view {
    mmx__flip_view f;
    const mmx_index *hf;       /* 2 per edge (dynamic_internal.h) */
    const mmx_index *sides;    /* nedges */
    const unsigned char *boundary; /* nverts */
    const mmx_index *E_colptr, *E_rowidx;
    const mmx_index *vf_ptr, *vf;
} mmx__sc_view;

/* Face f's corner where it runs {a, b}: i with {f[i], f[i+1]} = {a, b}. */
static inline MMX__HD int mmx__sc_edge_corner(const mmx_index *f, mmx_index a, mmx_index b)
{
    for (int i = 0; i < 3; i++) {
        const mmx_index p = f[i], q = f[(i + 1) % 3];
        if ((p == a && q == b) || (p == b && q == a)) return i;
    }
    return -1;
}

/* A seed's key when the caller gives priorities (mmx_cavity_round_ranked): the float's bits
 * mapped to an unsigned order (negative values reversed, so the integer order is the float
 * order, -0 just below +0) in the high half, the seed's position in the low half. Keys of
 * distinct seeds differ, so lower priority wins and ties go to the lower seed position on
 * both backends. The caller refuses NaN. */
static inline MMX__HD uint64_t mmx__rank_key(float p, mmx_index i)
{
    return (uint64_t)mmx__float_order(p) << 32 | (uint32_t)i;
}

/* The midpoint of a and b as a fill stores it: (float)(0.5 (A + B)) in double. */
static inline MMX__HD float mmx__sc_mid(const float *pos, mmx_index a, mmx_index b, int k)
{
    return (float)MMX__DMUL(0.5, MMX__DADD((double)pos[3 * (size_t)a + k],
                                           (double)pos[3 * (size_t)b + k]));
}

/* The edge's faces into sd->faces (the one running it from its lower end first; a boundary
 * edge's only face, then -1) and ring; the number of them, 0 when the edge has three faces or
 * more or two that run it the same way. */
static inline MMX__HD int mmx__sc_edge_faces(const mmx__sc_view *t, mmx_index e,
                                             mmx_cavity_seed *sd, mmx_index *ring)
{
    const mmx_index f0 = t->hf[2 * (size_t)e], f1 = t->hf[2 * (size_t)e + 1];
    if (f0 < 0 && f1 < 0) return 0;
    sd->faces[0] = f0 >= 0 ? f0 : f1;
    sd->faces[1] = f0 >= 0 ? f1 : -1;
    ring[0] = sd->faces[0];
    if (sd->faces[1] >= 0) ring[1] = sd->faces[1];
    return sd->faces[1] >= 0 ? 2 : 1;
}

/* The most faces seed e's cavity may hold (its ring's room). */
static inline MMX__HD mmx_index mmx__sc_ring_bound(const mmx__sc_view *t, mmx_cavity_kind kind,
                                                   mmx_index e)
{
    if (kind != MMX_CAVITY_EDGE_COLLAPSE) return 2;
    const mmx_index a = t->f.ev[2 * (size_t)e], b = t->f.ev[2 * (size_t)e + 1];
    return t->vf_ptr[a + 1] - t->vf_ptr[a] + t->vf_ptr[b + 1] - t->vf_ptr[b];
}

/* mmx__split_cavity (dynamic_internal.h). */
static inline MMX__HD int mmx__sc_split_cavity(const mmx__sc_view *t, const float *pos,
                                               mmx_index e, mmx_cavity_seed *sd, mmx_index *ring,
                                               mmx_index *nring)
{
    *nring = mmx__sc_edge_faces(t, e, sd, ring);
    if (!*nring) return 0;
    if (!pos) return 1;
    const mmx_index a = t->f.ev[2 * (size_t)e], b = t->f.ev[2 * (size_t)e + 1];
    double M[3], C[3], n[3];
    for (int k = 0; k < 3; k++) M[k] = (double)mmx__sc_mid(pos, a, b, k); /* as stored */
    for (mmx_index i = 0; i < *nring; i++) {
        const mmx_index *f = t->f.verts + 3 * (size_t)ring[i];
        const int j = mmx__sc_edge_corner(f, a, b);
        double P[3], Q[3];
        mmx__hd_point(pos, f[j], P);
        mmx__hd_point(pos, f[(j + 1) % 3], Q);
        mmx__hd_point(pos, f[(j + 2) % 3], C);
        mmx__hd_tri_normal(P, Q, C, n);
        if (mmx__hd_bad_triangle(P, M, C, n) || mmx__hd_bad_triangle(M, Q, C, n)) return 0;
    }
    return 1;
}

/* The number of common neighbours of a and b (E's columns a and b, rows ascending, merged). */
static inline MMX__HD mmx_index mmx__sc_common_neighbours(const mmx__sc_view *t, mmx_index a,
                                                          mmx_index b)
{
    mmx_index i = t->E_colptr[a], j = t->E_colptr[b], n = 0;
    while (i < t->E_colptr[a + 1] && j < t->E_colptr[b + 1]) {
        const mmx_index u = t->E_rowidx[i], v = t->E_rowidx[j];
        if (u < v) i++;
        else if (v < u) j++;
        else {
            n += u != a && u != b;
            i++, j++;
        }
    }
    return n;
}

/* The vertex of face f that is neither a nor b. */
static inline MMX__HD mmx_index mmx__sc_third(const mmx__sc_view *t, mmx_index f, mmx_index a,
                                              mmx_index b)
{
    const mmx_index *p = t->f.verts + 3 * (size_t)f;
    return p[0] != a && p[0] != b ? p[0] : p[1] != a && p[1] != b ? p[1] : p[2];
}

/* 1 when {u, v} is an edge with one face (it is an edge: u and v share a face). */
static inline MMX__HD int mmx__sc_boundary_edge(const mmx__sc_view *t, mmx_index u, mmx_index v)
{
    return t->sides[mmx__edge_find(t->f.edge_ptr, t->f.ev, u, v)] == 1;
}

/* 1 when a face at v has corners c and d too (the faces at v, vf). */
static inline MMX__HD int mmx__sc_has_face(const mmx__sc_view *t, mmx_index v, mmx_index c,
                                           mmx_index d)
{
    for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++) {
        const mmx_index *f = t->f.verts + 3 * (size_t)t->vf[k];
        int n = 0;
        for (int i = 0; i < 3; i++) n += f[i] == c || f[i] == d;
        if (n == 2) return 1;
    }
    return 0;
}

/* The collapse's checks that do not depend on where the merged vertex goes, on edge e whose
 * nf (1 or 2) faces mmx__sc_edge_faces put in two[]: dynamic.h's topological rules. `exact`:
 * the exact link condition's edge part (the ranked collapse, which has a place: c-d may be an
 * edge, so a vertex of valence 3 goes, unless both (a, c, d) and (b, c, d) are faces, a
 * tetrahedron's); else the template's stricter rule (no edge c-d). 1 when they hold. */
static inline MMX__HD int mmx__sc_collapse_topo(const mmx__sc_view *t, mmx_index e, int exact,
                                                const mmx_index two[2], int nf)
{
    const mmx_index a = t->f.ev[2 * (size_t)e], b = t->f.ev[2 * (size_t)e + 1];
    const mmx_index c = mmx__sc_third(t, two[0], a, b);
    if (nf == 2) {
        /* Interior: both ends interior, a quad that is no tetrahedron's. */
        const mmx_index d = mmx__sc_third(t, two[1], a, b);
        if (t->boundary[a] || t->boundary[b] || c == d) return 0;
        if (exact ? mmx__sc_has_face(t, a, c, d) && mmx__sc_has_face(t, b, c, d)
                  : mmx__fv_has_edge(&t->f, c, d))
            return 0;
    } else {
        /* Boundary: not an ear (a triangle with two boundary edges would lose its area). */
        if (mmx__sc_boundary_edge(t, a, c) && mmx__sc_boundary_edge(t, b, c)) return 0;
    }
    return mmx__sc_common_neighbours(t, a, b) == nf; /* the link condition */
}

/* The collapse's geometric check with the merged vertex at M: 1 when no face at a or b but the
 * edge's own (two[0], and two[1] for an interior edge) becomes degenerate or folded. Reads the
 * faces at each end from vf, as the ring lists them. */
static inline MMX__HD int mmx__sc_collapse_folds(const mmx__sc_view *t, const float *pos,
                                                 mmx_index a, mmx_index b, const mmx_index two[2],
                                                 const double M[3])
{
    for (int end = 0; end < 2; end++) {
        const mmx_index v = end ? b : a;
        for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++) {
            const mmx_index f = t->vf[k], *w = t->f.verts + 3 * (size_t)f;
            if (f == two[0] || f == two[1]) continue;
            double P[3][3], Q[3][3], n[3];
            for (int i = 0; i < 3; i++) {
                mmx__hd_point(pos, w[i], P[i]);
                for (int x = 0; x < 3; x++) Q[i][x] = w[i] == a || w[i] == b ? M[x] : P[i][x];
            }
            mmx__hd_tri_normal(P[0], P[1], P[2], n);
            if (mmx__hd_bad_triangle(Q[0], Q[1], Q[2], n)) return 0; /* degenerate or folded */
        }
    }
    return 1;
}

/* mmx__collapse_cavity (dynamic_internal.h): the ring holds the faces at a, then those at b
 * (the edge's faces twice). place: where the merged vertex goes (3 floats), NULL for the
 * midpoint; the fold and degeneracy checks test that position. */
static inline MMX__HD int mmx__sc_collapse_cavity(const mmx__sc_view *t, const float *pos,
                                                  mmx_index e, const float *place,
                                                  mmx_cavity_seed *sd, mmx_index *ring,
                                                  mmx_index *nring)
{
    const mmx_index a = t->f.ev[2 * (size_t)e], b = t->f.ev[2 * (size_t)e + 1];
    mmx_index two[2] = {-1, -1};
    const int nf = mmx__sc_edge_faces(t, e, sd, two);
    *nring = 0;
    if (!nf) return 0;
    for (mmx_index k = t->vf_ptr[a]; k < t->vf_ptr[a + 1]; k++) ring[(*nring)++] = t->vf[k];
    for (mmx_index k = t->vf_ptr[b]; k < t->vf_ptr[b + 1]; k++) ring[(*nring)++] = t->vf[k];
    if (!mmx__sc_collapse_topo(t, e, place != NULL, two, nf)) return 0;
    if (!pos) return 1;
    double M[3];
    for (int k = 0; k < 3; k++) /* as stored */
        M[k] = place ? (double)place[k] : (double)mmx__sc_mid(pos, a, b, k);
    return mmx__sc_collapse_folds(t, pos, a, b, two, M);
}

/* A split's fill of kept seed e (its cavity sd, new vertex m, new faces g0, g1 = g0 + 1 for
 * faces[1]): each face (p, q, c) running the edge becomes (p, m, c) in place and (m, q, c) at
 * g. verts is the output's face list (a copy of the input's, so the seed's faces still hold
 * their old corners). */
static inline MMX__HD void mmx__sc_fill_split(const mmx__flip_view *t, mmx_index e,
                                              const mmx_cavity_seed *sd, mmx_index m,
                                              mmx_index g0, mmx_index *verts)
{
    const mmx_index a = t->ev[2 * (size_t)e], b = t->ev[2 * (size_t)e + 1];
    for (int h = 0; h < 2 && sd->faces[h] >= 0; h++) {
        mmx_index *f = verts + 3 * (size_t)sd->faces[h], *g = verts + 3 * (size_t)(g0 + h);
        const int j = mmx__sc_edge_corner(f, a, b);
        const mmx_index P = f[j], Q = f[(j + 1) % 3], C = f[(j + 2) % 3];
        f[0] = P, f[1] = m, f[2] = C; /* (a, m, c) in the face's own direction */
        g[0] = m, g[1] = Q, g[2] = C; /* (m, b, c) */
    }
}

#ifdef __cplusplus
}
#endif

#endif
