/* The patch set's build on the GPU from a mesh already there (the target: 6.4M
 * triangles in at most 30 ms, adjacency included; RXMesh took 37 s).
 *
 *   patch_build SPEC... [--shuffle]
 *
 * SPEC is a built-in shape (mmx_mesh_shape: icosphere:9, torus:2048:1600, ...). Per mesh: the
 * median of 5 calls (CUDA events, after one warm-up) of mmx_adjacency_compute, of
 * mmx_patch_set_create given that adjacency, and of both together; the set's statistics. With
 * --shuffle the vertex and face order are shuffled first (scanned input). */
#include <string.h>
#include "bench_util.h"

typedef struct arg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    mmx_adjacency *adj;
    mmx_patch_set *ps;
    int with_adj; /* 1: the adjacency is part of the timed call */
} arg;

static int run_adj(void *p)
{
    arg *a = p;
    mmx_adjacency_free(a->adj);
    a->adj = NULL;
    return mmx_adjacency_compute(a->ctx, a->mesh, &a->adj) != MMX_OK;
}

static int run_set(void *p)
{
    arg *a = p;
    mmx_patch_set_free(a->ps);
    a->ps = NULL;
    if (a->with_adj && run_adj(a)) return 1;
    return mmx_patch_set_create(a->ctx, a->mesh, a->adj, NULL, &a->ps) != MMX_OK;
}

int main(int argc, char **argv)
{
    int shuffle = 0;
    for (int i = 1; i < argc; i++) shuffle |= strcmp(argv[i], "--shuffle") == 0;
    mmx_ctx *h = NULL, *ctx = NULL;
    if (mmx_ctx_create(&h) || mmx_ctx_create(&ctx) || mmx_ctx_use_cuda(ctx, 0)) {
        fprintf(stderr, "patch_build: no CUDA context\n");
        return 1;
    }
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    char gpu[256];
    bu_gpu_name(gpu, sizeof gpu);
    printf("GPU: %s\n", gpu);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') continue;
        mmx_mesh *hm = NULL, *d = NULL;
        BU_MMX(h, mmx_mesh_shape(h, argv[i], &hm));
        if (shuffle) {
            mmx_mesh *sh = NULL;
            BU_MMX(h, mmx_mesh_shuffle(h, hm, 11, NULL, NULL, &sh));
            mmx_mesh_free(hm);
            hm = sh;
        }
        BU_MMX(ctx, mmx_mesh_copy(ctx, hm, MMX_SPACE_DEVICE, &d));
        arg a = {.ctx = ctx, .mesh = d};
        const double adj_ms = bu_time(st, 1, 5, run_adj, &a);
        const double set_ms = bu_time(st, 1, 5, run_set, &a);
        a.with_adj = 1;
        const double both_ms = bu_time(st, 1, 5, run_set, &a);
        if (adj_ms < 0 || set_ms < 0 || both_ms < 0) {
            fprintf(stderr, "patch_build: %s failed: %s\n", argv[i], mmx_ctx_error(ctx));
            return 1;
        }
        mmx_patch_stats ps;
        BU_MMX(ctx, mmx_patch_set_stats(ctx, a.ps, &ps));
        printf("%s%s: %d vertices, %d faces: adjacency %.3f ms, patch set %.3f ms, both %.3f ms; "
               "%d patches of %d..%d faces, ribbon %.1f%%, largest %d/%d/%d local f/e/v, %.1f bytes/face\n",
               argv[i], shuffle ? " (shuffled)" : "", hm->M->nrows, hm->M->ncols, adj_ms, set_ms, both_ms,
               ps.npatches, ps.min_faces, ps.max_faces, 100.0 * ps.ribbon_share, ps.max_local_faces,
               ps.max_local_edges, ps.max_local_verts, ps.bytes_per_face);
        mmx_patch_set_free(a.ps);
        mmx_adjacency_free(a.adj);
        mmx_mesh_free(d);
        mmx_mesh_free(hm);
    }
    mmx_ctx_free(ctx);
    mmx_ctx_free(h);
    return 0;
}
