/* mmx bench's pieces: the table of measured rows and the timing loop (bench_cmd.c), and the
 * GPU-only part, the cuSPARSE peers and the copy bandwidth that defines the floors
 * (bench_gpu.c, built with the CUDA backend; bench_nogpu.c otherwise). */
#ifndef MMX_TOOL_BENCH_H
#define MMX_TOOL_BENCH_H

#include <stddef.h>
#include "meshmatrix.h"

/* The products measured, in the order of the table. */
typedef enum bench_product {
    BP_FACE_POINTS = 0, /* Mᵀp / c: each face's centroid, a gather per column */
    BP_VERTEX_SCATTER,  /* M f: face data summed into the vertices, a scatter */
    BP_MESH_PRODUCT,    /* M·Mᵀ: the vertex adjacency */
    BP_QUERIES,         /* the eight first-order queries by algebra (query.h) */
    BP_NORMALS,         /* area-weighted vertex normals (geom.h) */
    BP_SMOOTHING,       /* uniform Laplacian and Taubin smoothing, assembled path (geom.h) */
    BP_SUBDIVISION,     /* the cage refined to the product mesh */
    BP_DELAUNAY,        /* Delaunay edge flips on the product mesh (in triangles) to the end */
    BP_REMESH,          /* isotropic remeshing, 3 iterations, of the mesh two levels coarser */
    BP_SIMPLIFY,        /* QEM simplification of the remeshing row's mesh to 10% of its faces */
    BP_COUNT
} bench_product;

/* One row: an implementation of a product, its median time (-1: not measured, the note says
 * why) and the floor it is held to (-1: none, on the host). */
typedef struct bench_row {
    bench_product product;
    char impl[96];
    double ms, floor_ms;
    int ours;        /* a meshmatrix implementation (the ratios are taken to the first one) */
    char note[120];
} bench_row;

#define BENCH_MAX_ROWS 40

typedef struct bench_table {
    bench_row rows[BENCH_MAX_ROWS];
    int n;
    double floor_ms[BP_COUNT]; /* each product's floor, -1 where there is none */
} bench_table;

/* Adds a row (ignored beyond BENCH_MAX_ROWS, which the fixed set of rows never reaches); the
 * floor is the product's. `note` may be NULL. */
void bench_add(bench_table *t, bench_product p, int ours, const char *impl, double ms,
               const char *note);

/* Work queued on (or, on the host, done by) the context by one call; 0 on success. */
typedef int (*bench_fn)(void *arg);

/* The median milliseconds of `reps` calls of fn after `warm` unmeasured ones, each between
 * the start and stop of an mmx_timer: CUDA events on the context's stream for the CUDA backend
 * (so cuSPARSE calls queued on that stream are timed the same way), the monotonic clock on the
 * host. Returns 0, or -1 when a call or the timer fails (the context or the call said why). */
int bench_time(mmx_ctx *ctx, int warm, int reps, bench_fn fn, void *arg, double *ms);

/* The GPU's description ("NVIDIA H200 (CUDA driver API 13.0, 132 SMs, 140 GiB)") and the
 * cuSPARSE version, into gpu[0..n). */
void bench_gpu_describe(char *gpu, size_t n);

/* The device-to-device copy bandwidth in TB/s (bytes read plus written per second), measured
 * now as bench/ measures it (a 1 GiB copy, median of 10). Returns 0, or -1 after printing
 * why. */
int bench_copy_tbps(mmx_ctx *ctx, double *tbps);

/* The peers' rows, on the device mesh `mesh` (the product mesh, either form) of the CUDA
 * context: Mᵀp/c and M f by cuSPARSE SpMV, three calls (one per coordinate, as cuSPARSE's
 * SpMV takes one vector) with explicit float values 1/c on the same matrix in CSR and in CSC
 * form, and the binary M·Mᵀ by cuSPARSE SpGEMM (its work estimation to its filled result,
 * buffers and result allocated in the timing, from the context's pool as the library's are).
 * pos (nverts x 3) and faces (nfaces x 3) are the inputs, ours_f and ours_v our results
 * (nfaces x 3, nverts x 3) to compare with; each row's note gives the largest difference
 * relative to the largest value. A form cuSPARSE refuses is a row without a time. Returns 0,
 * or -1 after printing why a CUDA or library call failed. */
int bench_peers(mmx_ctx *ctx, const mmx_mesh *mesh, const float *pos, const float *faces,
                const float *ours_f, const float *ours_v, int warm, int reps, bench_table *t);

#endif
