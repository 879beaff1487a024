/* mmx demo, the main job: the three schemes on a real cage (Bay Raitt's Bigguy, 1,450 quads,
 * shipped as tests/data/bigguy_quads.obj) to millions of faces, the cage and each result
 * drawn as a PNG, each result written as binary PLY. Catmull-Clark refines the quad cage;
 * Loop and sqrt3 refine the same cage split into triangles here (sqrt3 needs a closed mesh,
 * which Bigguy is). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool.h"

/* The cage, compiled in from the source tree by tools/meson.build; an installed mmx whose
 * source tree is gone falls back to a built-in shape and says so. */
#ifndef MMX_DEMO_CAGE
#define MMX_DEMO_CAGE "tests/data/bigguy_quads.obj"
#endif
#define FALLBACK_CAGE "builtin:torus"
/* The pictures: 800 x 800, shaded faces only, the whole mesh. */
static const render_options picture_options = {800, 0, 1.0, {0.5, 0.5}};

/* ---- the demo ----------------------------------------------------------------------------- */

int load_cage(mmx_ctx *ctx, const char *data, mmx_mesh **cage, const char **src, double *ms)
{
    *src = data ? data : MMX_DEMO_CAGE;
    mmx_status s = load(ctx, *src, cage, ms);
    if (s && data) return fail(ctx, s, data); /* asked for by name: a failure is an error */
    if (s) {
        say("note: the default cage %s cannot be read (%s); using %s instead\n", *src,
            mmx_ctx_error(ctx)[0] ? mmx_ctx_error(ctx) : mmx_status_str(s), FALLBACK_CAGE);
        *src = FALLBACK_CAGE;
        s = load(ctx, *src, cage, ms);
        if (s) return fail(ctx, s, *src);
    }
    if (!(*cage)->pos) {
        fprintf(stderr, "mmx: %s: the mesh has no vertex positions to subdivide\n", *src);
        mmx_mesh_free(*cage);
        *cage = NULL;
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* The cage and its "cage" row; *name is the file's own name, enough in the reports. */
static int demo_cage(mmx_ctx *ctx, const char *data, mmx_mesh **cage, const char **name)
{
    const char *src;
    double ms = 0;
    if (load_cage(ctx, data, cage, &src, &ms)) return EXIT_FAIL;
    const char *slash = strrchr(src, '/');
    *name = slash ? slash + 1 : src;
    char counts[COUNTS_LEN];
    row("cage", "%s: %s (loaded in %.3f ms)%s", src,
        counts_text(counts, mmx_mesh_nverts(*cage), mmx_mesh_nfaces(*cage)), ms,
        strstr(src, "bigguy") ? "; Bigguy, by Bay Raitt" : "");
    return EXIT_OK;
}

/* One scheme's run: subdivide, draw, write the mesh. */
static int demo_job(mmx_ctx *ctx, mmx_scheme scheme, int levels, const mmx_mesh *cage,
                    const char *name, const char *png, const char *ply)
{
    mmx_mesh *fine = NULL;
    int rc = subdiv_report(ctx, scheme, levels, (mmx_subdiv_options){0},
                           cage, name, -1, &fine);
    if (rc) return rc;
    if (fine->space != MMX_SPACE_HOST) {
        /* Both the picture and the file are made on the host: one copy serves the two. */
        mmx_mesh *host = NULL;
        double t0 = now_ms();
        mmx_status s = mmx_mesh_copy(ctx, fine, MMX_SPACE_HOST, &host);
        mmx_mesh_free(fine);
        if (s) return fail(ctx, s, name);
        fine = host;
        row("copied", "the result to the host in %.1f ms", now_ms() - t0);
    }
    const tool_output picture = {OUT_FILE, png, png, MMX_FORMAT_AUTO};
    rc = render_to_png(ctx, fine, &picture, &picture_options);
    if (!rc) {
        double t0 = now_ms();
        mmx_status s = mmx_mesh_write(ctx, fine, ply, MMX_FORMAT_PLY);
        double ms = now_ms() - t0;
        if (s) rc = fail(ctx, s, ply);
        else row("mesh", "%s: %s, %lld bytes (%.1f ms)", ply, format_name(MMX_FORMAT_PLY),
                 file_bytes(ply), ms);
    }
    mmx_mesh_free(fine);
    return rc;
}

static int demo(mmx_ctx *ctx, const char *backend_line, const char *data, int levels_all,
                const char *outdir)
{
    /* Levels that reach one to three million faces on the host (about a second of work each
     * on two cores) and 6 to 12 million on a GPU, where the chain takes about a millisecond. */
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    const struct {
        mmx_scheme scheme;
        int levels, triangles;
        const char *stem;
    } jobs[] = {
        {MMX_SCHEME_CATMULL_CLARK, cuda ? 6 : 5, 0, "demo_catmull_clark"},
        {MMX_SCHEME_LOOP, cuda ? 6 : 5, 1, "demo_loop"},
        {MMX_SCHEME_SQRT3, cuda ? 7 : 6, 1, "demo_sqrt3"},
    };
    enum { NJOBS = sizeof jobs / sizeof jobs[0] };
    char png[NJOBS][4096], ply[NJOBS][4096], cage_png[4096];
    int c = snprintf(cage_png, sizeof cage_png, "%s/demo_cage.png", outdir);
    if (c < 0 || (size_t)c >= sizeof cage_png) return usage_error("output folder name too long");
    for (int j = 0; j < NJOBS; j++) {
        int a = snprintf(png[j], sizeof png[j], "%s/%s.png", outdir, jobs[j].stem);
        int b = snprintf(ply[j], sizeof ply[j], "%s/%s.ply", outdir, jobs[j].stem);
        if (a < 0 || b < 0 || (size_t)a >= sizeof png[j] || (size_t)b >= sizeof ply[j])
            return usage_error("output folder name too long");
    }
    row("backend", "%s", backend_line);
    mmx_mesh *quads = NULL, *tris = NULL;
    const char *name = NULL;
    int rc = demo_cage(ctx, data, &quads, &name);
    if (rc) return rc;
    /* The cage drawn as it comes, its facets showing: what the schemes start from. */
    const tool_output cage_picture = {OUT_FILE, cage_png, cage_png, MMX_FORMAT_AUTO};
    rc = render_to_png(ctx, quads, &cage_picture, &picture_options);
    if (!rc) rc = triangulate(ctx, quads, name, &tris);
    if (rc) {
        mmx_mesh_free(quads);
        return rc;
    }
    char tri_name[300];
    snprintf(tri_name, sizeof tri_name, "%s split into triangles", name);
    for (int j = 0; j < NJOBS && !rc; j++) {
        say("\n");
        rc = demo_job(ctx, jobs[j].scheme, levels_all >= 0 ? levels_all : jobs[j].levels,
                      jobs[j].triangles ? tris : quads, jobs[j].triangles ? tri_name : name,
                      png[j], ply[j]);
    }
    mmx_mesh_free(quads);
    mmx_mesh_free(tris);
    if (rc) return rc;
    long long total = file_bytes(cage_png);
    for (int j = 0; j < NJOBS; j++) total += file_bytes(png[j]) + file_bytes(ply[j]);
    say("\nwrote %d files into %s/, %.1f MB in all (the PLY meshes are most of it)\n", 1 + 2 * NJOBS,
        outdir, (double)total / 1e6);
    say("\nlook at the results: open the pictures %s/demo_*.png in any image viewer (the cage,\n"
        "then each scheme's result); the meshes are the binary PLY files beside them (MeshLab,\n"
        "Blender, ...; or 'mmx info FILE', 'mmx render FILE OUT.png')\n", outdir);
    return EXIT_OK;
}

enum { O_DATA, O_LEVELS, O_COUNT };

static const opt_spec demo_opts[O_COUNT] = {
    [O_DATA] = {"data", 0, "FILE", "the cage to refine instead of Bigguy"},
    [O_LEVELS] = {"levels", 0, "N", "one level count for all three schemes"},
};

static int run(const tool_args *a)
{
    if (a->npos > 1) return usage_error("demo takes one DIR, got %d arguments", a->npos);
    int levels = -1;
    const char *levels_arg = a->value[O_LEVELS];
    if (levels_arg && !parse_levels(levels_arg, 0, &levels))
        return usage_error("--levels needs a whole number from 0 to %d, got '%s'", MAX_LEVELS,
                           levels_arg);
    /* Without DIR, a fresh folder of its own: the results are some 100 MB, which should not
     * land among the files of whatever folder one happens to be in. */
    char fresh[32] = "";
    const char *outdir = a->npos ? a->pos[0] : fresh;
    if (!a->npos) {
        for (int n = 1; n < 1000 && !fresh[0]; n++) {
            snprintf(fresh, sizeof fresh, "mmx-demo-%d", n);
            if (mkdir(fresh, 0777) == 0) break;
            if (errno != EEXIST) {
                fprintf(stderr, "mmx: %s: cannot make the demo's folder here: %s\n", fresh,
                        strerror(errno));
                return EXIT_FAIL;
            }
            fresh[0] = '\0';
        }
        if (!fresh[0]) {
            fprintf(stderr, "mmx: mmx-demo-1 to mmx-demo-999 all exist: give a DIR\n");
            return EXIT_FAIL;
        }
        say("writing into %s/ (a new folder)\n", fresh);
    }
    /* Checked before the GPU is started: a mistyped folder fails at once. */
    if (check_output_dir(outdir)) return EXIT_FAIL;
    mmx_ctx *ctx = NULL;
    char why[512];
    int rc = open_context(a->global[G_BACKEND], 1, &ctx, why, sizeof why);
    if (!rc) rc = demo(ctx, why, a->value[O_DATA], levels, outdir);
    mmx_ctx_free(ctx);
    if (rc && fresh[0]) (void)rmdir(fresh); /* its own folder goes again if still empty */
    return rc;
}

const tool_cmd demo_command = {
    .name = "demo",
    .summary = "the main job: each scheme on a real cage to millions of faces, with pictures",
    .synopsis = "demo [--data FILE] [--levels N] [DIR]",
    .help = "Catmull-Clark on a real cage (Bay Raitt's Bigguy, 1,450 quads; or FILE), Loop and\n"
            "sqrt3 on it split into triangles, to millions of faces (on the host 5, 5 and 6\n"
            "levels; on a GPU 6, 6 and 7; or N). Says which backend runs and why, and writes\n"
            "pictures of the cage and of each result, and each result as binary PLY (about\n"
            "140 MB in all at the default levels on the host, more on a GPU), into DIR,\n"
            "which must exist, or without DIR into a new folder mmx-demo-N (the first N\n"
            "free) in the current one. Says how much it wrote. Runs on the GPU when there\n"
            "is one, unless --backend host.",
    .opts = demo_opts,
    .nopts = O_COUNT,
    .flags = CMD_GPU_DEFAULT,
    .run = run,
};
