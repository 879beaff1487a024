/* The mesh file readers on bad input: each malformation, per format, is refused with the right
 * status and a detail naming the file, the line (or byte offset) and the problem; the files in
 * tests/data/bad all fail to load. Run under AddressSanitizer to check for leaks and overreads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* Reads `len` bytes (copied without a terminating NUL) and expects status `want` with a
 * detail that contains `where` (as "name:LINE:" or "name: byte N:") and `word`. */
static void bad_bytes(const char *name, const void *data, size_t len, mmx_status want,
                      const char *where, const char *word)
{
    mmx_ctx *ctx = tu_host_ctx();
    void *copy = malloc(len ? len : 1);
    cr_assert(copy);
    if (len) memcpy(copy, data, len);
    mmx_mesh *m = (mmx_mesh *)&m; /* must be reset to NULL */
    mmx_status s = mmx_mesh_read_mem(ctx, name, copy, len, MMX_FORMAT_AUTO, &m);
    free(copy);
    const char *e = mmx_ctx_error(ctx);
    cr_assert_eq(s, want, "%s: got %s (%s), want %s", name, mmx_status_str(s), e, mmx_status_str(want));
    cr_assert_null(m);
    cr_assert(strstr(e, where), "%s: detail '%s' does not contain '%s'", name, e, where);
    cr_assert(strstr(e, word), "%s: detail '%s' does not contain '%s'", name, e, word);
    mmx_ctx_free(ctx);
}

static void bad(const char *name, const char *text, mmx_status want, const char *where,
                const char *word)
{
    bad_bytes(name, text, strlen(text), want, where, word);
}

#define TRI3 "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

/* ---- OBJ ---------------------------------------------------------------------------------- */

Test(io_bad, obj_index_zero) { bad("z.obj", TRI3 "f 0 1 2\n", MMX_ERR_MESH, "z.obj:4:", "index 0 is invalid"); }
Test(io_bad, obj_index_out_of_range)
{
    bad("r.obj", TRI3 "f 1 2 3\nf 1 2 4\n", MMX_ERR_MESH, "r.obj:5:", "outside [0, 3)");
    bad("r.obj", TRI3 "f 1 2 99999999999\n", MMX_ERR_MESH, "r.obj:4:", "out of range");
    /* A forward reference that is never defined: found at the end, its line named by a re-scan. */
    bad("r.obj", "f 1 2 3\n\nf 1 2 5\n" TRI3 "v 1 1 0\n", MMX_ERR_MESH, "r.obj:3:", "face 1: vertex index 4 outside [0, 4)");
}
/* An index too large for the lexer's 64-bit accumulator is reported as written, not as the
 * saturated 2^62 (4611686018427387904). */
Test(io_bad, obj_huge_index_reported_as_written)
{
    bad("h.obj", TRI3 "f 1 2 99999999999999999999\n", MMX_ERR_MESH, "h.obj:4:",
        "face 0: vertex index 99999999999999999999 is out of range (too large for 32-bit indices)");
    bad("h.obj", TRI3 "f 1 2 -99999999999999999999/1\n", MMX_ERR_MESH, "h.obj:4:",
        "relative vertex index -99999999999999999999 reaches before the first vertex");
    bad("h.obj", TRI3 "f 1 2 123456789012345678901234567890\n", MMX_ERR_MESH, "h.obj:4:",
        "vertex index 123456789012345678901234... is out of range");
}
Test(io_bad, obj_relative_before_first)
{
    bad("n.obj", TRI3 "f -1 -2 -3\nf -1 -2 -4\n", MMX_ERR_MESH, "n.obj:5:", "before the first vertex");
}
Test(io_bad, obj_face_too_small)
{
    bad("s.obj", TRI3 "f 1 2 3\n# note\nf 1 2\n", MMX_ERR_MESH, "s.obj:6:", "at least 3 vertices");
    bad("s.obj", TRI3 "f\n", MMX_ERR_MESH, "s.obj:4:", "order 0");
}
Test(io_bad, obj_repeated_vertex)
{
    bad("d.obj", TRI3 "v 1 1 0\nf 1 2 3 4\nf 1 2/1 -4//1\n", MMX_ERR_MESH, "d.obj:6:", "appears twice");
}
Test(io_bad, obj_nan_inf)
{
    bad("c.obj", "v 0 0 0\nv nan 0 0\n", MMX_ERR_MESH, "c.obj:2:", "NaN");
    bad("c.obj", "v 0 0 0\nv 0 0 -INF\n", MMX_ERR_MESH, "c.obj:2:", "coordinate z is infinite");
    bad("c.obj", "v 0 0 0\n\nv 0 1e39 0\n", MMX_ERR_MESH, "c.obj:3:", "does not fit a float");
    bad("c.obj", "v 0 1e999 0\n", MMX_ERR_MESH, "c.obj:1:", "coordinate y is infinite");
    /* Texture coordinates too: refused as read, not stored as inf (which the writer would
     * write and the reader then refuse). */
    bad("c.obj", "v 0 0 0\nvt 0 0\nvt 1e39 1\n", MMX_ERR_MESH, "c.obj:3:", "does not fit a float");
    bad("c.obj", "v 0 0 0\nvt nan 0\n", MMX_ERR_MESH, "c.obj:2:", "NaN");
}
Test(io_bad, obj_short_vertex)
{
    bad("v.obj", "v 0 0 0\nv 1 2\n", MMX_ERR_PARSE, "v.obj:2:", "2 coordinates");
    bad("v.obj", "v\n", MMX_ERR_PARSE, "v.obj:1:", "0 coordinates");
    bad("v.obj", "v 1 2 # 3\n", MMX_ERR_PARSE, "v.obj:1:", "2 coordinates");
}
Test(io_bad, obj_garbage)
{
    bad("g.obj", "v 1 x 3\n", MMX_ERR_PARSE, "g.obj:1:", "expected a coordinate, found 'x'");
    bad("g.obj", "v 1 2 3x\n", MMX_ERR_PARSE, "g.obj:1:", "found '3x'");
    bad("g.obj", "v 1 2 3 red\n", MMX_ERR_PARSE, "g.obj:1:", "expected a number, found 'red'");
    bad("g.obj", TRI3 "f 1 2 a\n", MMX_ERR_PARSE, "g.obj:4:", "expected a vertex index");
    bad("g.obj", TRI3 "f 1 2 3x\n", MMX_ERR_PARSE, "g.obj:4:", "found '3x'");
    bad("g.obj", TRI3 "f 1/x/1 2 3\n", MMX_ERR_PARSE, "g.obj:4:", "found '1/x/1'");
    bad("g.obj", TRI3 "f 1/1/1/1 2 3\n", MMX_ERR_PARSE, "g.obj:4:", "expected a vertex index");
    bad("g.obj", TRI3 "f 1// 2 3\n", MMX_ERR_PARSE, "g.obj:4:", "expected a vertex index");
    bad("g.obj", TRI3 "f 1.5 2 3\n", MMX_ERR_PARSE, "g.obj:4:", "found '1.5'");
    bad("g.obj", "v 1 2 3\nv 1\x01 2 3\n", MMX_ERR_PARSE, "g.obj:2:", "'1?'");
}
Test(io_bad, obj_empty)
{
    bad("e.obj", "", MMX_ERR_PARSE, "e.obj:1:", "empty");
    /* A file of comments only is the empty mesh (io_read::empty_meshes), but faces without
     * vertices name missing ones. */
    bad("e.obj", "# nothing\nf 1 2 3\n", MMX_ERR_MESH, "e.obj:2:", "file has 0 vertices");
}

