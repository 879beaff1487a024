/* QEM simplification on the GPU (issue 31): mmx_simplify on nef0..nef3 on CUDA to 10% of the
 * faces, beside the host reference (the same output bytes checked), CGAL's
 * Surface_mesh_simplification with the Garland-Heckbert policies (--cgal), meshoptimizer's
 * meshopt_simplify (--meshopt) and the quality of each result: the symmetric Hausdorff
 * distance to the input, sampled, relative to the input's bounding box diagonal.
 *
 *   simplify MESHES [--ratio R] [--reps N] [--max L] [--host-max L] [--cgal PATH]
 *            [--meshopt PATH] [--out DIR]
 *
 * MESHES holds models/nefertiti.obj; nef0..nef3 are nefertiti split 0..3 times by edge
 * midpoints (bu_split4, as bench/remesh.c makes them). --max L stops at nefL (default 3);
 * --host-max L runs the host reference on nef0..nefL (default 1); --cgal PATH runs that build
 * of bench/cgal_simplify.cpp on each mesh through a temporary OBJ file (bench/cgal_static.sh
 * builds one for a machine without CGAL), --meshopt PATH a build of bench/meshopt_simplify.cpp
 * likewise (its header says how to build it); --out DIR writes
 * nefL.obj and nefL_mmx.obj there, for bench/simplify_peers.py --ours (MeshLab's and
 * meshoptimizer's figures on the same files, and the same Hausdorff sampler for all).
 *
 * On CUDA: mmx_simplify (ratio R, default 0.1, the other options at their defaults) from a
 * mesh already in device memory, the median of N whole calls (default 3) after one warm-up,
 * between CUDA events on the context's stream. The host reference and the peers: one run, one
 * thread, the peers' own clock around their call alone (not the files).
 *
 * Hausdorff, both ways on the GPU (the library's closest-point BVH, closest.cu): from the
 * input, its vertices and face centroids to the result; from the result, on each face the
 * 15 points of the barycentric grid of step 1/4 (corners and edges included) to the input;
 * the larger maximum over the input's diagonal. CGAL's result is read back and measured the
 * same way.
 *
 * Targets (issue 31): at least 20x the fastest CPU peer and 100x CGAL; the Hausdorff distance
 * within 1.1x MeshLab's at the same face count (simplify_peers.py has MeshLab's). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "bench_clock.h"
#include "dynamic/dynamic_internal.h" /* the closest-point BVH */

typedef struct simplify_arg {
    mmx_ctx *ctx;
    const mmx_mesh *in;
    mmx_simplify_options o;
    mmx_mesh *out;
    mmx_simplify_report rep;
} simplify_arg;

static int run_simplify(void *p)
{
    simplify_arg *a = p;
    mmx_mesh_free(a->out);
    a->out = NULL;
    return mmx_simplify(a->ctx, a->in, &a->o, &a->out, &a->rep) != MMX_OK;
}

static double diagonal(const mmx_mesh *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (mmx_index v = 0; v < mmx_mesh_nverts(m); v++)
        for (int k = 0; k < 3; k++) {
            const double x = m->pos[3 * (size_t)v + k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* The largest distance from the sample points of `from` (host, reduced triangles) to the
 * triangles of `to` (host): grid 0 samples the vertices and the face centroids, grid g > 0
 * every face's barycentric grid of step 1/g. The queries run on the GPU in chunks. */
static double one_way(mmx_ctx *cu, const mmx_mesh *from, const mmx_mesh *to, int grid)
{
    mmx_mesh *dto = NULL;
    BU_MMX(cu, mmx_mesh_copy(cu, to, MMX_SPACE_DEVICE, &dto));
    mmx__bvh_view view;
    void *block = NULL;
    BU_MMX(cu, mmx__bvh_build_cuda(cu, dto->pos, mmx_mesh_nverts(dto), dto->M->rowidx,
                                   mmx_mesh_nfaces(dto), &view, &block));
    const size_t chunk = (size_t)1 << 20;
    double *p = malloc(3 * chunk * sizeof *p), *q = malloc(3 * chunk * sizeof *q);
    void *dp = NULL, *dq = NULL;
    BU_MMX(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * chunk * sizeof *p, &dp));
    BU_MMX(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * chunk * sizeof *q, &dq));
    if (!p || !q) exit(1);
    const mmx_index *tri = from->M->rowidx;
    const mmx_index nf = mmx_mesh_nfaces(from), nv = mmx_mesh_nverts(from);
    double worst = 0;
    size_t n = 0;
    /* flush: the queued points' distances into worst. */
#define FLUSH()                                                                                 \
    do {                                                                                        \
        if (n) {                                                                                \
            BU_MMX(cu, mmx_mem_copy(cu, dp, MMX_SPACE_DEVICE, p, MMX_SPACE_HOST, 3 * n * sizeof *p)); \
            BU_MMX(cu, mmx__bvh_closest_cuda(cu, &view, dp, (mmx_index)n, dq, NULL));         \
            BU_MMX(cu, mmx_mem_copy(cu, q, MMX_SPACE_HOST, dq, MMX_SPACE_DEVICE, 3 * n * sizeof *q)); \
            for (size_t x_ = 0; x_ < n; x_++) {                                                 \
                const double dx = p[3 * x_] - q[3 * x_], dy = p[3 * x_ + 1] - q[3 * x_ + 1],    \
                             dz = p[3 * x_ + 2] - q[3 * x_ + 2];                                \
                const double d = sqrt(dx * dx + dy * dy + dz * dz);                             \
                worst = d > worst ? d : worst;                                                  \
            }                                                                                   \
            n = 0;                                                                              \
        }                                                                                       \
    } while (0)
    if (grid == 0)
        for (mmx_index v = 0; v < nv; v++) {
            for (int k = 0; k < 3; k++) p[3 * n + k] = from->pos[3 * (size_t)v + k];
            if (++n == chunk) FLUSH();
        }
    for (mmx_index f = 0; f < nf; f++) {
        const float *a = from->pos + 3 * (size_t)tri[3 * f], *b = from->pos + 3 * (size_t)tri[3 * f + 1],
                    *c = from->pos + 3 * (size_t)tri[3 * f + 2];
        const int g = grid ? grid : 3;
        for (int i = 0; i <= g; i++)
            for (int j = 0; i + j <= g; j++) {
                if (grid == 0 && !(i == 1 && j == 1)) continue; /* the centroid alone */
                const double u = (double)i / g, w = (double)j / g, t = 1 - u - w;
                for (int k = 0; k < 3; k++) p[3 * n + k] = t * a[k] + u * b[k] + w * c[k];
                if (++n == chunk) FLUSH();
            }
    }
    FLUSH();
#undef FLUSH
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dp);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dq);
    free(p);
    free(q);
    mmx__dev_free(cu, block);
    mmx_mesh_free(dto);
    return worst;
}

