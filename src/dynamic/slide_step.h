/* Sliding feature vertices in the remesher's relaxation (dynamic.h: mmx_remesh_options'
 * slide_features), the per-vertex rule written once for the host driver (remesh.c) and the
 * CUDA kernel (remesh.cu), as remesh_step.h does for the other steps.
 *
 * A vertex inside a feature line (on exactly two feature edges, not pinned: slide.c pins the
 * input's corners, where a line turns by more than MMX__SLIDE_CORNER_DEG) moves along its
 * line: to the midpoint of its two feature neighbours (the 1-D average, which evens out the
 * line's edge lengths as the 2-D relaxation evens out the surface's), projected onto the
 * input's feature polyline of its own line. The input's feature edges are the segments of a
 * BVH (slide.c: each a degenerate triangle (a, b, b), whose closest point is the segment's:
 * bvh_step.h's Voronoi regions give a, b or the projection onto ab), each labelled by its
 * line (the feature edges joined through the unpinned vertices of two feature edges). The
 * vertex's line is the label of the segment nearest to where it is (it lies on its line: an
 * input vertex, a projection, or a split midpoint of a line's edge); the target is the closest
 * point of that line alone, so a vertex never jumps to another line passing near it.
 * Double precision through the MMX__D* operations and bvh_step.h's query, so both backends
 * compute the same bits. Every other feature vertex (a corner, an end, a junction of three or
 * more feature edges, a tagged corner) stays where it is. */
#ifndef MMX_DYNAMIC_SLIDE_STEP_H
#define MMX_DYNAMIC_SLIDE_STEP_H

#include "bvh_step.h"
#include "remesh_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A feature line's vertex whose two feature edges turn by more than this many degrees is a
 * corner: it stays (sliding it would cut the corner off). */
#define MMX__SLIDE_CORNER_DEG 30.0

/* The input's feature segments in one memory space: seg (a BVH of degenerate triangles, one
 * per feature edge; nnodes 0: sliding off or no features) and label (per segment, its line). */
typedef struct mmx__slide_view {
    mmx__bvh_view seg;
    const mmx_index *label;
} mmx__slide_view;

/* 1 with v's target in X when v slides along its line (r->fdeg[v] == 2, not pinned, sliding
 * on, and both queries answered within the projection's budget); 0 otherwise. */
static inline MMX__HD int mmx__slide_target(const mmx__rm_view *r, const mmx__slide_view *s,
                                            mmx_index v, double X[3])
{
    if (!s || s->seg.nnodes == 0 || r->fdeg[v] != 2 || r->pin[v]) return 0;
    mmx_index nb[2] = {-1, -1}, k = 0;
    for (mmx_index e = r->t.E_colptr[v]; e < r->t.E_colptr[v + 1] && k < 2; e++) {
        const mmx_index u = r->t.E_rowidx[e];
        if (u != v && mmx__rm_is_feature(r, v, u)) nb[k++] = u;
    }
    if (k < 2) return 0;
    double P[3], A[3], B[3], Q[3];
    mmx__hd_point(r->pos, v, P);
    const mmx_index at = mmx__bvh_closest_in(&s->seg, P, Q, (double *)0, MMX__RM_PROJECT_TESTS,
                                             (const mmx_index *)0, 0);
    if (at < 0) return 0;
    mmx__hd_point(r->pos, nb[0], A);
    mmx__hd_point(r->pos, nb[1], B);
    for (int j = 0; j < 3; j++) P[j] = MMX__DMUL(0.5, MMX__DADD(A[j], B[j]));
    return mmx__bvh_closest_in(&s->seg, P, X, (double *)0, MMX__RM_PROJECT_TESTS, s->label,
                               s->label[at]) >= 0;
}

/* Vertex v's relaxation target, projected: along its feature line (mmx__slide_target), or,
 * for a vertex off the features, its tangential relaxation point (mmx__rm_relax_point) onto
 * the input's surface (surf). 0 when it has none (a fixed feature vertex, a query past its
 * budget). r->fdeg is read only with sliding on (s non-empty). */
static inline MMX__HD int mmx__rm_target(const mmx__rm_view *r, const double *vn,
                                         const double *va, const mmx__bvh_view *surf,
                                         const mmx__slide_view *s, mmx_index v, double X[3])
{
    if (r->fv[v]) return mmx__slide_target(r, s, v, X);
    double P[3];
    if (!mmx__rm_relax_point(r, vn, va, v, P)) return 0;
    return mmx__bvh_closest_view(surf, P, X, (double *)0, MMX__RM_PROJECT_TESTS) >= 0;
}

/* Collapse seed i's merged vertex (edge seeds[i] of ev, kept at end keep[i] or, for -1, at
 * the stored midpoint: mmx__rm_merged) as 3 floats at place + 3i: mmx__rm_merged's doubles
 * are floats, so the round places the vertex where the remesher's rules checked it. */
static inline MMX__HD void mmx__rm_place(const float *pos, const mmx_index *ev,
                                         const mmx_index *seeds, const mmx_index *keep,
                                         mmx_index i, float *place)
{
    const mmx_index e = seeds[i];
    double M[3];
    mmx__rm_merged(pos, ev[2 * (size_t)e], ev[2 * (size_t)e + 1], keep[i], M);
    for (int k = 0; k < 3; k++) place[3 * (size_t)i + k] = (float)M[k];
}

#ifdef __cplusplus
}
#endif

#endif
