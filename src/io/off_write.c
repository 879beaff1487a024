/* Writing OFF: the header line, "V F 0" (the edge count, which readers ignore, as 0), one
 * "x y z" line per vertex (9 significant digits), one "n a b c ..." line per face (0-based). */
#include "io_internal.h"

void mmx__write_off(mmx__wbuf *w, const mmx_mesh *mesh)
{
    const mmx_csc *M = mesh->M;
    const float *pos = mesh->pos;
    mmx__wbuf_printf(w, "OFF\n%d %d 0\n", (int)M->nrows, (int)M->ncols);
    for (mmx_index v = 0; v < M->nrows; v++) {
        char *o = mmx__wbuf_room(w, MMX__WITEM);
        if (!o) return;
        char *p = o;
        for (int d = 0; d < 3; d++) {
            if (d) *p++ = ' ';
            p += mmx__fmt_float(p, pos ? pos[3 * (size_t)v + (size_t)d] : 0.0f);
        }
        *p++ = '\n';
        w->len += (size_t)(p - o);
    }
    for (mmx_index f = 0; f < M->ncols; f++) {
        mmx_index b = mmx__face_begin(M, f), e = mmx__face_begin(M, f + 1);
        char *o = mmx__wbuf_room(w, 10);
        if (!o) return;
        w->len += mmx__fmt_u32(o, (uint32_t)(e - b));
        for (mmx_index k = b; k < e; k++) {
            if (!(o = mmx__wbuf_room(w, 11))) return;
            o[0] = ' ';
            w->len += 1 + mmx__fmt_u32(o + 1, (uint32_t)M->rowidx[k]);
        }
        if (!(o = mmx__wbuf_room(w, 1))) return;
        *o = '\n';
        w->len++;
    }
}
