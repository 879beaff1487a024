/* Meshes for the subdivision tests (test_subdiv.c, test_fused.c): procedural ones with the
 * features the schemes treat specially (high valence, boundaries, mixed orders) and helpers
 * for the shapes and files under tests/data. Each aborts the test on failure. */
#ifndef SUBDIV_MESHES_H
#define SUBDIV_MESHES_H

#include <stdint.h>
#include "meshmatrix.h"

/* Builds a mesh from face lists given as a flat array with -1 ending each face. */
mmx_mesh *from_lists(mmx_ctx *ctx, int nv, const float *pos, const int *lists, int len);
/* A double cone over an n-gon: two apexes of valence n, closed triangles. */
mmx_mesh *bipyramid(mmx_ctx *ctx, int n);
/* A cone over an n-gon closed by the n-gon itself (Catmull-Clark only). */
mmx_mesh *pyramid(mmx_ctx *ctx, int n);
/* An open fan of n triangles around a centre of valence n, lifted into a saddle. */
mmx_mesh *fan(mmx_ctx *ctx, int n);
/* An open nx x ny grid of quads split into triangles along alternating diagonals. */
mmx_mesh *tri_grid(mmx_ctx *ctx, int nx, int ny);
/* One n-gon on the unit circle, slightly wavy; with `pillow`, also the same n-gon run backwards
 * (a closed two-sided pillow: every edge inner, every vertex of valence 2). */
mmx_mesh *ngon(mmx_ctx *ctx, int n, int pillow);
/* Two triangles on the same three vertices in opposite orders (a closed two-sided pillow),
 * after a tetrahedron (faces 0-3, vertices 0-3) when `after_tetrahedron`. */
mmx_mesh *pillow(mmx_ctx *ctx, int after_tetrahedron);
/* n vertices and no face. */
mmx_mesh *no_faces(mmx_ctx *ctx, int n);
/* A built-in shape (mmx_mesh_shape). */
mmx_mesh *shape(mmx_ctx *ctx, const char *spec);
/* A file under tests/data. */
mmx_mesh *read_data(mmx_ctx *ctx, const char *name);
/* The bounding-box diagonal of a host mesh's positions (the tests' unit of position error). */
double mesh_diagonal(const mmx_mesh *m);
/* m in a random order from `seed`; frees m. */
mmx_mesh *shuffled(mmx_ctx *ctx, mmx_mesh *m, uint64_t seed);
/* m (a host mesh) with crease tags on every `step`-th edge met in face order (each edge once,
 * from the face that runs it from its lower end), sharpness cycling through 10 (infinite),
 * 2.5, 0.5, 1 and 3.7, followed by the tag lines `extra` (NULL for none; e.g. a crease
 * method). Replaces m's tags; returns m. */
mmx_mesh *with_creases(mmx_mesh *m, int step, const char *extra);

#endif
