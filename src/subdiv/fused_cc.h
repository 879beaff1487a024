/* The fused pass's rules for Catmull-Clark (fused_level.h states the level and the edge
 * numbering): a face's point, its edges' points and its children with their half-edges. */
#ifndef MMX_SUBDIV_FUSED_CC_H
#define MMX_SUBDIV_FUSED_CC_H

#include "fused_level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Catmull-Clark ----------------------------------------------------------------------- */

/* What corner c = a + s of a face reads of its face: its vertex and the next one, its
 * half-edge's number and twin, and those of the corner before it (s - 1, cyclically). */
typedef struct mmx__fz_cc_corner_in {
    mmx_index v, vn, fe, fe_prev, tw, tw_prev;
} mmx__fz_cc_corner_in;

/* Corner s of face f (first corner a, order n, face point fp): the point of its edge where f
 * writes it, its child quad c = a + s, (v_s, e(e_s), f, e(e_s-1)), with the child's corners
 * 4c .. 4c + 3, and their half-edges (cm, cfe, ctw: 4 entries each, the child arrays from
 * 4c on or a kernel's registers). pu, pw: the positions of v and vn when the caller holds
 * them, else NULL (read here). Corner 0 also writes what belongs to the face: its point (when
 * no face-point pass did) and its owner. Every corner of a face is independent of the others,
 * so the device runs large faces one thread per corner. */
static inline MMX__HD void mmx__fz_cc_corner(const mmx__fz_in *L, const mmx__fz_out *O,
                                             mmx_index f, mmx_index a, mmx_index n, mmx_index s,
                                             const mmx__fz_cc_corner_in *k, const float *fp,
                                             const float *pu, const float *pw, mmx_index *cm,
                                             mmx_index *cfe, mmx_index *ctw)
{
    const mmx_index nv = L->nv, fpt = nv + f, epts = nv + L->nf, c = a + s, t = k->tw;
    if (O->pos) {
        if (s == 0 && !L->fpts) mmx__fz_store(O->pos, fpt, fp);
        /* Each edge's point is written by its face of the lower number (the only one on a
         * boundary): the rule of its sharpness (rules.h), the midpoint on the boundary. */
        if (!(t >= 0 && t < c)) {
            const float fw = mmx__rule_face_weight(4);
            /* The face across, if any (its first corner b, order m), for the smooth-triangle
             * rule and the face point; a reduced quad level has no triangles. */
            mmx_index b = 0, m = 0, g = 0;
            if (t >= 0) g = mmx__fz_face_of(L, t, &b, &m);
            const int tris = L->smooth_tris && L->order != 4 && t >= 0 ? (n == 3) + (m == 3) : 0;
            const mmx__edge_rule r = mmx__rule_edge_tris(
                L->scheme, mmx__fz_edge_weight(L, k->fe >> 1, t < 0, k->v, k->vn), tris);
            float u[3], w[3], x[3], fq[3];
            if (pu) {
                for (int i = 0; i < 3; i++) u[i] = pu[i], w[i] = pw[i];
            } else {
                mmx__fz_get(L->pos, k->v, u);
                mmx__fz_get(L->pos, k->vn, w);
            }
            if (r.faces == 0.0f) { /* the midpoint: the face across is not read */
                for (int i = 0; i < 3; i++) x[i] = r.ends * u[i] + r.ends * w[i];
            } else {
                if (L->order == 4) {
                    /* The face across runs w -> u from corner t: its other two corners. */
                    mmx_index r[4];
                    float pc[3], pd[3];
                    mmx__fz_load4(L->M + b, r);
                    const mmx_index st = t - b;
                    mmx__fz_get(L->pos, mmx__fz_pick4(r, st + 2), pc);
                    mmx__fz_get(L->pos, mmx__fz_pick4(r, st + 3), pd);
                    for (int i = 0; i < 3; i++)
                        fq[i] = fw * w[i] + fw * u[i] + fw * pc[i] + fw * pd[i];
                } else {
                    mmx__fz_face_point(L, g, b, m, fq);
                }
                for (int i = 0; i < 3; i++)
                    x[i] = (r.ends * u[i] + r.ends * w[i]) + (r.faces * fp[i] + r.faces * fq[i]);
            }
            mmx__fz_store(O->pos, epts + (k->fe >> 1), x);
        }
    }
    if (O->M) mmx__rule_cc_child(k->v, epts + (k->fe >> 1), fpt, epts + (k->fe_prev >> 1), cm);
    if (!O->twin) return;
    if (s == 0) O->owner[fpt] = 4 * a + 2;
    const mmx_index sp = s == 0 ? n - 1 : s - 1, sn = s + 1 == n ? 0 : s + 1;
    const mmx_index e = k->fe >> 1, d = k->fe & 1, ep = k->fe_prev >> 1, dp = k->fe_prev & 1;
    const mmx_index off = 2 * e + L->goff[e], offp = 2 * ep + L->goff[ep];
    /* Is f the higher-numbered face of e (resp. of the edge arriving at s)? */
    const mmx_index hi = t >= 0 && t < c, hip = k->tw_prev >= 0 && k->tw_prev < a + sp;
    /* 0: v_s -> e(e_s), the half of e at v_s (v_s is e's lower end when d = 0).
     * 1: e(e_s) -> f, the inner edge (f, e_s) run from its higher end.
     * 2: f -> e(e_s-1), the inner edge (f, e_s-1) from its lower end.
     * 3: e(e_s-1) -> v_s, the half of e_s-1 at v_s, its upper end when dp = 0. */
    cfe[0] = 2 * (off + d);
    cfe[1] = 2 * (off + 2 + hi) + 1;
    cfe[2] = 2 * (offp + 2 + hip);
    cfe[3] = 2 * (offp + 1 - dp) + 1;
    /* 0: the other face f' runs e_s from v_s+1 (at corner t) to v_s (at next(t)); its child
     *    there has e(e_s) -> v_s as corner 3.
     * 1, 2: the neighbouring children of f.
     * 3: the face across e_s-1 holds v_s at corner tw_prev; its child there starts with
     *    v_s -> e(e_s-1). */
    if (t < 0) {
        ctw[0] = -1;
    } else {
        mmx_index b, m;
        mmx__fz_face_of(L, t, &b, &m);
        ctw[0] = 4 * mmx__corner_next(b, m, t) + 3;
    }
    ctw[1] = 4 * (a + sn) + 2;
    ctw[2] = 4 * (a + sp) + 1;
    ctw[3] = k->tw_prev < 0 ? -1 : 4 * k->tw_prev;
    /* The edge's group, by its lower face: the halves keep e's faces, inner edges have 2.
     * The edge point's walk starts at child c's corner 1, whose arriving half-edge (corner
     * 0, half of e) is on the boundary when e is. */
    if (t >= 0 && t < c) return;
    const mmx_index sides = t < 0 ? 1 : 2;
    O->cnt[off] = O->cnt[off + 1] = sides;
    O->cnt[off + 2] = 2;
    if (sides == 2) O->cnt[off + 3] = 2;
    O->owner[epts + e] = 4 * c + 1;
}

