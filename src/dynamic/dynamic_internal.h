/* Private declarations of the dynamic module: the topology a round of the cavity operator
 * reads, and the templates' halves. */
#ifndef MMX_DYNAMIC_INTERNAL_H
#define MMX_DYNAMIC_INTERNAL_H

#include "mesh/mesh_internal.h"
#include "meshmatrix/dynamic.h"

/* A triangle mesh's face lists with its adjacency and, per edge, the face that runs it from
 * its lower end (ef[2e]) and the one that runs it from its higher end (ef[2e + 1]); -1 where
 * there is none, and both -1 for an edge without exactly two faces running it opposite ways
 * (a boundary, non-manifold or inconsistently oriented edge), which no flip may touch. */
typedef struct mmx__flip_topo {
    mmx_index nverts, nfaces, nedges;
    mmx_index *start, *verts;  /* mmx_mesh_faces's host arrays (malloc) */
    mmx_adjacency *adj;        /* host */
    mmx_index *ef;             /* 2 * nedges */
    mmx_index *hf;             /* 2 * nedges: as ef, but also set for an edge with one face (the
                                  direction it runs the edge; the other -1); -1 -1 for an edge
                                  with three faces or more or two running it the same way */
    mmx_index *vf_ptr, *vf;    /* nverts + 1, 3 * nfaces: the faces at each vertex, ascending */
} mmx__flip_topo;

/* Builds it for a host triangle mesh on a host context. Errors: MMX_ERR_UNSUPPORTED (a CUDA
 * context), MMX_ERR_SPACE, MMX_ERR_MESH (a face that is not a triangle, named), MMX_ERR_NOMEM.
 * `who` names the caller in the messages. */
mmx_status mmx__flip_topo_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                                mmx__flip_topo *t);
void mmx__flip_topo_free(mmx__flip_topo *t);

/* The quad around interior edge e: q = {a, b, c, d} with (a, b, c) = ef[2e] (a < b) and
 * (b, a, d) = ef[2e + 1]. Returns 0 when e has no two such faces. */
int mmx__flip_quad(const mmx__flip_topo *t, mmx_index e, mmx_index q[4]);

/* 1 when edge {u, v} is an edge of the topology. */
int mmx__flip_has_edge(const mmx__flip_topo *t, mmx_index u, mmx_index v);

/* The triangle checks the templates share (double precision): p = pos's row v; n = the normal
 * of (P, Q, R), twice its area in length; 1 when (P, Q, R) is degenerate (mmx_mesh_validate's
 * bound: area at most 1e-12 times its longest edge squared) or folded (its normal does not
 * point the way of N). */
void mmx__point(const float *pos, mmx_index v, double p[3]);
void mmx__tri_normal(const double P[3], const double Q[3], const double R[3], double n[3]);
int mmx__bad_triangle(const double P[3], const double Q[3], const double R[3], const double N[3]);

/* Seed edge e's split or collapse cavity: sd->faces, and the cavity's faces into ring
 * (*nring of them, at most 2 for a split, the valences of the edge's ends for a collapse);
 * 1 when it is valid by dynamic.h's rules. pos may be NULL (topological checks only). */
int mmx__split_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e, mmx_cavity_seed *sd,
                      mmx_index *ring, mmx_index *nring);
int mmx__collapse_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e,
                         mmx_cavity_seed *sd, mmx_index *ring, mmx_index *nring);

/* Fill the kept seeds kept[0..nkept) (positions in seeds/sd, in key order) into a new host
 * mesh in the general form (the caller reduces it), setting each kept seed's sd->vertex. */
mmx_status mmx__split_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                           const mmx_index *seeds, mmx_cavity_seed *sd, const mmx_index *kept,
                           mmx_index nkept, mmx_mesh **out);
mmx_status mmx__collapse_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                              const mmx_index *seeds, mmx_cavity_seed *sd, const mmx_index *kept,
                              mmx_index nkept, mmx_mesh **out);

/* mmx_cavity_round on a topology already built for `mesh` (Delaunay builds it once per round
 * for both its seeds and the round). */
mmx_status mmx__cavity_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                  mmx_cavity_kind kind, const mmx_index *seeds, mmx_index n, uint32_t round,
                                  mmx_mesh **out, mmx_cavity_counts *counts,
                                  mmx_cavity_seed *per_seed);

/* The face split and relocation rounds (templates.c) on a topology already built. The
 * relocation writes the kept seeds' targets into pos (nverts x 3, host) in place: the
 * topology does not change, so a caller may run several rounds on one topology. */
mmx_status mmx__face_split_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                      const mmx_index *seeds, mmx_index n, uint32_t round,
                                      mmx_mesh **out, mmx_cavity_counts *counts,
                                      mmx_cavity_seed *per_seed);
mmx_status mmx__relocate_round_pos(mmx_ctx *ctx, const mmx__flip_topo *t, float *pos,
                                   const mmx_index *seeds, const float *targets, mmx_index n,
                                   uint32_t round, double min_quality, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed);

/* A triangle's shape: twice its area over its longest edge squared, |n| / l^2, from 0
 * (degenerate) to sqrt(3)/2 (equilateral). min_quality above: a move is also invalid when it
 * leaves a face at v under it and worse than the face was (0: the template's rule alone). */
double mmx__tri_quality(const double P[3], const double Q[3], const double R[3]);

/* Closest points on a triangle soup (closest.c): a bounding volume hierarchy over the
 * triangles (median splits on the longest axis of the centroids' box, leaves of at most 4),
 * queried by branch and bound, nearer child first. Deterministic: ties keep the triangle met
 * first in a fixed traversal order. Host only. */
typedef struct mmx__bvh mmx__bvh;

/* Builds it over triangles tri[3i .. 3i + 3) (nt of them) on positions pos (copied).
 * Errors: MMX_ERR_NOMEM. Cost: O(nt log^2 nt). */
mmx_status mmx__bvh_build(mmx_ctx *ctx, const float *pos, mmx_index nverts, const mmx_index *tri,
                          mmx_index nt, mmx__bvh **out);
void mmx__bvh_free(mmx__bvh *b);

/* The closest point to p on the triangles into q (double), its triangle as the return value
 * (-1 when there are none), the squared distance in *d2 (may be NULL). */
mmx_index mmx__bvh_closest(const mmx__bvh *b, const double p[3], double q[3], double *d2);

#endif
