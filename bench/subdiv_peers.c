/* Subdivision against OpenSubdiv and OpenMesh, per scheme and level (issue: subdivision figures).
 *
 * Cases (the cage is read from MESHDIR, the shared meshes folder):
 *   bigguy-cc        cages/bigguy_quads.obj  Catmull-Clark to level 6 (5.94M quads)
 *   armorguy-loop    cages/ArmorGuyT.obj     Loop to level 4
 *   nefertiti-cc     models/nefertiti.obj    Catmull-Clark to level 4 (19.2M quads)
 *   nefertiti-loop   models/nefertiti.obj    Loop to level 4 (25.6M triangles)
 *   nefertiti-sqrt3  models/nefertiti.obj    sqrt3 to level 5 (24.3M triangles)
 * For each level L, the time to reach L from the cage:
 *   mmx_cuda    mmx_subdivide(L) on a CUDA context, the cage already on the device, after one
 *               warm-up call to level 1 per case. total = the sum of the trace's per-level ms
 *               (CUDA events, the adjacency of each level's input included), last = the last
 *               level's ms, wall = the host clock around the whole call (input checks
 *               included). Median of 3 runs (each figure on its own) below 2M output faces,
 *               1 run above.
 *   mmx_host    the same on a host context, 1 run.
 *   opensubdiv  Far topology refinement + stencil table + UpdateValues on the CPU, double
 *               (tests/oracle; Loop and Catmull-Clark only), 1 run.
 *   openmesh    OpenMesh's Sqrt3T, LoopT or CatmullClarkT (mesh building included), 1 run.
 * Peers: total = the sum of their phase times (their own clocks, the copy of the result into
 * plain arrays excluded), wall = the host clock around the call (that copy included).
 * Every result's face count is checked against the closed form (mmx_subdiv_predict): a
 * mismatch is printed as a WARNING in the note. A peer (host, OpenSubdiv, OpenMesh) whose
 * previous level took more than 60 s is skipped at the following levels.
 *
 * Usage: subdiv_peers MESHDIR [--case NAME]... [--max-level N] [--no-host] [--no-peers]
 *                     [--csv FILE]
 * Exit status 0 when it ran (a failed implementation is reported in its row), 1 when a cage
 * cannot be read, 2 for a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meshmatrix.h"
#include "bench_clock.h"
#include "oracle_mmx.h"
#ifdef MMX_HAVE_CUDA
#include "bench_util.h"
#endif

#define SLOW_MS 60000.0      /* a peer over this at one level is skipped at the next */
#define SMALL_FACES 2000000  /* below this, CUDA runs are repeated 3 times */
#define MAX_LEVELS 16

typedef struct kase {
    const char *name, *file;
    mmx_scheme scheme;
    int levels;
} kase;