/* ---- OFF ---------------------------------------------------------------------------------- */

/* Coordinates written long enough that the size check on the counts passes. */
#define OFF3 "OFF\n3 1 0\n0.0 0.0 0.0\n1.0 0.0 0.0\n0.0 1.0 0.0\n"

Test(io_bad, off_index_out_of_range)
{
    bad("r.off", OFF3 "3 0 1 3\n", MMX_ERR_MESH, "r.off:6:", "vertex index 3 outside [0, 3)");
    bad("r.off", OFF3 "3 0 -1 2\n", MMX_ERR_MESH, "r.off:6:", "vertex index -1 outside");
}
/* A negative vertex count on a face line is named as such, not as a short line. */
Test(io_bad, off_negative_face_count)
{
    bad("n.off", OFF3 "-3 0 1 2\n", MMX_ERR_PARSE, "n.off:6:", "face 0: the vertex count -3 is negative");
    bad("n.off", OFF3 "-99999999999999999999 0 1 2\n", MMX_ERR_PARSE, "n.off:6:",
        "the vertex count -99999999999999999999 is negative");
    bad("n.off", OFF3 "99999999999999999999 0 1 2\n", MMX_ERR_PARSE, "n.off:6:",
        "face 0 announces 99999999999999999999 vertices but the file ends");
}
Test(io_bad, off_huge_numbers_reported_as_written)
{
    bad("h.off", OFF3 "3 0 1 99999999999999999999\n", MMX_ERR_MESH, "h.off:6:",
        "vertex index 99999999999999999999 outside [0, 3)");
    bad("h.off", "OFF\n-99999999999999999999 1 0\n0 0 0\n", MMX_ERR_PARSE, "h.off:2:",
        "negative count -99999999999999999999");
}
Test(io_bad, off_face_too_small)
{
    bad("s.off", "OFF\n3 2 0\n0.0 0.0 0.0\n1.0 0.0 0.0\n0.0 1.0 0.0\n3 0 1 2\n2 0 1\n", MMX_ERR_MESH, "s.off:7:",
        "face 1: face of order 2");
}
Test(io_bad, off_repeated_vertex)
{
    bad("d.off", OFF3 "3 0 1 0\n", MMX_ERR_MESH, "d.off:6:", "appears twice");
}
Test(io_bad, off_nan_inf)
{
    bad("c.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", MMX_ERR_MESH, "c.off:4:", "NaN");
    bad("c.off", "OFF\n3 1 0\n0 0 0\n1 0 0\ninf 1 0\n3 0 1 2\n", MMX_ERR_MESH, "c.off:5:", "infinite");
}
Test(io_bad, off_short_vertex_and_face)
{
    bad("v.off", "OFF\n3 1 0\n0.0 0.0 0.0\n1.0 0.0\n0.0 1.0 0.0\n3 0 1 2\n", MMX_ERR_PARSE, "v.off:4:", "2 coordinates");
    bad("v.off", OFF3 "3 0 1\n# more bytes\n", MMX_ERR_PARSE, "v.off:6:", "the line has 2");
    bad("v.off", OFF3 "3 0 1\n", MMX_ERR_PARSE, "v.off:6:", "announces 3 vertices");
}
Test(io_bad, off_garbage)
{
    bad("g.off", "OFF\n3 1 0\n0 0 0\n1 y 0\n0 1 0\n3 0 1 2\n", MMX_ERR_PARSE, "g.off:4:", "found 'y'");
    bad("g.off", OFF3 "3 0 1 a\n", MMX_ERR_PARSE, "g.off:6:", "expected a vertex index");
    bad("g.off", OFF3 "3 0 1 2x\n", MMX_ERR_PARSE, "g.off:6:", "found '2x'");
    bad("g.off", OFF3 "3 0 1 2 red\n", MMX_ERR_PARSE, "g.off:6:", "found 'red'");
    bad("g.off", OFF3 "three 0 1 2\n", MMX_ERR_PARSE, "g.off:6:", "number of vertices");
}
Test(io_bad, off_empty_and_header)
{
    bad("e.off", "", MMX_ERR_PARSE, "e.off:1:", "empty");
    bad("e.off", "\n# only a comment\n", MMX_ERR_PARSE, "e.off:3:", "not an OFF file");
    bad("h.off", "PLY\n3 1 0\n", MMX_ERR_PARSE, "h.off:1:", "not an OFF file");
    bad("h.off", "OFF\n3\n0 0 0\n", MMX_ERR_PARSE, "h.off:2:", "expected the counts");
    bad("h.off", "OFF\n3 1 0 5\n0 0 0\n", MMX_ERR_PARSE, "h.off:2:", "expected the counts");
    bad("h.off", "OFF\n-3 1 0\n0 0 0\n", MMX_ERR_PARSE, "h.off:2:", "negative count");
    bad("h.off", "XOFF\n3 1 0\n", MMX_ERR_PARSE, "h.off:1:", "unknown OFF header");
    bad("h.off", "4OFF\n3 1 0\n0 0 0 0\n", MMX_ERR_UNSUPPORTED, "h.off:1:", "4D");
    bad("h.off", "OFF BINARY\n", MMX_ERR_UNSUPPORTED, "h.off:1:", "binary OFF");
}
Test(io_bad, off_truncated)
{
    bad("t.off", "OFF\n3 2 0\n0.000000 0.000000 0.000000\n1.000000 0.000000 0.000000\n"
                 "0.000000 1.000000 0.000000\n3 0 1 2\n",
        MMX_ERR_PARSE, "t.off:7:", "ends after 1 of 2 faces");
    bad("t.off", "OFF\n4 0 0\n0.000000 0.000000 0.000000\n1.000000 0.000000 0.000000\n"
                 "0.000000 1.000000 0.000000\n",
        MMX_ERR_PARSE, "t.off:6:", "ends after 3 of 4 vertices");
}
Test(io_bad, off_header_lies_and_overflow)
{
    bad("l.off", "OFF\n2147483648 1 0\n0 0 0\n", MMX_ERR_PARSE, "l.off:2:",
        "header announces 2147483648 vertices but only 6 bytes follow");
    bad("l.off", "OFF\n3 1000000 0\n0 0 0\n1 0 0\n0 1 0\n", MMX_ERR_PARSE, "l.off:2:",
        "header announces 3 vertices and 1000000 faces");
    bad("o.off", "OFF\n99999999999999999999 1 0\n0 0 0\n", MMX_ERR_OVERFLOW, "o.off:2:", "too large");
}

