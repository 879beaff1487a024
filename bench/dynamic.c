/* Delaunay edge flips on the GPU and the host (issue 16): mmx_delaunay_flip on nef0..nef3 on
 * CUDA and on the host, the same output bytes checked, beside RXMesh's figures.
 *
 *   dynamic MESHES [--csv FILE] [--quick] [--reps N] [--host-max L]
 *
 * MESHES holds models/nefertiti.obj. nef0..nef3 are nefertiti split 0..3 times by edge
 * midpoints (bu_split4: 1-to-4, positions unchanged; 100k to 6.4M triangles), as
 * bench/queries.c makes them. --quick stops at nef1; --host-max L runs the host reference on
 * nef0..nefL only (default 3: all of them; the host takes seconds to minutes per mesh).
 *
 * Per mesh, on CUDA: mmx_delaunay_flip from a mesh already on the device, the median of N
 * runs (default 5) after one warm-up run, timed by CUDA events on the context's stream (the
 * call waits on its stream where it must read a count, so the events bracket all of it); then
 * the same rounds one by one (mmx_delaunay_round), each timed alone, with its cavities
 * proposed and kept; a round called alone computes its mesh's adjacency, which the loop of
 * mmx_delaunay_flip does once (later rounds carry the topology over), so the sum of these
 * exceeds the loop's time by about an adjacency per round. On the host: one run of mmx_delaunay_flip (host clock) and its rounds;
 * the output must have the same bytes as the CUDA one ("identical").
 *
 * Patches kept current (issue 28): mmx_delaunay_flip_patches with the input's patch set
 * (built before each call, not timed) updated after every round, against mmx_delaunay_flip,
 * both by the host clock around the call and a final wait, the median of N after a warm-up
 * of each, interleaved; the extra per round and the target "at most 10% more"; then the
 * updates (rounds), how many ran incrementally, the share of the patches an update rebuilt
 * (dirty) and the extra time per update, and, on the meshes the host runs, the same on the
 * host (one call each way).
 *
 * Peers. RXMesh's Delaunay flips on the same GPU model (DESIGN.md, H200): nef0 133 ms, nef1
 * 170, nef2 354, nef3 1,122; the target is 10x faster on nef2 and nef3 (<= 35 ms, <= 112 ms).
 * CGAL has no function that flips a surface mesh's edges until it is Delaunay (its BGL layer
 * offers one flip, CGAL::Euler::flip_edge; its Delaunay triangulations build from points, not
 * from a given surface mesh), so the CPU row is our host reference. */
#include <string.h>
#include <time.h>
#include "bench_util.h"
#include "bench_clock.h"

static const double rxmesh_ms[4] = {133, 170, 354, 1122};

typedef struct flip_arg {
    mmx_ctx *ctx;
    const mmx_mesh *in;
    mmx_mesh *out;
    mmx_delaunay_report rep;
} flip_arg;

static int run_flip(void *p)
{
    flip_arg *a = p;
    mmx_mesh_free(a->out);
    a->out = NULL;
    return mmx_delaunay_flip(a->ctx, a->in, &a->out, &a->rep) != MMX_OK;
}

/* One call, with the input's patch set kept current when `kept` (built before the clock
 * starts), by the host clock around the call and a final wait. */
static double one_call(mmx_ctx *ctx, const mmx_mesh *in, int kept, mmx_delaunay_report *rep,
                       mmx_patch_stats *pst)
{
    mmx_patch_set *ps = NULL;
    if (kept) BU_MMX(ctx, mmx_patch_set_create(ctx, in, NULL, NULL, &ps));
    BU_MMX(ctx, mmx_ctx_sync(ctx));
    mmx_mesh *out = NULL;
    const double t0 = bc_now_ms();
    BU_MMX(ctx, mmx_delaunay_flip_patches(ctx, in, ps, &out, rep));
    BU_MMX(ctx, mmx_ctx_sync(ctx));
    const double ms = bc_now_ms() - t0;
    if (ps) BU_MMX(ctx, mmx_patch_set_stats(ctx, ps, pst));
    mmx_patch_set_free(ps);
    mmx_mesh_free(out);
    return ms;
}

