/* The fused pass's rules for Catmull-Clark (fused_level.h states the level and the edge
 * numbering): a face's point, its edges' points and its children with their half-edges. */
#ifndef MMX_SUBDIV_FUSED_CC_H
#define MMX_SUBDIV_FUSED_CC_H

#include "fused_level.h"

#ifdef __cplusplus
extern "C" {
#endif

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
        const float fw = mmx__rule_face_weight(4);
        const mmx__edge_rule sharp = mmx__rule_edge(MMX_SCHEME_CATMULL_CLARK, 1),
                             smooth = mmx__rule_edge(MMX_SCHEME_CATMULL_CLARK, 0);
        float q[4][3], fp[3];
        if (quad) {
            for (int s = 0; s < 4; s++) mmx__fz_get(L->pos, v[s], q[s]);
            for (int i = 0; i < 3; i++)
                fp[i] = fw * q[0][i] + fw * q[1][i] + fw * q[2][i] + fw * q[3][i];
        } else {
            mmx__fz_face_point(L, f, a, n, fp);
        }
        if (!L->fpts) mmx__fz_store(O->pos, fpt, fp);
        /* Each edge's point is written by its face of the lower number (the only one on a
         * boundary): the smooth rule, or the sharp rule's midpoint on the boundary. */
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
                for (int i = 0; i < 3; i++) x[i] = sharp.ends * pu[i] + sharp.ends * pw[i];
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
                        fq[i] = fw * pw[i] + fw * pu[i] + fw * pc[i] + fw * pd[i];
                } else {
                    mmx__fz_face_point(L, g, b, m, fq);
                }
                for (int i = 0; i < 3; i++)
                    x[i] = (smooth.ends * pu[i] + smooth.ends * pw[i]) +
                           (smooth.faces * fp[i] + smooth.faces * fq[i]);
            }
            mmx__fz_store(O->pos, epts + (fe[s] >> 1), x);
        }
    }
    if (O->M) {
        for (mmx_index s = 0; s < n; s++)
            mmx__rule_cc_child(v[s], epts + (fe[s] >> 1), fpt,
                               epts + (fe[s == 0 ? n - 1 : s - 1] >> 1), cm + 4 * s);
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

#ifdef __cplusplus
}
#endif
#endif
