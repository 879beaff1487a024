/* Isotropic remeshing on the GPU (issue 16): mmx_remesh on nef0..nef2 on CUDA, beside the host
 * reference (the same output bytes checked), CGAL's isotropic_remeshing on the CPU and
 * RXMesh's figures.
 *
 *   remesh MESHES [--csv FILE] [--reps N] [--max L] [--host-max L] [--cgal PATH]
 *
 * MESHES holds models/nefertiti.obj; nef0..nef3 are nefertiti split 0..3 times by edge
 * midpoints (bu_split4, as bench/dynamic.c and bench/queries.c make them). --max L stops at
 * nefL (default 2: RXMesh's figures stop there); --host-max L runs the host reference on
 * nef0..nefL (default 0; the host takes seconds to minutes); --cgal PATH runs that build of
 * bench/cgal_remesh.cpp (bench/cgal_static.sh makes one that runs on a machine without CGAL)
 * on each mesh written to a temporary OBJ file.
 *
 * Every run: the defaults of mmx_remesh_defaults (L the mean edge length, 3 iterations,
 * features over 60 degrees and the boundary kept), the same for CGAL.
 *
 * On CUDA: mmx_remesh from a mesh already in device memory, the median of N whole calls
 * (default 3) after one warm-up, between CUDA events on the context's stream (the call waits
 * where it must read a count, so the events bracket all of it). The call's set-up (the
 * working copy, its validation, the features, the mean length, the BVH over the input) runs
 * on the device too; the report's per-iteration times (CUDA events around each step) give the
 * rounds alone, and the set-up is the rest. Per iteration and step: rounds, cavities proposed (seeds that passed
 * the step's rules) and kept, and time.
 *
 * Patches kept current (issue 28): the same call with opts->patches, the input's patch set
 * (built before each call, not timed) updated after every round, against the call without,
 * both timed alike (the host clock around the call and a final wait, the median of N after
 * one warm-up of each, interleaved); the row gives both, the extra per round, and the
 * target "at most 10% more". The kept set's figures follow (patches, mean faces, bytes per
 * face), then the updates (rounds), how many ran incrementally, the share of the patches an
 * update rebuilt (dirty) and the extra time per update; with --host-max the same on the host
 * (one call each way) and its arrays are checked against the host's.
 *
 * Peers. RXMesh's remeshing, 3 iterations, on the same GPU model (DESIGN.md, H200): nef0
 * 1.47 s, nef1 2.27 s, nef2 5.90 s; the targets are 10x faster than RXMesh and 100x faster
 * than CGAL (one CPU thread, isotropic_remeshing alone, after detect_sharp_edges). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "bench_clock.h"

static const double rxmesh_ms[3] = {1470, 2270, 5900};

typedef struct remesh_arg {
    mmx_ctx *ctx;
    const mmx_mesh *in;
    mmx_mesh *out;
    mmx_remesh_report rep;
} remesh_arg;

static int run_remesh(void *p)
{
    remesh_arg *a = p;
    mmx_mesh_free(a->out);
    a->out = NULL;
    return mmx_remesh(a->ctx, a->in, NULL, &a->out, &a->rep) != MMX_OK;
}

/* CGAL's isotropic remeshing of `m` with length L: its remesh_ms (and detect_ms) from the
 * program's JSON line; -1 where it fails. */
