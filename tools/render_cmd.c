/* mmx render: a picture of a mesh, drawn by the tool's rasteriser (render.h) and written as
 * PNG (png.h) to a file or standard output. render_to_png is also how mmx demo shows its
 * results. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "png.h"
#include "render.h"
#include "tool.h"

int render_to_png(mmx_ctx *ctx, const mmx_mesh *mesh, const tool_output *out,
                  const render_options *opt)
{
    const int size = opt->size;
    /* The rasteriser reads the arrays on the host: a device mesh is copied back first. */
    mmx_mesh *host = NULL;
    double t0 = now_ms(), copy_ms = 0;
    if (mesh->space != MMX_SPACE_HOST) {
        mmx_status s = mmx_mesh_copy(ctx, mesh, MMX_SPACE_HOST, &host);
        if (s) return fail(ctx, s, out->name);
        copy_ms = now_ms() - t0;
        mesh = host;
    }
    unsigned char *rgb = NULL, *png = NULL;
    size_t len = 0;
    char why[256];
    t0 = now_ms();
    int rc = render_mesh(mesh, opt, &rgb, why, sizeof why);
    double draw_ms = now_ms() - t0;
    mmx_mesh_free(host);
    if (rc) {
        fprintf(stderr, "mmx: %s: cannot draw the picture: %s\n", out->name, why);
        return EXIT_FAIL;
    }
    t0 = now_ms();
    rc = png_encode_rgb(rgb, size, size, &png, &len);
    free(rgb);
    if (rc) {
        fprintf(stderr, "mmx: %s: out of memory encoding a %d x %d picture\n", out->name, size,
                size);
        return EXIT_FAIL;
    }
    rc = output_write_bytes(out, png, len);
    double write_ms = now_ms() - t0;
    free(png);
    if (rc) return rc;
    const char *verb = out->kind == OUT_DISCARD ? "compressed" : "compressed and written";
    if (copy_ms > 0)
        row("picture", "%s: %d x %d PNG, %zu bytes (copied to the host in %.1f ms, drawn in "
            "%.1f ms, %s in %.1f ms)", out->name, size, size, len, copy_ms, draw_ms, verb,
            write_ms);
    else
        row("picture", "%s: %d x %d PNG, %zu bytes (drawn in %.1f ms, %s in %.1f ms)",
            out->name, size, size, len, draw_ms, verb, write_ms);
    js_object("picture");
    js_str("path", out->kind == OUT_DISCARD ? NULL : out->name);
    js_int("size", size);
    js_bool("edges", opt->edges);
    js_num("zoom", opt->zoom);
    js_int("bytes", (long long)len);
    js_bool("written", out->kind != OUT_DISCARD);
    js_ms("copy_ms", copy_ms);
    js_ms("draw_ms", draw_ms);
    js_ms("encode_write_ms", write_ms);
    js_end();
    return EXIT_OK;
}

enum { O_SIZE, O_EDGES, O_ZOOM, O_CENTER, O_FORMAT, O_FROM, O_DISCARD, O_COUNT };

static const opt_spec render_opts[O_COUNT] = {
    [O_SIZE] = {"size", 0, "N",
                "the picture's width and height in pixels, 16 to 4096\n"
                "(default 800)"},
    [O_EDGES] = {"edges", 0, NULL, "draw every face's edges as thin dark lines (hidden ones\n"
                                   "not)"},
    [O_ZOOM] = {"zoom", 0, "F", "magnify F times (1 to 100, default 1) about the --center\n"
                                "point, to show a detail"},
    [O_CENTER] = {"center", 0, "X,Y",
                  "the point --zoom magnifies, which becomes the picture's\n"
                  "centre, in the fitted picture's coordinates: 0,0 top left,\n"
                  "1,1 bottom right (default 0.5,0.5)"},
    [O_FORMAT] = {"format", 0, "obj|off|ply|stl", "the format of standard input (IN given as -;\ntold by its content without it)"},
    [O_FROM] = OPT_SPEC_FROM,
    [O_DISCARD] = {"discard", 0, NULL, "draw and compress, but write nothing (give no OUT.png)"},
};

