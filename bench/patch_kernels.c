/* The patch path's kernels one by one on one mesh (issue 28): for profiling (Nsight Compute
 * over this program sees each patch kernel a few times, on a mesh large enough to fill the
 * GPU) and for the times of each query's whole call, of a patch reduction (VV, k = 3) and of
 * the vertex normals on the patches, beside the algebraic query.
 *
 *   patch_kernels MESHES [--level L] [--reps N]
 *
 * MESHES holds models/nefertiti.obj; the mesh is nefertiti split L times (default 3: nef3,
 * 6.4M triangles), in file order. Times: median of N calls (default 20) after 2 warm-up calls,
 * CUDA events (bu_time). */
#include <string.h>
#include "bench_util.h"

typedef struct karg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    const mmx_patch_set *ps;
    mmx_query_kind kind;
    int which; /* 0 patch query, 1 algebraic query, 2 patch reduce VV k=3, 3 normals on patches,
                  4 patch query into a result made before (mmx_patch_query_run) */
    float *x, *y;
    mmx_csr *made;
} karg;

static int run(void *p)
{
    karg *a = p;
    mmx_csr *r = NULL;
    mmx_status s;
    switch (a->which) {
    case 0: s = mmx_patch_query(a->ctx, a->ps, a->kind, &r); break;
    case 1: s = mmx_query(a->ctx, a->mesh, NULL, a->kind, &r); break;
    case 4: s = mmx_patch_query_run(a->ctx, a->ps, a->kind, a->made); break;
    case 2: s = mmx_patch_reduce(a->ctx, a->ps, MMX_QUERY_VV, a->x, 3, a->y); break;
    default: s = mmx_vertex_normals_patch(a->ctx, a->mesh, a->ps, a->y); break;
    }
    mmx_csr_free(r);
    if (s) fprintf(stderr, "patch_kernels: %s\n", mmx_ctx_error(a->ctx));
    return s != MMX_OK;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int level = 3, reps = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc) level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !dir) dir = argv[i];
        else {
            fprintf(stderr, "usage: patch_kernels MESHES [--level L] [--reps N]\n");
            return 2;
        }
    }
    if (!dir || level < 0 || level > 4 || reps < 1) {
        fprintf(stderr, "usage: patch_kernels MESHES [--level 0..4] [--reps N >= 1]\n");
        return 2;
    }
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "patch_kernels: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    const cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(cuda);
    char gpu[300];
    bu_gpu_name(gpu, sizeof gpu);
    bu_nef it = BU_NEF_START;
    const mmx_mesh *nef = NULL;
    while ((nef = bu_nef_next(host, dir, level, &it)) && it.level < level) {
    }
    if (!nef) return 1;
    mmx_mesh *d = NULL;
    BU_MMX(cuda, mmx_mesh_copy(cuda, nef, MMX_SPACE_DEVICE, &d));
    mmx_patch_set *ps = NULL;
    BU_MMX(cuda, mmx_patch_set_create(cuda, d, NULL, NULL, &ps));
    mmx_patch_stats pst;
    BU_MMX(cuda, mmx_patch_set_stats(cuda, ps, &pst));
    const mmx_index nv = mmx_mesh_nverts(d), nf = mmx_mesh_nfaces(d);
    printf("patch_kernels on %s (%d vertices, %d faces), GPU %s\n", it.name, (int)nv, (int)nf, gpu);
    printf("patch set: %d patches, mean %.1f faces, largest local %d faces / %d edges / %d vertices, "
           "ribbon %.1f%%, %.1f bytes per face\n", (int)pst.npatches, pst.mean_faces,
           (int)pst.max_local_faces, (int)pst.max_local_edges, (int)pst.max_local_verts,
           100 * pst.ribbon_share, pst.bytes_per_face);
    karg a = {cuda, d, ps, MMX_QUERY_VV, 0, NULL, NULL, NULL};
    a.x = bu_dev_fill(3 * (size_t)nv, 1.0f), a.y = bu_dev_fill(3 * (size_t)nv, 0.0f);
    static const char *names[] = {"VV", "VE", "VF", "EV", "EF", "FV", "FE", "FF"};
    printf("| query | patch ms (whole call) | patch run ms (into a result made before) | algebraic ms |\n"
           "|---|---:|---:|---:|\n");
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        a.kind = (mmx_query_kind)k;
        a.which = 0;
        const double tp = bu_time(st, 2, reps, run, &a);
        BU_MMX(cuda, mmx_patch_query(cuda, ps, a.kind, &a.made));
        a.which = 4;
        const double tr = bu_time(st, 2, reps, run, &a);
        mmx_csr_free(a.made);
        a.made = NULL;
        a.which = 1;
        const double ta = bu_time(st, 2, reps, run, &a);
        printf("| %s | %.4f | %.4f | %.4f |\n", names[k], tp, tr, ta);
    }
    a.which = 2;
    printf("patch reduce VV k=3: %.4f ms\n", bu_time(st, 2, reps, run, &a));
    a.which = 3;
    printf("vertex normals on patches: %.4f ms\n", bu_time(st, 2, reps, run, &a));
    cudaFree(a.x), cudaFree(a.y);
    mmx_patch_set_free(ps);
    mmx_mesh_free(d);
    mmx_mesh_free(it.m);
    mmx_ctx_free(cuda), mmx_ctx_free(host);
    return 0;
}
