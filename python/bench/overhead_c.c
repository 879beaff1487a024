/* The C side of python/bench/overhead.py: the same calls as the Python benchmark, timed in C,
 * so that the binding's overhead is the difference. Prints one "name value" line per figure:
 *   stats_us      mmx_mesh_stats_compute on the cube, per call (the fastest of 7 batches of
 *                 20000: the least disturbed by other work on the machine, as timeit's)
 *   query_us      mmx_query(VV) on the cube (a copy of the cached result) and mmx_csr_free
 *   host_ms       mmx_subdivide of MESH, Catmull-Clark, HOST_LEVELS levels, on the host
 *   cuda_ms       the same to CUDA_LEVELS levels on CUDA (the mesh already on the device), with
 *                 mmx_ctx_sync and mmx_mesh_free of the result: the call a user times
 * Usage: overhead_c MESH HOST_LEVELS CUDA_LEVELS (CUDA skipped without a device). */
#include <stdio.h>
#include <stdlib.h>

#include <meshmatrix.h>

#include "bench_clock.h"

static double fastest(const double *t, int n)
{
    double m = t[0];
    for (int i = 1; i < n; i++) m = t[i] < m ? t[i] : m;
    return m;
}

#define CHECK(ctx, call)                                                                      \
    do {                                                                                      \
        mmx_status s_ = (call);                                                               \
        if (s_ != MMX_OK) {                                                                   \
            fprintf(stderr, "overhead_c: %s: %s\n", #call, mmx_ctx_error(ctx));               \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: overhead_c MESH HOST_LEVELS CUDA_LEVELS\n");
        return 2;
    }
    int host_levels = atoi(argv[2]), cuda_levels = atoi(argv[3]);
    mmx_ctx *ctx;
    CHECK(NULL, mmx_ctx_create(&ctx));
    mmx_mesh *cube, *mesh, *out;
    CHECK(ctx, mmx_mesh_shape(ctx, "cube", &cube));
    double t[9];
    enum { CALLS = 20000 };
    for (int b = 0; b < 7; b++) {
        double t0 = bc_now_ms();
        for (int i = 0; i < CALLS; i++) {
            mmx_mesh_stats st;
            CHECK(ctx, mmx_mesh_stats_compute(ctx, cube, &st));
        }
        t[b] = (bc_now_ms() - t0) * 1e3 / CALLS;
    }
    printf("stats_us %.3f\n", fastest(t, 7));
    for (int b = 0; b < 7; b++) {
        double t0 = bc_now_ms();
        for (int i = 0; i < CALLS; i++) {
            mmx_csr *A;
            CHECK(ctx, mmx_query(ctx, cube, NULL, MMX_QUERY_VV, &A));
            mmx_csr_free(A);
        }
        t[b] = (bc_now_ms() - t0) * 1e3 / CALLS;
    }
    printf("query_us %.3f\n", fastest(t, 7));
    CHECK(ctx, mmx_mesh_read(ctx, argv[1], MMX_FORMAT_AUTO, &mesh));
    for (int b = 0; b < 5; b++) {
        double t0 = bc_now_ms();
        CHECK(ctx, mmx_subdivide(ctx, MMX_SCHEME_CATMULL_CLARK, mesh, host_levels, NULL, &out));
        t[b] = bc_now_ms() - t0; /* the call; freeing its result is not timed (nor in Python) */
        mmx_mesh_free(out);
    }
    printf("host_ms %.3f\n", bc_median(t, 5));
    int ndev = 0;
    mmx_ctx *gpu;
    CHECK(NULL, mmx_ctx_create(&gpu));
    mmx_cuda_device_count(gpu, &ndev);
    if (ndev > 0) {
        mmx_mesh *dmesh;
        CHECK(gpu, mmx_ctx_use_cuda(gpu, 0));
        CHECK(gpu, mmx_mesh_copy(gpu, mesh, MMX_SPACE_DEVICE, &dmesh));
        for (int b = 0; b < 9; b++) { /* the first two warm the pool and the kernels */
            CHECK(gpu, mmx_ctx_sync(gpu));
            double t0 = bc_now_ms();
            CHECK(gpu, mmx_subdivide(gpu, MMX_SCHEME_CATMULL_CLARK, dmesh, cuda_levels, NULL,
                                     &out));
            CHECK(gpu, mmx_ctx_sync(gpu));
            t[b] = bc_now_ms() - t0;
            mmx_mesh_free(out);
        }
        printf("cuda_ms %.3f\n", bc_median(t + 2, 7));
        mmx_mesh_free(dmesh);
    } else {
        printf("cuda_ms skipped (%s)\n", mmx_ctx_error(gpu));
    }
    mmx_ctx_free(gpu);
    mmx_mesh_free(mesh);
    mmx_mesh_free(cube);
    mmx_ctx_free(ctx);
    return 0;
}
