/* The latency of small cages on the CUDA backend, which decides interactive use (issue 12,
 * item 9): for every cage in MESHDIR/cages, one level of Catmull-Clark (the input level: the
 * input's adjacency, its checks and the first pass) and the full chain to `levels`, end to end
 * on the host's clock (the call, then mmx_ctx_sync: what an application waits), and the number
 * of times each call waits for the stream (mmx_subdivide, mmx_adjacency_compute). The cages'
 * tags (OBJ 't' lines: carT, rookT, ArmorGuyT have creases) are kept: the tags column counts
 * them. Every call but the first on a mesh finds the tags' entry in the mesh's cache (the tags
 * parsed and placed on the adjacency's edges: src/subdiv/tags_dev.c); the "first call" column
 * times the chain with that cache emptied before each call (mmx_mesh_release_cache), what an
 * application pays once per cage. A tagged cage has a second row, the same cage with its tags
 * removed (mmx_mesh_set_tags), for issue 30's ratio (tagged within 1.5x of untagged); bigguyT
 * and carT have one more row, with a hole on every 37th face added to their tags (issue 30,
 * item 1: the holes' removal on the device, its waits). The
 * plan columns (issue 30): a plan to the chain's levels (mmx_subdiv_plan_create with the tags),
 * then one frame, mmx_subdiv_plan_eval (one CUDA graph launch), on CUDA events, median of
 * REPS, against its floor (the control positions read and the last level's written, at the
 * copy bandwidth measured in the run) and their ratio (target 2x), and the waits of a frame
 * (0: nothing waits). OpenSubdiv's stencil evaluation is not linked here (bench/subdiv_fused
 * has it beside its plan rows).
 *
 * Usage: latency MESHDIR [--levels N] [--csv FILE]    (N: the chain's levels, default 6, fewer
 * for a cage whose chain would pass about 6M faces: bigguy's 1,450 quads take all 6)
 * Prints a Markdown table; exits 1 without a GPU or when a cage cannot be read. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_clock.h"
#include "bench_util.h"
#include "core/core_internal.h" /* mmx__ctx_syncs */
#include "meshmatrix.h"

static double tbps; /* the copy bandwidth measured in the run */

enum { WARM = 5, REPS = 30 };

/* One timed call: mmx_subdivide to `levels`, or mmx_adjacency_compute when levels < 0. */
typedef struct call {
    const char *name;
    int levels;
} call;

/* Runs the call on m; what it made goes to *made, freed by free_made after the clock stops. */
static mmx_status run_call(mmx_ctx *ctx, const mmx_mesh *m, call c, void **made)
{
    if (c.levels < 0) return mmx_adjacency_compute(ctx, m, (mmx_adjacency **)made);
    return mmx_subdivide(ctx, MMX_SCHEME_CATMULL_CLARK, m, c.levels, NULL, (mmx_mesh **)made);
}

static void free_made(call c, void *made)
{
    if (c.levels < 0) mmx_adjacency_free(made);
    else mmx_mesh_free(made);
}

/* Median wall milliseconds of the call + mmx_ctx_sync, and the stream waits of one call (the
 * same every call: they depend on the input, not on timing). `cold`: the mesh's cache emptied
 * before each call (not timed). */
static int time_call(mmx_ctx *ctx, mmx_mesh *m, call c, int cold, double *ms, long *syncs)
{
    double t[REPS];
    for (int r = 0; r < WARM + REPS; r++) {
        void *made = NULL;
        if (cold) {
            mmx_mesh_release_cache(m);
            if (mmx_ctx_sync(ctx)) return -1; /* its frees are queued */
        }
        unsigned long long s0 = mmx__ctx_syncs(ctx);
        double t0 = bc_now_ms();
        mmx_status s = run_call(ctx, m, c, &made);
        *syncs = (long)(mmx__ctx_syncs(ctx) - s0);
        if (!s) s = mmx_ctx_sync(ctx);
        double t1 = bc_now_ms();
        free_made(c, made);
        if (s) {
            fprintf(stderr, "latency: %s: %s\n", c.name, mmx_ctx_error(ctx));
            return -1;
        }
        if (r >= WARM) t[r - WARM] = t1 - t0;
    }
    *ms = bc_median(t, REPS);
    return 0;
}

/* The chain's levels for m: `levels`, fewer where the result would pass about 6M faces (each
 * Catmull-Clark level after the first multiplies the faces by 4; the first gives nnz). */
static int chain_levels(const mmx_mesh *m, int levels)
{
    int l = levels;
    while (l > 1 && (double)m->M->nnz * (double)(1ll << (2 * (l - 1))) > 6.2e6) l--;
    return l;
}

