/* Private declarations of the mesh writers: the output buffer they share, the number
 * formatting that makes text output fast, and one entry point per format. */
#ifndef MMX_WRITE_INTERNAL_H
#define MMX_WRITE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include "core/core_internal.h"
#include "meshmatrix/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An output buffer in front of a FILE. Writers format straight into it and it goes out in
 * large fwrite calls, so the hot loops make no stdio call per number. The first write error is
 * kept (as an errno value) and every later write is skipped, so a writer can run to its end
 * and the caller checks once. */
typedef struct mmx__wbuf {
    FILE *fp;
    char *buf;
    size_t len, cap;
    int err; /* errno of the first failed write; 0 while all is well */
} mmx__wbuf;

/* The most bytes one formatted item (a number, a short header line) may take: callers ask for
 * this much room before writing an item in place. */
#define MMX__WITEM 64

/* Sends the buffered bytes to the file. Returns 0, or -1 with w->err set. */
int mmx__wbuf_flush(mmx__wbuf *w);

/* A place for at least n (<= w->cap) more bytes at the end of the buffer, flushing first if
 * needed; NULL once a write has failed. The caller advances w->len by what it wrote. */
static inline char *mmx__wbuf_room(mmx__wbuf *w, size_t n)
{
    if (w->len + n > w->cap && mmx__wbuf_flush(w) != 0) return NULL;
    return w->err ? NULL : w->buf + w->len;
}

/* Appends n bytes (any length: large blocks go straight to the file). */
void mmx__wbuf_put(mmx__wbuf *w, const void *p, size_t n);

/* Appends a short printf-formatted text (header lines; at most 255 bytes are kept). */
void mmx__wbuf_printf(mmx__wbuf *w, const char *fmt, ...) MMX__PRINTF(2, 3);

/* Formats f exactly as printf("%.9g", (double)f) does (9 significant digits: enough for
 * every float to read back bit for bit), at about a tenth of printf's cost. Writes at most
 * 16 bytes, no terminating NUL; returns the length. */
size_t mmx__fmt_float(char *out, float f);

/* Formats v in decimal, no NUL; at most 10 bytes; returns the length. */
size_t mmx__fmt_u32(char *out, uint32_t v);

/* The first entry of face f in M's row-index array, in either form. */
static inline mmx_index mmx__face_begin(const mmx_csc *M, mmx_index f)
{
    return M->order ? M->order * f : M->colptr[f];
}

/* One writer per format. The mesh is in host memory; they only format into w (errors are
 * left in w->err for mmx_mesh_write to report). */
void mmx__write_obj(mmx__wbuf *w, const mmx_mesh *mesh);
void mmx__write_off(mmx__wbuf *w, const mmx_mesh *mesh);
void mmx__write_ply(mmx__wbuf *w, const mmx_mesh *mesh);

#ifdef __cplusplus
}
#endif
#endif
