/*
 * meshmatrix/io.h: reading and writing mesh files (OBJ, OFF, PLY, STL).
 *
 * Readers parse into host memory and then place the mesh in the context's space. They never
 * trust a header: counts are checked against the bytes actually present before anything is
 * allocated from them. Every refusal leaves a detail in the context of the form
 * "FILE:LINE: problem" (text formats, and the text header of a binary PLY) or
 * "FILE: byte OFFSET: problem" (the body of a binary PLY, a binary STL, a stream's limits). Face numbers and vertex indices in
 * messages count from 0, as in the mesh (OBJ messages say so). A number in a message is
 * printed as the file writes it, also when it is too large for 32 bits. The text formats (and
 * a PLY header) may end their lines with LF, CRLF or a lone CR (classic Mac OS files); line
 * numbers count every line ending once.
 *
 * The empty mesh (0 vertices, 0 faces) is a mesh like any other: every writer writes it and
 * every reader reads it back (an OBJ of comments only, "OFF 0 0 0", a PLY with 0 vertices, an
 * STL without facets). A file of zero bytes is refused all the same: a failed download or
 * write is far likelier than a deliberate empty mesh, and no writer here produces one.
 *
 * Limits: a read takes at most mmx_read_opts.max_bytes bytes (default
 * MMX_READ_MAX_BYTES_DEFAULT, 4 GiB), and in a text format (OBJ, OFF, ascii PLY, ascii STL)
 * read from a stream no line longer than max_line bytes (default MMX_READ_MAX_LINE_DEFAULT,
 * 64 MiB) and no NUL byte; an endless stream such as /dev/zero is refused when it crosses one
 * of them (a NUL: at once), naming the byte. Header counts are checked against the bytes
 * present and the 32-bit index limits before anything is allocated from them.
 */
#ifndef MESHMATRIX_IO_H
#define MESHMATRIX_IO_H

#include <stdint.h>
#include "core.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mmx_format {
    MMX_FORMAT_AUTO = 0, /* from the file name's extension (.obj, .off, .ply, .stl; any case);
                            by content for standard input and nameless bytes */
    MMX_FORMAT_OBJ,      /* Wavefront OBJ: v lines (x y z, then w (ignored) or r g b colors,
                            kept as mesh->colors when every vertex has them) and f
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
    MMX_FORMAT_PLY,      /* PLY 1.0, ascii or binary little/big endian; vertex x y z of any
                            scalar type (float or double in practice), and red green blue (or
                            diffuse_red ...) of any scalar type as mesh->colors (integers
                            scaled by their type's maximum, floats clamped to [0, 1]); face
                            vertex_indices (or
                            vertex_index) lists with integer count and index types; elements in
                            any order, other properties and elements skipped. A tristrips
                            element is cut into triangles (-1 restarts a strip, orientation
                            alternates, degenerate stitching triangles are dropped). */
    MMX_FORMAT_STL,      /* STL, binary or ascii, told apart by content (not by extension): a
                            file of exactly 84 + 50 n bytes whose bytes 80..83 say n (little
                            endian) is binary; else one starting with "solid" is ascii ("solid
                            [name]", then facets "facet normal nx ny nz / outer loop / vertex x y
                            z (3 or more) / endloop / endfacet", "endsolid [name]"; several
                            solids one after another; keywords in any case). Facet corners are
                            welded into shared vertices by exact position (-0 and +0 alike),
                            numbered in order of first appearance, so the mesh is the same on
                            every run. The file's facet normals and binary attribute bytes are
                            not kept (the writer recomputes normals); a facet whose corners weld
                            to a repeated vertex (zero length edge) is dropped and counted in
                            mmx_read_info.degenerate. Written as binary little endian. */
    MMX_FORMAT_STL_ASCII /* writing only: STL as ascii text (reading STL detects either). */
} mmx_format;

/* Default ceilings of mmx_read_opts (see the limits above). */
#define MMX_READ_MAX_BYTES_DEFAULT ((uint64_t)4 << 30)
#define MMX_READ_MAX_LINE_DEFAULT ((uint64_t)64 << 20)

