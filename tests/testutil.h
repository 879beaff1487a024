/* Helpers shared by the test suites. */
#ifndef MMX_TESTUTIL_H
#define MMX_TESTUTIL_H

#include <criterion/criterion.h>
#include "meshmatrix.h"

/* Asserts a call returned MMX_OK, printing the status and the context's detail if not. */
#define MMX_OK_OR_FAIL(ctx, call)                                                          \
    do {                                                                                   \
        mmx_status st_ = (call);                                                           \
        cr_assert_eq(st_, MMX_OK, "%s -> %s: %s", #call, mmx_status_str(st_),              \
                     mmx_ctx_error(ctx));                                                  \
    } while (0)

/* A host context; the test fails if one cannot be made. */
mmx_ctx *tu_host_ctx(void);

/* A CUDA context on device 0, or NULL after cr_skip_test() with the reason when the build has
 * no CUDA or the machine has no device. Call it first in a GPU test (never from a parent
 * process: Criterion forks one child per test). */
mmx_ctx *tu_cuda_ctx_or_skip(void);

/* A small deterministic generator (an LCG's high bits), the same on every platform. */
uint32_t tu_rng(uint32_t *state);

/* A random nrows x ncols pattern drawn from *seed: each column takes a random subset of
 * distinct rows (each row with probability 1/3) in random order, with values in [-4, 4].
 * colptr has ncols + 1 entries; rowidx and val room for nrows * ncols. */
void tu_random_csc(uint32_t *seed, int nrows, int ncols, mmx_index *colptr, mmx_index *rowidx,
                   mmx_index *val);

/* Path of a file in tests/data (static buffer). */
/* The built-in shape `spec` (mmx_mesh_shape) on ctx; fails the test if it cannot be made. */
mmx_mesh *tu_shape(mmx_ctx *ctx, const char *spec);

/* A triangle mesh from nf triangles verts[3f .. 3f + 3) on nv vertices (pos may be NULL);
 * fails the test if mmx_mesh_from_faces refuses it. */
mmx_mesh *tu_triangles(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *verts,
                       const float *pos);

/* A triangulated (nx x ny)-cell grid of [0, nx] x [0, ny] in z = 0, its inner vertices
 * jittered in the plane by up to +-amp/2 of a cell (tu_rng from seed), every cell cut along
 * the same diagonal, or along alternating ones (alternate). */
mmx_mesh *tu_jittered_grid_of(mmx_ctx *ctx, int nx, int ny, float amp, int alternate, uint32_t seed);

/* The (n x n)-cell grid, alternating diagonals, +-0.3 of a cell. */
mmx_mesh *tu_jittered_grid(mmx_ctx *ctx, int n, uint32_t seed);

const char *tu_data(const char *name);
/* Path of a scratch file in the build's tests folder, unique per process (static buffer). */
const char *tu_tmp(const char *name);

#endif
