/* libFuzzer target for the mesh readers: every input is read as OBJ, OFF, PLY and STL, and
 * as a nameless input whose format is sniffed (standard input's way), from memory
 * (a buffer of exactly `size` bytes, so AddressSanitizer sees any read past the end). A read
 * may fail, but when it succeeds the mesh must be valid: every face of order >= 3 with
 * distinct vertices in range, every coordinate finite. Anything else aborts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "meshmatrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_index *start, *verts;
    if (mmx_mesh_faces(ctx, m, &start, &verts)) abort();
    mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    if (start[0] != 0) abort();
    for (mmx_index f = 0; f < nf; f++) {
        mmx_index a = start[f], b = start[f + 1];
        if (b - a < 3) abort();
        for (mmx_index i = a; i < b; i++) {
            if (verts[i] < 0 || verts[i] >= nv) abort();
            for (mmx_index k = a; k < i; k++)
                if (verts[k] == verts[i]) abort();
        }
    }
    for (mmx_index i = 0; m->pos && i < 3 * nv; i++)
        if (!isfinite(m->pos[i])) abort();
    free(start);
    free(verts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mmx_format fmts[] = {MMX_FORMAT_OBJ, MMX_FORMAT_OFF, MMX_FORMAT_PLY,
                                      MMX_FORMAT_STL, MMX_FORMAT_AUTO};
    static const char *const names[] = {"fuzz.obj", "fuzz.off", "fuzz.ply", "fuzz.stl", "fuzz"};
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx)) return 0;
    for (int i = 0; i < 5; i++) {
        mmx_mesh *m = NULL;
        if (mmx_mesh_read_mem(ctx, names[i], data, size, fmts[i], &m) == MMX_OK) check(ctx, m);
        else if (m) abort(); /* a failed read must leave no mesh */
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
    return 0;
}