/* Bounds on what one read accepts; a zero field takes its default. */
typedef struct mmx_read_opts {
    uint64_t max_bytes; /* the input's size in bytes: MMX_READ_MAX_BYTES_DEFAULT */
    uint64_t max_line;  /* a line of a text format read from a stream: MMX_READ_MAX_LINE_DEFAULT */
} mmx_read_opts;

/* What a read found in the file and did not put in the mesh, so that a caller can say so
 * (the mmx tool warns on stderr, one line per kind). Counts of items, 0 when none. */
typedef struct mmx_read_info {
    mmx_format format;   /* the format read (after sniffing standard input) */
    int64_t normals;     /* OBJ 'vn' lines, PLY vertices with nx ny nz, OFF vertex normals
                            (N prefix); STL facet normals are recomputed, not counted */
    int64_t colors;      /* colors not kept: OBJ vertices with colors when not every vertex has
                            exactly "r g b", PLY vertices with only some of red green blue or
                            with alpha (r g b ...), OFF vertices (C prefix) and faces with a
                            color */
    int64_t texcoords;   /* texture coordinates not kept: OBJ 'vt' lines when some corner has no
                            'v/vt' index, PLY vertex u v (s t, texture_u ...), OFF ST prefix */
    int64_t groups;      /* OBJ 'g' and 'o' lines */
    int64_t materials;   /* OBJ 'usemtl' and 'mtllib' lines */
    int64_t degenerate;  /* STL facets dropped because their corners weld to a repeated vertex */
    int64_t other;       /* other OBJ statements ('s', 'l', 'p', 'vp', unknown), other PLY
                            properties and elements (counted once per property or element) */
} mmx_read_info;

/* The format named by a path's extension (.obj, .off, .ply, .stl; any case), or
 * MMX_FORMAT_AUTO if none is recognised. */
mmx_format mmx_format_from_path(const char *path);

/* Reads a mesh file. fmt MMX_FORMAT_AUTO picks by extension. The path "-" is standard input,
 * read to its end (within the limits above); with MMX_FORMAT_AUTO its format is sniffed: "ply"
 * starts a PLY, an OFF header an OFF, "solid" followed by "facet" an ascii STL, a size of
 * 84 + 50 n with n at byte 80 a binary STL, and anything else is read as OBJ. Bytes that
 * cannot be any text format (a NUL in the first block) must be a binary STL, and a stream
 * that runs past that STL's size is refused at once.
 * The mesh is validated as in mmx_mesh_from_faces and placed in the context's space, in the
 * general form. Coordinates are read as doubles (correctly rounded in the usual cases) and
 * stored as floats; one that is NaN, infinite, or too large for a float is refused. A file
 * of zero bytes, and a file cut short of what its header announces, are refused; see the
 * empty mesh above. Bytes after the announced data are ignored.
 * OBJ texture coordinates ('vt' lines and the 'v/vt' corners of the faces) become mesh->uv
 * when every corner of every face names one (OpenSubdiv's face-varying data). A corner index
 * that names no 'vt' line (0, beyond the last, or relative before the first) is refused like
 * a bad vertex index. When some corners have texture coordinates and others none, the mesh
 * is read without them and mmx_read_info.texcoords counts the 'vt' lines left out (the mmx
 * tool warns). The OBJ writer writes them back; OFF, PLY and STL do not carry them. An OBJ
 * statement whose keyword holds a control byte or a non-ASCII byte is refused (binary data
 * is not an OBJ).
 * Errors: MMX_ERR_ARG (NULL argument, unknown or no extension with MMX_FORMAT_AUTO: the known
 * ones are listed), MMX_ERR_IO (cannot open/read, with the system's reason; a directory is
 * named as one), MMX_ERR_PARSE (malformed, truncated, header counts beyond the file's size, a
 * NUL byte or an overlong line in a text stream), MMX_ERR_MESH (bad indices, faces of fewer
 * than 3 vertices, a vertex twice in a face, non-finite coordinates), MMX_ERR_OVERFLOW (counts
 * beyond 32-bit indices, an input beyond max_bytes), MMX_ERR_UNSUPPORTED (formats listed
 * above), MMX_ERR_NOMEM; the detail names the file, the line or byte offset, and the problem.
 * Cost: O(file size; STL: one hash table for the welding); a regular file is mapped into memory while it is parsed (so it must not
 * be truncated meanwhile), anything else is read into a buffer. Synchronises: to place a mesh
 * in device memory, as mmx_mesh_from_faces. */