/* A finite number in [lo, hi] at the start of arg, followed by the character `stop` ('\0': the
 * string's end), where *next then points when next is not NULL. Returns 1 on success. */
static int parse_real_to(const char *arg, double lo, double hi, char stop, double *out,
                         const char **next)
{
    char *end = NULL;
    const double v = *arg && *arg != stop ? strtod(arg, &end) : NAN;
    if (!end || *end != stop || !isfinite(v) || v < lo || v > hi) return 0;
    *out = v;
    if (next) *next = end;
    return 1;
}

static int run(const tool_args *a)
{
    render_options opt = render_options_default();
    const char *size_arg = a->value[O_SIZE], *zoom_arg = a->value[O_ZOOM];
    const char *center_arg = a->value[O_CENTER], *rest = NULL;
    if (size_arg && !parse_int(size_arg, RENDER_MIN_SIZE, RENDER_MAX_SIZE, &opt.size))
        return usage_error("--size needs a whole number of pixels from %d to %d, got '%s'",
                           RENDER_MIN_SIZE, RENDER_MAX_SIZE, size_arg);
    opt.edges = a->value[O_EDGES] != NULL;
    if (zoom_arg && !parse_real_to(zoom_arg, 1.0, RENDER_MAX_ZOOM, '\0', &opt.zoom, NULL))
        return usage_error("--zoom needs a number from 1 to %g, got '%s'", RENDER_MAX_ZOOM,
                           zoom_arg);
    if (center_arg && !(parse_real_to(center_arg, 0.0, 1.0, ',', &opt.center[0], &rest)
                        && parse_real_to(rest + 1, 0.0, 1.0, '\0', &opt.center[1], NULL)))
        return usage_error("--center needs X,Y, two numbers from 0 to 1 (0,0 the top left), "
                           "got '%s'", center_arg);
    const int discard = a->value[O_DISCARD] != NULL;
    const char *in_arg, *out_arg;
    tool_input in;
    tool_output out;
    int rc = take_in_out(a, discard, &in_arg, &out_arg);
    if (!rc) rc = input_resolve(in_arg, a->value[O_FROM], a->value[O_FORMAT], &in);
    if (!rc) rc = output_resolve_png(out_arg, &out);
    if (rc) return rc;
    /* The picture is drawn on the host whatever the backend: a device mesh is copied back. */
    mmx_ctx *ctx = NULL;
    char why[512];
    if (open_context(a->global[G_BACKEND], 0, &ctx, why, sizeof why)) return EXIT_FAIL;
    mmx_mesh *mesh = NULL;
    double load_ms = 0;
    rc = input_load(ctx, &in, &mesh, &load_ms);
    if (!rc) {
        char counts[COUNTS_LEN];
        row("mesh", "%s: %s (loaded in %.3f ms, %s backend)", in.name,
            counts_text(counts, mmx_mesh_nverts(mesh), mmx_mesh_nfaces(mesh)), load_ms,
            backend_name(ctx));
        js_str("backend", backend_name(ctx));
        js_input(in.name, mmx_mesh_nverts(mesh), mmx_mesh_nfaces(mesh), load_ms);
        rc = render_to_png(ctx, mesh, &out, &opt);
    }
    mmx_mesh_free(mesh);
    mmx_ctx_free(ctx);
    return rc;
}

const tool_cmd render_command = {
    .name = "render",
    .summary = "draw a mesh as a PNG picture",
    .synopsis = "render IN OUT.png [--size N] [--edges] [--zoom F] [--center X,Y]",
    .help = "Draws IN as an N x N PNG picture (default 800) with the tool's own software\n"
            "rasteriser: orthographic, from 10 degrees above and 15 to the right of +z,\n"
            "+y up, fitted to the mesh, each face flat-shaded by its normal on a\n"
            "light-grey background. --edges draws the faces' edges over the shading\n"
            "(the diagonals that split a polygon into triangles are not drawn);\n"
            "--zoom and --center show a detail. OUT.png may be - for standard output\n"
            "(not a terminal). The drawing runs on the host; with --backend cuda the mesh is\n"
            "loaded on the GPU and copied back to be drawn.",
    .opts = render_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