/* ---- PLY, ascii --------------------------------------------------------------------------- */

#define PLYA_HEAD(nv, nf)                                                                      \
    "ply\nformat ascii 1.0\nelement vertex " #nv "\nproperty float x\nproperty float y\n"      \
    "property float z\nelement face " #nf "\nproperty list uchar int vertex_indices\nend_header\n"
#define PLYA3 PLYA_HEAD(3, 1) "0 0 0\n1 0 0\n0 1 0\n"

Test(io_bad, ply_ascii_index_out_of_range)
{
    bad("r.ply", PLYA3 "3 0 1 3\n", MMX_ERR_MESH, "r.ply:13:", "face 0: vertex index 3 outside [0, 3)");
    bad("r.ply", PLYA3 "3 0 1 -1\n", MMX_ERR_MESH, "r.ply:13:", "vertex index -1 outside");
    bad("r.ply", PLYA3 "3 0 1 4294967296\n", MMX_ERR_MESH, "r.ply:13:", "out of range");
}
Test(io_bad, ply_ascii_face_too_small_or_repeated)
{
    bad("s.ply", PLYA_HEAD(3, 2) "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n2 0 1\n", MMX_ERR_MESH, "s.ply:14:",
        "face 1: face of order 2");
    bad("d.ply", PLYA3 "3 2 1 2\n", MMX_ERR_MESH, "d.ply:13:", "appears twice");
}
Test(io_bad, ply_ascii_nan_inf)
{
    bad("c.ply", PLYA_HEAD(3, 1) "0 0 0\n1 0 NaN\n0 1 0\n3 0 1 2\n", MMX_ERR_MESH, "c.ply:11:", "NaN");
    bad("c.ply", PLYA_HEAD(3, 1) "0 0 0\n1 0 0\n-inf 1 0\n3 0 1 2\n", MMX_ERR_MESH, "c.ply:12:", "infinite");
}
Test(io_bad, ply_ascii_garbage)
{
    bad("g.ply", PLYA_HEAD(3, 1) "0 0 0\n1 q 0\n0 1 0\n3 0 1 2\n", MMX_ERR_PARSE, "g.ply:11:", "found 'q'");
    bad("g.ply", PLYA_HEAD(3, 1) "0 0 0\n1 0 0x\n0 1 0\n3 0 1 2\n", MMX_ERR_PARSE, "g.ply:11:", "found '0x'");
    bad("g.ply", PLYA3 "3 0 1 b\n", MMX_ERR_PARSE, "g.ply:13:", "expected an integer");
    bad("g.ply", PLYA3 "3 0 1 2.0\n", MMX_ERR_PARSE, "g.ply:13:", "found '2.0'");
}
Test(io_bad, ply_ascii_truncated)
{
    bad("t.ply", PLYA_HEAD(3, 2) "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1\n", MMX_ERR_PARSE, "t.ply:14:",
        "a list of 3 items runs past the end");
    bad("t.ply", PLYA_HEAD(3, 2) "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 \n\n", MMX_ERR_PARSE,
        "t.ply:16:", "ends inside");
    bad("t.ply", PLYA3 "-3 0 1 2\n", MMX_ERR_PARSE, "t.ply:13:", "negative list count -3");
    bad("t.ply", PLYA_HEAD(3, 0) "0.0 0.0 0.0\n1.0 0.0 0.0\n0.0 1.0\n", MMX_ERR_PARSE, "t.ply:13:", "ends inside");
    bad("t.ply", PLYA3 "4 0 1 2\n", MMX_ERR_PARSE, "t.ply:13:", "runs past the end");
}
Test(io_bad, ply_ascii_huge_numbers_reported_as_written)
{
    bad("h.ply", PLYA3 "3 0 1 99999999999999999999\n", MMX_ERR_MESH, "h.ply:13:",
        "vertex index 99999999999999999999 is out of range");
    bad("h.ply", PLYA3 "-99999999999999999999 0 1 2\n", MMX_ERR_PARSE, "h.ply:13:",
        "negative list count -99999999999999999999");
    bad("h.ply", PLYA3 "99999999999999999999 0 1 2\n", MMX_ERR_PARSE, "h.ply:13:",
        "a list of 99999999999999999999 items runs past the end");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex -99999999999999999999\n", MMX_ERR_PARSE,
        "h.ply:3:", "negative element count -99999999999999999999");
}