/* A plan of the chain's levels on m, then frames: *ms the median frame on CUDA events, *floor
 * its floor, *waits a frame's waits. 0 on success. */
static int plan_frame(mmx_ctx *ctx, const mmx_mesh *m, int levels, double *ms, double *floor,
                      long *waits)
{
    mmx_subdiv_plan *plan = NULL;
    mmx_index cnv = 0, nv = 0;
    float *out = NULL;
    mmx_timer *timer = NULL;
    double t[REPS];
    mmx_status s = mmx_subdiv_plan_create(ctx, MMX_SCHEME_CATMULL_CLARK, m, levels, NULL, &plan);
    if (!s) mmx_subdiv_plan_sizes(plan, &cnv, &nv, NULL);
    if (!s) s = mmx_mem_alloc(ctx, mmx_ctx_space(ctx), 12 * (size_t)nv, (void **)&out);
    if (!s) s = mmx_timer_create(ctx, &timer);
    for (int r = 0; !s && r < WARM; r++) s = mmx_subdiv_plan_eval(plan, m->pos, out);
    if (!s) s = mmx_ctx_sync(ctx);
    unsigned long long s0 = mmx__ctx_syncs(ctx);
    for (int r = 0; !s && r < REPS; r++) {
        s = mmx_timer_start(timer);
        if (!s) s = mmx_subdiv_plan_eval(plan, m->pos, out);
        if (!s) s = mmx_timer_stop(timer, &t[r]); /* an event wait, not the library's */
    }
    *waits = (long)((mmx__ctx_syncs(ctx) - s0) / REPS);
    if (s) fprintf(stderr, "latency: plan: %s\n", mmx_ctx_error(ctx));
    else *ms = bc_median(t, REPS), *floor = (12.0 * cnv + 12.0 * nv) / (tbps * 1e9);
    mmx_timer_free(timer);
    if (out) mmx_mem_free(ctx, mmx_ctx_space(ctx), out);
    mmx_subdiv_plan_free(plan);
    return s ? -1 : 0;
}

/* One cage's row: level 1, the chain (warm, and with the mesh's cache emptied before each call:
 * the first call), the adjacency, a plan's frame. 0 on success. */
static int row(mmx_ctx *ctx, mmx_mesh *m, const char *name, const char *tags, int levels, FILE *csv)
{
    double l1 = 0, chain = 0, first = 0, adj = 0, frame = 0, floor = 0;
    long s1 = 0, sc = 0, sf = 0, sa = 0, sp = 0;
    const int cl = chain_levels(m, levels);
    const call one = {"mmx_subdivide", 1}, whole = {"mmx_subdivide", cl},
               adjc = {"mmx_adjacency_compute", -1};
    if (time_call(ctx, m, one, 0, &l1, &s1) || time_call(ctx, m, whole, 0, &chain, &sc) ||
        time_call(ctx, m, whole, 1, &first, &sf) || time_call(ctx, m, adjc, 0, &adj, &sa) ||
        plan_frame(ctx, m, cl, &frame, &floor, &sp))
        return -1;
    printf("| %s | %d | %s | %.3f | %ld | %.3f (%d) | %ld | %.3f | %ld | %.3f | %ld | %.4f | %.4f | %.2fx | %ld |\n",
           name, (int)mmx_mesh_nfaces(m), tags, l1, s1, chain, cl, sc, first, sf, adj, sa, frame,
           floor, frame / floor, sp);
    if (csv)
        fprintf(csv, "%s,%d,%s,%.4f,%ld,%d,%.4f,%ld,%.4f,%ld,%.4f,%ld,%.4f,%.4f,%ld\n", name,
                (int)mmx_mesh_nfaces(m), tags, l1, s1, cl, chain, sc, first, sf, adj, sa, frame,
                floor, sp);
    return 0;
}

/* m's tags: `text` (its own, or NULL) and a hole on every 37th face from face 5 (a program may
 * write mesh->tags: the tags' cached entry serves the text it was made from only). 0 on
 * success. */
