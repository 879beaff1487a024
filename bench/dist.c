/* Strong scaling of the partitioned mesh (dist.h), on the host or with --cuda one GPU per rank:
 * run it under `mpirun -n R` for R = 1, 2, 4 and compare the rows (parallel efficiency =
 * T1 / (R TR); given the R = 1 times with --t1, each row prints it).
 *   mpirun -n R dist_scaling MESHES [--cuda] [--cc L1,L2,..] [--loop L1,..] [--taubin S]
 *                                   [--iterations N] [--repeats K] [--no-gather] [--no-single]
 *                                   [--write DIR] [--t1 cc5=MS,loop5=MS,taubin=MS]
 * MESHES holds models/nefertiti.obj. Rows:
 *   - Catmull-Clark (--cc, default 1,2,3) and Loop (--loop, default none) of nefertiti to each
 *     level L (the figures: --cc 5 --loop 5 on the GPUs; on the host level 5 needs
 *     tens of GB): the partition's set-up (one ring), the refinement (max over the ranks: on
 *     CUDA the device's time, the stream waited for before and after), the gather on rank 0
 *     (naming, gathers, assembly; 0 with --no-gather), the whole call, the owned and local
 *     faces after refinement (local / owned: the ghosts' extra work), the bytes gathered, the
 *     halo's vertices; subdivision exchanges nothing (exch_B 0: one ghost ring serves every
 *     level); R = 1 also times mmx_subdivide of the whole (the single process; --no-single
 *     skips it, as for a level no single GPU holds). --no-gather refines only (the capacity
 *     row: --cc 7 --no-gather over 4 GPUs, 1.2 billion quads, never on one rank). --write DIR
 *     writes the result instead, every rank its share with the single process's numbers
 *     (mmx_dist_subdivide_write, DIR/dist_ccL.ply, removed after each repeat): the gather
 *     column is then the numbering and the writing (--cc 7 --write DIR: the file no single
 *     process writes, about 35 GB of PLY).
 *   - Taubin x N (default 100) on nefertiti refined S times by Loop (default 3: nef3, 6.4M
 *     triangles): the call, the exchange time (max over the ranks), the bytes sent per
 *     exchange against the floor (12 bytes per halo vertex: each ghost received once), the
 *     halo against the vertices.
 * Times are medians of K repeats (default 3), each the slowest rank's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "meshmatrix.h"
#include "meshmatrix/dist.h"
#include "bench_clock.h"

static int me, R;

#define DIE(ctx, call)                                                                        \
    do {                                                                                      \
        mmx_status s_ = (call);                                                               \
        if (s_) {                                                                             \
            fprintf(stderr, "rank %d: %s: %s\n", me, #call, mmx_ctx_error(ctx));              \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
        }                                                                                     \
    } while (0)

static double max_all(double v)
{
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}
static long long sum_all(long long v)
{
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return v;
}

/* The R = 1 time of `key` from --t1 ("cc5=12.3,loop5=20,taubin=100"), -1 if not given. */
static double t1_of(const char *t1, const char *key)
{
    const size_t n = strlen(key);
    for (const char *p = t1; p && *p;) {
        if (!strncmp(p, key, n) && p[n] == '=') return atof(p + n + 1);
        p = strchr(p, ',');
        if (p) p++;
    }
    return -1;
}

/* Parallel efficiency T1 / (R TR) in percent, or -1. */
static double efficiency(double t1, double tr)
{
    return t1 > 0 && tr > 0 ? 100.0 * t1 / ((double)R * tr) : -1;
}

/* The single process's refinement, on the context's backend (the whole mesh copied to the
 * device first, outside the time; the stream waited for around the call). */
