/* The fused subdivision path against the algebraic one, OpenSubdiv, OpenMesh and the memory
 * bandwidth floor (issue: fused subdivision kernels), on the GPU.
 *
 * Cases (the cage read from MESHDIR, the shared meshes folder), each at its last level:
 *   bigguy-cc        cages/bigguy_quads.obj  Catmull-Clark 6 (5.94M quads)
 *   armorguy-cc      cages/ArmorGuyT.obj     Catmull-Clark 3
 *   armorguy-loop    cages/ArmorGuyT.obj     Loop 4 (8.68M triangles)
 *   nefertiti-cc     models/nefertiti.obj    Catmull-Clark 4 (19.2M quads)
 *   nefertiti-cc5    models/nefertiti.obj    Catmull-Clark 5 (76.9M quads; ours only)
 *   nefertiti-loop   models/nefertiti.obj    Loop 4 (25.6M triangles)
 *   nefertiti-sqrt3  models/nefertiti.obj    sqrt3 5 (24.3M triangles)
 * the nefertiti cases in file order, shuffled (mmx_mesh_shuffle, seed 1) and shuffled then
 * reordered (mmx_mesh_reorder: RCM); bigguy-cc-eval, the re-evaluation of a level-6 plan
 * (with its texture coordinates: bigguy-cc-eval-uv), and the same for the creased cages
 * (carT-cc-eval, rookT-cc-eval, armorguy-cc-eval, armorguy-loop-eval, their tags kept), each
 * against its floor and OpenSubdiv's CPU stencil evaluation (run_eval); and
 * bigguy-cc-creased, bigguy with every tenth edge creased (sharpness 2.5, set through
 * mmx_mesh_set_tags) to level 6, against OpenSubdiv with the same creases (OpenMesh has no
 * creases: it does not run, nor the algebraic path); bigguy-cc-textured, the cage with its
 * texture coordinates (linear, the default), refined with it on the device (uv.c, uv.cu: the
 * texture mesh refined bilinearly after the positions' levels, which the trace does not hold).
 * Its note gives the whole call on CUDA events (the GPU timeline from before the call to its
 * last queued work, host gaps included) and, when bigguy-cc ran in the same invocation, its
 * wall and event times over bigguy-cc's (issue 13's target: within 1.5x). The other cases drop
 * the cages' texture coordinates (bigguy_quads.obj has them). The cages' own tags are kept:
 * ArmorGuyT, carT and rookT have creases (carT-cc, Catmull-Clark 5, and rookT-cc, 6, the
 * latency bench's levels, issue 30's table). Every row's note gives the waits of one call
 * (the library's stream synchronisations, issue 30's target: at most 2) and, for a tagged
 * cage, the first call on it (the mesh's cache emptied: its tags parsed and placed on the
 * edges, src/subdiv/tags_dev.c) with its waits; bigguy-cc-creased's note its wall time over
 * bigguy-cc's (issue 30's target: within 1.5x).
 *
 * Figures (ms):
 *   fused chain   the sum of the per-level trace of mmx_subdivide (CUDA events; level 1 holds
 *                 the input's adjacency), median of 3; last: the last level alone
 *   fused wall    the host clock around mmx_subdivide without a trace, the cage already on the
 *                 device: end to end (input checks and adjacency included), median of 5
 *   alg chain     the same for the algebraic path (1 run), alg wall its host clock
 *   osd, om       OpenSubdiv (refine + stencil table + eval, double, CPU) and OpenMesh totals
 *                 at the last level (tests/oracle's wrappers), 1 run
 *   floor         bytes over the copy bandwidth measured in the run: per level, the parent's
 *                 matrix (4 bytes a corner) and positions (12 a vertex) read and the child's
 *                 written; chain = all levels, last = the last level
 *   eval rows     one frame (mmx_subdiv_plan_eval_frame, with the coordinates where textured:
 *                 CUDA events around its graph launch), median of 21, in the fused chain column; floor
 *                 chain: the control positions read and the last level's written (issue 30's
 *                 floor; the coordinates too where textured); OpenSubdiv: its stencil
 *                 evaluation alone (UpdateValues on the CPU)
 *
 * Usage: subdiv_fused MESHDIR [--case NAME]... [--no-peers] [--no-algebraic] [--csv FILE]
 * The CSV (bench/fused_report.py turns it into tables, a plot and the README's table) starts
 * with '# key: value' lines naming the GPU, CPU, copy bandwidth, date and commit (env
 * MMX_COMMIT). Exit status 0 when it ran (failures are reported in their rows), 1 when there is
 * no GPU or a cage cannot be read, 2 for a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meshmatrix.h"
#include "core/core_internal.h" /* mmx__ctx_syncs: the waits */
#include "bench_clock.h"
#include "oracle_mmx.h"
#include "bench_util.h"