/* ---- line endings ------------------------------------------------------------------------- */

/* CR-only (classic Mac OS) and CRLF files: errors name the right line in each text format, and
 * mixed endings count each break once (CRLF is one break, a lone CR or LF one each). */
Test(io_bad, line_numbers_with_cr_and_crlf_endings)
{
    bad("c.obj", "v 0 0 0\rv 1 0 0\r# c\r\rv 0 1 0\rf 1 2 4\r", MMX_ERR_MESH, "c.obj:6:",
        "face 0: vertex index 3 outside [0, 3)");
    bad("c.obj", "v 0 0 0\r\nv 1 0 0\r\n\r\nv 0 1 0\r\nf 1 2 4\r\n", MMX_ERR_MESH, "c.obj:5:",
        "vertex index 3 outside");
    bad("c.obj", "v 0 0 0\rv 1 0 0\r\nv 0 1 0\nv 1 q 0\r", MMX_ERR_PARSE, "c.obj:4:", "found 'q'");
    bad("c.obj", "v 0 0 0\rv 1 2\rv 0 1 0\r", MMX_ERR_PARSE, "c.obj:2:", "2 coordinates");
    /* A continuation over a lone CR: the face is reported at the line it starts on. */
    bad("c.obj", TRI3 "v 1 1 0\rf 1 2 \\\r3 5\r", MMX_ERR_MESH, "c.obj:5:",
        "face 0: vertex index 4 outside [0, 4)");
    bad("c.off", "OFF\r3 1 0\r0.0 0.0 0.0\r1.0 0.0 0.0\r0.0 1.0 0.0\r3 0 1 3\r", MMX_ERR_MESH,
        "c.off:6:", "vertex index 3 outside [0, 3)");
    bad("c.off", "OFF\r3 1 0\r0.0 0.0 0.0\r1.0 0.0\r0.0 1.0 0.0\r3 0 1 2\r", MMX_ERR_PARSE,
        "c.off:4:", "vertex 1 has 2 coordinates");
    bad("c.off", "OFF\r\n3 1 0\r\n0.0 0.0 0.0\r\n1.0 0.0 0.0\r\n0.0 1.0 0.0\r\n3 0 1 2 x\r\n",
        MMX_ERR_PARSE, "c.off:6:", "found 'x'");
    bad("c.ply", "ply\rformat ascii 1.0\relement vertex 3\rproperty float x\rproperty float y\r"
                 "property float z\relement face 1\rproperty list uchar int vertex_indices\r"
                 "end_header\r0 0 0\r1 0 0\r0 1 0\r3 0 1 3\r",
        MMX_ERR_MESH, "c.ply:13:", "face 0: vertex index 3 outside [0, 3)");
    bad("c.ply", "ply\rformat ascii 1.0\relemnt vertex 3\r", MMX_ERR_PARSE, "c.ply:3:",
        "unknown header keyword 'elemnt'");
}

Test(io_bad, ply_ascii_header_lies)
{
    bad("l.ply", PLYA_HEAD(1000, 0) "0 0 0\n", MMX_ERR_PARSE, "l.ply:3:",
        "header announces 1000 vertices but only 6 bytes follow");
}

/* ---- PLY, header -------------------------------------------------------------------------- */