/* The symmetric sampled Hausdorff distance of result r (host) to input m, over m's diagonal. */
static double hausdorff(mmx_ctx *cu, const mmx_mesh *m, const mmx_mesh *r)
{
    const double a = one_way(cu, m, r, 0), b = one_way(cu, r, m, 4);
    return (a > b ? a : b) / diagonal(m);
}

/* A peer program's simplification of `m` to `target` faces (`PROG IN.obj OUT.obj TARGET`,
 * both peers' drivers): its ms from the program's JSON line, its result into *res (host); -1
 * where it fails. */
static double peer(const char *prog, mmx_ctx *host, const mmx_mesh *m, long target, mmx_mesh **res)
{
    char in[256], out[256], cmd[1024], line[4096];
    snprintf(in, sizeof in, "/tmp/mmx_bench_simplify_%d_in.obj", (int)getpid());
    snprintf(out, sizeof out, "/tmp/mmx_bench_simplify_%d_out.obj", (int)getpid());
    *res = NULL;
    if (mmx_mesh_write(host, m, in, MMX_FORMAT_OBJ)) {
        fprintf(stderr, "simplify: cannot write %s: %s\n", in, mmx_ctx_error(host));
        return -1;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %ld", prog, in, out, target);
    FILE *p = popen(cmd, "r");
    double ms = -1;
    if (p) {
        while (fgets(line, sizeof line, p)) {
            const char *r = strstr(line, "\"simplify_ms\":");
            if (r) sscanf(r + 14, "%lf", &ms);
        }
        if (pclose(p) != 0) ms = -1;
    }
    if (ms >= 0 && (mmx_mesh_read(host, out, MMX_FORMAT_AUTO, res) || mmx_mesh_reduce(host, *res))) {
        mmx_mesh_free(*res);
        *res = NULL;
        ms = -1;
    }
    remove(in);
    remove(out);
    return ms;
}

static void measure(mmx_ctx *host, mmx_ctx *cuda, const char *name, const mmx_mesh *nef,
                    double ratio, int reps, int with_host, const char *cgal_prog,
                    const char *meshopt_prog, const char *out_dir)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(cuda);
    mmx_mesh *d = NULL, *back = NULL;
    BU_MMX(cuda, mmx_mesh_copy(cuda, nef, MMX_SPACE_DEVICE, &d));
    simplify_arg a;
    memset(&a, 0, sizeof a);
    a.ctx = cuda, a.in = d, a.o = mmx_simplify_defaults(), a.o.ratio = ratio;
    const double cu_ms = bu_time(st, 1, reps, run_simplify, &a);
    if (cu_ms < 0) {
        fprintf(stderr, "simplify: %s: mmx_simplify on CUDA failed: %s\n", name, mmx_ctx_error(cuda));
        exit(1);
    }
    BU_MMX(cuda, mmx_mesh_copy(cuda, a.out, MMX_SPACE_HOST, &back));
    const double h = hausdorff(cuda, nef, back);
    printf("\n%s: %d vertices, %d triangles, target %d faces\n", name, (int)mmx_mesh_nverts(nef),
           (int)mmx_mesh_nfaces(nef), (int)a.rep.target_faces);
    printf("  cuda  mmx_simplify %10.2f ms (whole call, median of %d): %d faces, %d rounds, "
           "%lld collapses, max error %.3e; Hausdorff %.3e of the diagonal\n", cu_ms, reps,
           (int)mmx_mesh_nfaces(back), a.rep.rounds, (long long)a.rep.collapses, a.rep.max_error, h);
    if (with_host) {
        mmx_mesh *ho = NULL;
        mmx_simplify_report hr;
        const double t0 = bc_now_ms();
        BU_MMX(host, mmx_simplify(host, nef, &a.o, &ho, &hr));
        const double h_ms = bc_now_ms() - t0;
        const int same = mmx_mesh_nverts(ho) == mmx_mesh_nverts(back) &&
                         mmx_mesh_nfaces(ho) == mmx_mesh_nfaces(back) &&
                         memcmp(ho->M->rowidx, back->M->rowidx,
                                3 * (size_t)mmx_mesh_nfaces(ho) * sizeof(mmx_index)) == 0 &&
                         memcmp(ho->pos, back->pos, 3 * (size_t)mmx_mesh_nverts(ho) * sizeof(float)) == 0 &&
                         hr.rounds == a.rep.rounds && hr.collapses == a.rep.collapses &&
                         hr.max_error == a.rep.max_error;
        printf("  host  mmx_simplify %10.2f ms (one run, one thread); CUDA %.1fx faster; identical "
               "output bytes and report: %s\n", h_ms, h_ms / cu_ms, same ? "yes" : "NO");
        mmx_mesh_free(ho);
    } else {
        printf("  host  skipped (--host-max)\n");
    }
    /* The peers, each against its target (issue 31): 100x CGAL, 20x the fastest CPU peer. */
    const struct {
        const char *name, *prog, *flag;
        double target;
    } peers[2] = {{"CGAL  edge_collapse (Garland-Heckbert)", cgal_prog, "--cgal", 100},
                  {"meshoptimizer meshopt_simplify", meshopt_prog, "--meshopt", 20}};
    for (int k = 0; k < 2; k++) {
        if (!peers[k].prog) {
            printf("  %s not run (no %s)\n", peers[k].name, peers[k].flag);
            continue;
        }
        mmx_mesh *pr = NULL;
        const double p_ms = peer(peers[k].prog, host, nef, (long)a.rep.target_faces, &pr);
        if (p_ms >= 0 && pr)
            printf("  %s %10.2f ms (one thread): %d faces, Hausdorff %.3e -> ours %.1fx faster; "
                   "target %gx: %s\n", peers[k].name, p_ms, (int)mmx_mesh_nfaces(pr),
                   hausdorff(cuda, nef, pr), p_ms / cu_ms, peers[k].target,
                   p_ms / cu_ms >= peers[k].target ? "met" : "NOT met");
        else
            printf("  %s failed to run %s\n", peers[k].name, peers[k].prog);
        mmx_mesh_free(pr);
    }
    if (out_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.obj", out_dir, name);
        BU_MMX(host, mmx_mesh_write(host, nef, path, MMX_FORMAT_OBJ));
        snprintf(path, sizeof path, "%s/%s_mmx.obj", out_dir, name);
        BU_MMX(host, mmx_mesh_write(host, back, path, MMX_FORMAT_OBJ));
    }
    mmx_mesh_free(back);
    mmx_mesh_free(a.out);
    mmx_mesh_free(d);
}

