/*
 * meshmatrix/io.h: reading and writing mesh files (OBJ, OFF, PLY).
 *
 * Readers parse into host memory and then place the mesh in the context's space. They never
 * trust a header: counts are checked against the bytes actually present before anything is
 * allocated from them. Every refusal leaves a detail in the context of the form
 * "FILE:LINE: problem" (text formats, and the text header of a binary PLY) or
 * "FILE: byte OFFSET: problem" (the body of a binary PLY). Face numbers and vertex indices in
 * messages count from 0, as in the mesh (OBJ messages say so). A number in a message is
 * printed as the file writes it, also when it is too large for 32 bits. The text formats (and
 * a PLY header) may end their lines with LF, CRLF or a lone CR (classic Mac OS files); line
 * numbers count every line ending once.
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
    MMX_FORMAT_OBJ,      /* Wavefront OBJ: v lines (x y z, then w or colors, ignored) and f
                            lines (v, v/vt, v//vn, v/vt/vn items; 1-based, negative indices
                            relative to the vertices read so far; faces may name vertices
                            defined later); '#' comments; vt, vn, vp, g, o, s, l, usemtl,
                            mtllib and unknown statements skipped; a backslash at the end of a
                            statement line continues it on the next (not in comments).
                            OpenSubdiv 't' lines are kept verbatim in mesh->tags (continuations
                            joined with a space). A UTF-8 BOM is fine. */
    MMX_FORMAT_OFF,      /* OFF, also with the COFF/NOFF/CNOFF/STOFF... headers and the counts
                            "nv nf [ne]" on the header line or the next; one vertex (x y z, extra
                            values skipped) and one face (n, n 0-based indices, an optional
                            color skipped) per line; '#' comments. 4OFF, nOFF and binary OFF
                            are refused with MMX_ERR_UNSUPPORTED. */
    MMX_FORMAT_PLY       /* PLY 1.0, ascii or binary little/big endian; vertex x y z of any
                            scalar type (float or double in practice); face vertex_indices (or
                            vertex_index) lists with integer count and index types; elements in
                            any order, other properties and elements skipped. A tristrips
                            element is cut into triangles (-1 restarts a strip, orientation
                            alternates, degenerate stitching triangles are dropped). */
} mmx_format;

/* The format named by a path's extension, or MMX_FORMAT_AUTO if none is recognised. */
mmx_format mmx_format_from_path(const char *path);

/* Reads a mesh file. fmt MMX_FORMAT_AUTO picks by extension. The mesh is validated as in
 * mmx_mesh_from_faces and placed in the context's space, in the general form. Coordinates are
 * read as doubles (correctly rounded in the usual cases) and stored as floats; one that is NaN,
 * infinite, or too large for a float is refused. An empty file, an OBJ without 'v' lines,
 * and a file cut short of what its header announces are refused; OFF and PLY files that
 * announce 0 vertices give an empty mesh. Bytes after the announced data are ignored.
 * OBJ texture coordinates ('vt' lines and the 'v/vt' corners of the faces) become mesh->uv
 * when every corner of every face names one in range (OpenSubdiv's face-varying data); a
 * partial set, or one naming a missing 'vt' line, is not kept (the mesh is read without it).
 * The writer writes them back (OBJ only; OFF and PLY do not carry them).
 * Errors: MMX_ERR_ARG (NULL argument, unknown or no extension with MMX_FORMAT_AUTO: the known
 * ones are listed), MMX_ERR_IO (cannot open/read, with the system's reason; a directory is
 * named as one), MMX_ERR_UNSUPPORTED ("-": standard input is not read), MMX_ERR_PARSE (malformed, truncated, header
 * counts beyond the file's size), MMX_ERR_MESH (bad indices, faces of fewer than 3 vertices,
 * a vertex twice in a face, non-finite coordinates), MMX_ERR_OVERFLOW (counts beyond 32-bit
 * indices), MMX_ERR_UNSUPPORTED (also formats listed above), MMX_ERR_NOMEM; the detail names the file, the line or byte
 * offset, and the problem. Cost: O(file size); a regular file is mapped into memory while it
 * is parsed (so it must not be truncated meanwhile), anything else is read into a buffer. */
mmx_status mmx_mesh_read(mmx_ctx *ctx, const char *path, mmx_format fmt, mmx_mesh **out);

/* Reads a mesh from `len` bytes at `data` (not necessarily NUL-terminated); `name` is used in
 * error messages. fmt must not be MMX_FORMAT_AUTO unless name has a known extension. */
mmx_status mmx_mesh_read_mem(mmx_ctx *ctx, const char *name, const void *data, size_t len,
                             mmx_format fmt, mmx_mesh **out);

/* Writes a mesh: OBJ and OFF as text (positions with 9 significant digits, so floats round
 * trip exactly), PLY as binary little endian (float x y z, uchar or int counts, int indices).
 * OBJ also writes mesh->tags back. Vertex normals (mesh->normals) are written as OBJ 'vn'
 * lines (one per vertex, corners 'v//vn', or 'v/vt/vn' with texture coordinates) and as PLY
 * float nx ny nz vertex properties; OFF has no place for them. The readers skip them (OBJ vn,
 * PLY nx ny nz), so they do not come back yet. A mesh without positions is written with zeros.
 * A device mesh is copied to the host first. When a write fails part way, a partly written
 * regular file is removed (a device or pipe is left alone), so no truncated mesh is left behind.
 * Errors: MMX_ERR_IO (with the system's reason), MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx_mesh_write(mmx_ctx *ctx, const mmx_mesh *mesh, const char *path, mmx_format fmt);

#ifdef __cplusplus
}
#endif
#endif
