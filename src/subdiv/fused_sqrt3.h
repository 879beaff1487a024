/* The fused pass's rules for sqrt3 (fused_level.h states the level and the edge numbering): a
 * triangle's centre and its three children with their half-edges, and the input level's
 * counts. Closed meshes only: Kobbelt's boundary rule (rules.h) is on the algebraic path
 * (sqrt3.c), where mmx_subdivide's default path sends a mesh with boundary; the fused path's
 * checks (subdiv.c, check_mesh_fast) refuse one, naming a boundary edge. */
#ifndef MMX_SUBDIV_FUSED_SQRT3_H
#define MMX_SUBDIV_FUSED_SQRT3_H

#include "fused_level.h"

#ifdef __cplusplus
extern "C" {
#endif

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