/* Face f (first corner a, order n; its corners' vertices v, edges fe and twins tw, read by the
 * caller, possibly with vector loads): its corners in turn (mmx__fz_cc_corner), the face's
 * children's corners, edges and twins into cm, cfe, ctw (4n each: the child arrays from corner
 * 4a on, or a kernel's registers that it stores with vector writes; cm NULL without O->M,
 * cfe and ctw NULL without O->twin). */
static inline MMX__HD void mmx__fz_cc_face(const mmx__fz_in *L, const mmx__fz_out *O, mmx_index f,
                                           mmx_index a, mmx_index n, const mmx_index *v,
                                           const mmx_index *fe, const mmx_index *tw,
                                           mmx_index *cm, mmx_index *cfe, mmx_index *ctw)
{
    /* A quad's corners are read once and kept; other faces' are read by each corner. */
    const int quad = L->order == 4;
    float q[4][3], fp[3] = {0.0f, 0.0f, 0.0f};
    if (O->pos) {
        if (quad) {
            const float fw = mmx__rule_face_weight(4);
            for (int s = 0; s < 4; s++) mmx__fz_get(L->pos, v[s], q[s]);
            for (int i = 0; i < 3; i++)
                fp[i] = fw * q[0][i] + fw * q[1][i] + fw * q[2][i] + fw * q[3][i];
        } else {
            mmx__fz_face_point(L, f, a, n, fp);
        }
    }
    for (mmx_index s = 0; s < n; s++) {
        const mmx_index sp = s == 0 ? n - 1 : s - 1, sn = s + 1 == n ? 0 : s + 1;
        const mmx__fz_cc_corner_in k = {v[s], v[sn], fe[s], fe[sp], tw[s], tw[sp]};
        mmx__fz_cc_corner(L, O, f, a, n, s, &k, fp, quad ? q[s & 3] : NULL,
                          quad ? q[sn & 3] : NULL, cm ? cm + 4 * s : NULL,
                          cfe ? cfe + 4 * s : NULL, ctw ? ctw + 4 * s : NULL);
    }
}

/* Corner c of a level of general faces, read from the level (the device's pass on general
 * faces, one thread per corner). */
static inline MMX__HD void mmx__fz_cc_general_corner(const mmx__fz_in *L, const mmx__fz_out *O,
                                                     mmx_index c)
{
    mmx_index a, n;
    const mmx_index f = mmx__fz_face_of(L, c, &a, &n), s = c - a;
    const mmx_index sp = s == 0 ? n - 1 : s - 1, sn = s + 1 == n ? 0 : s + 1;
    const mmx__fz_cc_corner_in k = {L->M[c], L->M[a + sn], L->fe[c], L->fe[a + sp], L->twin[c],
                                    L->twin[a + sp]};
    float fp[3] = {0.0f, 0.0f, 0.0f};
    if (O->pos) mmx__fz_face_point(L, f, a, n, fp);
    mmx__fz_cc_corner(L, O, f, a, n, s, &k, fp, NULL, NULL, O->M ? O->M + 4 * (int64_t)c : NULL,
                      O->twin ? O->fe + 4 * (int64_t)c : NULL,
                      O->twin ? O->twin + 4 * (int64_t)c : NULL);
}

/* Whether a pass from level L writes the face points first (mmx__fz_in.fpts): Catmull-Clark
 * positions on general faces, whose points the edges and vertices would otherwise sum again. */
static inline MMX__HD int mmx__fz_face_points_first(const mmx__fz_in *L, const mmx__fz_out *O)
{
    return mmx__scheme_quads(L->scheme) && L->order == 0 && O->pos && L->pos && L->nf;
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
