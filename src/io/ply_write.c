/* Writing binary little-endian PLY: float x y z per vertex (then nx ny nz when the mesh has
 * vertex normals, and uchar red green blue when it has colors), and one vertex_indices list per
 * face with int indices and a uchar count (an int count when some face has more than 255
 * vertices, which a uchar cannot hold). Bytes are packed explicitly, so the file is the same
 * on a big-endian host. */
#include <math.h>
#include <string.h>
#include "io_internal.h"

static inline void put_u32le(char *p, uint32_t v)
{
    p[0] = (char)(v & 0xffu);
    p[1] = (char)((v >> 8) & 0xffu);
    p[2] = (char)((v >> 16) & 0xffu);
    p[3] = (char)((v >> 24) & 0xffu);
}

void mmx__write_ply(mmx__wbuf *w, const mmx_mesh *mesh)
{
    const mmx_csc *M = mesh->M;
    const float *pos = mesh->pos;
    mmx_index maxorder = M->order;
    for (mmx_index f = 0; !M->order && f < M->ncols; f++)
        if (M->colptr[f + 1] - M->colptr[f] > maxorder) maxorder = M->colptr[f + 1] - M->colptr[f];
    int wide = maxorder > 255;
    const float *nrm = mesh->normals, *col = mesh->colors;
    /* In pieces: mmx__wbuf_printf keeps 255 bytes at most. */
    mmx__wbuf_printf(w, "ply\nformat binary_little_endian 1.0\ncomment written by meshmatrix\n"
                        "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n",
                     (int)M->nrows);
    if (nrm) mmx__wbuf_printf(w, "property float nx\nproperty float ny\nproperty float nz\n");
    if (col) mmx__wbuf_printf(w, "property uchar red\nproperty uchar green\nproperty uchar blue\n");
    mmx__wbuf_printf(w, "element face %d\nproperty list %s int vertex_indices\nend_header\n",
                     (int)M->ncols, wide ? "int" : "uchar");
    const size_t fbytes = nrm ? 24 : 12, vbytes = fbytes + (col ? 3 : 0);
    for (mmx_index v = 0; v < M->nrows; v++) {
        char *o = mmx__wbuf_room(w, vbytes);
        if (!o) return;
        for (int d = 0; d < (nrm ? 6 : 3); d++) {
            float x = d < 3 ? (pos ? pos[3 * (size_t)v + (size_t)d] : 0.0f)
                            : nrm[3 * (size_t)v + (size_t)(d - 3)];
            uint32_t u;
            memcpy(&u, &x, sizeof u);
            put_u32le(o + 4 * d, u);
        }
        for (int d = 0; col && d < 3; d++) { /* [0, 1] to 0..255, to nearest */
            float c = col[3 * (size_t)v + (size_t)d];
            o[fbytes + (size_t)d] = (char)(unsigned char)(c > 0 ? (c < 1 ? lrintf(c * 255.0f) : 255) : 0);
        }
        w->len += vbytes;
    }
    for (mmx_index f = 0; f < M->ncols; f++) {
        mmx_index b = mmx__face_begin(M, f), e = mmx__face_begin(M, f + 1);
        char *o = mmx__wbuf_room(w, 4);
        if (!o) return;
        if (wide) {
            put_u32le(o, (uint32_t)(e - b));
            w->len += 4;
        } else {
            o[0] = (char)(unsigned char)(e - b);
            w->len += 1;
        }
        for (mmx_index k = b; k < e; k++) {
            if (!(o = mmx__wbuf_room(w, 4))) return;
            put_u32le(o, (uint32_t)M->rowidx[k]);
            w->len += 4;
        }
    }
}
