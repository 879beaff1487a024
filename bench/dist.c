/* Strong scaling of the partitioned mesh (dist.h) on the host backend: run it under
 * `mpirun -n R` for R = 1, 2, 4 and compare the rows (parallel efficiency = T1 / (R TR)).
 *   mpirun -n R dist_scaling MESHES [--cc L1,L2,..] [--taubin S] [--iterations N] [--repeats K]
 * MESHES holds models/nefertiti.obj. Rows:
 *   - Catmull-Clark of nefertiti to each level L (default 1,2,3; the 3,4,5 need
 *     tens of GB on the host at level 5): the partition's set-up (one ring), the refinement
 *     (max over the ranks), the gather on rank 0, the whole call, the owned and local faces
 *     after refinement (local / owned: the ghosts' extra work), the bytes gathered; R = 1 also
 *     times mmx_subdivide of the whole (the single process).
 *   - Taubin x N (default 100) on nefertiti refined S times by Loop (default 2; S = 3 has
 *     nef3's sizes, 6.4M triangles): the call, the exchange time and bytes, the halo (vertices
 *     received per exchange, over the ranks) against the owned vertices.
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    if (argc < 2) {
        if (!me) fprintf(stderr, "usage: mpirun -n R dist_scaling MESHES [--cc L1,L2,..] [--taubin S] "
                                 "[--iterations N] [--repeats K]\n");
        MPI_Finalize();
        return 2;
    }
    const char *cc = "1,2,3";
    int split = 2, iters = 100, reps = 3;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cc")) cc = argv[i + 1];
        else if (!strcmp(argv[i], "--taubin")) split = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--iterations")) iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeats")) reps = atoi(argv[i + 1]);
    }
    if (reps < 1) reps = 1;
    mmx_ctx *ctx = NULL;
    mmx_dist *d = NULL;
    if (mmx_ctx_create(&ctx)) MPI_Abort(MPI_COMM_WORLD, 1);
    DIE(ctx, mmx_dist_create(ctx, NULL, &d));
    char path[4096];
    snprintf(path, sizeof path, "%s/models/nefertiti.obj", argv[1]);
    mmx_mesh *nef = NULL;
    DIE(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &nef));
    double *t = malloc((size_t)reps * 4 * sizeof *t);
    if (!me)
        printf("# dist: %d rank%s, host backend, nefertiti %d vertices %d faces; times in ms "
               "(median of %d, slowest rank)\n", R, R == 1 ? "" : "s", (int)mmx_mesh_nverts(nef),
               (int)mmx_mesh_nfaces(nef), reps);
    if (!me)
        printf("%-5s %-3s %7s %10s %10s %10s %10s %12s %12s %12s %10s\n", "ranks", "L", "setup",
               "refine", "gather", "total", "single", "faces", "local/owned", "gathered_B", "halo_v");
    for (const char *p = cc; *p;) {
        const int L = atoi(p);
        double setup = 0;
        mmx_dist_mesh *dm = NULL;
        double t0 = bc_now_ms();
        DIE(ctx, mmx_dist_mesh_create(ctx, d, nef, NULL, mmx_dist_rings("subdiv:1"), &dm));
        setup = max_all(bc_now_ms() - t0);
        mmx_dist_subdiv_report rep;
        long long faces = 0, local = 0, owned = 0, bytes = 0;
        for (int k = 0; k < reps; k++) {
            mmx_mesh *out = NULL;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = bc_now_ms();
            DIE(ctx, mmx_dist_subdivide(ctx, dm, MMX_SCHEME_CATMULL_CLARK, L, NULL, &out, &rep));
            t[k] = max_all(bc_now_ms() - t0);
            t[reps + k] = max_all(rep.refine_ms);
            t[2 * reps + k] = max_all(rep.gather_ms);
            if (out) faces = mmx_mesh_nfaces(out);
            mmx_mesh_free(out);
        }
        local = sum_all(rep.local_faces), owned = sum_all(rep.owned_faces);
        bytes = sum_all(rep.gathered_bytes);
        mmx_dist_info in;
        mmx_dist_mesh_info(dm, &in);
        const long long halo = sum_all(in.halo_recv_verts);
        double single = -1;
        if (R == 1) {
            for (int k = 0; k < reps; k++) {
                mmx_mesh *out = NULL;
                t0 = bc_now_ms();
                DIE(ctx, mmx_subdivide(ctx, MMX_SCHEME_CATMULL_CLARK, nef, L, NULL, &out));
                t[3 * reps + k] = bc_now_ms() - t0;
                mmx_mesh_free(out);
            }
            single = bc_median(t + 3 * reps, reps);
        }
        const double total = bc_median(t, reps), refine = bc_median(t + reps, reps),
                     gather = bc_median(t + 2 * reps, reps);
        if (!me)
            printf("%-5d cc%-1d %7.1f %10.1f %10.1f %10.1f %10.1f %12lld %12.3f %12lld %10lld\n", R,
                   L, setup, refine, gather, total, single, faces,
                   owned ? (double)local / (double)owned : 0.0, bytes, halo);
        mmx_dist_mesh_free(dm);
        while (*p && *p != ',') p++;
        if (*p == ',') p++;
    }
    /* Taubin on nefertiti refined `split` times by Loop. */
    mmx_mesh *big = NULL;
    DIE(ctx, mmx_subdivide(ctx, MMX_SCHEME_LOOP, nef, split, NULL, &big));
    mmx_dist_mesh *dm = NULL;
    double t0 = bc_now_ms();
    DIE(ctx, mmx_dist_mesh_create(ctx, d, big, NULL, mmx_dist_rings("smooth:taubin"), &dm));
    const double setup = max_all(bc_now_ms() - t0);
    const mmx_index nl = mmx_mesh_nverts(mmx_dist_mesh_local(dm));
    float *x = malloc(3 * (size_t)nl * sizeof *x + 4);
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    o.iterations = iters;
    double exch = 0;
    for (int k = 0; k < reps; k++) {
        mmx_dist_info before, after;
        mmx_dist_mesh_info(dm, &before);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bc_now_ms();
        DIE(ctx, mmx_dist_smooth(ctx, dm, &o, x, NULL));
        t[k] = max_all(bc_now_ms() - t0);
        mmx_dist_mesh_info(dm, &after);
        t[reps + k] = max_all(after.exchange_ms - before.exchange_ms);
    }
    const double total = bc_median(t, reps);
    exch = bc_median(t + reps, reps);
    mmx_dist_info in;
    mmx_dist_mesh_info(dm, &in);
    const long long halo = sum_all(in.halo_recv_verts), bytes = sum_all(in.exchanged_bytes);
    double single = -1;
    if (R == 1) {
        float *y = malloc(3 * (size_t)mmx_mesh_nverts(big) * sizeof *y);
        for (int k = 0; k < reps; k++) {
            t0 = bc_now_ms();
            DIE(ctx, mmx_smooth(ctx, big, &o, y, NULL));
            t[2 * reps + k] = bc_now_ms() - t0;
        }
        single = bc_median(t + 2 * reps, reps);
        free(y);
    }
    if (!me) {
        printf("%-5s %-9s %9s %10s %10s %10s %12s %12s %14s\n", "ranks", "taubin", "setup", "total",
               "exchange", "single", "vertices", "halo_v", "bytes/iter");
        printf("%-5d x%-3d nef%d %9.1f %10.1f %10.1f %10.1f %12lld %12lld %14.0f\n", R, iters, split,
               setup, total, exch, single, (long long)in.global_verts, halo,
               (double)bytes / (double)(reps * (iters > 0 ? iters : 1)));
    }
    free(x), free(t);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(big);
    mmx_mesh_free(nef);
    mmx_dist_free(d);
    mmx_ctx_free(ctx);
    MPI_Finalize();
    return 0;
}