static void usage(void)
{
    fprintf(stderr, "usage: simplify MESHES [--ratio R] [--reps N] [--max L] [--host-max L] "
                    "[--cgal PATH] [--meshopt PATH] [--out DIR]\n  MESHES: a folder with models/nefertiti.obj\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *cgal_prog = NULL, *meshopt_prog = NULL, *out_dir = NULL;
    int reps = 3, max = 3, host_max = 1;
    double ratio = 0.1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) usage();
        } else if (!strcmp(argv[i], "--ratio") && i + 1 < argc) {
            ratio = atof(argv[++i]);
            if (!(ratio > 0 && ratio <= 1)) usage();
        } else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
            max = atoi(argv[++i]);
            if (max < 0 || max > 3) usage();
        } else if (!strcmp(argv[i], "--host-max") && i + 1 < argc) {
            host_max = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--cgal") && i + 1 < argc) {
            cgal_prog = argv[++i];
        } else if (!strcmp(argv[i], "--meshopt") && i + 1 < argc) {
            meshopt_prog = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            usage();
        }
    }
    if (!dir) usage();
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "simplify: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    char gpu[300], date[64];
    bu_gpu_name(gpu, sizeof gpu);
    bu_date(date, sizeof date);
    printf("simplify (QEM edge collapses to %g of the faces), %s\nGPU: %s\n", ratio, date, gpu);
    bu_nef it = BU_NEF_START;
    for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, max, &it));) {
        const int l = it.level;
        const char *name = it.name;
        measure(host, cuda, name, nef, ratio, reps, l <= host_max, cgal_prog, meshopt_prog, out_dir);
        fflush(stdout);
    }
    mmx_ctx_free(cuda);
    mmx_ctx_free(host);
    return 0;
}
