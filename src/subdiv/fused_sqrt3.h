/* The fused pass's rules for sqrt3 (fused_level.h states the level and the edge numbering): a
 * triangle's centre and its three children with their half-edges, and the input level's
 * counts. The children are in closed form on closed levels only. On a level with boundary
 * (Kobbelt's rule, rules.h) the pass writes positions only: the centres, and on an odd
 * generation (L->bcut) a boundary face's two cut points instead of its centre; the vertices'
 * boundary rule is the walk's (fused_level.h, rules.h's mmx__rule_sqrt3_vertex). Such a
 * level's topology and half-edge view come from the algebraic path (fused.c,
 * mmx__fz_chain_open). */
#ifndef MMX_SUBDIV_FUSED_SQRT3_H
#define MMX_SUBDIV_FUSED_SQRT3_H

#include "fused_level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sqrt3 ------------------------------------------------------------------------------- */

/* The other boundary neighbours of a boundary edge a -> b's ends: a' before a (across the
 * half-edge arriving at a's owner corner, which is on the boundary: fused_level.h), b' after
 * b (the end of the walk around b, whose last face leaves b along the boundary). */
static inline MMX__HD mmx_index mmx__fz_boundary_prev(const mmx__fz_in *L, mmx_index a)
{
    mmx_index s, k;
    const mmx_index c0 = L->owner[a];
    mmx__fz_face_of(L, c0, &s, &k);
    return L->M[mmx__corner_prev(s, k, c0)];
}

static inline MMX__HD mmx_index mmx__fz_boundary_next(const mmx__fz_in *L, mmx_index b)
{
    const mmx_index c0 = L->owner[b];
    mmx_index c = c0, s, k, n = 0;
    for (mmx_index t = mmx__fz_turn(L, c); t >= 0 && t != c0 && ++n <= L->nnz; t = mmx__fz_turn(L, t))
        c = t; /* the bound only guards a corrupt level */
    mmx__fz_face_of(L, c, &s, &k);
    return L->M[mmx__corner_next(s, k, c)];
}

/* Kobbelt's cut of face f's boundary edge a -> b (corner t) on an odd generation (rules.h):
 * l = 16/27 a + 9/27 b + 1/27 (b + a') in f's slot, r = 9/27 a + 16/27 b + 1/27 (a + b') at
 * nv + nf + bcut[f], the weights and the sums of the algebraic path (sqrt3.c). */
static inline MMX__HD void mmx__fz_sqrt3_cut(const mmx__fz_in *L, const mmx__fz_out *O,
                                             mmx_index f, const mmx_index *v, int t)
{
    const mmx__sqrt3_third w = mmx__rule_sqrt3_third();
    const mmx_index a = v[t], b = v[t == 2 ? 0 : t + 1];
    float pa[3], pb[3], qa[3], qb[3], l[3], r[3];
    mmx__fz_get(L->pos, a, pa);
    mmx__fz_get(L->pos, b, pb);
    mmx__fz_get(L->pos, mmx__fz_boundary_prev(L, a), qa);
    mmx__fz_get(L->pos, mmx__fz_boundary_next(L, b), qb);
    for (int i = 0; i < 3; i++) {
        l[i] = w.near * pa[i] + w.far * pb[i] + w.bsum * (pb[i] + qa[i]);
        r[i] = w.far * pa[i] + w.near * pb[i] + w.bsum * (pa[i] + qb[i]);
    }
    mmx__fz_store(O->pos, L->nv + f, l);
    mmx__fz_store(O->pos, L->nv + L->nf + L->bcut[f], r);
}

/* Face f of a triangle level: corner s has vertex v_s and the face g_s across the edge
 * v_s -> v_s+1. Child 3f + s = (v_s, g_s', f'), f' the centres (closed levels; on a level with
 * boundary only the positions, above). */
static inline MMX__HD void mmx__fz_sqrt3_face(const mmx__fz_in *L, const mmx__fz_out *O,
                                              mmx_index f, const mmx_index *v,
                                              const mmx_index *tw)
{
    const mmx_index nv = L->nv;
    if (O->pos) {
        const int t = !L->bcut ? -1 : tw[0] < 0 ? 0 : tw[1] < 0 ? 1 : tw[2] < 0 ? 2 : -1;
        float x[3];
        if (t >= 0) {
            mmx__fz_sqrt3_cut(L, O, f, v, t);
        } else {
            mmx__fz_centroid(L, 3 * f, 3, x);
            mmx__fz_store(O->pos, nv + f, x);
        }
    }
    const mmx_index g[3] = {tw[0] / 3, tw[1] / 3, tw[2] / 3};
    if (O->M) {
        mmx_index *t = O->M + 9 * (int64_t)f;
        for (int s = 0; s < 3; s++) mmx__rule_sqrt3_child(v[s], nv + g[s], nv + f, t + 3 * s);
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

#ifdef __cplusplus
}
#endif
#endif
