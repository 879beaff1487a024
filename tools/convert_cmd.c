/* mmx convert: reads a mesh and writes it in another format (or the same), from and to files
 * or standard input and output. */
#include <stdio.h>
#include "tool.h"

enum { O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec convert_opts[O_COUNT] = {
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = {"discard", 0, NULL,
                   "read IN and report, but write nothing (give no OUT): times\n"
                   "the reader alone"},
};

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    const int nv = (int)mmx_mesh_nverts(mesh), nf = (int)mmx_mesh_nfaces(mesh);
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, mesh, out, &bytes, &write_ms);
    mmx_mesh_free(mesh);
    if (rc) return rc;
    say("read  %s: %d vertices, %d faces (%.3f ms)\n", in->name, nv, nf, load_ms);
    if (out->kind == OUT_DISCARD)
        say("wrote nothing (--discard)\n");
    else if (bytes >= 0)
        say("wrote %s: %s, %d vertices, %d faces, %lld bytes (%.3f ms)\n", out->name,
            format_name(out->fmt), nv, nf, bytes, write_ms);
    else
        say("wrote %s: %s, %d vertices, %d faces (%.3f ms)\n", out->name, format_name(out->fmt),
            nv, nf, write_ms);
    js_str("backend", backend_name(ctx));
    js_input(in->name, nv, nf, load_ms);
    js_output(out, nv, nf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd convert_command = {
    .name = "convert",
    .summary = "read a mesh and write it again, in the format OUT's extension names",
    .synopsis = "convert IN OUT",
    .help = "Reads IN and writes OUT: .obj (text), .off (text), .ply (binary little\n"
            "endian) or .stl (binary; --to stl-ascii for text), picked by OUT's extension or\n"
            "--to. STL is read in either kind, told by content, its corners welded by\n"
            "position; it holds triangles only (mmx triangulate first). What the output\n"
            "cannot carry, or the reader did not keep (normals, groups, materials, colors\n"
            "outside PLY and OBJ, texture coordinates outside OBJ), is said on stderr, one\n"
            "line per kind. Through standard input (its format told by content) and output:\n"
            "  cat in.stl | mmx convert - - --to ply > out.ply\n"
            "  mmx convert in.off - --format obj | less",
    .opts = convert_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
