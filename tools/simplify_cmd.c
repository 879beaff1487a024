/* mmx simplify: QEM simplification of a triangle mesh (dynamic.h: Garland and Heckbert's
 * quadric error edge collapses in rounds of the cavity operator's cheapest independent
 * collapses, on the host or with --backend cuda on the device) to a face count, a ratio or an
 * error bound; reports the rounds, collapses and error, and writes the result as convert does. */
#include <stdio.h>
#include <stdlib.h>
#include "tool.h"

enum { O_FACES, O_RATIO, O_ERROR, O_ANGLE, O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec simplify_opts[O_COUNT] = {
    [O_FACES] = {"faces", 0, "N", "stop at N faces or fewer (a whole number >= 1)"},
    [O_RATIO] = {"ratio", 0, "R", "stop at ceil(R x the input's faces) faces, R in (0, 1]"},
    [O_ERROR] = {"error", 0, "E", "collapse only where the error stays at most E, relative\n"
                                  "to the bounding box diagonal (E > 0)"},
    [O_ANGLE] = {"feature-angle", 0, "DEG",
                 "lock both ends of every edge whose faces' normals differ\n"
                 "by more than DEG degrees (default 180: none)"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

static mmx_simplify_options options;

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL, *result = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_simplify_report rep;
    const double t0 = now_ms();
    mmx_status s = mmx_simplify(ctx, mesh, &options, &result, &rep);
    const double simplify_ms = now_ms() - t0;
    if (s) {
        mmx_mesh_free(mesh);
        return fail(ctx, s, in->name);
    }
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, result, out, &bytes, &write_ms);
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    const mmx_index rv = mmx_mesh_nverts(result), rf = mmx_mesh_nfaces(result);
    mmx_mesh_free(mesh);
    mmx_mesh_free(result);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    char counts[COUNTS_LEN];
    row("input", "%s", counts_text(counts, nv, nf));
    if (rep.target_faces > 0) row("target", "%d faces", (int)rep.target_faces);
    if (options.max_error > 0) row("error bound", "%g of the diagonal (%g)", options.max_error,
                                   options.max_error * rep.diagonal);
    row("locked", "%d vertices (boundary, feature angle %g degrees)", (int)rep.locked_verts,
        options.feature_angle);
    row("collapses", "%lld in %d rounds", (long long)rep.collapses, rep.rounds);
    row("max error", "%g of the diagonal (%g)", rep.max_error, rep.max_error * rep.diagonal);
    row("output", "%s", counts_text(counts, rv, rf));
    row("simplify time", "%.3f ms (%s backend)", simplify_ms, backend);
    row_output(out, bytes, write_ms);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_int_or_null("target_faces", rep.target_faces > 0 ? rep.target_faces : -1);
    js_num_or_null("error_bound", options.max_error > 0 ? options.max_error : -1);
    js_num("feature_angle", options.feature_angle);
    js_int("locked_verts", rep.locked_verts);
    js_int("rounds", rep.rounds);
    js_int("collapses", rep.collapses);
    js_num("max_error", rep.max_error);
    js_num("diagonal", rep.diagonal);
    js_ms("simplify_ms", simplify_ms);
    js_output(out, rv, rf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    options = mmx_simplify_defaults();
    double v;
    int n;
    if (!a->value[O_FACES] && !a->value[O_RATIO] && !a->value[O_ERROR])
        return usage_error("simplify wants --faces N, --ratio R or --error E");
    if (a->value[O_FACES] && a->value[O_RATIO])
        return usage_error("--faces and --ratio both set a target: give one");
    if (a->value[O_FACES]) {
        if (!parse_int(a->value[O_FACES], 1, 2147483647L, &n))
            return usage_error("--faces wants a whole number >= 1, not '%s'", a->value[O_FACES]);
        options.target_faces = n;
    }
    if (a->value[O_RATIO]) {
        if (!parse_real(a->value[O_RATIO], 0.0, 1.0, &v) || v == 0.0)
            return usage_error("--ratio wants a number in (0, 1], not '%s'", a->value[O_RATIO]);
        options.ratio = v;
    }
    if (a->value[O_ERROR]) {
        if (!parse_real(a->value[O_ERROR], 0.0, 1e30, &v) || v == 0.0)
            return usage_error("--error wants a positive number, not '%s'", a->value[O_ERROR]);
        options.max_error = v;
    }
    if (a->value[O_ANGLE]) {
        if (!parse_real(a->value[O_ANGLE], 0.0, 180.0, &v) || v == 0.0)
            return usage_error("--feature-angle wants degrees in (0, 180], not '%s'",
                               a->value[O_ANGLE]);
        options.feature_angle = v;
    }
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd simplify_command = {
    .name = "simplify",
    .summary = "QEM simplification of a triangle mesh to a face count, ratio or error",
    .synopsis = "simplify --faces N | --ratio R | --error E [--feature-angle DEG] IN OUT",
    .help = "Simplifies the triangle mesh IN by quadric error edge collapses (Garland and\n"
            "Heckbert): each vertex carries the sum of its faces' area-weighted plane\n"
            "quadrics, a collapse puts the merged vertex where the summed quadric is least\n"
            "(or, where that is ill-conditioned or far off, at the better end or the\n"
            "midpoint) and gives it the sum. Rounds of the cavity operator keep the cheapest\n"
            "collapses that touch no common face, so the result is the same bytes every run.\n"
            "The error of a collapse is the area-weighted RMS distance of the merged vertex\n"
            "to the planes of the input faces it stands for, relative to the bounding box\n"
            "diagonal. A collapse that would fold a face over, break the link condition or\n"
            "make a non-manifold vertex is refused; boundary vertices (and with\n"
            "--feature-angle, the ends of sharper edges) are locked: never moved or removed.\n"
            "No edge at a vertex of more than 64 faces is collapsed. --faces and --ratio\n"
            "stop at the target (or one face below it); --error stops when no collapse is\n"
            "within E; with a target and --error, whichever comes first.\n"
            "IN must be a valid triangle mesh (manifold, oriented, no degenerate faces;\n"
            "mmx triangulate splits a polygon mesh's faces into triangles). Texture\n"
            "coordinates, normals and colors are not carried over.\n"
            "Reports the rounds, collapses and largest error, and writes OUT as convert does.\n"
            "With --backend cuda every round runs on the GPU and gives the host's bytes.",
    .opts = simplify_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
