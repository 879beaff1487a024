/* Private declarations of the dynamic module: the topology a round of edge flips reads. */
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

/* mmx_cavity_round on a topology already built for `mesh` (Delaunay builds it once per round
 * for both its seeds and the round). */
mmx_status mmx__cavity_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                  const mmx_index *seeds, mmx_index n, uint32_t round,
                                  mmx_mesh **out, mmx_cavity_counts *counts,
                                  mmx_cavity_seed *per_seed);

#endif