mmx_status mmx_mesh_read_ex(mmx_ctx *ctx, const char *path, mmx_format fmt,
                            const mmx_read_opts *opts, mmx_read_info *info, mmx_mesh **out);

/* mmx_mesh_read_ex with the default limits and no report. */
mmx_status mmx_mesh_read(mmx_ctx *ctx, const char *path, mmx_format fmt, mmx_mesh **out);

/* Reads an OBJ file as face lists (mmx_faces, mesh.h) that may name a vertex twice in a face,
 * which mmx_mesh_read refuses (a mesh matrix cannot hold it): positions, faces, texture
 * coordinates (where every corner has one) and 't' lines (kept verbatim). For
 * mmx_subdivide_faces (subdiv.h). Errors: as mmx_mesh_read's (the line named), and
 * MMX_ERR_UNSUPPORTED for another format. Cost: O(file size). Synchronises: no. */
mmx_status mmx_faces_read(mmx_ctx *ctx, const char *path, mmx_faces **out);

/* Writes face lists (mmx_faces, mesh.h; faces may name a vertex twice) to path as OBJ, as
 * mmx_mesh_write writes a mesh: positions, texture coordinates ('f v/vt'), tags. Errors:
 * MMX_ERR_ARG, MMX_ERR_IO (a partly written file removed), MMX_ERR_NOMEM. Synchronises: no. */
mmx_status mmx_faces_write(mmx_ctx *ctx, const mmx_faces *faces, const char *path);

/* Reads a mesh from `len` bytes at `data` (not necessarily NUL-terminated); `name` is used in
 * error messages. With MMX_FORMAT_AUTO the format comes from name's extension or, when it has
 * none known, is sniffed from the bytes as for standard input. max_bytes applies (the line
 * limit concerns streams). */
mmx_status mmx_mesh_read_mem(mmx_ctx *ctx, const char *name, const void *data, size_t len,
                             mmx_format fmt, mmx_mesh **out);

/* Writes a mesh: OBJ and OFF as text (positions with 9 significant digits, so floats round
 * trip exactly), PLY as binary little endian (float x y z, uchar or int counts, int indices),
 * STL as binary little endian (MMX_FORMAT_STL) or ascii text (MMX_FORMAT_STL_ASCII, 9
 * significant digits) with each facet's unit normal computed from its corners (0 0 0 for a
 * zero-area facet). STL holds triangles only: a mesh with another face is refused
 * (MMX_ERR_MESH, naming the first such face) before the file is opened; triangulate first.
 * OBJ also writes mesh->tags back. Vertex colors (mesh->colors) are written as OBJ
 * "v x y z r g b" lines and as PLY uchar red green blue (rounded to the nearest of 0..255);
 * OFF and STL have no place for them. Vertex normals (mesh->normals) are written as OBJ 'vn'
 * lines (one per vertex, corners 'v//vn', or 'v/vt/vn' with texture coordinates) and as PLY
 * float nx ny nz vertex properties; OFF has no place for them. The readers skip them (OBJ vn,
 * PLY nx ny nz; mmx_read_info counts them), so they do not come back yet. OFF, PLY and STL
 * drop texture coordinates and STL drops tags and normals: the caller can tell from the mesh
 * and the format (the mmx tool warns). A mesh without positions is written with zeros.
 * A device mesh is copied to the host first. When a write fails part way, a partly written
 * regular file is removed (a device or pipe is left alone), so no truncated mesh is left behind.
 * Errors: MMX_ERR_IO (with the system's reason), MMX_ERR_ARG, MMX_ERR_MESH (STL of a
 * non-triangle), MMX_ERR_NOMEM, MMX_ERR_CUDA. Synchronises: for a device mesh, which is copied
 * to the host. */
mmx_status mmx_mesh_write(mmx_ctx *ctx, const mmx_mesh *mesh, const char *path, mmx_format fmt);

#ifdef __cplusplus
}
#endif
#endif