static double cgal(const char *prog, mmx_ctx *host, const mmx_mesh *m, double L, double *detect_ms,
                   long *out_faces)
{
    char in[256], out[256], cmd[1024], line[4096];
    snprintf(in, sizeof in, "/tmp/mmx_bench_remesh_%d_in.obj", (int)getpid());
    snprintf(out, sizeof out, "/tmp/mmx_bench_remesh_%d_out.obj", (int)getpid());
    if (mmx_mesh_write(host, m, in, MMX_FORMAT_OBJ)) {
        fprintf(stderr, "remesh: cannot write %s: %s\n", in, mmx_ctx_error(host));
        return -1;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %.17g 3 60", prog, in, out, L);
    FILE *p = popen(cmd, "r");
    double ms = -1;
    *detect_ms = -1;
    *out_faces = -1;
    if (p) {
        while (fgets(line, sizeof line, p)) {
            const char *r = strstr(line, "\"remesh_ms\":"), *d = strstr(line, "\"detect_ms\":");
            const char *f = strstr(line, "\"output\": {\"vertices\":");
            if (r) sscanf(r + 12, "%lf", &ms);
            if (d) sscanf(d + 12, "%lf", detect_ms);
            if (f && (f = strstr(f, "\"faces\":"))) sscanf(f + 8, "%ld", out_faces);
        }
        if (pclose(p) != 0) ms = -1;
    }
    remove(in);
    remove(out);
    return ms;
}

static void print_iterations(const char *who, const char *name, const mmx_remesh_report *r,
                             FILE *csv)
{
    static const char *const step[4] = {"split", "collapse", "flip", "relax"};
    for (int i = 0; i < r->iterations; i++) {
        const mmx_remesh_iteration *it = &r->per_iteration[i];
        const int rounds[4] = {it->split_rounds, it->collapse_rounds, it->flip_rounds, it->relax_rounds};
        const long long seeds[4] = {it->split_seeds, it->collapse_seeds, it->flip_seeds, it->move_seeds};
        const long long kept[4] = {it->splits, it->collapses, it->flips, it->moves};
        const double ms[4] = {it->split_ms, it->collapse_ms, it->flip_ms, it->relax_ms};
        printf("  %-5s iteration %d: %8.2f ms, %d vertices, %d faces\n", who, i, it->ms,
               (int)it->nverts, (int)it->nfaces);
        for (int k = 0; k < 4; k++) {
            printf("        %-8s %3d rounds %9lld proposed %9lld kept %9.2f ms (%.3f ms per round)\n",
                   step[k], rounds[k], seeds[k], kept[k], ms[k], rounds[k] ? ms[k] / rounds[k] : 0);
            if (csv)
                fprintf(csv, "%s,%s,%d,%s,%d,%lld,%lld,%.4f\n", name, who, i, step[k], rounds[k],
                        seeds[k], kept[k], ms[k]);
        }
    }
}

/* One call of mmx_remesh on ctx, with the input's patch set kept current when `kept` (built
 * before the clock starts; its figures into *pst, the set into *keep when keep is not NULL),
 * timed by the host clock around the call and a final wait. */
static double one_call(mmx_ctx *ctx, const mmx_mesh *in, int kept, mmx_remesh_report *rep,
                       mmx_patch_stats *pst, mmx_patch_set **keep)
{
    mmx_patch_set *ps = NULL;
    mmx_remesh_options o = mmx_remesh_defaults();
    if (kept) BU_MMX(ctx, mmx_patch_set_create(ctx, in, NULL, NULL, &ps));
    BU_MMX(ctx, mmx_ctx_sync(ctx));
    o.patches = ps;
    mmx_mesh *out = NULL;
    const double t0 = bc_now_ms();
    BU_MMX(ctx, mmx_remesh(ctx, in, &o, &out, rep));
    BU_MMX(ctx, mmx_ctx_sync(ctx));
    const double ms = bc_now_ms() - t0;
    if (ps) BU_MMX(ctx, mmx_patch_set_stats(ctx, ps, pst));
    mmx_mesh_free(out);
    if (keep) *keep = ps;
    else mmx_patch_set_free(ps);
    return ms;
}

/* The face owners of a set of either space, in host memory (malloc'd). */
static mmx_index *owners(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index nfaces)
{
    mmx_index *fp = malloc(((size_t)nfaces + 1) * sizeof *fp);
    mmx_index *tmp = NULL;
    if (!fp) exit(1);
    if (mmx_ctx_space(ctx) == MMX_SPACE_DEVICE)
        BU_MMX(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ((size_t)nfaces + 1) * sizeof *tmp, (void **)&tmp));
    BU_MMX(ctx, mmx_patch_set_face_patch(ctx, ps, tmp ? tmp : fp));
    if (tmp) BU_MMX(ctx, mmx_mem_copy(ctx, fp, MMX_SPACE_HOST, tmp, MMX_SPACE_DEVICE, (size_t)nfaces * sizeof *fp));
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, tmp);
    return fp;
}

