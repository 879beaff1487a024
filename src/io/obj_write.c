/* Writing Wavefront OBJ: a comment with the counts, one "v x y z" line per vertex (9
 * significant digits; "v x y z r g b" when the mesh has colors), the texture coordinates as "vt u v" lines when the mesh has them, the
 * vertex normals as one "vn x y z" line per vertex when it has them, one "f a b c ..." line per
 * face (1-based; "a/ta b/tb ..." with texture coordinates, "a//a" with normals, "a/ta/a" with
 * both), then the
 * mesh's 't' tag lines verbatim so OpenSubdiv creases and holes survive a read-write cycle. */
#include <string.h>
#include "io_internal.h"

void mmx__write_obj(mmx__wbuf *w, const mmx_mesh *mesh)
{
    const mmx_csc *M = mesh->M;
    const float *pos = mesh->pos, *col = mesh->colors;
    mmx__wbuf_printf(w, "# meshmatrix: %d vertices, %d faces\n", (int)M->nrows, (int)M->ncols);
    for (mmx_index v = 0; v < M->nrows; v++) {
        char *o = mmx__wbuf_room(w, 2 * MMX__WITEM);
        if (!o) return;
        char *p = o;
        *p++ = 'v';
        for (int d = 0; d < 3; d++) {
            *p++ = ' ';
            p += mmx__fmt_float(p, pos ? pos[3 * (size_t)v + (size_t)d] : 0.0f);
        }
        for (int d = 0; col && d < 3; d++) {
            *p++ = ' ';
            p += mmx__fmt_float(p, col[3 * (size_t)v + (size_t)d]);
        }
        *p++ = '\n';
        w->len += (size_t)(p - o);
    }
    const mmx_mesh_uv *uv = mesh->uv;
    for (mmx_index t = 0; uv && t < uv->nvalues; t++) {
        char *o = mmx__wbuf_room(w, MMX__WITEM);
        if (!o) return;
        char *p = o;
        *p++ = 'v', *p++ = 't';
        for (int d = 0; d < 2; d++) {
            *p++ = ' ';
            p += mmx__fmt_float(p, uv->values[2 * (size_t)t + (size_t)d]);
        }
        *p++ = '\n';
        w->len += (size_t)(p - o);
    }
    /* Vertex normals: one 'vn' line per vertex, so a corner's normal index is its vertex's. */
    const float *nrm = mesh->normals;
    for (mmx_index v = 0; nrm && v < M->nrows; v++) {
        char *o = mmx__wbuf_room(w, MMX__WITEM);
        if (!o) return;
        char *p = o;
        *p++ = 'v', *p++ = 'n';
        for (int d = 0; d < 3; d++) {
            *p++ = ' ';
            p += mmx__fmt_float(p, nrm[3 * (size_t)v + (size_t)d]);
        }
        *p++ = '\n';
        w->len += (size_t)(p - o);
    }
    for (mmx_index f = 0; f < M->ncols; f++) {
        mmx_index b = mmx__face_begin(M, f), e = mmx__face_begin(M, f + 1);
        char *o = mmx__wbuf_room(w, 1);
        if (!o) return;
        *o = 'f';
        w->len++;
        /* Room per index rather than per face: a face may have any order. */
        for (mmx_index k = b; k < e; k++) {
            if (!(o = mmx__wbuf_room(w, 40))) return;
            o[0] = ' ';
            size_t n = 1 + (size_t)mmx__fmt_u32(o + 1, (uint32_t)M->rowidx[k] + 1u);
            if (uv) { /* v/vt */
                o[n++] = '/';
                n += (size_t)mmx__fmt_u32(o + n, (uint32_t)uv->index[k] + 1u);
            }
            if (nrm) { /* v//vn or v/vt/vn: the vertex's own normal */
                if (!uv) o[n++] = '/';
                o[n++] = '/';
                n += (size_t)mmx__fmt_u32(o + n, (uint32_t)M->rowidx[k] + 1u);
            }
            w->len += n;
        }
        if (!(o = mmx__wbuf_room(w, 1))) return;
        *o = '\n';
        w->len++;
    }
    if (mesh->tags && mesh->tags[0]) {
        size_t n = strlen(mesh->tags);
        mmx__wbuf_put(w, mesh->tags, n);
        if (mesh->tags[n - 1] != '\n') mmx__wbuf_put(w, "\n", 1);
    }
}
