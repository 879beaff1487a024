/* mmx delaunay: flips a triangle mesh's interior edges until every one meets the Delaunay
 * bound (dynamic.h: rounds of the cavity operator, on the host or with --backend cuda on the
 * GPU, the same result either way), reports the rounds and the flips, and writes the result as
 * convert does. */
#include <stdio.h>
#include "tool.h"

enum { O_KEEP, O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec delaunay_opts[O_COUNT] = {
    [O_KEEP] = {"keep-patches", 0, NULL,
                "build IN's patch set and keep it current through every\n"
                "round; print the kept set's figures and check its queries"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

static int keep_patches;

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL, *flipped = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_delaunay_report rep;
    /* --keep-patches: the input's set, kept current by every round. */
    mmx_patch_set *ps = NULL;
    double patch_ms = now_ms();
    mmx_status s = keep_patches ? mmx_patch_set_create(ctx, mesh, NULL, NULL, &ps) : MMX_OK;
    if (!s) s = mmx_ctx_sync(ctx);
    patch_ms = now_ms() - patch_ms;
    const double t0 = now_ms();
    if (!s) s = mmx_delaunay_flip_patches(ctx, mesh, ps, &flipped, &rep);
    if (!s) s = mmx_ctx_sync(ctx); /* the time includes the last queued fill */
    const double flip_ms = now_ms() - t0;
    if (s) {
        mmx_patch_set_free(ps);
        mmx_mesh_free(mesh);
        return fail(ctx, s, in->name);
    }
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, flipped, out, &bytes, &write_ms);
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_mesh_free(mesh);
    if (rc) {
        mmx_patch_set_free(ps);
        mmx_mesh_free(flipped);
        return rc;
    }
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("vertices", "%d", (int)nv);
    row("faces", "%d", (int)nf);
    row("rounds", "%d", rep.rounds);
    row("flips", "%lld", (long long)rep.flips);
    for (int i = 0; i < rep.rounds; i++)
        row("  round", "%d: %d flipped of %d proposed", i + 1, (int)rep.flips_per_round[i],
            (int)rep.proposed_per_round[i]);
    row("remaining", "%d (interior edges over the bound that no flip may fix)", (int)rep.remaining);
    row("delaunay time", "%.3f ms (%s backend%s)", flip_ms, backend,
        ps ? ", the patch set kept current" : "");
    if (ps) {
        mmx_patch_stats pst;
        mmx_patch_set_stats(ctx, ps, &pst);
        print_patch_stats(&pst, MMX_PATCH_DEFAULT_FACES, 1, patch_ms, backend);
        rc = check_patch_queries(ctx, ps, flipped, in->name);
    }
    mmx_patch_set_free(ps);
    mmx_mesh_free(flipped);
    if (rc) return rc;
    row_output(out, bytes, write_ms);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_int("rounds", rep.rounds);
    js_int("flips", rep.flips);
    js_array("per_round");
    for (int i = 0; i < rep.rounds; i++) {
        js_object(NULL);
        js_int("flipped", rep.flips_per_round[i]);
        js_int("proposed", rep.proposed_per_round[i]);
        js_end();
    }
    js_end();
    js_int("remaining", rep.remaining);
    js_ms("delaunay_ms", flip_ms);
    js_output(out, nv, nf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    keep_patches = a->value[O_KEEP] != NULL;
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd delaunay_command = {
    .name = "delaunay",
    .summary = "flip a triangle mesh's edges until it is Delaunay",
    .synopsis = "delaunay [--keep-patches] IN OUT",
    .help = "Flips the interior edges of the triangle mesh IN whose two opposite angles sum\n"
            "to more than pi (plus 1e-6), in rounds of the cavity operator: each round keeps\n"
            "a maximal independent set of the flips by fixed priorities, so the result is the\n"
            "same every run. Boundary edges are never flipped, nor an edge whose flip would\n"
            "fold a face or duplicate an edge; vertices and positions stay as they are.\n"
            "Reports the rounds, the flips per round and the time, and writes OUT as convert\n"
            "does. --backend cuda runs every round on the GPU, with the same output bytes.\n"
            "With --keep-patches it also builds IN's patch set (as info --patches does) and\n"
            "keeps it current through every round; then prints the kept set's figures, how\n"
            "many rounds updated it incrementally (host backend: only the touched patches\n"
            "rebuilt; cuda: the whole cut) and the share rebuilt per round, and checks\n"
            "that every query computed on it equals the algebraic path's (exit status 1 if\n"
            "one differs). The delaunay time includes the upkeep.",
    .opts = delaunay_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