static int add_holes(mmx_mesh *m, const char *text)
{
    const mmx_index nf = mmx_mesh_nfaces(m), n = nf > 5 ? (nf - 5 + 36) / 37 : 0;
    const size_t cap = (text ? strlen(text) : 0) + 32 + 12 * (size_t)n;
    char *t = malloc(cap);
    if (!t) return -1;
    size_t len = (size_t)snprintf(t, cap, "%st hole %d/0/0", text ? text : "", (int)n);
    for (mmx_index f = 5; f < nf; f += 37) len += (size_t)snprintf(t + len, cap - len, " %d", (int)f);
    snprintf(t + len, cap - len, "\n");
    free(m->tags);
    m->tags = t;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *csvpath = NULL;
    int levels = 6;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--levels") && i + 1 < argc) levels = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csvpath = argv[++i];
        else if (argv[i][0] != '-' && !dir) dir = argv[i];
        else {
            fprintf(stderr, "usage: latency MESHDIR [--levels N] [--csv FILE]\n");
            return 2;
        }
    }
    if (!dir || levels < 1) {
        fprintf(stderr, "usage: latency MESHDIR [--levels N] [--csv FILE]\n");
        return 2;
    }
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx) || mmx_ctx_use_cuda(ctx, 0)) {
        fprintf(stderr, "latency: no CUDA context: %s\n", ctx ? mmx_ctx_error(ctx) : "");
        return 1;
    }
    tbps = bu_copy_tbps((cudaStream_t)mmx_ctx_cuda_stream(ctx));
    char cages[512];
    snprintf(cages, sizeof cages, "%s/cages", dir);
    DIR *d = opendir(cages);
    if (!d) {
        fprintf(stderr, "latency: cannot open %s\n", cages);
        return 1;
    }
    char *names[64];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 64;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".obj")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    FILE *csv = csvpath ? fopen(csvpath, "w") : NULL;
    if (csv)
        fprintf(csv, "cage,faces,tags,level1_ms,level1_syncs,chain_levels,chain_ms,chain_syncs,"
                     "first_chain_ms,first_chain_syncs,adjacency_ms,adjacency_syncs,"
                     "plan_frame_ms,plan_floor_ms,plan_frame_syncs\n");
    printf("| cage | faces | tags | level 1 (ms) | waits | chain (ms) (levels) | waits | chain, first call (ms) | waits | adjacency (ms) | waits | plan frame (ms) | floor (ms) | over floor | waits |\n");
    printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", cages, names[i]);
        mmx_mesh *m = NULL;
        mmx_mesh_tags *t = NULL;
        if (mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m) || mmx_ctx_sync(ctx) ||
            mmx_mesh_tags_parse(ctx, m, &t)) {
            fprintf(stderr, "latency: %s: %s\n", path, mmx_ctx_error(ctx));
            rc = 1;
        } else {
            /* A tagged cage's row, then the same cage without its tags (issue 30: within 1.5x). */
            const int tagged = t->ncreases || t->ncorners || t->nholes;
            char *text = m->tags ? strdup(m->tags) : NULL;
            int bad = 0;
            /* The shared cages have no holes: bigguyT and carT (creases) have a row with holes
             * added (issue 30, item 1: their removal's waits and time). */
            if (!t->nholes && (!strcmp(names[i], "bigguyT.obj") || !strcmp(names[i], "carT.obj"))) {
                char name[160], tags[96];
                snprintf(name, sizeof name, "%s (holes added)", names[i]);
                bad = add_holes(m, text);
                mmx_index nh = 0;
                mmx_mesh_tags *th = NULL;
                if (!bad && !mmx_mesh_tags_parse(ctx, m, &th)) nh = th->nholes;
                mmx_mesh_tags_free(th);
                snprintf(tags, sizeof tags, "%d creases; %d corners; %d holes", t->ncreases, t->ncorners, (int)nh);
                bad = bad || row(ctx, m, name, tags, levels, csv);
                free(m->tags);
                m->tags = text ? strdup(text) : NULL;
            }
            free(text);
            for (int pass = 0; pass <= tagged && !bad; pass++) {
                char tags[96] = "none", name[160];
                snprintf(name, sizeof name, "%s%s", names[i], pass ? " (tags removed)" : "");
                if (tagged && !pass)
                    snprintf(tags, sizeof tags, "%d creases; %d corners; %d holes", t->ncreases,
                             t->ncorners, t->nholes);
                bad = (pass && mmx_mesh_set_tags(ctx, m, NULL)) || row(ctx, m, name, tags, levels, csv);
            }
            if (bad) fprintf(stderr, "latency: %s: %s\n", names[i], mmx_ctx_error(ctx)), rc = 1;
        }
        mmx_mesh_tags_free(t);
        mmx_mesh_free(m);
        free(names[i]);
    }
    printf("\nend to end on the host's clock (the call and mmx_ctx_sync), median of %d after %d "
           "warm-up calls;\nwaits: the library's waits for the stream inside one call "
           "(mmx_ctx_sync not counted); first call: the mesh's cache emptied before each call;\n"
           "plan frame: mmx_subdiv_plan_eval of the chain's levels on CUDA events, median of %d;"
           " floor: control positions read + last level written at %.3f TB/s (target: within 2x)\n",
           REPS, WARM, REPS, tbps);
    if (csv) fclose(csv);
    mmx_ctx_free(ctx);
    return rc;
}
