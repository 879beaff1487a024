/* The rules of the four schemes, stated once (thesis ch. 4; OpenSubdiv's Sdc in our terms):
 * the weights of the vertex, edge and face points, the boundary rule, and the layout of a
 * face's children. Both paths (the algebraic operators and the fused passes) and both backends
 * (host loops and CUDA kernels) take every weight and every child from here; no weight is
 * written as a literal elsewhere.
 *
 * Sharpness enters in one place. A vertex's rule is chosen from the number of sharp edges
 * around it, an edge's from whether it is sharp; today an edge is sharp exactly when it is on
 * the boundary (the "edge only" boundary interpolation), so a boundary vertex has two sharp
 * edges and follows the crease rule. Creases, corners and boundary modes (issue 13) change
 * what counts as sharp and add the fractional blend, here and nowhere else.
 *
 * All functions are inline and callable from device code; weights are computed in double and
 * rounded to float once. */
#ifndef MMX_SUBDIV_RULES_H
#define MMX_SUBDIV_RULES_H

#include <math.h>
#include "core/core_internal.h"
#include "meshmatrix/subdiv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the scheme makes Catmull-Clark's children (one quad per corner of any polygon):
 * bilinear shares that topology and differs only in its weights (linear ones). */
static inline MMX__HD int mmx__scheme_quads(mmx_scheme scheme)
{
    return scheme == MMX_SCHEME_CATMULL_CLARK || scheme == MMX_SCHEME_BILINEAR;
}

/* ---- points ---------------------------------------------------------------------------------- */

/* The weights of a vertex point:
 *   p~ = self p + ring (sum of the neighbours across the vertex's edges)
 *              + ring (sum of the face points around it; Catmull-Clark only)
 *              + crease (sum of the neighbours across its two sharp edges; crease rule only) */
typedef struct mmx__vertex_rule {
    float self, ring, crease;
} mmx__vertex_rule;

/* The vertex rule for a vertex on `valence` faces with `sharp_edges` sharp edges around it.
 * Smooth (no sharp edge; also sqrt3, which has no boundary rule):
 *   Loop (eq. 4.11-4.12):  self = 1 - n beta, ring = beta,
 *                          beta = (5/8 - (3/8 + 1/4 cos(2 pi / n))^2) / n
 *   sqrt3 (eq. 4.2-4.3):   self = 1 - alpha, ring = alpha / n, alpha = (4 - 2 cos(2 pi / n)) / 9
 *   Catmull-Clark (4.29):  self = 1 - 2 / n, ring = 1 / n^2 (the edge ring and the face points)
 * Crease (two sharp edges; Loop and Catmull-Clark, eq. 4.14, 4.25): self = 3/4, crease = 1/8.
 * Corner (more than two), bilinear, and a vertex in no face: it keeps its place (self = 1). */
static inline MMX__HD mmx__vertex_rule mmx__rule_vertex_smooth_or_sharp(mmx_scheme scheme,
                                                                        mmx_index valence,
                                                                        mmx_index sharp_edges)
{
    const double pi = 3.14159265358979323846;
    double self = 1.0, ring = 0.0, crease = 0.0;
    const mmx_index n = valence;
    if (scheme == MMX_SCHEME_BILINEAR || sharp_edges > 2) {
        /* bilinear: every vertex keeps its place; a corner (more than two sharp edges, or a
         * corner of the boundary mode) too */
    } else if (n > 0 && sharp_edges > 0 && scheme != MMX_SCHEME_SQRT3) {
        self = 0.75, crease = 0.125;
    } else if (n > 0) {
        const double c = cos(2.0 * pi / n);
        if (scheme == MMX_SCHEME_LOOP) {
            const double t = 0.375 + 0.25 * c;
            ring = (0.625 - t * t) / n;
            self = 1.0 - n * ring;
        } else if (scheme == MMX_SCHEME_SQRT3) {
            const double alpha = (4.0 - 2.0 * c) / 9.0;
            self = 1.0 - alpha;
            ring = alpha / n;
        } else {
            self = 1.0 - 2.0 / n;
            ring = 1.0 / ((double)n * n);
        }
    }
    mmx__vertex_rule w = {(float)self, (float)ring, (float)crease};
    return w;
}

/* A vertex's sharpness at `level` (0 the input) from its sharpness s0 in the input's tags:
 * it falls by one per level (OpenSubdiv's uniform creasing), and 10 or more stays infinitely
 * sharp. */
static inline MMX__HD float mmx__rule_sharpness_at(float s0, int level)
{
    if (s0 >= 10.0f) return s0;
    const float s = s0 - (float)level;
    return s > 0.0f ? s : 0.0f;
}

/* The vertex rule (above) with the vertex's own sharpness s at this level (a corner tag): while
 * s stays positive after this level's decay the vertex is a corner (it keeps its place); at the
 * level where it falls to 0, OpenSubdiv blends the corner with the rule of the edges, by s:
 * self = s + (1 - s) self', ring = (1 - s) ring', crease = (1 - s) crease'. */
