/* What the mesh's cache buys (issue 27, "fast by default"): on nef0..nef3 (file order, on the
 * GPU), for each of the eight queries (mmx_query, adj NULL), the area-weighted vertex normals
 * (mmx_vertex_normals) and one uniform Laplacian step (mmx_smooth LAPLACIAN, 1 iteration):
 * - "uncached": the call on a view of the mesh without a cache (what every call cost before
 *   the cache: the adjacency, or the transpose, made and freed inside);
 * - "first": the call after mmx_mesh_release_cache (it makes what it keeps);
 * - "second": the call again on the same mesh (the cache full);
 * - "planned": the planned versions: mmx_query_plan_alloc + mmx_query_plan_run (the result
 *   allocated, as the call returns a new one), mmx_vertex_normals_planned, and the in-call
 *   step of the smoothing ((T(21 iterations) - T(1)) / 20, cache full);
 * the target: second <= 1.5 x planned, first <= uncached. Median of 20 calls after 3 (CUDA
 * events around each call; calls that wait are timed whole). Also the bytes the cache holds
 * once every call above has filled it.
 *
 * Usage: cache MESHES [--csv FILE]; MESHES holds models/nefertiti.obj. */
#include <string.h>
#include "bench_util.h"

static FILE *csv;

typedef struct arg {
    mmx_ctx *ctx;
    mmx_mesh *mesh;         /* the mesh (its cache) */
    const mmx_mesh *call;   /* the mesh the call is given: mesh or a view without a cache */
    int release;            /* release the cache before the call */
    int what;               /* 0 query, 1 query by the plan, 2 normals, 3 planned normals,
                               4 smoothing */
    mmx_query_kind kind;
    mmx_query_plan *plan;
    mmx_normals_plan *nplan;
    mmx_smooth_options o;
    mmx_csr *out;
    float *x;
} arg;

static int run(void *p)
{
    arg *a = p;
    if (a->release) mmx_mesh_release_cache(a->mesh);
    mmx_csr_free(a->out);
    a->out = NULL;
    switch (a->what) {
    case 0: return mmx_query(a->ctx, a->call, NULL, a->kind, &a->out) != MMX_OK;
    case 1:
        return mmx_query_plan_alloc(a->ctx, a->plan, a->kind, &a->out) != MMX_OK ||
               mmx_query_plan_run(a->ctx, a->plan, a->kind, a->out) != MMX_OK;
    case 2: return mmx_vertex_normals(a->ctx, a->call, MMX_NORMAL_AREA, a->x) != MMX_OK;
    case 3: return mmx_vertex_normals_planned(a->ctx, a->nplan, a->mesh->pos, MMX_NORMAL_AREA, a->x) != MMX_OK;
    default: return mmx_smooth(a->ctx, a->call, &a->o, a->x, NULL) != MMX_OK;
    }
}

static double timed(cudaStream_t st, arg *a, const mmx_mesh *call, int release)
{
    a->call = call;
    a->release = release;
    const double ms = bu_time(st, 3, 20, run, a);
    if (ms < 0) {
        fprintf(stderr, "cache: a call failed: %s\n", mmx_ctx_error(a->ctx));
        exit(1);
    }
    return ms;
}

static void emit(const char *mesh, const char *call, double uncached, double first, double second,
                 double planned)
{
    const double r = second / planned;
    printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.2fx | %s | %s |\n", mesh, call, uncached, first,
           second, planned, r, r <= 1.5 ? "met" : "missed", first <= uncached ? "met" : "missed");
    if (csv)
        fprintf(csv, "%s,%s,%.4f,%.4f,%.4f,%.4f\n", mesh, call, uncached, first, second, planned);
}

static void measure(mmx_ctx *host, mmx_ctx *cuda, const char *name, const mmx_mesh *hm)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(cuda);
    mmx_mesh *d = NULL;
    BU_MMX(cuda, mmx_mesh_copy(cuda, hm, MMX_SPACE_DEVICE, &d));
    mmx_mesh bare = *d; /* a view without a cache: every call computes, as before the cache */
    bare.cache = NULL;
    const size_t n = (size_t)mmx_mesh_nverts(d);
    arg a = {.ctx = cuda, .mesh = d};
    BU_MMX(cuda, mmx_mem_alloc(cuda, MMX_SPACE_DEVICE, 3 * n * sizeof(float) + 4, (void **)&a.x));
    BU_MMX(cuda, mmx_query_plan_create(cuda, d, NULL, &a.plan));
    BU_MMX(cuda, mmx_normals_plan_create(cuda, d, &a.nplan));
    (void)host;
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        a.kind = (mmx_query_kind)k;
        a.what = 0;
        const double un = timed(st, &a, &bare, 0), first = timed(st, &a, d, 1),
                     second = timed(st, &a, d, 0);
        a.what = 1;
        const double planned = timed(st, &a, d, 0);
        char call[32];
        snprintf(call, sizeof call, "mmx_query %s", mmx_query_name(a.kind));
        emit(name, call, un, first, second, planned);
    }
    a.what = 2;
    double un = timed(st, &a, &bare, 0), first = timed(st, &a, d, 1), second = timed(st, &a, d, 0);
    a.what = 3;
    emit(name, "mmx_vertex_normals", un, first, second, timed(st, &a, d, 0));
    a.what = 4;
    a.o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    a.o.iterations = 1;
    un = timed(st, &a, &bare, 0), first = timed(st, &a, d, 1), second = timed(st, &a, d, 0);
    a.o.iterations = 21;
    const double t21 = timed(st, &a, d, 0);
    emit(name, "mmx_smooth laplacian, 1 step", un, first, second, (t21 - second) / 20.0);
    /* Everything kept: fill the cache with one call of each. */
    a.o.iterations = 1;
    a.what = 0;
    for (int k = 0; k < MMX_QUERY_COUNT; k++) a.kind = (mmx_query_kind)k, timed(st, &a, d, 0);
    a.what = 2, timed(st, &a, d, 0);
    a.what = 4, timed(st, &a, d, 0);
    printf("| %s | cache held: %.1f MB, %.1f bytes per face | | | | | | | |\n", name,
           (double)mmx_mesh_cache_bytes(d) / 1e6, (double)mmx_mesh_cache_bytes(d) / (double)mmx_mesh_nfaces(d));
    if (csv) fprintf(csv, "%s,cache bytes,%zu,,,\n", name, mmx_mesh_cache_bytes(d));
    mmx_csr_free(a.out);
    mmx_query_plan_free(a.plan);
    mmx_normals_plan_free(a.nplan);
    mmx_mem_free(cuda, MMX_SPACE_DEVICE, a.x);
    mmx_mesh_free(d);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) return 1;
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            dir = NULL;
            break;
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: cache MESHES [--csv FILE]\n");
        return 2;
    }
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "cache: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    char gpu[300];
    bu_gpu_name(gpu, sizeof gpu);
    printf("cache; GPU: %s\n\n", gpu);
    printf("| mesh | call | uncached ms | first ms | second ms | planned ms | second / planned | "
           "<= 1.5x | first <= uncached |\n|---|---|---:|---:|---:|---:|---:|---|---|\n");
    if (csv) fprintf(csv, "# gpu: %s\nmesh,call,uncached_ms,first_ms,second_ms,planned_ms\n", gpu);
    bu_nef it = BU_NEF_START;
    for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, 3, &it));) {
        const char *name = it.name;
        measure(host, cuda, name, nef);
    }
    mmx_ctx_free(cuda), mmx_ctx_free(host);
    if (csv) fclose(csv);
    return 0;
}
