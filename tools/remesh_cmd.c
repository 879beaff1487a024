/* mmx remesh: isotropic remeshing of a triangle mesh towards a target edge length (dynamic.h:
 * Botsch and Kobbelt's split, collapse, flip, relax and project, each step rounds of the
 * cavity operator, on the host or with --backend cuda on the device); reports each iteration's operations and time, and writes the
 * result as convert does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tool.h"

enum { O_LENGTH, O_ITER, O_ANGLE, O_FIXED, O_KEEP, O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec remesh_opts[O_COUNT] = {
    [O_LENGTH] = {"length", 0, "L", "the target edge length, > 0 (default: the input's mean\n"
                                    "edge length)"},
    [O_ITER] = {"iterations", 0, "N", "iterations of split, collapse, flip, relax (default 3,\n"
                                      "at most 64)"},
    [O_ANGLE] = {"feature-angle", 0, "DEG",
                 "an edge whose faces' normals differ by more than DEG\n"
                 "degrees is a feature, kept (default 60; 180: none)"},
    [O_FIXED] = {"fixed-features", 0, NULL,
                 "keep every feature vertex where it is (by default a\n"
                 "vertex inside a feature line slides along it)"},
    [O_KEEP] = {"keep-patches", 0, NULL,
                "build IN's patch set and keep it current through every\n"
                "round; print the kept set's figures and check its queries"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

static mmx_remesh_options options;
static int keep_patches;

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL, *result = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_remesh_report rep;
    /* --keep-patches: the input's set, kept current by every round. */
    mmx_patch_set *ps = NULL;
    double patch_ms = now_ms();
    mmx_status s = keep_patches ? mmx_patch_set_create(ctx, mesh, NULL, NULL, &ps) : MMX_OK;
    patch_ms = now_ms() - patch_ms;
    options.patches = ps;
    const double t0 = now_ms();
    if (!s) s = mmx_remesh(ctx, mesh, &options, &result, &rep);
    const double remesh_ms = now_ms() - t0;
    if (s) {
        mmx_patch_set_free(ps);
        mmx_mesh_free(mesh);
        return fail(ctx, s, in->name);
    }
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, result, out, &bytes, &write_ms);
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    const mmx_index rv = mmx_mesh_nverts(result), rf = mmx_mesh_nfaces(result);
    mmx_mesh_free(mesh);
    if (rc) {
        mmx_patch_set_free(ps);
        mmx_mesh_free(result);
        return rc;
    }
    const char *backend = backend_name(ctx);
    int64_t splits = 0, collapses = 0, flips = 0, moves = 0;
    int rounds = 0;
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    char counts[COUNTS_LEN];
    row("input", "%s", counts_text(counts, nv, nf));
    row("target length", "%g (%s)", rep.target_length,
        options.target_length > 0 ? "--length" : "the mean edge length");
    row("features", "%d edges (feature angle %g degrees, boundary, creases), %d vertices, %s",
        (int)rep.feature_edges, options.feature_angle, (int)rep.feature_verts,
        options.slide_features ? "those inside a line sliding along it" : "all fixed");
    row("iterations", "%d", rep.iterations);
    for (int i = 0; i < rep.iterations; i++) {
        const mmx_remesh_iteration *it = &rep.per_iteration[i];
        row("  iteration", "%d: %lld splits (%d rounds), %lld collapses (%d), %lld flips (%d), "
            "%lld moves (%d); %d vertices, %d faces; %.1f ms", i + 1, (long long)it->splits,
            it->split_rounds, (long long)it->collapses, it->collapse_rounds, (long long)it->flips,
            it->flip_rounds, (long long)it->moves, it->relax_rounds, (int)it->nverts,
            (int)it->nfaces, it->ms);
        splits += it->splits, collapses += it->collapses, flips += it->flips, moves += it->moves;
        rounds += it->split_rounds + it->collapse_rounds + it->flip_rounds + it->relax_rounds;
    }
    row("operations", "%lld splits, %lld collapses, %lld flips, %lld moves in %d rounds",
        (long long)splits, (long long)collapses, (long long)flips, (long long)moves, rounds);
    row("output", "%s", counts_text(counts, rv, rf));
    row("remesh time", "%.3f ms (%s backend%s)", remesh_ms, backend,
        ps ? ", the patch set kept current" : "");
    if (ps) {
        mmx_patch_stats pst;
        mmx_patch_set_stats(ctx, ps, &pst);
        print_patch_stats(&pst, MMX_PATCH_DEFAULT_FACES, 1, patch_ms, backend);
        rc = check_patch_queries(ctx, ps, result, in->name);
    }
    mmx_patch_set_free(ps);
    mmx_mesh_free(result);
    if (rc) return rc;
    row_output(out, bytes, write_ms);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_num("target_length", rep.target_length);
    js_num("feature_angle", options.feature_angle);
    js_bool("slide_features", options.slide_features);
    js_int("feature_edges", rep.feature_edges);
    js_int("feature_verts", rep.feature_verts);
    js_int("iterations", rep.iterations);
    js_array("per_iteration");
    for (int i = 0; i < rep.iterations; i++) {
        const mmx_remesh_iteration *it = &rep.per_iteration[i];
        js_object(NULL);
        js_int("iteration", i + 1);
        js_int("splits", it->splits);
        js_int("collapses", it->collapses);
        js_int("flips", it->flips);
        js_int("moves", it->moves);
        js_int("split_rounds", it->split_rounds);
        js_int("collapse_rounds", it->collapse_rounds);
        js_int("flip_rounds", it->flip_rounds);
        js_int("relax_rounds", it->relax_rounds);
        js_int("vertices", it->nverts);
        js_int("faces", it->nfaces);
        js_ms("ms", it->ms);
        js_end();
    }
    js_end();
    js_int("splits", splits);
    js_int("collapses", collapses);
    js_int("flips", flips);
    js_int("moves", moves);
    js_int("rounds", rounds);
    js_ms("remesh_ms", remesh_ms);
    js_output(out, rv, rf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    options = mmx_remesh_defaults();
    keep_patches = a->value[O_KEEP] != NULL;
    options.slide_features = a->value[O_FIXED] == NULL;
    double v;
    if (a->value[O_LENGTH]) {
        if (!parse_real(a->value[O_LENGTH], 0.0, 1e30, &v) || v == 0.0)
            return usage_error("--length wants a positive number, not '%s'", a->value[O_LENGTH]);
        options.target_length = v;
    }
    if (a->value[O_ITER] &&
        !parse_int(a->value[O_ITER], 0, MMX_REMESH_MAX_ITERATIONS, &options.iterations))
        return usage_error("--iterations wants a whole number from 0 to %d, not '%s'",
                           MMX_REMESH_MAX_ITERATIONS, a->value[O_ITER]);
    if (a->value[O_ANGLE]) {
        if (!parse_real(a->value[O_ANGLE], 0.0, 180.0, &v))
            return usage_error("--feature-angle wants degrees from 0 to 180, not '%s'",
                               a->value[O_ANGLE]);
        options.feature_angle = v;
    }
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd remesh_command = {
    .name = "remesh",
    .summary = "isotropic remeshing of a triangle mesh towards an edge length",
    .synopsis = "remesh [--length L] [--iterations N] [--feature-angle DEG] [--fixed-features] "
                "[--keep-patches] IN OUT",
    .help = "Remeshes the triangle mesh IN towards edges of length L (Botsch and Kobbelt):\n"
            "each iteration splits edges longer than 4/3 L, collapses edges shorter than\n"
            "4/5 L (never making one longer than 4/3 L), flips edges where that brings the\n"
            "valences closer to 6 (4 on the boundary), moves each vertex towards the\n"
            "area-weighted centroid of its neighbours within its tangent plane, and projects\n"
            "it back onto IN. Every step is rounds of the cavity operator, each keeping a\n"
            "maximal independent set of its edits by fixed priorities, so the result is the\n"
            "same bytes every run. Boundary edges, tagged creases and edges sharper than the\n"
            "feature angle are features: never flipped, and collapsed only along their line.\n"
            "A vertex inside a feature line (on two feature edges that turn by at most 30\n"
            "degrees there) slides along it: to the midpoint of its two neighbours on the\n"
            "line, projected back onto IN's feature edges of that line; the other feature\n"
            "vertices (corners, line ends, junctions, tagged corners) never move. With\n"
            "--fixed-features no feature vertex moves.\n"
            "To stay linear whatever the valences, no edge is collapsed at a vertex of more\n"
            "than 64 faces, and a vertex whose closest point would take more than 256\n"
            "triangle tests (as at the centre of a fan) stays where it is for that step.\n"
            "IN must be a valid triangle mesh (manifold, oriented, no degenerate faces;\n"
            "mmx triangulate splits a polygon mesh's faces into triangles).\n"
            "Reports each iteration's operations, rounds and time, and writes OUT as convert\n"
            "does. With --backend cuda everything runs on the GPU (the checks, the features,\n"
            "the projection's BVH and every round) and gives the host's bytes.\n"
            "With --keep-patches it also builds IN's patch set (as info --patches does) and\n"
            "keeps it current through every round (only the patches a round touched are\n"
            "re-cut, grown to twice S at most, 768 faces); then prints the kept set's\n"
            "figures, how many rounds updated it incrementally (host backend: only the\n"
            "touched patches rebuilt; cuda: the whole cut) and the share rebuilt per round,\n"
            "and checks that every query computed on it equals the algebraic path's (exit\n"
            "status 1 if one differs). The remesh time includes the upkeep.",
    .opts = remesh_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