/* The row "remeshing with patches kept current" against the same call without. */
static void measure_kept(mmx_ctx *host, mmx_ctx *cuda, const char *name, const mmx_mesh *nef,
                         const mmx_mesh *d, int reps, int with_host, FILE *csv)
{
    double with[64], without[64];
    if (reps > 64) reps = 64;
    mmx_remesh_report rep;
    mmx_patch_stats pst;
    one_call(cuda, d, 0, &rep, &pst, NULL); /* warm-ups */
    one_call(cuda, d, 1, &rep, &pst, NULL);
    for (int r = 0; r < reps; r++) {
        without[r] = one_call(cuda, d, 0, &rep, &pst, NULL);
        with[r] = one_call(cuda, d, 1, &rep, &pst, NULL);
    }
    const double w = bc_median(with, reps), wo = bc_median(without, reps);
    int rounds = 0;
    for (int i = 0; i < rep.iterations; i++) {
        const mmx_remesh_iteration *it = &rep.per_iteration[i];
        rounds += it->split_rounds + it->collapse_rounds + it->flip_rounds + it->relax_rounds;
    }
    const double extra = 100.0 * (w - wo) / wo;
    printf("  cuda  remeshing with patches kept current %10.2f ms vs %.2f ms without (median of %d, "
           "host clock): %+.1f%%, %.3f ms more per round (%d rounds); target at most +10%%: %s\n",
           w, wo, reps, extra, (w - wo) / (rounds ? rounds : 1), rounds, extra <= 10 ? "met" : "NOT met");
    printf("        the kept set: %d patches, %d .. %d faces (mean %.1f), %.1f bytes per face\n",
           (int)pst.npatches, (int)pst.min_faces, (int)pst.max_faces, pst.mean_faces,
           pst.bytes_per_face);
    bu_patch_updates("cuda", &pst, w - wo);
    int same = -1;
    if (with_host) { /* the kept sets of both backends: the same owners */
        mmx_patch_set *hs = NULL, *ds = NULL;
        mmx_remesh_report hr;
        mmx_patch_stats hst;
        /* The host's incremental update, one call each way (the host takes seconds). */
        const double hwo = one_call(host, nef, 0, &hr, &hst, NULL);
        const double hw = one_call(host, nef, 1, &hr, &hst, &hs);
        printf("  host  remeshing with patches kept current %10.2f ms vs %.2f ms without (one "
               "run each): %+.1f%%\n", hw, hwo, 100.0 * (hw - hwo) / hwo);
        bu_patch_updates("host", &hst, hw - hwo);
        one_call(cuda, d, 1, &rep, &pst, &ds);
        const mmx_index F = hr.per_iteration[hr.iterations ? hr.iterations - 1 : 0].nfaces;
        mmx_index *a = owners(host, hs, F), *b = owners(cuda, ds, F);
        same = hst.npatches == pst.npatches && memcmp(a, b, (size_t)F * sizeof *a) == 0;
        printf("        the same kept set (owners of every face), host and CUDA: %s\n", same ? "yes" : "NO");
        free(a), free(b);
        mmx_patch_set_free(hs), mmx_patch_set_free(ds);
    }
    if (csv)
        fprintf(csv, "%s,kept,patches,%.4f,%.4f,%d,%d,%.4f,%d\n", name, w, wo, rounds,
                (int)pst.npatches, pst.bytes_per_face, same);
}

static double iterations_ms(const mmx_remesh_report *r)
{
    double ms = 0;
    for (int i = 0; i < r->iterations; i++) ms += r->per_iteration[i].ms;
    return ms;
}

