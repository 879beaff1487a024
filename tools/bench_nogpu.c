/* mmx bench's GPU part in a build without the CUDA backend (bench.h). A context never reaches
 * the CUDA backend in such a build, so bench_cmd.c never calls these; they exist so that the
 * tool links, and say so should that ever change. */
#include <stdio.h>
#include "bench.h"

static int not_built(void)
{
    fprintf(stderr, "mmx: bench: built without the CUDA backend: no cuSPARSE peers, no floor\n");
    return -1;
}

void bench_gpu_describe(char *gpu, size_t n)
{
    if (n) snprintf(gpu, n, "none (built without the CUDA backend)");
}

int bench_copy_tbps(mmx_ctx *ctx, double *tbps)
{
    (void)ctx;
    *tbps = -1;
    return not_built();
}

int bench_peers(mmx_ctx *ctx, const mmx_mesh *mesh, const float *pos, const float *faces,
                const float *ours_f, const float *ours_v, int warm, int reps, bench_table *t)
{
    (void)ctx, (void)mesh, (void)pos, (void)faces, (void)ours_f, (void)ours_v, (void)warm,
        (void)reps, (void)t;
    return not_built();
}