/* The row "Delaunay with patches kept current" against the same call without. */
/* With `host` (not NULL), the same on the host from `nef` (one call each way). */
static void measure_kept(mmx_ctx *cuda, mmx_ctx *host, const char *name, const mmx_mesh *nef,
                         const mmx_mesh *d, int reps, FILE *csv)
{
    double with[64], without[64];
    if (reps > 64) reps = 64;
    mmx_delaunay_report rep;
    mmx_patch_stats pst;
    memset(&pst, 0, sizeof pst);
    one_call(cuda, d, 0, &rep, &pst);
    one_call(cuda, d, 1, &rep, &pst);
    for (int r = 0; r < reps; r++) {
        without[r] = one_call(cuda, d, 0, &rep, &pst);
        with[r] = one_call(cuda, d, 1, &rep, &pst);
    }
    const double w = bc_median(with, reps), wo = bc_median(without, reps);
    const double extra = 100.0 * (w - wo) / wo;
    printf("  cuda  Delaunay with patches kept current %10.3f ms vs %.3f ms without (median of %d, "
           "host clock): %+.1f%%, %.3f ms more per round (%d rounds); target at most +10%%: %s; "
           "kept set %d patches, mean %.1f faces\n", w, wo, reps, extra,
           (w - wo) / (rep.rounds ? rep.rounds : 1), rep.rounds, extra <= 10 ? "met" : "NOT met",
           (int)pst.npatches, pst.mean_faces);
    bu_patch_updates("cuda", &pst, w - wo);
    if (host) { /* the host's incremental update, one call each way */
        mmx_patch_stats hst;
        mmx_delaunay_report hrep;
        memset(&hst, 0, sizeof hst);
        const double hwo = one_call(host, nef, 0, &hrep, &hst);
        const double hw = one_call(host, nef, 1, &hrep, &hst);
        printf("  host  Delaunay with patches kept current %10.3f ms vs %.3f ms without (one run "
               "each): %+.1f%%\n", hw, hwo, 100.0 * (hw - hwo) / hwo);
        bu_patch_updates("host", &hst, hw - hwo);
    }
    if (csv)
        fprintf(csv, "%s,kept,patches,%.4f,%.4f,%d,%d\n", name, w, wo, rep.rounds, (int)pst.npatches);
}

/* The rounds one by one: per round its proposed and kept cavities and its time (CUDA events
 * on the CUDA context, the host clock on the host). Prints one line per round. */