static void measure(mmx_ctx *host, mmx_ctx *cuda, const char *name, int level,
                    const mmx_mesh *nef, int reps, int with_host, const char *cgal_prog, FILE *csv)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(cuda);
    mmx_mesh *d = NULL;
    BU_MMX(cuda, mmx_mesh_copy(cuda, nef, MMX_SPACE_DEVICE, &d));
    remesh_arg a;
    memset(&a, 0, sizeof a);
    a.ctx = cuda, a.in = d;
    const double cu_ms = bu_time(st, 1, reps, run_remesh, &a);
    if (cu_ms < 0) {
        fprintf(stderr, "remesh: %s: mmx_remesh on CUDA failed: %s\n", name, mmx_ctx_error(cuda));
        exit(1);
    }
    const double it_ms = iterations_ms(&a.rep);
    printf("\n%s: %d vertices, %d triangles; L %.6g, %d feature edges, %d fixed vertices\n", name,
           (int)mmx_mesh_nverts(nef), (int)mmx_mesh_nfaces(nef), a.rep.target_length,
           (int)a.rep.feature_edges, (int)a.rep.feature_verts);
    printf("  cuda  mmx_remesh %10.2f ms (whole call, median of %d): rounds %.2f ms + set-up %.2f ms; "
           "output %d faces\n", cu_ms, reps, it_ms, cu_ms - it_ms, (int)mmx_mesh_nfaces(a.out));
    print_iterations("cuda", name, &a.rep, csv);
    const double rx = rxmesh_ms[level];
    printf("  RXMesh (H200)    %10.2f ms  -> ours %.1fx faster (whole call), %.1fx (rounds); "
           "target 10x (<= %.1f ms): %s (whole call), %s (rounds)\n", rx, rx / cu_ms, rx / it_ms,
           rx / 10, cu_ms <= rx / 10 ? "met" : "NOT met", it_ms <= rx / 10 ? "met" : "NOT met");
    double h_ms = -1, c_ms = -1, c_detect = -1;
    int same = -1;
    if (with_host) {
        mmx_mesh *ho = NULL, *back = NULL;
        mmx_remesh_report hr;
        const double t0 = bc_now_ms();
        BU_MMX(host, mmx_remesh(host, nef, NULL, &ho, &hr));
        h_ms = bc_now_ms() - t0;
        BU_MMX(cuda, mmx_mesh_copy(cuda, a.out, MMX_SPACE_HOST, &back));
        same = mmx_mesh_nverts(ho) == mmx_mesh_nverts(back) &&
               mmx_mesh_nfaces(ho) == mmx_mesh_nfaces(back) &&
               memcmp(ho->M->rowidx, back->M->rowidx, 3 * (size_t)mmx_mesh_nfaces(ho) * sizeof(mmx_index)) == 0 &&
               memcmp(ho->pos, back->pos, 3 * (size_t)mmx_mesh_nverts(ho) * sizeof(float)) == 0;
        for (int i = 0; same && i < hr.iterations; i++) {
            const mmx_remesh_iteration *x = &hr.per_iteration[i], *y = &a.rep.per_iteration[i];
            same = x->splits == y->splits && x->collapses == y->collapses && x->flips == y->flips &&
                   x->moves == y->moves && x->split_rounds == y->split_rounds &&
                   x->collapse_rounds == y->collapse_rounds && x->flip_rounds == y->flip_rounds &&
                   x->relax_rounds == y->relax_rounds;
        }
        printf("  host  mmx_remesh %10.2f ms (one run, one thread); CUDA %.1fx faster\n", h_ms,
               h_ms / cu_ms);
        printf("  identical output bytes and per-iteration counts, host and CUDA: %s\n",
               same ? "yes" : "NO");
        print_iterations("host", name, &hr, csv);
        mmx_mesh_free(ho);
        mmx_mesh_free(back);
    } else {
        printf("  host  skipped (--host-max)\n");
    }
    if (cgal_prog) {
        long faces = -1;
        c_ms = cgal(cgal_prog, host, nef, a.rep.target_length, &c_detect, &faces);
        if (c_ms >= 0)
            printf("  CGAL isotropic_remeshing %10.2f ms (one run, one thread; detect_sharp_edges "
                   "%.2f ms more), output %ld faces -> ours %.1fx faster (whole call); target "
                   "100x: %s\n", c_ms, c_detect, faces, c_ms / cu_ms,
                   c_ms / cu_ms >= 100 ? "met" : "NOT met");
        else
            printf("  CGAL  failed to run %s\n", cgal_prog);
    } else {
        printf("  CGAL  not run (no --cgal)\n");
    }
    if (csv)
        fprintf(csv, "%s,all,total,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d\n", name, cu_ms, it_ms, h_ms,
                c_ms, rx, same, (int)mmx_mesh_nfaces(a.out));
    measure_kept(host, cuda, name, nef, d, reps, with_host, csv);
    mmx_mesh_free(a.out);
    mmx_mesh_free(d);
}

static void usage(void)
{
    fprintf(stderr, "usage: remesh MESHES [--csv FILE] [--reps N] [--max L] [--host-max L] "
                    "[--cgal PATH]\n  MESHES: a folder with models/nefertiti.obj\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *cgal_prog = NULL;
    int reps = 3, max = 2, host_max = 0;
    FILE *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) usage();
        } else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
            max = atoi(argv[++i]);
            if (max < 0 || max > 2) usage();
        } else if (!strcmp(argv[i], "--host-max") && i + 1 < argc) {
            host_max = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--cgal") && i + 1 < argc) {
            cgal_prog = argv[++i];
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) {
                fprintf(stderr, "remesh: cannot write %s\n", argv[i]);
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
        fprintf(stderr, "remesh: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    char gpu[300], date[64];
    bu_gpu_name(gpu, sizeof gpu);
    bu_date(date, sizeof date);
    printf("remesh (isotropic remeshing, 3 iterations, L = the mean edge length, features over "
           "60 degrees), %s\nGPU: %s\n", date, gpu);
    if (csv)
        fprintf(csv, "# gpu: %s\n# date: %s\n# rows: mesh,backend,iteration,step,rounds,proposed,"
                     "kept,ms | mesh,all,total,cuda_ms,cuda_rounds_ms,host_ms,cgal_ms,rxmesh_ms,"
                     "identical,faces | mesh,kept,patches,with_ms,without_ms,rounds,patches,"
                     "bytes_per_face,identical\n", gpu, date);
    bu_nef it = BU_NEF_START;
    for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, max, &it));) {
        const int l = it.level;
        const char *name = it.name;
        measure(host, cuda, name, l, nef, reps, l <= host_max, cgal_prog, csv);
        fflush(stdout);
    }
    if (csv) fclose(csv);
    mmx_ctx_free(cuda);
    mmx_ctx_free(host);
    return 0;
}