typedef struct kase {
    const char *name, *file;
    mmx_scheme scheme;
    int level;
    int orders; /* 1: file order only; 3: file, shuffled, RCM */
    int peers;  /* OpenSubdiv / OpenMesh and the algebraic path run */
    int crease_every; /* 0, or every this many edges creased at sharpness 2.5 */
    int textured;     /* keep the cage's texture coordinates (refined on the device: uv.c);
                         the other cases drop them, as the untagged rows always measured */
} kase;

static const kase cases[] = {
    {"bigguy-cc", "cages/bigguy_quads.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 1, 0, 0},
    {"armorguy-cc", "cages/ArmorGuyT.obj", MMX_SCHEME_CATMULL_CLARK, 3, 1, 1, 0, 0},
    {"armorguy-loop", "cages/ArmorGuyT.obj", MMX_SCHEME_LOOP, 4, 1, 1, 0, 0},
    {"nefertiti-cc", "models/nefertiti.obj", MMX_SCHEME_CATMULL_CLARK, 4, 3, 1, 0, 0},
    {"nefertiti-cc5", "models/nefertiti.obj", MMX_SCHEME_CATMULL_CLARK, 5, 1, 0, 0, 0},
    {"nefertiti-loop", "models/nefertiti.obj", MMX_SCHEME_LOOP, 4, 3, 1, 0, 0},
    {"nefertiti-sqrt3", "models/nefertiti.obj", MMX_SCHEME_SQRT3, 5, 3, 1, 0, 0},
    {"bigguy-cc-eval", "cages/bigguy_quads.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 0, 0, 0},
    {"bigguy-cc-creased", "cages/bigguy_quads.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 1, 10, 0},
    {"bigguy-cc-textured", "cages/bigguy_quads.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 0, 0, 1},
    {"carT-cc", "cages/carT.obj", MMX_SCHEME_CATMULL_CLARK, 5, 1, 1, 0, 0},
    {"rookT-cc", "cages/rookT.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 1, 0, 0},
    /* Plan re-evaluation per frame (issue 30): creased and textured cages. */
    {"bigguy-cc-eval-uv", "cages/bigguy_quads.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 1, 0, 1},
    {"carT-cc-eval", "cages/carT.obj", MMX_SCHEME_CATMULL_CLARK, 5, 1, 1, 0, 0},
    {"rookT-cc-eval", "cages/rookT.obj", MMX_SCHEME_CATMULL_CLARK, 6, 1, 1, 0, 0},
    {"armorguy-cc-eval", "cages/ArmorGuyT.obj", MMX_SCHEME_CATMULL_CLARK, 3, 1, 1, 0, 0},
    {"armorguy-loop-eval", "cages/ArmorGuyT.obj", MMX_SCHEME_LOOP, 4, 1, 1, 0, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))
static const char *order_name[3] = {"file", "shuffled", "rcm"};

typedef struct row {
    long long faces;
    double fused_chain, fused_last, fused_wall, alg_chain, alg_wall, osd, om;
    double floor_chain, floor_last, bytes_per_face;
    char note[640];
} row;

static FILE *csv;
static double tbps;

static void add_note(row *r, const char *s)
{
    size_t n = strlen(r->note), cap = sizeof r->note - 1;
    if (n && n + 2 <= cap) memcpy(r->note + n, "; ", 2), n += 2;
    size_t m = strlen(s);
    if (m > cap - n) m = cap - n;
    memcpy(r->note + n, s, m);
    r->note[n + m] = '\0';
    for (char *p = r->note; *p; p++)
        if (*p == ',' || *p == '"' || *p == '\n') *p = ';';
}

static void fail_note(row *r, const char *what, mmx_ctx *ctx)
{
    char s[300];
    snprintf(s, sizeof s, "%s FAILED: %s", what, mmx_ctx_error(ctx));
    add_note(r, s);
}

static void fmt(char *buf, double v)
{
    if (v < 0) buf[0] = '\0';
    else snprintf(buf, 32, "%.4f", v);
}

static void emit(const kase *k, int ord, const row *r)
{
    char t[11][32];
    const double v[11] = {r->fused_chain, r->fused_last, r->fused_wall, r->alg_chain, r->alg_wall,
                          r->osd, r->om, r->floor_chain, r->floor_last, r->bytes_per_face, -1};
    for (int i = 0; i < 10; i++) fmt(t[i], v[i]);
    const char *mesh = strrchr(k->file, '/') + 1;
    printf("| %-16s | %-8s | %d | %10lld | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %8s | %8s | %s |\n",
           k->name, order_name[ord], k->level, r->faces, t[0], t[1], t[2], t[3], t[4], t[5], t[6],
           t[7], t[8], r->note);
    fflush(stdout);
    if (csv) {
        fprintf(csv, "%s,%s,%s,%s,%d,%lld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", k->name,
                mmx_scheme_name(k->scheme), mesh, order_name[ord], k->level, r->faces, t[0], t[1],
                t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], r->note);
        fflush(csv);
    }
}

/* The floor of levels 1..L from the cage's counts: per level, the parent's matrix and
 * positions read and the child's written (`child_topo` 0 for re-evaluation: positions only). */
static void floors(const kase *k, const mmx_mesh_stats *st, int child_topo, row *r)
{
    double chain = 0, last = 0;
    for (int l = 1; l <= k->level; l++) {
        int64_t v0, c0, v1, f1, c1;
        mmx_subdiv_predict(k->scheme, st->nverts, st->nfaces, st->nedges, st->ncorners, l - 1,
                           &v0, NULL, NULL, &c0);
        mmx_subdiv_predict(k->scheme, st->nverts, st->nfaces, st->nedges, st->ncorners, l, &v1,
                           &f1, NULL, &c1);
        last = 4.0 * c0 + 12.0 * v0 + 12.0 * v1 + (child_topo ? 4.0 * c1 : 0);
        chain += last;
        if (l == k->level) r->bytes_per_face = last / (double)f1, r->faces = f1;
    }
    r->floor_chain = chain / (tbps * 1e9);
    r->floor_last = last / (tbps * 1e9);
}

/* mmx_subdivide on `path`: chain and last from the trace (median of `reps`), wall from
 * `wreps` untraced calls. 0 on success. */
static int run_mmx(mmx_ctx *ctx, const kase *k, const mmx_mesh *cage, mmx_subdiv_path path,
                   int reps, int wreps, double *chain, double *last, double *wall, row *r)
{
    double c[5], l[5], w[5];
    for (int i = 0; i < reps + wreps; i++) {
        mmx_subdiv_level trace[8];
        mmx_subdiv_options o = {0};
        o.path = path;
        if (i < reps) o.trace = trace;
        mmx_mesh *out = NULL;
        double t0 = bc_now_ms();
        mmx_status s = mmx_subdivide(ctx, k->scheme, cage, k->level, &o, &out);
        /* mmx_subdivide returns with the last level queued: the wall time waits for it. */
        if (s == MMX_OK) s = mmx_ctx_sync(ctx);
        double t = bc_now_ms() - t0;
        if (s == MMX_OK && mmx_mesh_nfaces(out) != r->faces) {
            add_note(r, "WARNING: face count differs from the closed form");
        }
        mmx_mesh_free(out);
        if (s != MMX_OK) {
            fail_note(r, path == MMX_SUBDIV_PATH_ALGEBRAIC ? "algebraic" : "fused", ctx);
            return 1;
        }
        if (i < reps) {
            c[i] = 0;
            for (int j = 0; j < k->level; j++) c[i] += trace[j].ms;
            l[i] = trace[k->level - 1].ms;
            if (!wreps) w[i] = t;
        } else {
            w[i - reps] = t;
        }
    }
    *chain = bc_median(c, reps);
    if (last) *last = bc_median(l, reps);
    *wall = bc_median(w, wreps ? wreps : reps);
    return 0;
}

/* For the note: a level-0 mmx_subdivide (the algebraic path's full host checks, the input's
 * adjacency and a copy of the cage; the fused path checks fans and orientation on the device
 * instead, so this is not part of its end-to-end time), and the per-level times of one traced
 * fused run. */
static void note_overheads(mmx_ctx *ctx, const kase *k, const mmx_mesh *cage, row *r)
{
    double w[5];
    for (int i = 0; i < 5; i++) {
        mmx_mesh *out = NULL;
        double t0 = bc_now_ms();
        mmx_status s = mmx_subdivide(ctx, k->scheme, cage, 0, NULL, &out);
        if (s == MMX_OK) s = mmx_ctx_sync(ctx); /* the copy of the cage is queued */
        w[i] = bc_now_ms() - t0;
        mmx_mesh_free(out);
        if (s) return;
    }
    mmx_subdiv_level trace[8];
    mmx_subdiv_options o = {0};
    o.trace = trace;
    mmx_mesh *out = NULL;
    if (mmx_subdivide(ctx, k->scheme, cage, k->level, &o, &out)) return;
    mmx_mesh_free(out);
    char s[200];
    int n = snprintf(s, sizeof s, "level-0 call (host checks) %.3f ms; fused levels", bc_median(w, 5));
    for (int l = 0; l < k->level && n < (int)sizeof s - 12; l++)
        n += snprintf(s + n, sizeof s - (size_t)n, " %.3f", trace[l].ms);
    add_note(r, s);
}

/* The waits of one call on the warm cage (its tag entry cached by the calls before) and, for a
 * tagged cage, the first call's: the mesh's cache emptied before it, wall time median of 5. */
static void note_waits(mmx_ctx *ctx, const kase *k, mmx_mesh *cage, row *r)
{
    mmx_mesh *out = NULL;
    unsigned long long w0 = mmx__ctx_syncs(ctx);
    mmx_status s = mmx_subdivide(ctx, k->scheme, cage, k->level, NULL, &out);
    const unsigned long long warm = mmx__ctx_syncs(ctx) - w0;
    mmx_mesh_free(out);
    if (s) return;
    char note[200];
    snprintf(note, sizeof note, "waits %llu", warm);
    if (cage->tags) {
        double w[5];
        unsigned long long cold = 0;
        for (int i = 0; !s && i < 5; i++) {
            mmx_mesh_release_cache(cage);
            s = mmx_ctx_sync(ctx);
            double t0 = bc_now_ms();
            w0 = mmx__ctx_syncs(ctx);
            if (!s) s = mmx_subdivide(ctx, k->scheme, cage, k->level, NULL, &out);
            cold = mmx__ctx_syncs(ctx) - w0;
            if (!s) s = mmx_ctx_sync(ctx);
            w[i] = bc_now_ms() - t0;
            mmx_mesh_free(out);
            out = NULL;
        }
        if (!s)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     " (first call on the cage: %.3f ms wall, %llu waits)", bc_median(w, 5), cold);
    }
    add_note(r, note);
}

/* bigguy-cc's figures, for the textured row's ratios (-1: not run in this invocation). */
static double untagged_wall = -1, untagged_events = -1;

/* The whole call on CUDA events (from before mmx_subdivide to its last queued work: the GPU
 * timeline, the host's gaps included), median of 5; the textured row's note also checks that
 * the refined coordinates stayed on the device and gives the ratios to bigguy-cc. */
static double call_events(mmx_ctx *ctx, const kase *k, const mmx_mesh *cage, row *r, int textured)
{
    mmx_timer *t = NULL;
    double e[5];
    if (mmx_timer_create(ctx, &t)) return -1;
    for (int i = 0; i < 5; i++) {
        mmx_mesh *out = NULL;
        mmx_status s = mmx_timer_start(t);
        if (!s) s = mmx_subdivide(ctx, k->scheme, cage, k->level, NULL, &out);
        if (!s) s = mmx_timer_stop(t, &e[i]);
        if (!s && textured && (!out->uv || out->uv->space != MMX_SPACE_DEVICE))
            add_note(r, "WARNING: the texture coordinates are not on the device");
        mmx_mesh_free(out);
        if (s) {
            fail_note(r, "events", ctx);
            mmx_timer_free(t);
            return -1;
        }
    }
    mmx_timer_free(t);
    return bc_median(e, 5);
}

static void run_peers(const kase *k, const mmx_mesh *cage, mmx_ctx *host, row *r)
{
    oracle_mesh in = {0}, out = {0};
    if (oracle_mesh_from_mmx(host, cage, &in) != MMX_OK) {
        add_note(r, "peers: cannot convert the cage");
        return;
    }
    char err[256];
    oracle_times t = {0, 0, 0};
    const int sch = k->scheme == MMX_SCHEME_LOOP ? 0 : 1;
    if (k->scheme != MMX_SCHEME_SQRT3) {
        if (oracle_osd_refine_tagged(sch, &in, cage->tags, k->level, &out, &t, err, sizeof err) == 0)
            r->osd = t.refine_ms + t.stencil_ms + t.eval_ms;
        else add_note(r, "OpenSubdiv failed"), add_note(r, err);
        oracle_mesh_free(&out);
    }
    memset(&t, 0, sizeof t);
    if (k->crease_every) { /* OpenMesh's subdividers have no creases */
        oracle_mesh_free(&in);
        return;
    }
    int rc = k->scheme == MMX_SCHEME_SQRT3 ? oracle_om_sqrt3(&in, k->level, &out, &t, err, sizeof err)
                                           : oracle_om_refine(sch, &in, k->level, &out, &t, err, sizeof err);
    if (rc == 0) r->om = t.refine_ms + t.stencil_ms + t.eval_ms;
    else add_note(r, "OpenMesh failed"), add_note(r, err);
    oracle_mesh_free(&out);
    oracle_mesh_free(&in);
}

/* A plan to the case's level (the cage's tags kept; with its texture coordinates, for a
 * textured case), then re-evaluations: the time per frame on CUDA events
 * (mmx_subdiv_plan_eval_frame: one graph launch, both channels where textured), median of 21, in the
 * fused chain column; the floor column holds the floor (the control positions read and
 * the last level's written, and the texture coordinates likewise, at the copy bandwidth); the
 * OpenSubdiv column its CPU stencil evaluation alone (Far::StencilTable::UpdateValues, double,
 * positions only) when `peers`. */
static void run_eval(mmx_ctx *cuda, mmx_ctx *host, const kase *k, const mmx_mesh *cage,
                     const mmx_mesh *cage_d, int peers, row *r)
{
    mmx_subdiv_plan *plan = NULL;
    mmx_index cnv = 0, nv = 0;
    float *in = NULL, *out = NULL, *uin = NULL, *uout = NULL;
    mmx_timer *timer = NULL;
    double t[21];
    unsigned long long w0 = mmx__ctx_syncs(cuda);
    if (mmx_subdiv_plan_create(cuda, k->scheme, cage_d, k->level, NULL, &plan) != MMX_OK) {
        fail_note(r, "plan", cuda);
        return;
    }
    const unsigned long long create_waits = mmx__ctx_syncs(cuda) - w0;
    mmx_subdiv_plan_sizes(plan, &cnv, &nv, NULL);
    const mmx_index nuv = k->textured && cage->uv ? cage->uv->nvalues : 0;
    const mmx_index nuv_out = nuv ? mmx_subdiv_plan_uv_count(plan) : 0;
    mmx_status s = mmx_mem_alloc(cuda, MMX_SPACE_DEVICE, 12 * (size_t)cnv, (void **)&in);
    if (!s) s = mmx_mem_alloc(cuda, MMX_SPACE_DEVICE, 12 * (size_t)nv, (void **)&out);
    if (!s) s = mmx_mem_copy(cuda, in, MMX_SPACE_DEVICE, cage_d->pos, MMX_SPACE_DEVICE, 12 * (size_t)cnv);
    if (!s && nuv_out) {
        s = mmx_mem_alloc(cuda, MMX_SPACE_DEVICE, 8 * (size_t)nuv, (void **)&uin);
        if (!s) s = mmx_mem_alloc(cuda, MMX_SPACE_DEVICE, 8 * (size_t)nuv_out, (void **)&uout);
        if (!s) s = mmx_mem_copy(cuda, uin, MMX_SPACE_DEVICE, cage->uv->values, MMX_SPACE_HOST, 8 * (size_t)nuv);
    }
    if (!s) s = mmx_timer_create(cuda, &timer);
    /* A frame: one graph launch, both channels where textured. */
    for (int i = 0; !s && i < 2; i++) /* the graph made */
        s = mmx_subdiv_plan_eval_frame(plan, in, out, nuv_out ? uin : NULL, nuv_out ? uout : NULL);
    if (!s) s = mmx_ctx_sync(cuda);
    w0 = mmx__ctx_syncs(cuda);
    for (int i = 0; !s && i < 21; i++) {
        s = mmx_timer_start(timer);
        if (!s) s = mmx_subdiv_plan_eval_frame(plan, in, out, nuv_out ? uin : NULL, nuv_out ? uout : NULL);
        if (!s) s = mmx_timer_stop(timer, &t[i]); /* waits for the events, not counted below */
    }
    const unsigned long long frame_waits = (mmx__ctx_syncs(cuda) - w0) / 21;
    if (s) {
        fail_note(r, "eval", cuda);
    } else {
        r->fused_chain = bc_median(t, 21);
        /* The floor: the control positions (and coordinates) read, the last level's written. */
        const double bytes = 12.0 * cnv + 12.0 * nv + 8.0 * nuv + 8.0 * nuv_out;
        r->floor_chain = bytes / (tbps * 1e9);
        char note[320];
        snprintf(note, sizeof note, "plan frame%s %.4f ms (fused_chain_ms); floor %.4f ms "
                 "(control read + last level written: floor_chain_ms); %.2fx the floor%s (target "
                 "2x); waits per frame %llu; plan creation waits %llu",
                 nuv_out ? " (positions and texture coordinates)" : "", r->fused_chain,
                 r->floor_chain, r->fused_chain / r->floor_chain,
                 r->fused_chain <= 2 * r->floor_chain ? " (met)" : " (missed)", frame_waits,
                 create_waits);
        add_note(r, note);
    }
    if (peers && !s) {
        oracle_mesh oin = {0}, oout = {0};
        oracle_times ot = {0, 0, 0};
        char err[256];
        if (oracle_mesh_from_mmx(host, cage, &oin) != MMX_OK) {
            add_note(r, "OpenSubdiv: cannot convert the cage");
        } else if (oracle_osd_refine_tagged(k->scheme == MMX_SCHEME_LOOP ? 0 : 1, &oin, cage->tags,
                                            k->level, &oout, &ot, err, sizeof err) == 0) {
            r->osd = ot.eval_ms;
            char note[160];
            snprintf(note, sizeof note, "osd_ms: OpenSubdiv's CPU stencil evaluation alone "
                     "(UpdateValues; double; positions only), %.1fx ours", r->osd / r->fused_chain);
            add_note(r, note);
        } else {
            add_note(r, "OpenSubdiv failed"), add_note(r, err);
        }
        oracle_mesh_free(&oout);
        oracle_mesh_free(&oin);
    }
    mmx_timer_free(timer);
    mmx_mem_free(cuda, MMX_SPACE_DEVICE, in);
    mmx_mem_free(cuda, MMX_SPACE_DEVICE, out);
    if (uin) mmx_mem_free(cuda, MMX_SPACE_DEVICE, uin);
    if (uout) mmx_mem_free(cuda, MMX_SPACE_DEVICE, uout);
    mmx_subdiv_plan_free(plan);
}

/* Creases every `every`-th edge of the host mesh m (in face order, each edge once, from the
 * face that runs it from its lower end) at sharpness 2.5, through mmx_mesh_set_tags. */
static mmx_status crease_edges(mmx_ctx *host, mmx_mesh *m, int every)
{
    const mmx_csc *M = m->M;
    mmx_mesh_tags t;
    memset(&t, 0, sizeof t);
    t.interpolate_boundary = t.fvar_interpolate_boundary = t.fvar_propagate_corners = -1;
    t.crease_method = t.smooth_triangles = -1;
    t.crease_verts = malloc(sizeof *t.crease_verts * (size_t)M->nnz);
    t.crease_sharpness = malloc(sizeof *t.crease_sharpness * (size_t)M->nnz);
    if (!t.crease_verts || !t.crease_sharpness) {
        free(t.crease_verts);
        free(t.crease_sharpness);
        return MMX_ERR_NOMEM;
    }
    long seen = 0;
    for (mmx_index k = 0; k < M->ncols; k++) {
        const mmx_index a = M->order ? M->order * k : M->colptr[k];
        const mmx_index n = M->order ? M->order : M->colptr[k + 1] - a;
        for (mmx_index j = 0; j < n; j++) {
            const mmx_index u = M->rowidx[a + j], w = M->rowidx[a + (j + 1) % n];
            if (u > w || seen++ % every) continue;
            t.crease_verts[2 * t.ncreases] = u, t.crease_verts[2 * t.ncreases + 1] = w;
            t.crease_sharpness[t.ncreases++] = 2.5f;
        }
    }
    mmx_status s = mmx_mesh_set_tags(host, m, &t);
    free(t.crease_verts);
    free(t.crease_sharpness);
    return s;
}

static void usage(void)
{
    fprintf(stderr, "usage: subdiv_fused MESHDIR [--case NAME]... [--no-peers] [--no-algebraic] "
                    "[--csv FILE]\n  cases:");
    for (int i = 0; i < NCASES; i++) fprintf(stderr, " %s", cases[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int want[NCASES] = {0}, any = 0, peers = 1, alg = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            int j = 0;
            while (j < NCASES && strcmp(cases[j].name, argv[i + 1])) j++;
            if (j == NCASES) usage();
            want[j] = any = 1;
            i++;
        } else if (!strcmp(argv[i], "--no-peers")) {
            peers = 0;
        } else if (!strcmp(argv[i], "--no-algebraic")) {
            alg = 0;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) {
                fprintf(stderr, "subdiv_fused: cannot write %s\n", argv[i]);
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
        fprintf(stderr, "subdiv_fused: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    char gpu[300], date[64];
    bu_gpu_name(gpu, sizeof gpu);
    tbps = bu_copy_tbps((cudaStream_t)mmx_ctx_cuda_stream(cuda));
    bu_date(date, sizeof date);
    const char *commit = getenv("MMX_COMMIT");
    printf("subdiv_fused, %s\nGPU: %s; copy bandwidth %.3f TB/s\n\n", date, gpu, tbps);
    printf("| case | order | L | faces | fused chain | last | fused wall | alg chain | alg wall |"
           " OpenSubdiv | OpenMesh | floor chain | floor last | note |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    if (csv) {
        fprintf(csv, "# gpu: %s\n# copy_tbps: %.4f\n# date: %s\n# commit: %s\n", gpu, tbps, date,
                commit ? commit : "unknown");
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                fprintf(csv, "# cpu:%s", strchr(line, ':') + 1);
                break;
            }
        if (f) fclose(f);
        fprintf(csv, "case,scheme,mesh,order,level,faces,fused_chain_ms,fused_last_ms,"
                     "fused_wall_ms,alg_chain_ms,alg_wall_ms,osd_ms,om_ms,floor_chain_ms,"
                     "floor_last_ms,bytes_per_face,note\n");
    }
    for (int ci = 0; ci < NCASES; ci++) {
        if (any && !want[ci]) continue;
        const kase *k = &cases[ci];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, k->file);
        mmx_mesh *cage = NULL;
        mmx_mesh_stats st;
        if (mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &cage) || mmx_mesh_stats_compute(host, cage, &st) ||
            (k->crease_every && crease_edges(host, cage, k->crease_every))) {
            fprintf(stderr, "subdiv_fused: %s: %s\n", path, mmx_ctx_error(host));
            return 1;
        }
        if (!k->textured) { /* the rows measured before texture coordinates were refined */
            mmx_mesh_uv_free(cage->uv);
            cage->uv = NULL;
        }
        for (int ord = 0; ord < k->orders; ord++) {
            row r;
            memset(&r, 0, sizeof r);
            r.fused_chain = r.fused_last = r.fused_wall = r.alg_chain = r.alg_wall = -1;
            r.osd = r.om = -1;
            mmx_mesh *m = cage, *sh = NULL, *ro = NULL, *d = NULL, *w = NULL;
            if (ord >= 1 && mmx_mesh_shuffle(host, cage, 1, NULL, NULL, &sh) == MMX_OK) m = sh;
            if (ord == 2 && sh && mmx_mesh_reorder(host, sh, NULL, NULL, &ro) == MMX_OK) m = ro;
            const int eval = strstr(k->name, "-eval") != NULL;
            floors(k, &st, !eval, &r);
            if (mmx_mesh_copy(cuda, m, MMX_SPACE_DEVICE, &d) ||
                mmx_subdivide(cuda, k->scheme, d, 1, NULL, &w)) {
                fail_note(&r, "setup", cuda);
            } else if (eval) {
                run_eval(cuda, host, k, m, d, peers && k->peers, &r);
            } else {
                run_mmx(cuda, k, d, MMX_SUBDIV_PATH_FUSED, 3, 5, &r.fused_chain, &r.fused_last,
                        &r.fused_wall, &r);
                const int base = !strcmp(k->name, "bigguy-cc") && ord == 0;
                if (base || k->textured) {
                    const double ev = call_events(cuda, k, d, &r, k->textured);
                    char s[200];
                    if (base) untagged_wall = r.fused_wall, untagged_events = ev;
                    snprintf(s, sizeof s, "whole call on CUDA events %.3f ms", ev);
                    add_note(&r, s);
                    if (k->textured && untagged_wall > 0 && untagged_events > 0 && ev > 0) {
                        snprintf(s, sizeof s, "over bigguy-cc: wall %.2fx%s; events %.2fx (target 1.5x)",
                                 r.fused_wall / untagged_wall, r.fused_wall <= 1.5 * untagged_wall ? " (met)" : " (missed)",
                                 ev / untagged_events);
                        add_note(&r, s);
                    }
                }
                if (k->crease_every && untagged_wall > 0) {
                    char s[120];
                    snprintf(s, sizeof s, "over bigguy-cc: wall %.2fx%s (target 1.5x)",
                             r.fused_wall / untagged_wall,
                             r.fused_wall <= 1.5 * untagged_wall ? " (met)" : " (missed)");
                    add_note(&r, s);
                }
                note_waits(cuda, k, d, &r);
                note_overheads(cuda, k, d, &r);
                if (alg && k->peers && !k->crease_every)
                    run_mmx(cuda, k, d, MMX_SUBDIV_PATH_ALGEBRAIC, 1, 0, &r.alg_chain, NULL,
                            &r.alg_wall, &r);
                if (peers && k->peers) run_peers(k, m, host, &r);
            }
            emit(k, ord, &r);
            mmx_mesh_free(w);
            mmx_mesh_free(d);
            mmx_mesh_free(ro);
            mmx_mesh_free(sh);
        }
        mmx_mesh_free(cage);
    }
    if (csv) fclose(csv);
    mmx_ctx_free(cuda);
    mmx_ctx_free(host);
    return 0;
}