Test(io_bad, ply_header_problems)
{
    bad("e.ply", "", MMX_ERR_PARSE, "e.ply:1:", "empty");
    bad("h.ply", "plyx\nformat ascii 1.0\n", MMX_ERR_PARSE, "h.ply:1:", "not a PLY file");
    bad("h.ply", "ply", MMX_ERR_PARSE, "h.ply:1:", "no end_header");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\n", MMX_ERR_PARSE,
        "h.ply:5:", "no end_header");
    bad("h.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n", MMX_ERR_PARSE, "h.ply:2:",
        "unknown PLY format 'binary_middle_endian'");
    bad("h.ply", "ply\nformat ascii 2.0\nend_header\n", MMX_ERR_UNSUPPORTED, "h.ply:2:", "version '2.0'");
    bad("h.ply", "ply\nformat ascii 1.0\nformat ascii 1.0\n", MMX_ERR_PARSE, "h.ply:3:", "second format");
    bad("h.ply", "ply\nelement vertex 0\nend_header\n", MMX_ERR_PARSE, "h.ply:3:", "no format line");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\n", MMX_ERR_PARSE,
        "h.ply:4:", "unknown property type 'float128'");
    bad("h.ply", "ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\n",
        MMX_ERR_PARSE, "h.ply:4:", "integer count and index types");
    bad("h.ply", "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar float vertex_indices\n",
        MMX_ERR_PARSE, "h.ply:4:", "integer count and index types");
    bad("h.ply", "ply\nformat ascii 1.0\nelement other 1\nproperty list double int things\n",
        MMX_ERR_PARSE, "h.ply:4:", "non-integer count type");
    bad("h.ply", "ply\nformat ascii 1.0\nelement face 1\nproperty int vertex_indices\n",
        MMX_ERR_PARSE, "h.ply:4:", "not a list");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\n",
        MMX_ERR_PARSE, "h.ply:4:", "is a list");
    bad("h.ply", "ply\nformat ascii 1.0\nproperty float x\n", MMX_ERR_PARSE, "h.ply:3:",
        "property before any element");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float x\n",
        MMX_ERR_PARSE, "h.ply:5:", "second 'x'");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 1\nelement vertex 1\n", MMX_ERR_PARSE,
        "h.ply:4:", "second 'vertex' element");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex -1\n", MMX_ERR_PARSE, "h.ply:3:", "negative");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex many\n", MMX_ERR_PARSE, "h.ply:3:",
        "expected 'element NAME COUNT'");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 99999999999999999999\n", MMX_ERR_OVERFLOW,
        "h.ply:3:", "too large");
    bad("h.ply", "ply\nformat ascii 1.0\nelemnt vertex 1\n", MMX_ERR_PARSE, "h.ply:3:",
        "unknown header keyword 'elemnt'");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                 "end_header\n0 0\n", MMX_ERR_PARSE, "h.ply:3:", "no property z");
    bad("h.ply", "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
                 "property float z\nelement face 0\nproperty list uchar int corners\nend_header\n",
        MMX_ERR_PARSE, "h.ply:7:", "no vertex_indices");
    bad("h.ply", "ply\nformat ascii 1.0\nelement face 0\nproperty list uchar int vertex_indices\n"
                 "end_header\n", MMX_ERR_PARSE, "h.ply:", "no vertex element");
}

/* ---- PLY, binary -------------------------------------------------------------------------- */

/* A binary header for nv float vertices and nf uchar/int faces; returns its length. */
static size_t bin_head(char *buf, size_t cap, const char *nv, const char *nf)
{
    return (size_t)snprintf(buf, cap,
                            "ply\nformat binary_little_endian 1.0\nelement vertex %s\n"
                            "property float x\nproperty float y\nproperty float z\n"
                            "element face %s\nproperty list uchar int vertex_indices\nend_header\n",
                            nv, nf);
}

static size_t put_tri(unsigned char *p, int32_t a, int32_t b, int32_t c)
{
    int32_t v[3] = {a, b, c};
    p[0] = 3;
    memcpy(p + 1, v, 12); /* the tests run on little-endian hosts */
    return 13;
}

static size_t put_verts(unsigned char *p, const float *xyz, int n)
{
    memcpy(p, xyz, (size_t)n * 12);
    return (size_t)n * 12;
}

static const float tri_pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

Test(io_bad, ply_binary_header_lies)
{
    char h[512];
    unsigned char buf[1024];
    size_t n = bin_head(h, sizeof h, "2147483648", "0");
    memcpy(buf, h, n);
    n += put_verts(buf + n, tri_pos, 3);
    char want[128];
    snprintf(want, sizeof want, "header announces 2147483648 vertices but only 36 bytes follow");
    bad_bytes("l.ply", buf, n, MMX_ERR_PARSE, "l.ply:3:", want);
    n = bin_head(h, sizeof h, "3", "1000");
    memcpy(buf, h, n);
    n += put_verts(buf + n, tri_pos, 3);
    n += put_tri(buf + n, 0, 1, 2);
    bad_bytes("l.ply", buf, n, MMX_ERR_PARSE, "l.ply:7:", "header announces 1000 faces");
}

Test(io_bad, ply_binary_truncated)
{
    char h[512];
    unsigned char buf[1024];
    size_t hn = bin_head(h, sizeof h, "3", "2"), n = hn;
    memcpy(buf, h, n);
    n += put_verts(buf + n, tri_pos, 3);
    size_t f1 = n + 13;
    n += put_tri(buf + n, 0, 1, 2);
    n += put_tri(buf + n, 2, 1, 0);
    char where[64];
    /* Cut inside the second face: its first byte is named. */
    snprintf(where, sizeof where, "t.ply: byte %zu:", f1);
    bad_bytes("t.ply", buf, n - 5, MMX_ERR_PARSE, where, "ends inside a 'face' element");
    /* Cut inside the vertices: the header check already sees too few bytes. */
    bad_bytes("t.ply", buf, hn + 30, MMX_ERR_PARSE, "t.ply:3:", "header announces 3 vertices");
}

Test(io_bad, ply_binary_truncated_vertices)
{
    /* Vertices with a list, so the header cannot bound them exactly: the walk finds the end. */
    const char *h = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\n"
                    "property float y\nproperty float z\nproperty list uchar int nb\nend_header\n";
    unsigned char buf[256];
    size_t n = strlen(h);
    memcpy(buf, h, n);
    size_t v1 = n + 13;
    n += put_verts(buf + n, tri_pos, 1);
    buf[n++] = 0;
    n += put_verts(buf + n, tri_pos + 3, 1);
    buf[n++] = 2; /* two ints announced, one present */
    memset(buf + n, 0, 4);
    n += 4;
    char where[64];
    snprintf(where, sizeof where, "t.ply: byte %zu:", v1);
    bad_bytes("t.ply", buf, n, MMX_ERR_PARSE, where, "ends inside a 'vertex' element");
}

