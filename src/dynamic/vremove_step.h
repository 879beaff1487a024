/* The per-seed steps of the vertex removal template (MMX_CAVITY_VERTEX_REMOVE, dynamic.h
 * states its rules), written once for the host round (vremove.c) and the CUDA kernels
 * (vremove.cu), as sc_step.h does for the edge split and collapse: the choice of the
 * neighbour u that v collapses onto, its validity (the double-precision degenerate and fold
 * tests of flip_step.h, unfused on the device) and the cavity's faces. */
#ifndef MMX_DYNAMIC_VREMOVE_STEP_H
#define MMX_DYNAMIC_VREMOVE_STEP_H

#include "sc_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of edge {u, v}, -1 when there is none (mmx__edge_number). */
static inline MMX__HD mmx_index mmx__vr_edge(const mmx__sc_view *t, mmx_index u, mmx_index v)
{
    return mmx__edge_number(t->f.edge_ptr, t->f.ev, u, v);
}

/* 1 when face f holds vertex x. */
static inline MMX__HD int mmx__vr_has(const mmx__sc_view *t, mmx_index f, mmx_index x)
{
    const mmx_index *p = t->f.verts + 3 * (size_t)f;
    return p[0] == x || p[1] == x || p[2] == x;
}

/* 1 when v may collapse onto its neighbour u along edge e = {v, u} (dynamic.h's rules): e has
 * two faces running it opposite ways, (v, u, c) and (u, v, d) in some order with c != d; v and
 * u have exactly c and d as common neighbours (the link condition); v is not the tip of a
 * tetrahedron (valence 3 with u, c, d already a face: the fill would repeat that face); and
 * with positions no other face at v, v moved onto u, is degenerate or folded against its own
 * old normal (u keeps its position, so the faces at u keep their shapes). */
static inline MMX__HD int mmx__vr_try(const mmx__sc_view *t, const float *pos, mmx_index v,
                                      mmx_index u, mmx_index e)
{
    const mmx_index f0 = t->hf[2 * (size_t)e], f1 = t->hf[2 * (size_t)e + 1];
    if (f0 < 0 || f1 < 0) return 0;
    const mmx_index c = mmx__sc_third(t, f0, v, u), d = mmx__sc_third(t, f1, v, u);
    if (c == d) return 0;
    if (mmx__sc_common_neighbours(t, v, u) != 2) return 0;
    if (t->vf_ptr[v + 1] - t->vf_ptr[v] == 3)
        for (mmx_index k = t->vf_ptr[u]; k < t->vf_ptr[u + 1]; k++)
            if (mmx__vr_has(t, t->vf[k], c) && mmx__vr_has(t, t->vf[k], d)) return 0;
    if (!pos) return 1;
    double U[3];
    mmx__hd_point(pos, u, U);
    for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++) {
        const mmx_index f = t->vf[k], *p = t->f.verts + 3 * (size_t)f;
        if (f == f0 || f == f1) continue;
        double P[3][3], Q[3][3], n[3];
        for (int j = 0; j < 3; j++) {
            mmx__hd_point(pos, p[j], P[j]);
            for (int x = 0; x < 3; x++) Q[j][x] = p[j] == v ? U[x] : P[j][x];
        }
        mmx__hd_tri_normal(P[0], P[1], P[2], n);
        if (mmx__hd_bad_triangle(Q[0], Q[1], Q[2], n)) return 0;
    }
    return 1;
}

/* Seed vertex v's removal: the neighbour u it collapses onto (the lowest-numbered one that
 * mmx__vr_try accepts), or -1 when v is in no face, on the boundary or has no such neighbour.
 * sd gets the seed's fields but the outcome: faces = edge {v, u}'s faces (the one running it
 * from its lower end first; -1 -1 when invalid), new_edge -1 -1, vertex -1, the priority of
 * v in `round`. */
static inline MMX__HD mmx_index mmx__vr_choose(const mmx__sc_view *t, const float *pos,
                                               mmx_index v, uint32_t round, mmx_cavity_seed *sd)
{
    sd->faces[0] = sd->faces[1] = sd->new_edge[0] = sd->new_edge[1] = sd->vertex = -1;
    sd->priority = mmx__priority(v, round);
    if (t->vf_ptr[v] == t->vf_ptr[v + 1] || t->boundary[v]) return -1;
    for (mmx_index k = t->E_colptr[v]; k < t->E_colptr[v + 1]; k++) {
        const mmx_index u = t->E_rowidx[k]; /* ascending */
        if (u == v) continue;
        const mmx_index e = mmx__vr_edge(t, v, u);
        if (e < 0 || !mmx__vr_try(t, pos, v, u, e)) continue;
        mmx_index two[2];
        mmx__sc_edge_faces(t, e, sd, two);
        return u;
    }
    return -1;
}

/* The cavity's faces (the ring the selection reads): the faces at v, then those at u (the
 * edge's two faces twice); returns their number, the valences of v and u. */
static inline MMX__HD mmx_index mmx__vr_ring(const mmx__sc_view *t, mmx_index v, mmx_index u,
                                             mmx_index *ring)
{
    mmx_index n = 0;
    for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++) ring[n++] = t->vf[k];
    for (mmx_index k = t->vf_ptr[u]; k < t->vf_ptr[u + 1]; k++) ring[n++] = t->vf[k];
    return n;
}

#ifdef __cplusplus
}
#endif

#endif
