/* mmx triangulate: splits every face of a mesh into triangles (mesh.h, mmx_mesh_triangulate:
 * quads along their shorter diagonal, other polygons as fans from their first corner) and
 * writes the result as convert does: what remesh, delaunay and the cotangent smoothers need.
 * Also the triangulate() that mmx demo and mmx bench give Loop and sqrt3 of a quad cage. */
#include <stdio.h>
#include "tool.h"

int triangulate(mmx_ctx *ctx, const mmx_mesh *mesh, const char *name, mmx_mesh **out)
{
    mmx_status s = mmx_mesh_triangulate(ctx, mesh, out);
    return s ? fail(ctx, s, name) : EXIT_OK;
}

enum { O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec triangulate_opts[O_COUNT] = {
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL, *tris = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    const double t0 = now_ms();
    int rc = triangulate(ctx, mesh, in->name, &tris);
    const double ms = now_ms() - t0;
    mmx_mesh_free(mesh);
    if (rc) return rc;
    const mmx_index tf = mmx_mesh_nfaces(tris);
    long long bytes = -1;
    double write_ms = 0;
    rc = output_write_mesh(ctx, tris, out, &bytes, &write_ms);
    mmx_mesh_free(tris);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    char counts[COUNTS_LEN];
    row("input", "%s", counts_text(counts, nv, nf));
    row("triangles", "%d (quads cut along their shorter diagonal, other polygons fanned)", (int)tf);
    row("triangulate time", "%.3f ms (on the host)", ms);
    row_output(out, bytes, write_ms);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_int("triangles", tf);
    js_ms("triangulate_ms", ms);
    js_output(out, nv, tf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd triangulate_command = {
    .name = "triangulate",
    .summary = "split every face into triangles (for remesh, delaunay, cotan and mcf)",
    .synopsis = "triangulate IN OUT",
    .help = "Splits every face of IN into triangles over its own corners and writes OUT as\n"
            "convert does: a quad along its shorter diagonal, any other polygon as a fan\n"
            "from its first corner (a non-convex polygon may fold); triangles stay as they\n"
            "are. Vertices, positions, orientation, texture coordinates and tags are kept\n"
            "(a hole face becomes its triangles). The same bytes every run.",
    .opts = triangulate_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