static inline MMX__HD mmx__vertex_rule mmx__rule_vertex(mmx_scheme scheme, mmx_index valence,
                                                        mmx_index sharp_edges, float s)
{
    mmx__vertex_rule w = mmx__rule_vertex_smooth_or_sharp(scheme, valence, sharp_edges);
    if (s <= 0.0f || valence == 0 || scheme == MMX_SCHEME_BILINEAR || scheme == MMX_SCHEME_SQRT3)
        return w;
    if (s > 1.0f) { /* still positive after the decay: a corner */
        w.self = 1.0f, w.ring = 0.0f, w.crease = 0.0f;
        return w;
    }
    const float t = 1.0f - s;
    w.self = s + t * w.self, w.ring = t * w.ring, w.crease = t * w.crease;
    return w;
}

/* The weights of an edge point: e = ends (p_a + p_b) + faces (sum over the edge's faces of
 * the face term), the face term being Catmull-Clark's face point or Loop's triangle vertex sum
 * t = M^T p. */
typedef struct mmx__edge_rule {
    float ends, faces;
} mmx__edge_rule;

/* The edge rule: a sharp edge's point, and every bilinear one, is its midpoint (eq. 4.13, 4.26);
 * a smooth edge's is
 *   Catmull-Clark (4.23): 1/4 (p_a + p_b) + 1/4 (f_m + f_n);
 *   Loop (4.10, 4.15):    1/8 (p_a + p_b) + 1/8 (t_m + t_n), which is 3/8 (p_a + p_b) +
 *                         1/8 (p_c + p_d): the three maps of eq. 4.15 folded into one product
 *                         over FE. (sqrt3 makes no edge points.) */
static inline MMX__HD mmx__edge_rule mmx__rule_edge(mmx_scheme scheme, int sharp)
{
    mmx__edge_rule w;
    if (sharp || scheme == MMX_SCHEME_BILINEAR) w.ends = 0.5f, w.faces = 0.0f;
    else w.ends = w.faces = scheme == MMX_SCHEME_LOOP ? 0.125f : 0.25f;
    return w;
}

/* Whether an edge with `sides` faces is sharp: today, a boundary edge. */
static inline MMX__HD int mmx__rule_edge_sharp(mmx_index sides) { return sides < 2; }

/* The sharp edges around a vertex on `valence` faces, as its rule counts them: its two
 * boundary edges when it is on the boundary, and, with MMX_BOUNDARY_EDGE_AND_CORNER, a boundary
 * vertex on a single face counted as a corner (3: OpenSubdiv's corner rule for more than two
 * sharp edges, which keeps the vertex where it is). */
static inline MMX__HD mmx_index mmx__rule_vertex_sharp_edges(int boundary, mmx_index valence,
                                                             mmx_boundary mode)
{
    if (!boundary) return 0;
    return mode == MMX_BOUNDARY_EDGE_AND_CORNER && valence == 1 ? 3 : 2;
}

/* The weight of each corner in a face point of a face of order n: Catmull-Clark's centroid
 * (eq. 4.27) and sqrt3's centre (eq. 4.8) alike, 1/n. */
static inline MMX__HD float mmx__rule_face_weight(mmx_index n)
{
    return n > 0 ? (float)(1.0 / n) : 0.0f;
}

/* ---- children (subdiv.h's layout) ------------------------------------------------------------ */

/* Catmull-Clark: the child quad of corner s of a face (child number = the corner's number):
 * its vertex, the point of the edge leaving it, the face point, the point of the edge arriving
 * at it. */
static inline MMX__HD void mmx__rule_cc_child(mmx_index v, mmx_index e_leaving, mmx_index fpt,
                                              mmx_index e_arriving, mmx_index *q)
{
    q[0] = v, q[1] = e_leaving, q[2] = fpt, q[3] = e_arriving;
}

/* Loop (thesis Table 4.2): the four children of a triangle (v0, v1, v2) whose edges' points
 * are e[s] (edge s runs v_s -> v_s+1), stored together: the middle one (e0, e1, e2), then the
 * one at each corner s, (v_s, e_s, e_s-1). */
static inline MMX__HD void mmx__rule_loop_children(const mmx_index *v, const mmx_index *e,
                                                   mmx_index *t)
{
    t[0] = e[0], t[1] = e[1], t[2] = e[2];
    for (int s = 0; s < 3; s++) {
        t[3 + 3 * s] = v[s];
        t[4 + 3 * s] = e[s];
        t[5 + 3 * s] = e[s == 0 ? 2 : s - 1];
    }
}

/* sqrt3 (thesis Table 4.1): the child of corner s of a triangle: its vertex, the centre of the
 * face across the edge leaving it, the triangle's own centre. */
static inline MMX__HD void mmx__rule_sqrt3_child(mmx_index v, mmx_index across, mmx_index centre,
                                                 mmx_index *t)
{
    t[0] = v, t[1] = across, t[2] = centre;
}

#ifdef __cplusplus
}
#endif
#endif