Test(io_bad, ply_binary_index_problems)
{
    char h[512];
    unsigned char buf[1024];
    size_t n = bin_head(h, sizeof h, "3", "2");
    memcpy(buf, h, n);
    n += put_verts(buf + n, tri_pos, 3);
    size_t f0 = n;
    n += put_tri(buf + n, 0, 1, 2);
    size_t f1 = n;
    n += put_tri(buf + n, 0, 1, 3);
    char where[64];
    snprintf(where, sizeof where, "r.ply: byte %zu:", f1);
    bad_bytes("r.ply", buf, n, MMX_ERR_MESH, where, "face 1: vertex index 3 outside [0, 3)");
    put_tri(buf + f1, 0, -7, 2);
    bad_bytes("r.ply", buf, n, MMX_ERR_MESH, where, "vertex index -7 outside");
    put_tri(buf + f1, 0, 2, 2);
    bad_bytes("r.ply", buf, n, MMX_ERR_MESH, where, "appears twice");
    put_tri(buf + f1, 0, 1, 2);
    buf[f0] = 2; /* face 0 of order 2, and the rest shifted: face 1 starts 4 bytes earlier */
    snprintf(where, sizeof where, "r.ply: byte %zu:", f0);
    bad_bytes("r.ply", buf, n, MMX_ERR_MESH, where, "face 0: face of order 2");
}

Test(io_bad, ply_binary_uint_index_too_large)
{
    const char *h = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                    "property float y\nproperty float z\nelement face 1\n"
                    "property list uchar uint vertex_indices\nend_header\n";
    unsigned char buf[256];
    size_t n = strlen(h);
    memcpy(buf, h, n);
    n += put_verts(buf + n, tri_pos, 3);
    size_t f0 = n;
    n += put_tri(buf + n, 0, 1, -1); /* 4294967295 as uint */
    char where[64];
    snprintf(where, sizeof where, "u.ply: byte %zu:", f0 + 9);
    bad_bytes("u.ply", buf, n, MMX_ERR_MESH, where, "vertex index 4294967295 is out of range");
}

Test(io_bad, ply_binary_negative_list_count)
{
    const char *h = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                    "property float y\nproperty float z\nelement face 1\n"
                    "property list char int vertex_indices\nend_header\n";
    unsigned char buf[256];
    size_t n = strlen(h);
    memcpy(buf, h, n);
    n += put_verts(buf + n, tri_pos, 3);
    size_t f0 = n;
    n += put_tri(buf + n, 0, 1, 2);
    buf[f0] = 0xff;
    char where[64];
    snprintf(where, sizeof where, "c.ply: byte %zu:", f0);
    bad_bytes("c.ply", buf, n, MMX_ERR_PARSE, where, "negative list count -1");
}

Test(io_bad, ply_binary_nonfinite)
{
    char h[512];
    unsigned char buf[1024];
    size_t n = bin_head(h, sizeof h, "3", "1");
    memcpy(buf, h, n);
    size_t v0 = n;
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    pos[4] = strtof("nan", NULL);
    n += put_verts(buf + n, pos, 3);
    n += put_tri(buf + n, 0, 1, 2);
    char where[64];
    snprintf(where, sizeof where, "f.ply: byte %zu:", v0 + 12);
    bad_bytes("f.ply", buf, n, MMX_ERR_MESH, where, "vertex 1: coordinate y is NaN");
    /* A double too large for a float. */
    const char *hd = "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty double x\n"
                     "property double y\nproperty double z\nend_header\n";
    n = strlen(hd);
    memcpy(buf, hd, n);
    memset(buf + n, 0, 24);
    double big = 1e40;
    uint64_t u;
    memcpy(&u, &big, 8);
    for (int i = 0; i < 8; i++) buf[n + 16 + (size_t)i] = (unsigned char)(u >> (56 - 8 * i));
    snprintf(where, sizeof where, "f.ply: byte %zu:", n);
    bad_bytes("f.ply", buf, n + 24, MMX_ERR_MESH, where, "coordinate z");
}

Test(io_bad, ply_strips_out_of_range)
{
    bad("s.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                 "property float z\nelement tristrips 1\nproperty list int int vertex_indices\n"
                 "end_header\n0 0 0\n1 0 0\n0 1 0\n5 0 1 2 -1 3\n",
        MMX_ERR_MESH, "s.ply:13:", "strip 0: vertex index 3 outside [0, 3)");
    bad("s.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                 "property float z\nelement tristrips 1\nproperty list int int vertex_indices\n"
                 "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 -2 1\n",
        MMX_ERR_MESH, "s.ply:13:", "vertex index -2");
}

/* ---- files and arguments ------------------------------------------------------------------ */

Test(io_bad, unreadable_files)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    cr_assert_eq(mmx_mesh_read(ctx, "/nonexistent/dir/mesh.obj", MMX_FORMAT_AUTO, &m), MMX_ERR_IO);
    cr_assert(strstr(mmx_ctx_error(ctx), "/nonexistent/dir/mesh.obj"));
    cr_assert(strstr(mmx_ctx_error(ctx), "No such file"), "%s", mmx_ctx_error(ctx));
    cr_assert_null(m);
    cr_assert_eq(mmx_mesh_read(ctx, tu_data("bad"), MMX_FORMAT_OBJ, &m), MMX_ERR_IO);
    cr_assert(strstr(mmx_ctx_error(ctx), "directory"), "%s", mmx_ctx_error(ctx));
    mmx_ctx_free(ctx);
}