static const kase cases[] = {
    {"bigguy-cc", "cages/bigguy_quads.obj", MMX_SCHEME_CATMULL_CLARK, 6},
    {"armorguy-loop", "cages/ArmorGuyT.obj", MMX_SCHEME_LOOP, 4},
    {"nefertiti-cc", "models/nefertiti.obj", MMX_SCHEME_CATMULL_CLARK, 4},
    {"nefertiti-loop", "models/nefertiti.obj", MMX_SCHEME_LOOP, 4},
    {"nefertiti-sqrt3", "models/nefertiti.obj", MMX_SCHEME_SQRT3, 5},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

enum { IMPL_CUDA, IMPL_HOST, IMPL_OSD, IMPL_OM, NIMPL };
static const char *impl_name[NIMPL] = {"mmx_cuda", "mmx_host", "opensubdiv", "openmesh"};

/* One row: times in ms, negative for "not measured". */
typedef struct row {
    double total, last, wall, refine, stencil, eval;
    long long faces;
    char note[256];
} row;

static FILE *csv;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* A note may come from a library's message: no commas, quotes or newlines in the CSV. */
static void clean(char *s)
{
    for (; *s; s++)
        if (*s == ',' || *s == '"' || *s == '\n' || *s == '\r') *s = ';';
}

static void fmt_ms(char *buf, size_t cap, double ms)
{
    if (ms < 0) snprintf(buf, cap, "%s", "");
    else snprintf(buf, cap, "%.3f", ms);
}

static void emit(const kase *k, int level, int impl, const row *r)
{
    char t[6][32];
    fmt_ms(t[0], sizeof t[0], r->total);
    fmt_ms(t[1], sizeof t[1], r->last);
    fmt_ms(t[2], sizeof t[2], r->wall);
    fmt_ms(t[3], sizeof t[3], r->refine);
    fmt_ms(t[4], sizeof t[4], r->stencil);
    fmt_ms(t[5], sizeof t[5], r->eval);
    printf("| %-15s | %d | %11lld | %-10s | %12s | %11s | %12s | %12s | %12s | %10s | %s |\n",
           k->name, level, r->faces, impl_name[impl], t[0], t[1], t[2], t[3], t[4], t[5],
           r->note);
    fflush(stdout);
    if (csv) {
        fprintf(csv, "%s,%s,%s,%d,%lld,%s,%s,%s,%s,%s,%s,%s,%s\n", k->name,
                mmx_scheme_name(k->scheme), base_name(k->file), level, r->faces, impl_name[impl],
                t[0], t[1], t[2], t[3], t[4], t[5], r->note);
        fflush(csv);
    }
}

static void row_init(row *r, long long faces)
{
    r->total = r->last = r->wall = r->refine = r->stencil = r->eval = -1;
    r->faces = faces;
    r->note[0] = '\0';
}

static void add_note(row *r, const char *s)
{
    /* Appended by hand: a long message is cut, not an error (snprintf would warn). */
    size_t n = strlen(r->note), cap = sizeof r->note - 1;
    if (n && n + 2 <= cap) {
        memcpy(r->note + n, "; ", 2);
        n += 2;
    }
    size_t m = strlen(s);
    if (m > cap - n) m = cap - n;
    memcpy(r->note + n, s, m);
    r->note[n + m] = '\0';
    clean(r->note);
}

static void check_faces(row *r, long long got, long long want)
{
    if (got == want) return;
    char s[128];
    snprintf(s, sizeof s, "WARNING: %lld faces but %lld expected", got, want);
    r->faces = got;
    add_note(r, s);
}

/* The last level's floor: the fewest bytes it must move (read its input's row indices and
 * positions, write the refined ones: 4 bytes per corner, 12 per vertex, each way) over the
 * copy bandwidth, and how close the level came to it. */
static void floor_note(const kase *k, const mmx_mesh_stats *st, int level, double tbps, row *r)
{
    int64_t v0, c0, v1, c1;
    mmx_subdiv_predict(k->scheme, st->nverts, st->nfaces, st->nedges, st->ncorners, level - 1,
                       &v0, NULL, NULL, &c0);
    mmx_subdiv_predict(k->scheme, st->nverts, st->nfaces, st->nedges, st->ncorners, level, &v1,
                       NULL, NULL, &c1);
    double bytes = 4.0 * (c0 + c1) + 12.0 * (v0 + v1), floor_ms = bytes / (tbps * 1e9);
    char s[128];
    snprintf(s, sizeof s, "last level floor %.4f ms: %.1f%% of it", floor_ms,
             r->last > 0 ? 100.0 * floor_ms / r->last : 0.0);
    add_note(r, s);
}

/* mmx_subdivide to `level` on ctx, `reps` runs (median of each figure); 0 on success, else the
 * reason in r->note. */
static int run_mmx(mmx_ctx *ctx, const kase *k, const mmx_mesh *cage, int level, int reps_small,
                   long long want, row *r)
{
    mmx_subdiv_level trace[MAX_LEVELS];
    double tot[3], last[3], wall[3];
    int reps = 1;
    for (int i = 0; i < reps; i++) {
        mmx_subdiv_options o = {0};
        memset(trace, 0, sizeof trace);
        o.trace = trace;
        mmx_mesh *out = NULL;
        double t0 = bc_now_ms();
        mmx_status s = mmx_subdivide(ctx, k->scheme, cage, level, &o, &out);
        wall[i] = bc_now_ms() - t0;
        if (s != MMX_OK) {
            char msg[256];
            snprintf(msg, sizeof msg, "FAILED: %s: %s", mmx_status_str(s), mmx_ctx_error(ctx));
            add_note(r, msg);
            return 1;
        }
        tot[i] = 0;
        for (int l = 0; l < level; l++) tot[i] += trace[l].ms;
        last[i] = trace[level - 1].ms;
        long long got = mmx_mesh_nfaces(out);
        mmx_mesh_free(out);
        if (i == 0) {
            check_faces(r, got, want);
            if (got < SMALL_FACES) reps = reps_small;
        }
    }
    r->total = bc_median(tot, reps);
    r->last = bc_median(last, reps);
    r->wall = bc_median(wall, reps);
    if (reps > 1) add_note(r, "median of 3");
    return 0;
}

/* OpenSubdiv or OpenMesh to `level`; 0 on success, else the reason in r->note. */
static int run_peer(int impl, const kase *k, const oracle_mesh *in, int level, long long want,
                    row *r)
{
    oracle_mesh out = {0};
    oracle_times t = {0, 0, 0};
    char err[256] = "";
    int sch = k->scheme == MMX_SCHEME_LOOP ? 0 : 1;
    double t0 = bc_now_ms();
    int rc;
    if (impl == IMPL_OSD) rc = oracle_osd_refine(sch, in, level, &out, &t, err, sizeof err);
    else if (k->scheme == MMX_SCHEME_SQRT3) rc = oracle_om_sqrt3(in, level, &out, &t, err, sizeof err);
    else rc = oracle_om_refine(sch, in, level, &out, &t, err, sizeof err);
    r->wall = bc_now_ms() - t0;
    if (rc) {
        char msg[300];
        snprintf(msg, sizeof msg, "FAILED: %s", err);
        add_note(r, msg);
        oracle_mesh_free(&out);
        return 1;
    }
    r->total = t.refine_ms + t.stencil_ms + t.eval_ms;
    if (impl == IMPL_OSD) {
        r->refine = t.refine_ms;
        r->stencil = t.stencil_ms;
        r->eval = t.eval_ms;
    }
    check_faces(r, out.nfaces, want);
    oracle_mesh_free(&out);
    return 0;
}

static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    int n = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "processor", 9)) n++;
        if (!found && !strncmp(line, "model name", 10)) {
            const char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t') p++;
                snprintf(buf, cap, "%s", p);
                buf[strcspn(buf, "\n")] = '\0';
                found = 1;
            }
        }
    }
    fclose(f);
    size_t l = strlen(buf);
    snprintf(buf + l, cap - l, ", %d logical CPUs", n);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: subdiv_peers MESHDIR [--case NAME]... [--max-level N] [--no-host] "
            "[--no-peers] [--csv FILE]\n  cases:");
    for (int i = 0; i < NCASES; i++) fprintf(stderr, " %s", cases[i].name);
    fprintf(stderr, " (default: all)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int want_case[NCASES] = {0}, any_case = 0, max_level = MAX_LEVELS, no_host = 0, no_peers = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--case") && i + 1 < argc) {
            int j;
            for (j = 0; j < NCASES && strcmp(cases[j].name, argv[i + 1]); j++) {}
            if (j == NCASES) {
                fprintf(stderr, "subdiv_peers: unknown case '%s'\n", argv[i + 1]);
                usage();
            }
            want_case[j] = any_case = 1;
            i++;
        } else if (!strcmp(a, "--max-level") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 1 || v > MAX_LEVELS) {
                fprintf(stderr, "subdiv_peers: --max-level wants 1..%d, not '%s'\n", MAX_LEVELS,
                        argv[i]);
                usage();
            }
            max_level = (int)v;
        } else if (!strcmp(a, "--no-host")) {
            no_host = 1;
        } else if (!strcmp(a, "--no-peers")) {
            no_peers = 1;
        } else if (!strcmp(a, "--csv") && i + 1 < argc) {
            csv = fopen(argv[++i], "w");
            if (!csv) {
                fprintf(stderr, "subdiv_peers: cannot write %s\n", argv[i]);
                return 1;
            }
        } else if (a[0] != '-' && !dir) {
            dir = a;
        } else {
            usage();
        }
    }
    if (!dir) usage();
    double t_start = bc_now_ms();

    /* Start-up: the machine, and whether there is a GPU. */
    char cpu[320], date[64], gpu[300] = "", why[300] = "";
    cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
    mmx_ctx *host = NULL, *cuda = NULL;
    double copy_tbps = 0;
    if (mmx_ctx_create(&host) != MMX_OK || mmx_ctx_create(&cuda) != MMX_OK) {
        fprintf(stderr, "subdiv_peers: cannot create a context\n");
        return 1;
    }
    if (mmx_ctx_use_cuda(cuda, 0) != MMX_OK) {
        snprintf(why, sizeof why, "%s", mmx_ctx_error(cuda));
        mmx_ctx_free(cuda);
        cuda = NULL;
    } else {
#ifdef MMX_HAVE_CUDA
        bu_gpu_name(gpu, sizeof gpu);
        copy_tbps = bu_copy_tbps((cudaStream_t)mmx_ctx_cuda_stream(cuda));
#endif
    }
    printf("subdiv_peers, meshmatrix %d.%d.%d, %s\n", MMX_VERSION_MAJOR, MMX_VERSION_MINOR,
           MMX_VERSION_PATCH, date);
    printf("CPU: %s\n", cpu);
    if (cuda) printf("GPU: %s; copy bandwidth %.2f TB/s (bytes read + written)\n", gpu, copy_tbps);
    else printf("GPU: none; mmx_cuda skipped: %s\n", why[0] ? why : "no CUDA device");
    printf("times in ms; mmx total = sum of the per-level trace (CUDA events on the GPU), "
           "wall = host clock around the call; peers' total = their phase times\n\n");
    printf("| case            | L |       faces | impl       |     total ms |     last ms |"
           "      wall ms |    refine ms |   stencil ms |    eval ms | note |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    if (csv) {
        fprintf(csv, "case,scheme,mesh,level,faces,impl,total_ms,last_level_ms,wall_ms,"
                     "refine_ms,stencil_ms,eval_ms,note\n");
        fflush(csv);
    }

    for (int ci = 0; ci < NCASES; ci++) {
        if (any_case && !want_case[ci]) continue;
        const kase *k = &cases[ci];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, k->file);
        mmx_mesh *cage = NULL, *cage_d = NULL;
        mmx_mesh_stats st;
        if (mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &cage) != MMX_OK ||
            mmx_mesh_stats_compute(host, cage, &st) != MMX_OK) {
            fprintf(stderr, "subdiv_peers: %s: %s\n", path, mmx_ctx_error(host));
            return 1;
        }
        oracle_mesh in = {0};
        int have_in = !no_peers && oracle_mesh_from_mmx(host, cage, &in) == MMX_OK;
        int levels = k->levels < max_level ? k->levels : max_level;
        printf("| %-15s | 0 | %11d | cage %s: %d vertices, %d edges, %d boundary edges | | | |"
               " | | | |\n",
               k->name, st.nfaces, base_name(k->file), st.nverts, st.nedges, st.boundary_edges);
        fflush(stdout);

        int on[NIMPL] = {cuda != NULL, !no_host, !no_peers && k->scheme != MMX_SCHEME_SQRT3,
                         !no_peers};
        double prev_wall[NIMPL] = {0, 0, 0, 0};
        if (!no_peers && !have_in) {
            fprintf(stderr, "subdiv_peers: %s: cannot convert the cage for the peers\n", path);
            on[IMPL_OSD] = on[IMPL_OM] = 0;
        }
        if (cuda) {
            /* The cage on the device, and one warm-up call (kernels loaded, pool grown). */
            mmx_mesh *w = NULL;
            if (mmx_mesh_copy(cuda, cage, MMX_SPACE_DEVICE, &cage_d) != MMX_OK ||
                mmx_subdivide(cuda, k->scheme, cage_d, 1, NULL, &w) != MMX_OK) {
                row r;
                char msg[300];
                row_init(&r, 0);
                snprintf(msg, sizeof msg, "FAILED warm-up: %s", mmx_ctx_error(cuda));
                add_note(&r, msg);
                emit(k, 1, IMPL_CUDA, &r);
                on[IMPL_CUDA] = 0;
            }
            mmx_mesh_free(w);
        }

        for (int L = 1; L <= levels; L++) {
            int64_t want = 0;
            mmx_subdiv_predict(k->scheme, st.nverts, st.nfaces, st.nedges, st.ncorners, L, NULL,
                               &want, NULL, NULL);
            for (int im = 0; im < NIMPL; im++) {
                if (!on[im]) continue;
                row r;
                row_init(&r, want);
                if (im != IMPL_CUDA && prev_wall[im] > SLOW_MS) {
                    char s[128];
                    snprintf(s, sizeof s, "skipped: level %d took %.0f s (> %.0f s)", L - 1,
                             prev_wall[im] / 1e3, SLOW_MS / 1e3);
                    add_note(&r, s);
                    emit(k, L, im, &r);
                    continue;
                }
                int failed;
                if (im == IMPL_CUDA) {
                    failed = run_mmx(cuda, k, cage_d, L, 3, want, &r);
                    if (!failed && copy_tbps > 0) floor_note(k, &st, L, copy_tbps, &r);
                }
                else if (im == IMPL_HOST) failed = run_mmx(host, k, cage, L, 1, want, &r);
                else failed = run_peer(im, k, &in, L, want, &r);
                prev_wall[im] = r.wall;
                emit(k, L, im, &r);
                if (failed) on[im] = 0; /* a larger level would fail too */
            }
        }
        oracle_mesh_free(&in);
        mmx_mesh_free(cage_d);
        mmx_mesh_free(cage);
    }
    printf("\ntotal run time %.1f s\n", (bc_now_ms() - t_start) / 1e3);
    if (csv) fclose(csv);
    mmx_ctx_free(cuda);
    mmx_ctx_free(host);
    return 0;
}
