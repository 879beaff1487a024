/* mmx render: a picture of a mesh file, drawn by the tool's rasteriser (render.h) and written
 * as PNG (png.h). render_to_png is also how mmx demo shows its results. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "png.h"
#include "render.h"
#include "tool.h"

#define DEFAULT_SIZE 800

int render_to_png(mmx_ctx *ctx, const mmx_mesh *mesh, const char *path, int size)
{
    /* The rasteriser reads the arrays on the host: a device mesh is copied back first. */
    mmx_mesh *host = NULL;
    double t0 = now_ms(), copy_ms = 0;
    if (mesh->space != MMX_SPACE_HOST) {
        mmx_status s = mmx_mesh_copy(ctx, mesh, MMX_SPACE_HOST, &host);
        if (s) return fail(ctx, s, path);
        copy_ms = now_ms() - t0;
        mesh = host;
    }
    unsigned char *rgb = NULL;
    char why[256];
    t0 = now_ms();
    int rc = render_mesh(mesh, size, &rgb, why, sizeof why);
    double draw_ms = now_ms() - t0;
    mmx_mesh_free(host);
    if (rc) {
        fprintf(stderr, "mmx: %s: cannot draw the picture: %s\n", path, why);
        return EXIT_FAIL;
    }
    t0 = now_ms();
    rc = png_write_rgb(path, rgb, size, size, why, sizeof why);
    double write_ms = now_ms() - t0;
    free(rgb);
    if (rc) {
        fprintf(stderr, "mmx: %s: %s\n", path, why);
        return EXIT_FAIL;
    }
    if (copy_ms > 0)
        row("picture", "%s: %d x %d PNG, %lld bytes (copied to the host in %.1f ms, drawn in "
            "%.1f ms, compressed and written in %.1f ms)", path, size, size, file_bytes(path),
            copy_ms, draw_ms, write_ms);
    else
        row("picture", "%s: %d x %d PNG, %lld bytes (drawn in %.1f ms, compressed and written "
            "in %.1f ms)", path, size, size, file_bytes(path), draw_ms, write_ms);
    return EXIT_OK;
}

/* Whether a path ends in ".png", in any case. */
static int is_png_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".png") == 0;
}

int cmd_render(mmx_ctx *ctx, const char *in, const char *out, const char *size_arg)
{
    int size = DEFAULT_SIZE;
    if (size_arg) {
        char *end = NULL;
        errno = 0;
        long v = strtol(size_arg, &end, 10);
        if (errno || end == size_arg || *end || v < RENDER_MIN_SIZE || v > RENDER_MAX_SIZE)
            return usage_error("--size needs a whole number of pixels from %d to %d, got '%s'",
                               RENDER_MIN_SIZE, RENDER_MAX_SIZE, size_arg);
        size = (int)v;
    }
    if (!is_png_name(out))
        return usage_error("%s: render writes PNG pictures (use a .png name)", out);
    if (check_output_file(out)) return EXIT_FAIL;
    mmx_mesh *mesh = NULL;
    double load_ms = 0;
    mmx_status s = load(ctx, in, &mesh, &load_ms);
    if (s) return fail(ctx, s, in);
    row("mesh", "%s: %d vertices, %d faces (loaded in %.3f ms, %s backend)", in,
        (int)mmx_mesh_nverts(mesh), (int)mmx_mesh_nfaces(mesh), load_ms, backend_name(ctx));
    int rc = render_to_png(ctx, mesh, out, size);
    mmx_mesh_free(mesh);
    return rc;
}