static double single_subdiv(mmx_ctx *ctx, const mmx_mesh *nef, mmx_scheme scheme, int L, int reps,
                            double *t)
{
    const mmx_mesh *in = nef;
    mmx_mesh *dev = NULL;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) {
        DIE(ctx, mmx_mesh_copy(ctx, nef, MMX_SPACE_DEVICE, &dev));
        in = dev;
    }
    for (int k = 0; k < reps; k++) {
        mmx_mesh *out = NULL;
        DIE(ctx, mmx_ctx_sync(ctx));
        const double t0 = bc_now_ms();
        DIE(ctx, mmx_subdivide(ctx, scheme, in, L, NULL, &out));
        DIE(ctx, mmx_ctx_sync(ctx));
        t[k] = bc_now_ms() - t0;
        mmx_mesh_free(out);
    }
    mmx_mesh_free(dev);
    return bc_median(t, reps);
}

typedef struct opts {
    int reps, gather, single;
    const char *t1;
    const char *write; /* --write DIR: the result written by every rank (PLY), not gathered */
} opts;

static void subdiv_rows(mmx_ctx *ctx, mmx_dist *d, const mmx_mesh *nef, mmx_scheme scheme,
                        const char *levels, const opts *o, double *t)
{
    const int reps = o->reps;
    for (const char *p = levels; p && *p;) {
        const int L = atoi(p);
        mmx_dist_mesh *dm = NULL;
        double t0 = bc_now_ms();
        DIE(ctx, mmx_dist_mesh_create(ctx, d, nef, NULL, mmx_dist_rings("subdiv:1"), &dm));
        const double setup = max_all(bc_now_ms() - t0);
        mmx_dist_subdiv_report rep;
        long long faces = 0;
        for (int k = 0; k < reps; k++) {
            mmx_mesh *out = NULL;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = bc_now_ms();
            if (o->write) {
                /* every rank writes its share with the single process's numbers: the
                 * "gather" column is the numbering and the writing */
                char wp[4200];
                snprintf(wp, sizeof wp, "%s/dist_%s%d.ply", o->write,
                         scheme == MMX_SCHEME_LOOP ? "loop" : "cc", L);
                int64_t b = 0;
                DIE(ctx, mmx_dist_subdivide_write(ctx, dm, scheme, L, NULL, wp, MMX_FORMAT_PLY, &b, &rep));
                faces = rep.written_faces;
                MPI_Barrier(MPI_COMM_WORLD);
                if (!me) remove(wp);
            } else {
                DIE(ctx, mmx_dist_subdivide(ctx, dm, scheme, L, NULL, o->gather ? &out : NULL, &rep));
            }
            t[k] = max_all(bc_now_ms() - t0);
            t[reps + k] = max_all(rep.refine_ms);
            t[2 * reps + k] = max_all(rep.gather_ms);
            if (out) faces = mmx_mesh_nfaces(out);
            mmx_mesh_free(out);
        }
        const long long local = sum_all(rep.local_faces), owned = sum_all(rep.owned_faces);
        const long long bytes = sum_all(rep.gathered_bytes);
        if (!o->gather && !o->write) faces = owned;
        mmx_dist_info in;
        mmx_dist_mesh_info(dm, &in);
        const long long halo = sum_all(in.halo_recv_verts);
        double single = -1;
        if (R == 1 && o->single) single = single_subdiv(ctx, nef, scheme, L, reps, t + 3 * reps);
        const double total = bc_median(t, reps), refine = bc_median(t + reps, reps),
                     gather = bc_median(t + 2 * reps, reps);
        char key[32];
        snprintf(key, sizeof key, "%s%d", scheme == MMX_SCHEME_LOOP ? "loop" : "cc", L);
        const double eff = efficiency(t1_of(o->t1, key), refine);
        if (!me)
            printf("%-5d %-6s %7.1f %10.2f %10.1f %10.1f %10.2f %12lld %11.3f %8.3f %12lld %10lld %7d %6.1f\n",
                   R, key, setup, refine, gather, total, single, faces,
                   refine > 0 ? 1e6 * refine / (double)owned : 0.0,
                   owned ? (double)local / (double)owned : 0.0, bytes, halo, 0, eff);
        mmx_dist_mesh_free(dm);
        p = strchr(p, ',');
        if (p) p++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    if (argc < 2) {
        if (!me) fprintf(stderr, "usage: mpirun -n R dist_scaling MESHES [--cuda] [--cc L1,L2,..] "
                                 "[--loop L1,..] [--taubin S] [--iterations N] [--repeats K] "
                                 "[--no-gather] [--no-single] [--write DIR] "
                                 "[--t1 cc5=MS,loop5=MS,taubin=MS]\n");
        MPI_Finalize();
        return 2;
    }
    const char *cc = "1,2,3", *loop = "";
    int split = 3, iters = 100, cuda = 0;
    opts o = {3, 1, 1, NULL, NULL};
    for (int i = 2; i < argc; i++) {
        const int more = i + 1 < argc;
        if (!strcmp(argv[i], "--cuda")) cuda = 1;
        else if (!strcmp(argv[i], "--no-gather")) o.gather = 0;
        else if (!strcmp(argv[i], "--no-single")) o.single = 0;
        else if (more && !strcmp(argv[i], "--cc")) cc = argv[++i];
        else if (more && !strcmp(argv[i], "--loop")) loop = argv[++i];
        else if (more && !strcmp(argv[i], "--taubin")) split = atoi(argv[++i]);
        else if (more && !strcmp(argv[i], "--iterations")) iters = atoi(argv[++i]);
        else if (more && !strcmp(argv[i], "--repeats")) o.reps = atoi(argv[++i]);
        else if (more && !strcmp(argv[i], "--t1")) o.t1 = argv[++i];
        else if (more && !strcmp(argv[i], "--write")) o.write = argv[++i];
        else {
            if (!me) fprintf(stderr, "dist_scaling: unknown argument '%s'\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (o.reps < 1) o.reps = 1;
    const int reps = o.reps;
    mmx_ctx *ctx = NULL;
    mmx_dist *d = NULL;
    if (mmx_ctx_create(&ctx)) MPI_Abort(MPI_COMM_WORLD, 1);
    if (cuda) {
        /* One GPU per rank: the rank on its node, modulo the node's devices. */
        MPI_Comm node;
        int local = 0, count = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
        DIE(ctx, mmx_cuda_device_count(ctx, &count));
        DIE(ctx, mmx_ctx_use_cuda(ctx, count > 0 ? local % count : 0));
    }
    DIE(ctx, mmx_dist_create(ctx, NULL, &d));
    char path[4096];
    snprintf(path, sizeof path, "%s/models/nefertiti.obj", argv[1]);
    mmx_mesh *nef = NULL;
    mmx_ctx *hctx = NULL;
    /* Read on the host (a host mesh is what mmx_dist_mesh_create partitions). */
    if (mmx_ctx_create(&hctx)) MPI_Abort(MPI_COMM_WORLD, 1);
    DIE(hctx, mmx_mesh_read(hctx, path, MMX_FORMAT_AUTO, &nef));
    double *t = malloc((size_t)reps * 4 * sizeof *t);
    /* Which transport the exchanges use (the same on every rank). */
    const char *transport = "host (MPI)";
    if (cuda) {
        mmx_dist_mesh *probe = NULL;
        mmx_dist_info pi;
        DIE(ctx, mmx_dist_mesh_create(ctx, d, nef, NULL, 1, &probe));
        mmx_dist_mesh_info(probe, &pi);
        transport = pi.transport == MMX_DIST_NCCL ? "NCCL" : "pinned host staging + MPI";
        mmx_dist_mesh_free(probe);
    }
    if (!me) {
        printf("# dist: %d rank%s, %s backend%s, exchange by %s; nefertiti %d vertices %d faces; "
               "times in ms (median of %d, slowest rank)\n", R, R == 1 ? "" : "s",
               cuda ? "CUDA" : "host", cuda ? " (one GPU per rank)" : "", transport,
               (int)mmx_mesh_nverts(nef), (int)mmx_mesh_nfaces(nef), reps);
        printf("%-5s %-6s %7s %10s %10s %10s %10s %12s %11s %8s %12s %10s %7s %6s\n", "ranks",
               "level", "setup", "refine", "gather", "total", "single", "faces", "ns/face",
               "loc/own", "gathered_B", "halo_v", "exch_B", "eff%");
    }
    subdiv_rows(ctx, d, nef, MMX_SCHEME_CATMULL_CLARK, cc, &o, t);
    subdiv_rows(ctx, d, nef, MMX_SCHEME_LOOP, loop, &o, t);
    if (iters <= 0) goto done;
    /* Taubin on nefertiti refined `split` times by Loop (on the host: the partition's input). */
    mmx_mesh *big = NULL;
    DIE(hctx, mmx_subdivide(hctx, MMX_SCHEME_LOOP, nef, split, NULL, &big));
    mmx_dist_mesh *dm = NULL;
    double t0 = bc_now_ms();
    DIE(ctx, mmx_dist_mesh_create(ctx, d, big, NULL, mmx_dist_rings("smooth:taubin"), &dm));
    const double setup = max_all(bc_now_ms() - t0);
    const mmx_index nl = mmx_mesh_nverts(mmx_dist_mesh_local(dm));
    float *x = NULL;
    DIE(ctx, mmx_mem_alloc(ctx, mmx_ctx_space(ctx), 3 * (size_t)nl * sizeof *x + 4, (void **)&x));
    mmx_smooth_options so = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    so.iterations = iters;
    int exchanges = 0;
    for (int k = 0; k < reps; k++) {
        mmx_dist_info before, after;
        mmx_dist_mesh_info(dm, &before);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bc_now_ms();
        DIE(ctx, mmx_dist_smooth(ctx, dm, &so, x, NULL));
        DIE(ctx, mmx_ctx_sync(ctx));
        t[k] = max_all(bc_now_ms() - t0);
        mmx_dist_mesh_info(dm, &after);
        t[reps + k] = max_all(after.exchange_ms - before.exchange_ms);
        exchanges = after.exchanges - before.exchanges;
    }
    const double total = bc_median(t, reps), exch = bc_median(t + reps, reps);
    mmx_dist_info in;
    mmx_dist_mesh_info(dm, &in);
    const long long halo = sum_all(in.halo_recv_verts), bytes = sum_all(in.exchanged_bytes);
    double single = -1;
    if (R == 1 && o.single) {
        const mmx_mesh *wm = big;
        mmx_mesh *dev = NULL;
        float *y = NULL;
        if (cuda) {
            DIE(ctx, mmx_mesh_copy(ctx, big, MMX_SPACE_DEVICE, &dev));
            wm = dev;
        }
        DIE(ctx, mmx_mem_alloc(ctx, mmx_ctx_space(ctx), 3 * (size_t)mmx_mesh_nverts(big) * sizeof *y, (void **)&y));
        for (int k = 0; k < reps; k++) {
            DIE(ctx, mmx_ctx_sync(ctx));
            t0 = bc_now_ms();
            DIE(ctx, mmx_smooth(ctx, wm, &so, y, NULL));
            DIE(ctx, mmx_ctx_sync(ctx));
            t[2 * reps + k] = bc_now_ms() - t0;
        }
        single = bc_median(t + 2 * reps, reps);
        mmx_mem_free(ctx, mmx_ctx_space(ctx), y);
        mmx_mesh_free(dev);
    }
    if (!me) {
        const double per = (double)bytes / (double)(reps * (exchanges > 0 ? exchanges : 1));
        printf("%-5s %-11s %9s %10s %10s %10s %12s %10s %14s %14s %6s\n", "ranks", "taubin", "setup",
               "total", "exchange", "single", "vertices", "halo_v", "bytes/exch", "floor_B/exch", "eff%");
        printf("%-5d x%-4d nef%-2d %9.1f %10.1f %10.1f %10.1f %12lld %10lld %14.0f %14lld %6.1f\n", R,
               iters, split, setup, total, exch, single, (long long)in.global_verts, halo, per,
               12 * halo, efficiency(t1_of(o.t1, "taubin"), total));
    }
    mmx_mem_free(ctx, mmx_ctx_space(ctx), x);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(big);
done:
    free(t);
    mmx_mesh_free(nef);
    mmx_dist_free(d);
    mmx_ctx_free(hctx);
    mmx_ctx_free(ctx);
    MPI_Finalize();
    return 0;
}