/* Issue 26, item 4: a texture coordinate index that names no 'vt' line is refused like a bad
 * vertex index, naming the line (it used to drop every texture coordinate silently). */
Test(io_bad, obj_texture_indices)
{
    bad("t.obj", TRI3 "vt 0 0\nf 1/1 2/5 3/1\n", MMX_ERR_MESH, "t.obj:5:", "texture coordinate index 5 is out of range (the file has 1 'vt' lines)");
    bad("t.obj", TRI3 "vt 0 0\nf 1/1 2/0 3/1\n", MMX_ERR_MESH, "t.obj:5:", "texture coordinate index 0 is invalid");
    bad("t.obj", TRI3 "vt 0 0\nf 1/-2 2/1 3/1\n", MMX_ERR_MESH, "t.obj:5:", "reaches before the first 'vt' line");
    bad("t.obj", TRI3 "f 1/1 2/1 3/1\n", MMX_ERR_MESH, "t.obj:4:", "the file has 0 'vt' lines");
    /* Binary data read as OBJ (standard input's fallback) is refused, not skipped as
     * unknown statements into an empty mesh. */
    bad("b.obj", "\x01\x02\x03 junk\n", MMX_ERR_PARSE, "b.obj:1:", "not an OBJ statement");
}

/* STL: each malformation named with its line or byte. */
Test(io_bad, stl)
{
    bad("s.stl", "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid\n",
        MMX_ERR_MESH, "s.stl:2:", "facet 0 has 2 vertices, 3 needed");
    bad("s.stl", "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n",
        MMX_ERR_PARSE, "s.stl:9:", "no 'endsolid'");
    bad("s.stl", "solid s\nfacet normal 0 0 1\ninner loop\n", MMX_ERR_PARSE, "s.stl:3:", "expected 'outer', found 'inner'");
    bad("s.stl", "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 inf\n", MMX_ERR_MESH, "s.stl:4:", "infinite");
    bad("s.stl", "solid s\nendsolid s\nmore\n", MMX_ERR_PARSE, "s.stl:3:", "expected 'solid' or the end of the file");
    bad("s.stl", "hello\n", MMX_ERR_PARSE, "s.stl:1:", "not an STL file");
    unsigned char b[84 + 50] = {0};
    b[80] = 2; /* two triangles announced, one present */
    bad_bytes("b.stl", b, sizeof b, MMX_ERR_PARSE, "b.stl: byte 80:", "announces 2 triangles (184 bytes in all) but the file has 134 bytes");
}

/* A directory, "-" and a name without a known extension each get their own sentence, and
 * none suggests an option the mmx tool does not have. */
