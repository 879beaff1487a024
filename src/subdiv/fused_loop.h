/* The fused pass's rules for Loop (fused_level.h states the level and the edge numbering): a
 * triangle's edge points and its four children with their half-edges, and the input level's
 * counts. */
#ifndef MMX_SUBDIV_FUSED_LOOP_H
#define MMX_SUBDIV_FUSED_LOOP_H

#include "fused_level.h"

#ifdef __cplusplus
extern "C" {
#endif

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
        /* The edge rule of the edge's sharpness (rules.h), with the two triangles' vertex sums
         * as face terms; written by the lower face. The face across runs w -> u from corner t,
         * its third corner before t. */
        float q[3][3], t1[3];
        for (int s = 0; s < 3; s++) mmx__fz_get(L->pos, v[s], q[s]);
        for (int i = 0; i < 3; i++) t1[i] = q[0][i] + q[1][i] + q[2][i];
        for (int s = 0; s < 3; s++) {
            const mmx_index t = tw[s];
            if (t >= 0 && t < a + s) continue;
            const float *pu = q[s], *pw = q[s == 2 ? 0 : s + 1];
            float x[3];
            const mmx__edge_rule r = mmx__rule_edge(
                MMX_SCHEME_LOOP, mmx__fz_edge_weight(L, e[s], t < 0, v[s], v[s == 2 ? 0 : s + 1]));
            if (r.faces == 0.0f) { /* the midpoint: the face across is not read */
                for (int i = 0; i < 3; i++) x[i] = r.ends * pu[i] + r.ends * pw[i];
            } else {
                float pd[3];
                const mmx_index g = t - t % 3;
                mmx__fz_get(L->pos, L->M[t == g ? g + 2 : t - 1], pd);
                for (int i = 0; i < 3; i++)
                    x[i] = (r.ends * pu[i] + r.ends * pw[i]) +
                           (r.faces * t1[i] + r.faces * (pw[i] + pu[i] + pd[i]));
            }
            mmx__fz_store(O->pos, nv + e[s], x);
        }
    }
    if (O->M) {
        const mmx_index ept[3] = {nv + e[0], nv + e[1], nv + e[2]};
        mmx__rule_loop_children(v, ept, cm);
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

#ifdef __cplusplus
}
#endif
#endif
