/*
 * meshmatrix/io.h: reading and writing mesh files (OBJ, OFF, PLY).
 *
 * Readers parse into host memory and then place the mesh in the context's space. They never
 * trust a header: counts are checked against the bytes actually present before anything is
 * allocated from them. Every refusal leaves a detail in the context of the form
 * "FILE:LINE: problem" (text formats) or "FILE: byte OFFSET: problem" (binary PLY).
 */
#ifndef MESHMATRIX_IO_H
#define MESHMATRIX_IO_H

#include "core.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mmx_format {
    MMX_FORMAT_AUTO = 0, /* from the file name's extension (.obj, .off, .ply; any case) */
    MMX_FORMAT_OBJ,      /* Wavefront OBJ: v and f lines (v, v/vt, v//vn, v/vt/vn, negative
                            indices), comments; vt, vn, g, o, s, usemtl and others skipped;
                            OpenSubdiv 't' tag lines kept verbatim in mesh->tags */
    MMX_FORMAT_OFF,      /* OFF (also COFF/NOFF/CNOFF headers; colors skipped) */
    MMX_FORMAT_PLY       /* PLY 1.0, ascii or binary little/big endian; vertex x y z as float or
                            double, face vertex_indices (or vertex_index) lists with uchar,
                            ushort or int/uint counts and int/uint/short/ushort/char/uchar
                            indices; other properties and elements skipped. A tristrips
                            element is refused with MMX_ERR_UNSUPPORTED. */
} mmx_format;

/* The format named by a path's extension, or MMX_FORMAT_AUTO if none is recognised. */
mmx_format mmx_format_from_path(const char *path);

/* Reads a mesh file. fmt MMX_FORMAT_AUTO picks by extension. The mesh is validated as in
 * mmx_mesh_from_faces and placed in the context's space, in the general form.
 * Errors: MMX_ERR_IO (cannot open/read), MMX_ERR_PARSE (malformed), MMX_ERR_MESH (bad indices,
 * degenerate faces, non-finite coordinates), MMX_ERR_OVERFLOW, MMX_ERR_UNSUPPORTED,
 * MMX_ERR_NOMEM; the detail names the file, the line or byte offset, and the problem. */
mmx_status mmx_mesh_read(mmx_ctx *ctx, const char *path, mmx_format fmt, mmx_mesh **out);

/* Reads a mesh from `len` bytes at `data` (not necessarily NUL-terminated); `name` is used in
 * error messages. fmt must not be MMX_FORMAT_AUTO unless name has a known extension. */
mmx_status mmx_mesh_read_mem(mmx_ctx *ctx, const char *name, const void *data, size_t len,
                             mmx_format fmt, mmx_mesh **out);

/* Writes a mesh: OBJ and OFF as text (positions with 9 significant digits, so floats round
 * trip exactly), PLY as binary little endian (float x y z, uchar or int counts, int indices).
 * OBJ also writes mesh->tags back. A mesh without positions is written with zeros.
 * Errors: MMX_ERR_IO (with the system's reason), MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx_mesh_write(mmx_ctx *ctx, const mmx_mesh *mesh, const char *path, mmx_format fmt);

#ifdef __cplusplus
}
#endif
#endif