static double rounds(mmx_ctx *ctx, const mmx_mesh *in, const char *who, FILE *csv,
                     const char *name)
{
    const int gpu = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    cudaStream_t st = gpu ? (cudaStream_t)mmx_ctx_cuda_stream(ctx) : 0;
    cudaEvent_t e0 = NULL, e1 = NULL;
    if (gpu) {
        BU_CUDA(cudaEventCreate(&e0));
        BU_CUDA(cudaEventCreate(&e1));
    }
    mmx_mesh *cur = NULL;
    double total = 0;
    for (uint32_t k = 0; k < MMX_DELAUNAY_MAX_ROUNDS; k++) {
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        double ms = 0;
        if (gpu) {
            float f = 0;
            BU_CUDA(cudaEventRecord(e0, st));
            BU_MMX(ctx, mmx_delaunay_round(ctx, cur ? cur : in, k, &next, &c));
            BU_CUDA(cudaEventRecord(e1, st));
            BU_CUDA(cudaEventSynchronize(e1));
            BU_CUDA(cudaEventElapsedTime(&f, e0, e1));
            ms = f;
        } else {
            const double t0 = bc_now_ms();
            BU_MMX(ctx, mmx_delaunay_round(ctx, cur ? cur : in, k, &next, &c));
            ms = bc_now_ms() - t0;
        }
        total += ms;
        mmx_mesh_free(cur);
        cur = next;
        printf("  %-5s round %3u: %9d proposed %9d kept %8d invalid %9d conflicts %10.3f ms\n",
               who, k, (int)c.proposed, (int)c.kept, (int)c.invalid, (int)c.conflicts, ms);
        if (csv)
            fprintf(csv, "%s,%s,round,%u,%d,%d,%d,%d,%.4f\n", name, who, k, (int)c.proposed,
                    (int)c.kept, (int)c.invalid, (int)c.conflicts, ms);
        if (!c.kept) break;
    }
    mmx_mesh_free(cur);
    if (gpu) {
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    return total;
}

static void measure(mmx_ctx *host, mmx_ctx *cuda, const char *name, int level, const mmx_mesh *nef,
                    int reps, int with_host, FILE *csv)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(cuda);
    mmx_mesh *d = NULL;
    BU_MMX(cuda, mmx_mesh_copy(cuda, nef, MMX_SPACE_DEVICE, &d));
    flip_arg a = {cuda, d, NULL, {0}};
    const double cu_ms = bu_time(st, 1, reps, run_flip, &a);
    if (cu_ms < 0) {
        fprintf(stderr, "dynamic: %s: mmx_delaunay_flip on CUDA failed: %s\n", name,
                mmx_ctx_error(cuda));
        exit(1);
    }
    const double target = rxmesh_ms[level] / 10;
    printf("\n%s: %d vertices, %d triangles\n", name, (int)mmx_mesh_nverts(nef),
           (int)mmx_mesh_nfaces(nef));
    printf("  cuda  mmx_delaunay_flip %10.3f ms (median of %d)  %d rounds, %lld flips, %d left\n",
           cu_ms, reps, a.rep.rounds, (long long)a.rep.flips, (int)a.rep.remaining);
    printf("  RXMesh (H200)           %10.3f ms  -> ours %.1fx faster; target 10x (<= %.1f ms): %s\n",
           rxmesh_ms[level], rxmesh_ms[level] / cu_ms, target,
           cu_ms <= target ? "met" : "NOT met");
    measure_kept(cuda, with_host ? host : NULL, name, nef, d, reps, csv);
    const double cu_rounds = rounds(cuda, d, "cuda", csv, name);
    printf("  cuda  sum of the rounds timed alone (each with its own adjacency): %.3f ms\n",
           cu_rounds);
    double h_ms = -1;
    int same = -1;
    mmx_delaunay_report hr;
    memset(&hr, 0, sizeof hr);
    if (with_host) {
        mmx_mesh *ho = NULL, *back = NULL;
        const double t0 = bc_now_ms();
        BU_MMX(host, mmx_delaunay_flip(host, nef, &ho, &hr));
        h_ms = bc_now_ms() - t0;
        BU_MMX(cuda, mmx_mesh_copy(cuda, a.out, MMX_SPACE_HOST, &back));
        same = memcmp(&hr, &a.rep, sizeof hr) == 0 &&
               memcmp(ho->M->rowidx, back->M->rowidx,
                      3 * (size_t)mmx_mesh_nfaces(nef) * sizeof(mmx_index)) == 0;
        printf("  host  mmx_delaunay_flip %10.3f ms (one run)  %d rounds, %lld flips, %d left; "
               "CUDA %.1fx faster\n", h_ms, hr.rounds, (long long)hr.flips, (int)hr.remaining,
               h_ms / cu_ms);
        printf("  identical output bytes and report, host and CUDA: %s\n", same ? "yes" : "NO");
        rounds(host, nef, "host", csv, name);
        mmx_mesh_free(ho);
        mmx_mesh_free(back);
    } else {
        printf("  host  skipped (--host-max)\n");
    }
    if (csv)
        fprintf(csv, "%s,all,total,%d,%lld,%d,%.4f,%.4f,%.4f,%d\n", name, a.rep.rounds,
                (long long)a.rep.flips, (int)a.rep.remaining, cu_ms, h_ms, rxmesh_ms[level], same);
    mmx_mesh_free(a.out);
    mmx_mesh_free(d);
}

static void usage(void)
{
    fprintf(stderr, "usage: dynamic MESHES [--csv FILE] [--quick] [--reps N] [--host-max L]\n"
                    "  MESHES: a folder with models/nefertiti.obj\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int quick = 0, reps = 5, host_max = 3;
    FILE *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) usage();
        } else if (!strcmp(argv[i], "--host-max") && i + 1 < argc) {
            host_max = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) {
                fprintf(stderr, "dynamic: cannot write %s\n", argv[i]);
                return 1;
            }
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            usage();
        }
    }
    if (!dir) usage();
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "dynamic: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    char gpu[300], date[64];
    bu_gpu_name(gpu, sizeof gpu);
    bu_date(date, sizeof date);
    printf("dynamic (Delaunay edge flips), %s\nGPU: %s\n", date, gpu);
    printf("CPU peer: CGAL has no surface-mesh Delaunay edge-flip function (only the one flip "
           "CGAL::Euler::flip_edge,\nand Delaunay triangulations of point sets); the CPU row is "
           "meshmatrix's host reference.\n");
    if (csv)
        fprintf(csv, "# gpu: %s\n# date: %s\n# rows: mesh,backend,round,k,proposed,kept,invalid,"
                     "conflicts,ms | mesh,all,total,rounds,flips,remaining,cuda_ms,host_ms,"
                     "rxmesh_ms,identical | mesh,kept,patches,with_ms,without_ms,rounds,"
                     "patches\n", gpu, date);
    bu_nef it = BU_NEF_START;
    for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, (quick ? 1 : 3), &it));) {
        const int l = it.level;
        const char *name = it.name;
        measure(host, cuda, name, l, nef, reps, l <= host_max, csv);
    }
    if (csv) fclose(csv);
    mmx_ctx_free(cuda);
    mmx_ctx_free(host);
    return 0;
}
