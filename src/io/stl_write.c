/* Writing STL: binary little endian (an 80-byte header that does not begin with "solid", the
 * triangle count, then per triangle its normal, three corners and a zero attribute) or ascii
 * ("solid meshmatrix", one facet block per triangle, 9 significant digits). Each facet's unit
 * normal is computed from its corners in double precision; a zero-area facet gets 0 0 0.
 * mmx_mesh_write has checked that every face is a triangle. */
#include <math.h>
#include <string.h>
#include "io_internal.h"

static inline void put_f32le(char *p, float x)
{
    uint32_t v;
    memcpy(&v, &x, sizeof v);
    p[0] = (char)(v & 0xffu);
    p[1] = (char)((v >> 8) & 0xffu);
    p[2] = (char)((v >> 16) & 0xffu);
    p[3] = (char)((v >> 24) & 0xffu);
}

/* The corners of triangle f and its unit normal. */
static void facet(const mmx_mesh *mesh, mmx_index f, float c[3][3], float n[3])
{
    const mmx_csc *M = mesh->M;
    mmx_index b = mmx__face_begin(M, f);
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            c[k][d] = mesh->pos ? mesh->pos[3 * (size_t)M->rowidx[b + k] + (size_t)d] : 0.0f;
    double u[3], v[3], w[3];
    for (int d = 0; d < 3; d++) {
        u[d] = (double)c[1][d] - c[0][d];
        v[d] = (double)c[2][d] - c[0][d];
    }
    w[0] = u[1] * v[2] - u[2] * v[1];
    w[1] = u[2] * v[0] - u[0] * v[2];
    w[2] = u[0] * v[1] - u[1] * v[0];
    double len = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int d = 0; d < 3; d++) n[d] = len > 0 && isfinite(len) ? (float)(w[d] / len) : 0.0f;
}

static void write_binary(mmx__wbuf *w, const mmx_mesh *mesh)
{
    char head[84] = "binary STL written by meshmatrix";
    mmx_index nf = mesh->M->ncols;
    head[80] = (char)(nf & 0xff);
    head[81] = (char)((nf >> 8) & 0xff);
    head[82] = (char)((nf >> 16) & 0xff);
    head[83] = (char)((nf >> 24) & 0xff);
    mmx__wbuf_put(w, head, sizeof head);
    for (mmx_index f = 0; f < nf; f++) {
        char *o = mmx__wbuf_room(w, 50);
        if (!o) return;
        float c[3][3], n[3];
        facet(mesh, f, c, n);
        for (int d = 0; d < 3; d++) put_f32le(o + 4 * d, n[d]);
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++) put_f32le(o + 12 + 12 * k + 4 * d, c[k][d]);
        o[48] = o[49] = 0;
        w->len += 50;
    }
}

/* " x y z\n" after a keyword, 9 significant digits. */
static char *triple(char *p, const float v[3])
{
    for (int d = 0; d < 3; d++) {
        *p++ = ' ';
        p += mmx__fmt_float(p, v[d]);
    }
    *p++ = '\n';
    return p;
}

static void write_ascii(mmx__wbuf *w, const mmx_mesh *mesh)
{
    mmx__wbuf_printf(w, "solid meshmatrix\n");
    for (mmx_index f = 0; f < mesh->M->ncols; f++) {
        char *o = mmx__wbuf_room(w, 4 * MMX__WITEM + 64);
        if (!o) return;
        float c[3][3], n[3];
        facet(mesh, f, c, n);
        char *p = o;
        memcpy(p, "facet normal", 12), p += 12;
        p = triple(p, n);
        memcpy(p, "outer loop\n", 11), p += 11;
        for (int k = 0; k < 3; k++) {
            memcpy(p, "vertex", 6), p += 6;
            p = triple(p, c[k]);
        }
        memcpy(p, "endloop\nendfacet\n", 17), p += 17;
        w->len += (size_t)(p - o);
    }
    mmx__wbuf_printf(w, "endsolid meshmatrix\n");
}

void mmx__write_stl(mmx__wbuf *w, const mmx_mesh *mesh, int ascii)
{
    if (ascii)
        write_ascii(w, mesh);
    else
        write_binary(w, mesh);
}