Test(io_bad, directory_stdin_and_unknown_extension_messages)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    char want[4200];
    for (int f = 0; f < 2; f++) {
        const mmx_format fmt = f ? MMX_FORMAT_OBJ : MMX_FORMAT_AUTO;
        cr_assert_eq(mmx_mesh_read(ctx, tu_data("bad"), fmt, &m), MMX_ERR_IO);
        snprintf(want, sizeof want, "%s: is a directory, not a mesh file", tu_data("bad"));
        cr_assert_str_eq(mmx_ctx_error(ctx), want);
        cr_assert_eq(mmx_mesh_read(ctx, "/", fmt, &m), MMX_ERR_IO);
        cr_assert_str_eq(mmx_ctx_error(ctx), "/: is a directory, not a mesh file");
    }
    cr_assert_eq(mmx_mesh_read(ctx, "/nonexistent/mesh.xyz", MMX_FORMAT_AUTO, &m), MMX_ERR_ARG);
    cr_assert_str_eq(mmx_ctx_error(ctx), "/nonexistent/mesh.xyz: cannot tell the format: unknown "
                     "extension '.xyz' (known: .obj, .off, .ply, .stl)");
    cr_assert_eq(mmx_mesh_read(ctx, "dir.obj/noext", MMX_FORMAT_AUTO, &m), MMX_ERR_ARG);
    cr_assert_str_eq(mmx_ctx_error(ctx), "dir.obj/noext: cannot tell the format: the name has no "
                     "extension (known: .obj, .off, .ply, .stl)");
    cr_assert_null(m);
    cr_assert_eq(mmx_mesh_read(ctx, tu_data("cube.obj"), 77, &m), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

Test(io_bad, arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    cr_assert_eq(mmx_mesh_read(ctx, "mesh.xyz", MMX_FORMAT_AUTO, &m), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "mesh.xyz"));
    cr_assert_eq(mmx_mesh_read_mem(ctx, "a.obj", NULL, 8, MMX_FORMAT_OBJ, &m), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_read_mem(ctx, "a.obj", "v", 1, MMX_FORMAT_OBJ, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_read(ctx, NULL, MMX_FORMAT_OBJ, &m), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_read(NULL, "a.obj", MMX_FORMAT_OBJ, &m), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_read_mem(ctx, "a.obj", NULL, 0, MMX_FORMAT_OBJ, &m), MMX_ERR_PARSE);
    cr_assert_null(m);
    mmx_ctx_free(ctx);
}

/* Every file in tests/data/bad fails to load, with its path in the detail. */
Test(io_bad, data_bad_files)
{
    static const struct {
        const char *name;
        mmx_status want;
    } files[] = {
        {"empty.obj", MMX_ERR_PARSE},
        {"empty.off", MMX_ERR_PARSE},
        {"obj_face_two_verts.obj", MMX_ERR_MESH},
        {"obj_float_overflow.obj", MMX_ERR_MESH},
        {"obj_garbage_face.obj", MMX_ERR_PARSE},
        {"obj_cr_only_index_range.obj", MMX_ERR_MESH},
        {"obj_garbage_vertex.obj", MMX_ERR_PARSE},
        {"obj_index_huge.obj", MMX_ERR_MESH},
        {"obj_index_range.obj", MMX_ERR_MESH},
        {"obj_index_zero.obj", MMX_ERR_MESH},
        {"obj_inf.obj", MMX_ERR_MESH},
        {"obj_nan.obj", MMX_ERR_MESH},
        {"obj_vt_index_range.obj", MMX_ERR_MESH},
        {"stl_truncated.stl", MMX_ERR_PARSE},
        {"stl_count_lies.stl", MMX_ERR_PARSE},
        {"stl_binary_inf.stl", MMX_ERR_MESH},
        {"stl_no_endsolid.stl", MMX_ERR_PARSE},
        {"stl_two_vertices.stl", MMX_ERR_MESH},
        {"stl_nan.stl", MMX_ERR_MESH},
        {"stl_garbage.stl", MMX_ERR_PARSE},
        {"stl_short.stl", MMX_ERR_PARSE},
        {"obj_relative_before_first.obj", MMX_ERR_MESH},
        {"obj_repeated_vertex.obj", MMX_ERR_MESH},
        {"obj_short_vertex.obj", MMX_ERR_PARSE},
        {"obj_trailing_junk.obj", MMX_ERR_PARSE},
        {"off_bad_header.off", MMX_ERR_PARSE},
        {"off_count_overflow.off", MMX_ERR_OVERFLOW},
        {"off_header_lies.off", MMX_ERR_PARSE},
        {"off_index_range.off", MMX_ERR_MESH},
        {"off_negative_face_count.off", MMX_ERR_PARSE},
        {"off_nan.off", MMX_ERR_MESH},
        {"off_repeated_vertex.off", MMX_ERR_MESH},
        {"off_truncated.off", MMX_ERR_PARSE},
        {"ply_cr_only_index_range.ply", MMX_ERR_MESH},
        {"ply_header_lies.ply", MMX_ERR_PARSE},
        {"ply_index_range.ply", MMX_ERR_MESH},
        {"ply_missing_vertex_indices.ply", MMX_ERR_PARSE},
        {"ply_missing_z.ply", MMX_ERR_PARSE},
        {"ply_nan.ply", MMX_ERR_MESH},
        {"ply_no_end_header.ply", MMX_ERR_PARSE},
        {"ply_truncated.ply", MMX_ERR_PARSE},
        {"ply_unknown_format.ply", MMX_ERR_PARSE},
        {"ply_unknown_type.ply", MMX_ERR_PARSE},
    };
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4096];
        snprintf(path, sizeof path, "bad/%s", files[i].name);
        snprintf(path, sizeof path, "%s", tu_data(path));
        mmx_mesh *m = NULL;
        mmx_status s = mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m);
        cr_assert_eq(s, files[i].want, "%s: got %s (%s)", files[i].name, mmx_status_str(s),
                     mmx_ctx_error(ctx));
        cr_assert_null(m);
        cr_assert(strstr(mmx_ctx_error(ctx), path), "%s: %s", files[i].name, mmx_ctx_error(ctx));
    }
    mmx_ctx_free(ctx);
}

/* The files added for the messages of issue 11: the problem and the line in each. */
Test(io_bad, data_bad_files_messages)
{
    static const struct {
        const char *name, *where, *what;
    } files[] = {
        {"obj_index_huge.obj", ":5: ", "vertex index 99999999999999999999 is out of range"},
        {"off_negative_face_count.off", ":6: ", "face 0: the vertex count -3 is negative"},
        {"obj_cr_only_index_range.obj", ":6: ", "face 0: vertex index 3 outside [0, 3)"},
        {"ply_cr_only_index_range.ply", ":14: ", "face 0: vertex index 3 outside [0, 3)"},
    };
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4096], where[4200];
        snprintf(path, sizeof path, "bad/%s", files[i].name);
        snprintf(path, sizeof path, "%s", tu_data(path));
        snprintf(where, sizeof where, "%s%s", path, files[i].where);
        mmx_mesh *m = NULL;
        cr_assert_neq(mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m), MMX_OK, "%s", files[i].name);
        const char *e = mmx_ctx_error(ctx);
        cr_assert(strstr(e, where), "%s: '%s' does not name '%s'", files[i].name, e, where);
        cr_assert(strstr(e, files[i].what), "%s: '%s' does not say '%s'", files[i].name, e, files[i].what);
    }
    mmx_ctx_free(ctx);
}

/* ---- tags, checked where the file is read ----------------------------------------------------- */

/* A bad 't' line is refused by the reader itself, naming the file's line (not the tags' own
 * count of 't' lines), so no command accepts or copies it. */
Test(io_bad, obj_bad_tag_names_the_files_line)
{
    bad("t.obj", TRI3 "f 1 2 3\n# a comment\nt interpolateboundary 1/0/0 1\nt crease 2/1/0 0 7 10\n",
        MMX_ERR_MESH, "t.obj:7:", "crease names vertex 7, outside [0, 3)");
    bad("t.obj", TRI3 "t crease 2/1/0 0 \\\n 1 nan\nf 1 2 3\n", MMX_ERR_MESH, "t.obj:4:",
        "float 1 of 1 is 'nan'");
    bad("t.obj", TRI3 "f 1 2 3\n\n\nt hole 1/0/0 1\n", MMX_ERR_MESH, "t.obj:7:",
        "hole names face 1, outside [0, 1)");
}
