/* The mesh file readers on valid input: every accepted form of OBJ, OFF and PLY (ascii, binary
 * little and big endian), the committed samples in tests/data, and the number scanner against
 * strtod. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* Reads `len` bytes through a private copy without a terminating NUL, so that AddressSanitizer
 * catches any read past the end. */
static mmx_mesh *read_bytes(mmx_ctx *ctx, const char *name, const void *data, size_t len,
                            mmx_format fmt)
{
    void *copy = malloc(len ? len : 1);
    cr_assert(copy);
    if (len) memcpy(copy, data, len);
    mmx_mesh *m = NULL;
    mmx_status s = mmx_mesh_read_mem(ctx, name, copy, len, fmt, &m);
    free(copy);
    cr_assert_eq(s, MMX_OK, "%s: %s: %s", name, mmx_status_str(s), mmx_ctx_error(ctx));
    return m;
}

static mmx_mesh *read_text(mmx_ctx *ctx, const char *name, const char *text)
{
    return read_bytes(ctx, name, text, strlen(text), MMX_FORMAT_AUTO);
}

/* Asserts the mesh has exactly these faces (start has nf + 1 entries). */
static void expect_faces(mmx_ctx *ctx, const mmx_mesh *m, mmx_index nf, const mmx_index *start,
                         const mmx_index *verts)
{
    mmx_index *st, *vs;
    cr_assert_eq(mmx_mesh_nfaces(m), nf, "faces: got %d, want %d", mmx_mesh_nfaces(m), nf);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &st, &vs));
    for (mmx_index f = 0; f <= nf; f++)
        cr_assert_eq(st[f], start[f], "start[%d]: got %d, want %d", f, st[f], start[f]);
    for (mmx_index k = 0; k < start[nf]; k++)
        cr_assert_eq(vs[k], verts[k], "verts[%d]: got %d, want %d", k, vs[k], verts[k]);
    free(st);
    free(vs);
}

static void expect_pos(const mmx_mesh *m, mmx_index nv, const float *pos)
{
    cr_assert_eq(mmx_mesh_nverts(m), nv, "vertices: got %d, want %d", mmx_mesh_nverts(m), nv);
    cr_assert(m->pos);
    for (mmx_index i = 0; i < 3 * nv; i++)
        cr_assert_eq(m->pos[i], pos[i], "pos[%d]: got %.9g, want %.9g", i, m->pos[i], pos[i]);
}

/* A byte buffer for building binary PLY files. */
typedef struct bytes {
    unsigned char b[8192];
    size_t n;
    int be;
} bytes;

static void put(bytes *b, const void *p, size_t n)
{
    cr_assert(b->n + n <= sizeof b->b);
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void put_str(bytes *b, const char *s) { put(b, s, strlen(s)); }
static void put_n(bytes *b, uint64_t v, int size)
{
    unsigned char t[8];
    for (int i = 0; i < size; i++) t[b->be ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)size);
}
static void put_f32(bytes *b, float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    put_n(b, u, 4);
}
static void put_f64(bytes *b, double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    put_n(b, u, 8);
}

/* The tetrahedron used throughout (the same as tests/data/tetra_*.ply). */
static const float tet_pos[] = {0, 0, 0, 1.5f, 0, 0, 0, 1.25f, 0, 0, 0, 0.75f};
static const mmx_index tet_start[] = {0, 3, 6, 9, 12};
static const mmx_index tet_verts[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

static void expect_tet(mmx_ctx *ctx, const mmx_mesh *m)
{
    expect_pos(m, 4, tet_pos);
    expect_faces(ctx, m, 4, tet_start, tet_verts);
}

/* ---- formats and files -------------------------------------------------------------------- */

Test(io_read, format_from_path)
{
    cr_assert_eq(mmx_format_from_path("a.obj"), MMX_FORMAT_OBJ);
    cr_assert_eq(mmx_format_from_path("dir/A.OBJ"), MMX_FORMAT_OBJ);
    cr_assert_eq(mmx_format_from_path("x.Off"), MMX_FORMAT_OFF);
    cr_assert_eq(mmx_format_from_path("d.off/x.ply"), MMX_FORMAT_PLY);
    cr_assert_eq(mmx_format_from_path("d.obj/noext"), MMX_FORMAT_AUTO);
    cr_assert_eq(mmx_format_from_path("x.stl"), MMX_FORMAT_STL);
    cr_assert_eq(mmx_format_from_path("x.STL"), MMX_FORMAT_STL);
    cr_assert_eq(mmx_format_from_path("x.objx"), MMX_FORMAT_AUTO);
    cr_assert_eq(mmx_format_from_path(""), MMX_FORMAT_AUTO);
    cr_assert_eq(mmx_format_from_path(NULL), MMX_FORMAT_AUTO);
}

Test(io_read, files_by_extension)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char *names[] = {"t1.obj", "t2.OFF", "t3.Ply"};
    static const char *texts[] = {
        "v 0 0 0\nv 1.5 0 0\nv 0 1.25 0\nv 0 0 0.75\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
        "OFF\n4 4 6\n0 0 0\n1.5 0 0\n0 1.25 0\n0 0 0.75\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
        "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
        "property float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n"
        "0 0 0\n1.5 0 0\n0 1.25 0\n0 0 0.75\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
    };
    for (int i = 0; i < 3; i++) {
        const char *path = tu_tmp(names[i]);
        FILE *f = fopen(path, "wb");
        cr_assert(f);
        fputs(texts[i], f);
        fclose(f);
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m));
        expect_tet(ctx, m);
        mmx_mesh_free(m);
        remove(path);
    }
    mmx_ctx_free(ctx);
}

Test(io_read, explicit_format_overrides_name)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *t = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    mmx_mesh *m = read_bytes(ctx, "mesh.txt", t, strlen(t), MMX_FORMAT_OBJ);
    cr_assert_eq(mmx_mesh_nfaces(m), 1);
    mmx_mesh_free(m);
    m = read_bytes(ctx, NULL, t, strlen(t), MMX_FORMAT_OBJ);
    cr_assert_eq(mmx_mesh_nfaces(m), 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- OBJ ---------------------------------------------------------------------------------- */

Test(io_read, obj_cube_file)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("cube.obj"), MMX_FORMAT_AUTO, &m));
    static const float pos[] = {-0.5f, -0.5f, 0.5f,  0.5f, -0.5f, 0.5f,  -0.5f, 0.5f, 0.5f,
                                0.5f,  0.5f,  0.5f,  -0.5f, 0.5f, -0.5f, 0.5f,  0.5f, -0.5f,
                                -0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f};
    static const mmx_index start[] = {0, 4, 8, 12, 16, 20, 24};
    static const mmx_index verts[] = {0, 1, 3, 2, 2, 3, 5, 4, 4, 5, 7, 6,
                                      6, 7, 1, 0, 1, 7, 5, 3, 6, 0, 2, 4};
    expect_pos(m, 8, pos);
    expect_faces(ctx, m, 6, start, verts);
    cr_assert_null(m->tags);
    cr_assert_eq(m->space, MMX_SPACE_HOST);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_index_forms)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "forms.obj",
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n"
                            "f 1 2 3\n"
                            "f 1/1 3/1 4/1\n"
                            "f 2//1 3//1 4//1\n"
                            "f 1/1/1 2/1/1 4/1/1\n"
                            "f +1 +2 +4\n");
    static const mmx_index start[] = {0, 3, 6, 9, 12, 15};
    static const mmx_index verts[] = {0, 1, 2, 0, 2, 3, 1, 2, 3, 0, 1, 3, 0, 1, 3};
    expect_faces(ctx, m, 5, start, verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_negative_indices)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "rel.obj",
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nf -3 -2 -1\nv 0 1 0\n"
                            "f -4//-1 -2//-1 -1\nf 1 -3 4\n");
    static const mmx_index start[] = {0, 3, 6, 9};
    static const mmx_index verts[] = {0, 1, 2, 0, 2, 3, 0, 1, 3};
    expect_faces(ctx, m, 3, start, verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_polygons_of_any_order)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A pentagon, a hexagon and a 40-gon (long faces take another path in the checks). */
    char text[4096];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "v %d %d 0\n", i, i * i);
    n += (size_t)snprintf(text + n, sizeof text - n, "f 1 2 3 4 5\nf 6 7 8 9 10 11\nf");
    for (int i = 40; i >= 1; i--) n += (size_t)snprintf(text + n, sizeof text - n, " %d", i);
    snprintf(text + n, sizeof text - n, "\n");
    mmx_mesh *m = read_text(ctx, "poly.obj", text);
    mmx_index start[] = {0, 5, 11, 51}, verts[51];
    for (int i = 0; i < 11; i++) verts[i] = i;
    for (int i = 0; i < 40; i++) verts[11 + i] = 39 - i;
    expect_faces(ctx, m, 3, start, verts);
    cr_assert_eq(m->pos[3 * 39 + 1], 39.0f * 39.0f);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_comments_blank_lines_crlf_tabs)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "crlf.obj",
                            "# header comment\r\n\r\n   \r\n"
                            "v\t0 0 0\r\n"
                            "  v 1 0 0 # trailing comment\r\n"
                            "v 1 1 0#glued comment\r\n"
                            "\tv 0 1 0   \r\n"
                            "\r\n# between\r\n"
                            "f 1 2 3 # a triangle\r\n"
                            "f\t1\t3\t4\r\n");
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const mmx_index start[] = {0, 3, 6};
    static const mmx_index verts[] = {0, 1, 2, 0, 2, 3};
    expect_pos(m, 4, pos);
    expect_faces(ctx, m, 2, start, verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_skipped_statements)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "skip.obj",
                            "mtllib a.mtl b.mtl\no thing\ng group1 group2\ns 1\nusemtl red\n"
                            "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                            "vt 0.5 0.5\nvn 0 0 1\nvp 0.2 0.3\nl 1 2\np 3\n"
                            "curv2 1 2 3\nvfoo 1 2 3\nfo 1 2 3\nt1 x\ncstype bezier\nmg 1\n"
                            "f 1 2 3\ns off\n");
    static const mmx_index start[] = {0, 3};
    static const mmx_index verts[] = {0, 1, 2};
    expect_faces(ctx, m, 1, start, verts);
    cr_assert_eq(mmx_mesh_nverts(m), 3);
    cr_assert_null(m->tags);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_vertex_w_and_colors_ignored)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "extra.obj",
                            "v 0 0 0 1.0\nv 1 0 0 0.25 0.5 0.75\nv 0 1 0 1 0 0 1\nf 1 2 3\n");
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    expect_pos(m, 3, pos);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_tags_kept_verbatim)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "tags.obj",
                            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                            "f 1 2 4 3\n"
                            "t crease 2/1/0 0 1 5.0\r\n"
                            "   t corner 1/1/0 3 2.5   # comment kept\n"
                            "t interpolateboundary 1/0/0 \\\n  1\n"
                            "t hole 1/0/0 0");
    cr_assert_str_eq(m->tags, "t crease 2/1/0 0 1 5.0\n"
                              "t corner 1/1/0 3 2.5   # comment kept\n"
                              "t interpolateboundary 1/0/0    1\n"
                              "t hole 1/0/0 0\n");
    cr_assert_eq(mmx_mesh_nfaces(m), 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_line_continuation)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A statement goes on after a backslash at the end of its line, also before CRLF; the
     * continued 'g' statement swallows the face on its next line. */
    mmx_mesh *m = read_text(ctx, "cont.obj",
                            "v 0 \\\n 0 0\nv 1 \\\r\n 0 0\r\nv 1 1 0\nv 0 1 0\n"
                            "f 1 2 \\\n  3 \\\n  4\ng a \\\nf 1 2 3\n# comment \\\nf 4 3 2\n");
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const mmx_index start[] = {0, 4, 7};
    static const mmx_index verts[] = {0, 1, 2, 3, 3, 2, 1};
    expect_pos(m, 4, pos);
    expect_faces(ctx, m, 2, start, verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_forward_references)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "fwd.obj", "f 1 2 3\nf 3 2 4\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n");
    static const mmx_index start[] = {0, 3, 6};
    static const mmx_index verts[] = {0, 1, 2, 2, 1, 3};
    expect_faces(ctx, m, 2, start, verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, obj_bom_no_final_newline_points_only)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "bom.obj", "\xEF\xBB\xBFv 1 2 3\nv 4 5 6");
    static const float pos[] = {1, 2, 3, 4, 5, 6};
    expect_pos(m, 2, pos);
    cr_assert_eq(mmx_mesh_nfaces(m), 0);
    mmx_mesh_free(m);
    m = read_text(ctx, "end.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3");
    cr_assert_eq(mmx_mesh_nfaces(m), 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Coordinates are the float nearest the decimal value: compare with strtod's double rounded to
 * float (the double is correctly rounded, so this is exact except for double-rounding cases,
 * which none of these are). */
Test(io_read, obj_number_forms)
{
    static const char *nums[] = {
        "1", "-2.5", "+3.", ".5", "-.25", "1e3", "1E-3", "-0", "0.000123", "123.456e-2",
        "3.4028234e38", "-3.4028234e38", "1.17549435e-38", "1.4e-45", "1e-400", "0e999999",
        "0.1", "0.3333333333333333333333333333333", "123456789012345678901234567890",
        "0.1000000000000000055511151231257827021181583404541015625", "9007199254740993",
        "00000000000000000000000000000001.5", "1.000000000000000000000000000000000001",
        "4.9406564584124654e-324", "2.2250738585072011e-308", "179769313486231570000000000",
        "1e22", "1e23", "8.589973e9", "0.0000000000000000000000000000000000000123",
    };
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        char text[256];
        snprintf(text, sizeof text, "v %s 0 %s\n", nums[i], nums[i]);
        mmx_mesh *m = read_text(ctx, "num.obj", text);
        float want = (float)strtod(nums[i], NULL);
        cr_assert_eq(m->pos[0], want, "%s: got %.9g, want %.9g", nums[i], m->pos[0], want);
        cr_assert_eq(m->pos[2], want);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* ---- the number scanner ------------------------------------------------------------------- */

static double ulp_diff(double a, double b)
{
    if (a == b) return 0;
    return fabs(a - b) / fabs(nextafter(b, INFINITY) - b);
}

Test(io_read, lex_double_matches_strtod)
{
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    static const char *fmts[] = {"%.17g", "%.15g", "%.9g", "%.6f", "%.3e", "%g", "%.12e", "%.20f"};
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* Values over many magnitudes, with both signs. */
        double mant = (double)(x >> 11) / (double)(1ull << 53);
        int ex = (int)((x >> 3) % 80) - 40;
        double v = (x & 1 ? -1 : 1) * mant * pow(10.0, ex);
        const char *fmt = fmts[i % 8];
        char buf[128];
        snprintf(buf, sizeof buf, fmt, v);
        const char *p = buf;
        double got;
        cr_assert(mmx__lex_double(&p, buf + strlen(buf), &got), "%s not scanned", buf);
        cr_assert_eq(p, buf + strlen(buf), "%s: stopped at %s", buf, p);
        double want = strtod(buf, NULL);
        /* At most 15 significant digits: exact. More: within one ulp. */
        int digits = 0, seen = 0;
        for (const char *c = buf; *c && *c != 'e'; c++) {
            if (*c >= '1' && *c <= '9') seen = 1;
            if (seen && *c >= '0' && *c <= '9') digits++;
        }
        if (digits <= 15)
            cr_assert_eq(got, want, "%s: got %.17g, want %.17g", buf, got, want);
        else
            cr_assert_leq(ulp_diff(got, want), 1.0, "%s: got %.17g, want %.17g", buf, got, want);
    }
}

Test(io_read, lex_double_edges)
{
    static const struct {
        const char *s;
        int ok;
        size_t used;
    } cases[] = {
        {"nan", 1, 3},      {"-NaN", 1, 4},       {"inf", 1, 3},     {"+Infinity", 1, 9},
        {"INFx", 1, 3},     {"1e", 1, 1},         {"1e+", 1, 1},     {"2.5E-2z", 1, 6},
        {".", 0, 0},        {"-", 0, 0},          {"+.e1", 0, 0},    {"e5", 0, 0},
        {"", 0, 0},         {"x1", 0, 0},         {"in", 0, 0},      {"1.5.3", 1, 3},
        {"0x10", 1, 1},     {"--1", 0, 0},        {"5.", 1, 2},      {".5", 1, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *s = cases[i].s, *p = s;
        double v = 0;
        int ok = mmx__lex_double(&p, s + strlen(s), &v);
        cr_assert_eq(ok, cases[i].ok, "%s", s);
        cr_assert_eq((size_t)(p - s), cases[i].used, "%s: used %zu", s, (size_t)(p - s));
    }
    const char *s = "-inf";
    double v;
    cr_assert(mmx__lex_double(&s, s + 4, &v));
    cr_assert(isinf(v) && v < 0);
    /* The end of the range is respected even with digits after it. */
    s = "12345";
    cr_assert(mmx__lex_double(&s, s + 3, &v));
    cr_assert_eq(v, 123.0);
}

/* ---- OFF ---------------------------------------------------------------------------------- */

Test(io_read, off_cube_file)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("cube.off"), MMX_FORMAT_AUTO, &m));
    static const mmx_index start[] = {0, 4, 8, 12, 16, 20, 24};
    static const mmx_index verts[] = {0, 1, 3, 2, 2, 3, 5, 4, 4, 5, 7, 6,
                                      6, 7, 1, 0, 1, 7, 5, 3, 6, 0, 2, 4};
    cr_assert_eq(mmx_mesh_nverts(m), 8);
    expect_faces(ctx, m, 6, start, verts);
    cr_assert_eq(m->pos[3 * 7 + 0], 0.5f);
    cr_assert_eq(m->pos[3 * 7 + 2], -0.5f);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, off_header_variants)
{
    static const char *texts[] = {
        "OFF\n4 4 6\n0 0 0\n1.5 0 0\n0 1.25 0\n0 0 0.75\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
        "OFF 4 4 6\n0 0 0\n1.5 0 0\n0 1.25 0\n0 0 0.75\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
        "# leading comment\n\nOFF # comment\n# counts next\n4 4\n0 0 0\n1.5 0 0 # v1\n\n"
        "0 1.25 0\n0 0 0.75\n# faces\n3 0 2 1\n3 0 1 3 # f1\n3 0 3 2\n\n3 1 2 3",
        "COFF\n4 4 6\n0 0 0 255 0 0 255\n1.5 0 0 0 255 0 255\n0 1.25 0 0 0 255 255\n"
        "0 0 0.75 1 1 1 1\n3 0 2 1 255 0 0\n3 0 1 3 0.5 0.5 0.5 1\n3 0 3 2\n3 1 2 3 1 2 3\n",
        "NOFF\n4 4 6\n0 0 0 0 0 -1\n1.5 0 0 1 0 0\n0 1.25 0 0 1 0\n0 0 0.75 0 0 1\n"
        "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
        "CNOFF\r\n4 4 6\r\n0 0 0 0 0 -1 1 0 0 1\r\n1.5 0 0 1 0 0 1 0 0 1\r\n"
        "0 1.25 0 0 1 0 1 0 0 1\r\n0 0 0.75 0 0 1 1 0 0 1\r\n"
        "3 0 2 1\r\n3\t0\t1\t3\r\n  3 0 3 2\r\n3 1 2 3\r\n",
        "STOFF\n4 4 6\n0 0 0 0 0\n1.5 0 0 1 0\n0 1.25 0 0 1\n0 0 0.75 1 1\n"
        "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
        "\xEF\xBB\xBFOFF\n4 4 0\n0 0 0\n1.5e0 0 0\n0 125e-2 0\n0 0 .75\n3 0 2 1\n3 0 1 3\n"
        "3 0 3 2\n3 1 2 3\ntrailing text after the faces is ignored\n",
    };
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        mmx_mesh *m = read_text(ctx, "variant.off", texts[i]);
        expect_tet(ctx, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(io_read, off_polygons_and_empty)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "poly.off",
                            "OFF\n6 2 0\n0 0 0\n1 0 0\n2 0 1\n1 1 0\n0 1 0\n0 0 1\n"
                            "5 0 1 2 3 4\n3 5 4 3\n");
    static const mmx_index start[] = {0, 5, 8};
    static const mmx_index verts[] = {0, 1, 2, 3, 4, 5, 4, 3};
    expect_faces(ctx, m, 2, start, verts);
    mmx_mesh_free(m);
    m = read_text(ctx, "empty.off", "OFF\n0 0 0\n");
    cr_assert_eq(mmx_mesh_nverts(m), 0);
    cr_assert_eq(mmx_mesh_nfaces(m), 0);
    mmx_mesh_free(m);
    m = read_text(ctx, "points.off", "OFF\n2 0 0\n1 2 3\n4 5 6\n");
    static const float pos[] = {1, 2, 3, 4, 5, 6};
    expect_pos(m, 2, pos);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- PLY ---------------------------------------------------------------------------------- */

Test(io_read, ply_sample_files)
{
    static const char *files[] = {"tetra_ascii.ply", "tetra_le.ply", "tetra_be.ply"};
    mmx_ctx *ctx = tu_host_ctx();
    for (int i = 0; i < 3; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(files[i]), MMX_FORMAT_AUTO, &m));
        expect_tet(ctx, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(io_read, ply_ascii_variants)
{
    static const char *texts[] = {
        /* CRLF, comments, obj_info, face before vertex, extra properties and elements. */
        "ply\r\nformat ascii 1.0\r\ncomment made by hand\r\nobj_info nothing\r\n"
        "element face 4\r\nproperty uchar flags\r\nproperty list uchar int vertex_index\r\n"
        "property list uint8 float32 uv\r\n"
        "element vertex 4\r\nproperty float32 nx\r\nproperty float64 x\r\nproperty float64 y\r\n"
        "property list ushort short junk\r\nproperty float64 z\r\n"
        "element edge 2\r\nproperty int vertex1\r\nproperty int vertex2\r\nend_header\r\n"
        "1 3 0 2 1 2 0.5 0.5\r\n0 3 0 1 3 0\r\n7 3 0 3 2 1 1e-3\r\n0 3 1 2 3 0\r\n"
        "0.5 0 0 0 0\r\n1 1.5 0 2 -1 -2 0\r\n0 0 1.25 0 0\r\n0 0 0 1 9 0.75\r\n"
        "0 1\r\n1 2\r\n",
        /* All on one line; int8..uint32 type names; element with no properties. */
        "ply\nformat ascii 1.0\nelement nothing 1000000\nelement vertex 4\nproperty int8 a\n"
        "property float x\nproperty float y\nproperty float z\nelement face 4\n"
        "property list uint16 uint32 vertex_indices\nend_header\n"
        "0 0 0 0 1 1.5 0 0 2 0 1.25 0 3 0 0 0.75 3 0 2 1 3 0 1 3 3 0 3 2 3 1 2 3",
    };
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        mmx_mesh *m = read_text(ctx, "variant.ply", texts[i]);
        expect_tet(ctx, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The header of a binary tetrahedron PLY; the body is written by the caller. */
static void tet_header(bytes *b, const char *vprops, const char *fprops, const char *extra)
{
    char h[2048];
    snprintf(h, sizeof h,
             "ply\nformat %s 1.0\ncomment test\nelement vertex 4\n%selement face 4\n%s%send_header\n",
             b->be ? "binary_big_endian" : "binary_little_endian", vprops, fprops, extra);
    put_str(b, h);
}

/* float x y z, uchar count, int indices: the tight loops, both byte orders. */
Test(io_read, ply_binary_common_layout)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int be = 0; be < 2; be++)
        for (int uns = 0; uns < 2; uns++) {
            bytes b = {.be = be};
            tet_header(&b, "property float x\nproperty float y\nproperty float z\n",
                       uns ? "property list uchar uint vertex_indices\n"
                           : "property list uint8 int32 vertex_indices\n", "");
            for (int i = 0; i < 12; i++) put_f32(&b, tet_pos[i]);
            for (int f = 0; f < 4; f++) {
                put_n(&b, 3, 1);
                for (int k = 0; k < 3; k++) put_n(&b, (uint64_t)tet_verts[3 * f + k], 4);
            }
            put_str(&b, "trailing bytes are ignored");
            mmx_mesh *m = read_bytes(ctx, "common.ply", b.b, b.n, MMX_FORMAT_PLY);
            expect_tet(ctx, m);
            mmx_mesh_free(m);
        }
    mmx_ctx_free(ctx);
}

/* Other property layouts: extra properties around x y z, double coordinates, list
 * properties in the vertex, other count and index types, extra face properties, and other
 * elements with lists that must be walked. */
Test(io_read, ply_binary_general_layouts)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int be = 0; be < 2; be++)
        for (int variant = 0; variant < 4; variant++) {
            bytes b = {.be = be};
            const char *vp[] = {
                "property uchar red\nproperty double x\nproperty float y\nproperty short s\n"
                "property double z\n",
                "property float x\nproperty list uchar int neighbours\nproperty float y\n"
                "property float z\n",
                "property double x\nproperty double y\nproperty double z\n",
                "property float z\nproperty float y\nproperty float x\n",
            };
            const char *fp[] = {
                "property list ushort short vertex_indices\n",
                "property int id\nproperty list char uchar vertex_indices\nproperty float w\n",
                "property list uint ushort vertex_index\n",
                "property list int uint vertex_indices\nproperty list uchar double uv\n",
            };
            tet_header(&b, vp[variant], fp[variant],
                       "element edge 2\nproperty list uchar int ends\nproperty uchar c\n");
            for (int v = 0; v < 4; v++) {
                const float *p = tet_pos + 3 * v;
                switch (variant) {
                case 0:
                    put_n(&b, 200, 1), put_f64(&b, p[0]), put_f32(&b, p[1]), put_n(&b, 7, 2);
                    put_f64(&b, p[2]);
                    break;
                case 1:
                    put_f32(&b, p[0]), put_n(&b, (uint64_t)v, 1);
                    for (int k = 0; k < v; k++) put_n(&b, (uint64_t)k, 4);
                    put_f32(&b, p[1]), put_f32(&b, p[2]);
                    break;
                case 2: put_f64(&b, p[0]), put_f64(&b, p[1]), put_f64(&b, p[2]); break;
                case 3: put_f32(&b, p[2]), put_f32(&b, p[1]), put_f32(&b, p[0]); break;
                }
            }
            static const int csize[] = {2, 1, 4, 4}, isize[] = {2, 1, 2, 4};
            for (int f = 0; f < 4; f++) {
                if (variant == 1) put_n(&b, (uint64_t)f, 4);
                put_n(&b, 3, csize[variant]);
                for (int k = 0; k < 3; k++) put_n(&b, (uint64_t)tet_verts[3 * f + k], isize[variant]);
                if (variant == 1) put_f32(&b, 1.0f);
                if (variant == 3) put_n(&b, 2, 1), put_f64(&b, 0.5), put_f64(&b, 0.25);
            }
            for (int e = 0; e < 2; e++) {
                put_n(&b, 2, 1), put_n(&b, 0, 4), put_n(&b, 1, 4), put_n(&b, 9, 1);
            }
            mmx_mesh *m = read_bytes(ctx, "general.ply", b.b, b.n, MMX_FORMAT_PLY);
            expect_tet(ctx, m);
            mmx_mesh_free(m);
        }
    mmx_ctx_free(ctx);
}

/* Many faces through the tight loop: quads and pentagons outgrow the first guess of three
 * indices per face, so the array grows while the loop runs. */
Test(io_read, ply_binary_growth)
{
    mmx_ctx *ctx = tu_host_ctx();
    enum { N = 500 };
    static unsigned char buf[1 << 16];
    int n = snprintf((char *)buf, sizeof buf,
                     "ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\n"
                     "property float y\nproperty float z\nelement face %d\n"
                     "property list uchar int vertex_indices\nend_header\n", N, N);
    size_t len = (size_t)n;
    for (int v = 0; v < N; v++) {
        float p[3] = {(float)v, (float)(v % 7), 0.5f};
        memcpy(buf + len, p, 12);
        len += 12;
    }
    mmx_index start[N + 1], verts[5 * N];
    start[0] = 0;
    for (int f = 0; f < N; f++) {
        int c = 3 + f % 3;
        buf[len++] = (unsigned char)c;
        for (int k = 0; k < c; k++) {
            int32_t v = (f + k) % N;
            memcpy(buf + len, &v, 4);
            len += 4;
            verts[start[f] + k] = v;
        }
        start[f + 1] = start[f] + c;
    }
    mmx_mesh *m = read_bytes(ctx, "grow.ply", buf, len, MMX_FORMAT_PLY);
    expect_faces(ctx, m, N, start, verts);
    cr_assert_eq(m->pos[3 * (N - 1)], (float)(N - 1));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_read, ply_empty_and_points)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "empty.ply",
                            "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\n"
                            "property float y\nproperty float z\nelement face 0\n"
                            "property list uchar int vertex_indices\nend_header\n");
    cr_assert_eq(mmx_mesh_nverts(m), 0);
    cr_assert_eq(mmx_mesh_nfaces(m), 0);
    mmx_mesh_free(m);
    m = read_text(ctx, "points.ply",
                  "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                  "property float y\nproperty float z\nend_header\n1 2 3\n4 5 6\n");
    static const float pos[] = {1, 2, 3, 4, 5, 6};
    expect_pos(m, 2, pos);
    cr_assert_eq(mmx_mesh_nfaces(m), 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Strips: alternating orientation, -1 restarts, degenerate stitching triangles dropped. */
Test(io_read, ply_tristrips)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A 3 x 2 grid of vertices:  3 4 5 / 0 1 2. Strip 0 3 1 4 2 5 covers it with 4 triangles;
     * then a restart and a strip stitched with a repeated vertex (2 2). */
    static const mmx_index start[] = {0, 3, 6, 9, 12, 15, 18};
    static const mmx_index verts[] = {0, 3, 1, 1, 3, 4, 1, 4, 2, 2, 4, 5, 0, 1, 3, 5, 4, 2};
    const char *ascii =
        "ply\nformat ascii 1.0\nelement vertex 6\nproperty float x\nproperty float y\n"
        "property float z\nelement tristrips 2\nproperty list int int vertex_indices\n"
        "end_header\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n"
        "6 0 3 1 4 2 5\n8 0 1 3 -1 5 4 2 2\n";
    mmx_mesh *m = read_text(ctx, "strips.ply", ascii);
    expect_faces(ctx, m, 6, start, verts);
    mmx_mesh_free(m);
    for (int be = 0; be < 2; be++) {
        bytes b = {.be = be};
        put_str(&b, be ? "ply\nformat binary_big_endian 1.0\n" : "ply\nformat binary_little_endian 1.0\n");
        put_str(&b, "element tristrips 1\nproperty list int int vertex_indices\n"
                    "element vertex 6\nproperty float x\nproperty float y\nproperty float z\n"
                    "element face 1\nproperty list uchar int vertex_indices\nend_header\n");
        static const int strip[] = {0, 3, 1, 4, 2, 5, -1, 0, 1, 3, -1, 5, 4, 2, 2};
        put_n(&b, 15, 4);
        for (int k = 0; k < 15; k++) put_n(&b, (uint64_t)(uint32_t)strip[k], 4);
        static const float pos[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
        for (int k = 0; k < 18; k++) put_f32(&b, pos[k]);
        put_n(&b, 3, 1), put_n(&b, 0, 4), put_n(&b, 4, 4), put_n(&b, 3, 4);
        m = read_bytes(ctx, "strips.ply", b.b, b.n, MMX_FORMAT_PLY);
        static const mmx_index start2[] = {0, 3, 6, 9, 12, 15, 18, 21};
        static const mmx_index verts2[] = {0, 3, 1, 1, 3, 4, 1, 4, 2, 2, 4, 5, 0, 1, 3, 5, 4, 2, 0, 4, 3};
        expect_faces(ctx, m, 7, start2, verts2);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* ---- line endings ------------------------------------------------------------------------- */

/* Files written with classic Mac OS line endings (a lone CR) read like their LF versions in
 * every text format, as do files that mix LF, CRLF and CR. */
Test(io_read, cr_only_and_mixed_line_endings)
{
    static const struct {
        const char *name, *text;
    } files[] = {
        {"cr.obj", "# tetrahedron\rv 0 0 0\rv 1.5 0 0\r\rv 0 1.25 0\rv 0 0 0.75 # z\r"
                   "f 1 3 2\rf 1 2 4\rf 1 4 3\rf 2 3 4\r"},
        {"mixed.obj", "v 0 0 0\r\nv 1.5 0 0\rv 0 1.25 0\nv 0 0 0.75\r\r\n"
                      "f 1 3 2\nf 1 2 4\r\nf 1 4 3\rf 2 3 4"},
        {"cr.off", "OFF\r# counts\r4 4 6\r0 0 0\r1.5 0 0\r0 1.25 0\r0 0 0.75\r"
                   "3 0 2 1\r3 0 1 3\r\r3 0 3 2\r3 1 2 3\r"},
        {"crcounts.off", "OFF 4 4 6\r0 0 0\r\n1.5 0 0\r0 1.25 0\n0 0 0.75\r"
                         "3 0 2 1\r3 0 1 3\n3 0 3 2\r\n3 1 2 3"},
        {"cr.ply", "ply\rformat ascii 1.0\rcomment classic Mac OS\relement vertex 4\r"
                   "property float x\rproperty float y\rproperty float z\relement face 4\r"
                   "property list uchar int vertex_indices\rend_header\r"
                   "0 0 0\r1.5 0 0\r0 1.25 0\r0 0 0.75\r3 0 2 1\r3 0 1 3\r3 0 3 2\r3 1 2 3\r"},
    };
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        mmx_mesh *m = read_text(ctx, files[i].name, files[i].text);
        expect_tet(ctx, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* An OBJ continuation and 't' tags over lone CRs: the continuation joins the lines and the
 * tags are kept one per line, without the CRs. */
Test(io_read, obj_continuation_and_tags_with_cr)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "crcont.obj",
                            "v 0 \\\r 0 0\rv 1 0 0\rv 1 1 0\rv 0 1 0\r"
                            "f 1 2 \\\r  3 \\\r\n  4\r"
                            "t crease 2/1/0 0 1 5.0\rt interpolateboundary 1/0/0 \\\r  1\r");
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const mmx_index start[] = {0, 4};
    static const mmx_index verts[] = {0, 1, 2, 3};
    expect_pos(m, 4, pos);
    expect_faces(ctx, m, 1, start, verts);
    cr_assert_str_eq(m->tags, "t crease 2/1/0 0 1 5.0\nt interpolateboundary 1/0/0    1\n");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A binary PLY's body starts right after the end_header line, whose break is the one the
 * first line uses: a lone CR, CRLF or LF. A body whose first byte is an LF (0x0A) after a
 * CR-only header stays part of the body. */
Test(io_read, ply_binary_header_line_endings)
{
    static const char *const eol[] = {"\r", "\r\n", "\n"};
    float x0;
    const uint32_t bits = 0x3F80000Au; /* 1.0000012f: its low byte, first in LE, is 0x0A */
    memcpy(&x0, &bits, sizeof x0);
    mmx_ctx *ctx = tu_host_ctx();
    for (int e = 0; e < 3; e++) {
        bytes b = {.be = 0};
        const char *lines[] = {"ply", "format binary_little_endian 1.0", "element vertex 4",
                               "property float x", "property float y", "property float z",
                               "element face 4", "property list uchar int vertex_indices",
                               "end_header"};
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
            put_str(&b, lines[i]);
            put_str(&b, eol[e]);
        }
        put_f32(&b, x0);
        for (int i = 1; i < 12; i++) put_f32(&b, tet_pos[i]);
        for (int f = 0; f < 4; f++) {
            put_n(&b, 3, 1);
            for (int k = 0; k < 3; k++) put_n(&b, (uint64_t)tet_verts[3 * f + k], 4);
        }
        cr_assert_eq(b.b[b.n - 4 * 13 - 48 + 0], 0x0A); /* the body's first byte */
        mmx_mesh *m = read_bytes(ctx, "eol.ply", b.b, b.n, MMX_FORMAT_AUTO);
        cr_assert_eq(m->pos[0], x0, "line ending %d: x0 = %.9g", e, m->pos[0]);
        expect_faces(ctx, m, 4, tet_start, tet_verts);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Line numbers for messages count LF, CRLF and a lone CR as one break each. */
Test(io_read, line_of_counts_every_break_once)
{
    static const char text[] = "a\nb\r\nc\rd\r\r\ne";
    const mmx__src src = {"t", text, text + sizeof text - 1, NULL};
    static const size_t want[] = {1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_assert_eq(mmx__line_of(&src, text + i), want[i], "offset %zu: line %zu, want %zu", i,
                     mmx__line_of(&src, text + i), want[i]);
    /* A lone CR as the last byte ends its line too. */
    static const char last[] = "a\r";
    const mmx__src s2 = {"t", last, last + 2, NULL};
    cr_assert_eq(mmx__line_of(&s2, last + 2), 2);
}


/* Texture coordinates: 'vt' lines and 'v/vt' corners become mesh->uv (relative indices too),
 * written back as they were read; a set that misses a corner, or names a missing line, is not
 * kept, and the mesh is read all the same. */
Test(io_read, obj_texture_coordinates)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "uv.obj",
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1 0.5\n"
                            "f 1/1 2/2 3/3\nf 1/-3/1 3/-1 4/4\nvt 0 1\n");
    cr_assert_not_null(m->uv);
    cr_assert_eq(m->uv->nvalues, 4);
    static const mmx_index index[] = {0, 1, 2, 0, 2, 3};
    static const float values[] = {0, 0, 1, 0, 1, 1, 0, 1};
    cr_assert_arr_eq(m->uv->index, index, sizeof index);
    cr_assert_arr_eq(m->uv->values, values, sizeof values);
    const char *path = tu_tmp("uv.obj");
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
    mmx_mesh *back = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &back));
    remove(path);
    cr_assert_not_null(back->uv);
    cr_assert_eq(back->uv->nvalues, 4);
    cr_assert_arr_eq(back->uv->index, index, sizeof index);
    cr_assert_arr_eq(back->uv->values, values, sizeof values);
    mmx_mesh *copy = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &copy));
    cr_assert(copy->uv && copy->uv != m->uv && copy->uv->index[5] == 3);
    mmx_mesh_free(copy);
    mmx_mesh_free(back);
    mmx_mesh_free(m);
    m = read_text(ctx, "partial.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nf 1/1 2/1 3\n");
    cr_assert_null(m->uv, "a corner without a texture coordinate: no set");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- issue 26: what is left out is counted, empty meshes, STL, sniffing, limits ------------ */

/* Writes `len` bytes to a temporary file `name` and reads it with mmx_mesh_read_ex. */
static mmx_status read_ex(mmx_ctx *ctx, const char *name, const void *data, size_t len,
                          mmx_format fmt, const mmx_read_opts *opts, mmx_read_info *info,
                          mmx_mesh **m)
{
    const char *path = tu_tmp(name);
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    return mmx_mesh_read_ex(ctx, path, fmt, opts, info, m);
}

/* Item 4: a partial set of texture coordinates, vn, g, o, usemtl, mtllib, colors and other
 * statements are counted in mmx_read_info (the tool warns from it), not dropped silently. */
Test(io_read, obj_left_out_is_counted)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char text[] = "mtllib m.mtl\no thing\ng a\nusemtl red\ns 1\n"
                               "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 1 1 0 0 0 1\nv 0 1 0\n"
                               "vt 0 0\nvt 1 0\nvn 0 0 1\nf 1/1 2/2 3/1\nf 1 3 4\n";
    mmx_read_info info;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, read_ex(ctx, "left.obj", text, sizeof text - 1, MMX_FORMAT_AUTO, NULL, &info, &m));
    cr_assert_null(m->uv, "some corners without texture coordinates: no set");
    cr_assert_eq(info.format, MMX_FORMAT_OBJ);
    cr_assert_eq(info.texcoords, 2, "the 2 vt lines are counted as left out: %lld", (long long)info.texcoords);
    cr_assert_eq(info.normals, 1);
    cr_assert_eq(info.groups, 2);
    cr_assert_eq(info.materials, 2);
    cr_assert_eq(info.colors, 3);
    cr_assert_eq(info.other, 1, "s: %lld", (long long)info.other);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* PLY colors and normals, OFF prefixes: counted. */
Test(io_read, ply_and_off_left_out_is_counted)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char ply[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                              "property float y\nproperty float z\nproperty float nx\nproperty float ny\n"
                              "property float nz\nproperty uchar red\nproperty uchar green\n"
                              "property uchar blue\nproperty uchar alpha\nelement face 1\n"
                              "property list uchar int vertex_indices\n"
                              "element camera 1\nproperty float k\nend_header\n"
                              "0 0 0 0 0 1 255 0 0 9\n1 0 0 0 0 1 0 255 0 9\n0 1 0 0 0 1 0 0 255 9\n3 0 1 2\n7\n";
    mmx_read_info info;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, read_ex(ctx, "left.ply", ply, sizeof ply - 1, MMX_FORMAT_AUTO, NULL, &info, &m));
    cr_assert_eq(info.format, MMX_FORMAT_PLY);
    cr_assert_eq(info.normals, 3);
    cr_assert_eq(info.colors, 3, "alpha is not kept: %lld", (long long)info.colors);
    cr_assert_not_null(m->colors, "red green blue are kept");
    cr_assert(m->colors[0] == 1.0f && m->colors[4] == 1.0f && m->colors[8] == 1.0f && m->colors[1] == 0.0f);
    cr_assert_eq(info.other, 1, "the camera element: %lld", (long long)info.other);
    mmx_mesh_free(m);
    static const char off[] = "CNOFF\n3 1 0\n0 0 0 0 0 1 1 0 0 1\n1 0 0 0 0 1 1 0 0 1\n"
                              "0 1 0 0 0 1 1 0 0 1\n3 0 1 2 1 0 0\n";
    MMX_OK_OR_FAIL(ctx, read_ex(ctx, "left.off", off, sizeof off - 1, MMX_FORMAT_AUTO, NULL, &info, &m));
    cr_assert_eq(info.normals, 3);
    cr_assert_eq(info.colors, 4, "3 vertex colors and a face color: %lld", (long long)info.colors);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Item 3: the empty mesh is a mesh: an OBJ of comments only (what the OBJ writer writes for
 * it), OFF 0 0 0, an STL without facets, in either kind. A zero-byte file is still refused. */
Test(io_read, empty_meshes)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A binary STL of no facet: an 80-byte header and a count of 0 (the rest zeroed). */
    static const char eb[84] = "binary header";
    static const struct { const char *name; const char *text; size_t len; } cases[] = {
        {"e.obj", "# meshmatrix: 0 vertices, 0 faces\n", 34},
        {"e2.obj", "# only comments\ng nothing\n", 26},
        {"e.off", "OFF\n0 0 0\n", 10},
        {"e.stl", "solid x\nendsolid x\n", 19},
        {"eb.stl", eb, sizeof eb},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mmx_mesh *m = NULL;
        mmx_status s = mmx_mesh_read_mem(ctx, cases[i].name, cases[i].text, cases[i].len,
                                         MMX_FORMAT_AUTO, &m);
        cr_assert_eq(s, MMX_OK, "%s: %s", cases[i].name, mmx_ctx_error(ctx));
        cr_assert_eq(mmx_mesh_nverts(m), 0, "%s", cases[i].name);
        cr_assert_eq(mmx_mesh_nfaces(m), 0, "%s", cases[i].name);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Item 11: ascii STL, welded by exact position (-0 and +0 alike) in order of first
 * appearance; several solids; keywords in any case; CRLF. */
Test(io_read, stl_ascii_welds_by_position)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_text(ctx, "q.stl",
                            "solid quad\r\n facet normal 0 0 1\r\n  outer loop\r\n   vertex 0 0 0\r\n"
                            "   vertex 1 0 0\r\n   vertex 1 1 0\r\n  endloop\r\n endfacet\r\nendsolid quad\r\n"
                            "SOLID two\nFACET NORMAL 0 0 1\nOUTER LOOP\nVERTEX -0 0 0\nVERTEX 1 1 -0\n"
                            "VERTEX 0 1 0\nENDLOOP\nENDFACET\nENDSOLID\n");
    static const mmx_index start[] = {0, 3, 6};
    static const mmx_index verts[] = {0, 1, 2, 0, 2, 3};
    expect_faces(ctx, m, 2, start, verts);
    cr_assert_eq(mmx_mesh_nverts(m), 4);
    float p[12];
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, p, MMX_SPACE_HOST, m->pos, m->space, sizeof p));
    cr_assert(p[9] == 0.0f && p[10] == 1.0f && p[11] == 0.0f);
    cr_assert(!signbit(p[0]), "the welded vertex is +0");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A binary STL of the given triangles (9 floats each), with a header that begins with
 * "solid" (as some exporters write), which the size must override. */
static void binary_stl(bytes *b, const float *tri, uint32_t n)
{
    char head[80] = "solid but binary";
    put(b, head, sizeof head);
    put_n(b, n, 4);
    for (uint32_t t = 0; t < n; t++) {
        for (int k = 0; k < 3; k++) put_f32(b, 0.0f);
        for (int k = 0; k < 9; k++) put_f32(b, tri[9 * t + k]);
        put_n(b, 0, 2);
    }
}

/* Binary STL with a "solid" header, and a degenerate facet (two corners at one position)
 * dropped and counted. */
Test(io_read, stl_binary_and_degenerate_facets)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float tri[] = {0, 0, 0, 1, 0, 0, 1, 1, 0,
                                0, 0, 0, 1, 1, 0, 0, 1, 0,
                                0, 0, 0, 0, 0, 0, 5, 5, 5};
    bytes b = {0};
    binary_stl(&b, tri, 3);
    mmx_read_info info;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, read_ex(ctx, "b.stl", b.b, b.n, MMX_FORMAT_AUTO, NULL, &info, &m));
    cr_assert_eq(info.format, MMX_FORMAT_STL);
    cr_assert_eq(info.degenerate, 1);
    static const mmx_index start[] = {0, 3, 6};
    static const mmx_index verts[] = {0, 1, 2, 0, 2, 3};
    expect_faces(ctx, m, 2, start, verts);
    cr_assert_eq(mmx_mesh_nverts(m), 5, "the dropped facet's far corner stays, isolated");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Standard input's format is sniffed; the same sniffing reads bytes whose name has no known
 * extension. */
Test(io_read, sniffing)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float tri[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    bytes b = {0};
    binary_stl(&b, tri, 1);
    const size_t len = b.n;
    cr_assert_eq(mmx__sniff((const char *)b.b, len, len), MMX_FORMAT_STL);
    cr_assert_eq(mmx__sniff((const char *)b.b, len - 1, len - 1), MMX_FORMAT_OBJ, "not 84 + 50 n bytes");
    static const struct { const char *text; mmx_format want; } cases[] = {
        {"ply\nformat ascii 1.0\n", MMX_FORMAT_PLY},
        {"\xEF\xBB\xBF  OFF\n", MMX_FORMAT_OFF},
        {"CNOFF 3 1 0\n", MMX_FORMAT_OFF},
        {"# made by hand\n\nOFF\n", MMX_FORMAT_OFF},
        {"# a comment\nv 0 0 0\n", MMX_FORMAT_OBJ},
        {"solid x\n  facet normal 0 0 1\n", MMX_FORMAT_STL},
        {"solid x\nendsolid x\n", MMX_FORMAT_STL},
        {"solid\n", MMX_FORMAT_OBJ},
        {"v 0 0 0\n", MMX_FORMAT_OBJ},
        {"OFFSET 1\n", MMX_FORMAT_OBJ},
        {"plywood\n", MMX_FORMAT_OBJ},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = strlen(cases[i].text);
        cr_assert_eq(mmx__sniff(cases[i].text, n, n), cases[i].want, "'%s'", cases[i].text);
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read_mem(ctx, "noext", b.b, len, MMX_FORMAT_AUTO, &m));
    cr_assert_eq(mmx_mesh_nfaces(m), 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Item 6: the size limit, for a file and for a stream (a pipe). */
Test(io_read, size_limit)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    mmx_read_opts opts = {16, 0};
    mmx_mesh *m = NULL;
    cr_assert_eq(read_ex(ctx, "big.obj", text, sizeof text - 1, MMX_FORMAT_AUTO, &opts, NULL, &m),
                 MMX_ERR_OVERFLOW);
    cr_assert(strstr(mmx_ctx_error(ctx), "larger than the limit of 16 bytes"), "%s", mmx_ctx_error(ctx));
    cr_assert_null(m);
    opts.max_bytes = sizeof text - 1;
    MMX_OK_OR_FAIL(ctx, read_ex(ctx, "big.obj", text, sizeof text - 1, MMX_FORMAT_AUTO, &opts, NULL, &m));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Item 6: endless streams end: /dev/zero as each format (a NUL is refused at once in text, a
 * binary STL must end at its size), and a pipe of one endless line or of endless lines. */
Test(io_read, endless_streams)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const mmx_format fmts[] = {MMX_FORMAT_OBJ, MMX_FORMAT_OFF, MMX_FORMAT_PLY, MMX_FORMAT_STL};
    for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++) {
        mmx_mesh *m = NULL;
        mmx_status s = mmx_mesh_read_ex(ctx, "/dev/zero", fmts[i], NULL, NULL, &m);
        cr_assert_eq(s, MMX_ERR_PARSE, "format %d: %s", (int)fmts[i], mmx_ctx_error(ctx));
        cr_assert(strstr(mmx_ctx_error(ctx), "/dev/zero") && strstr(mmx_ctx_error(ctx), "byte "),
                  "%s", mmx_ctx_error(ctx));
        cr_assert_null(m);
    }
    static const struct { const char *cmd; mmx_read_opts opts; mmx_status want; const char *word; } pipes[] = {
        {"yes 'v 1 2 3' | tr -d '\\n'", {0, 4096}, MMX_ERR_PARSE, "longer than 4096 bytes"},
        {"yes 'v 1 2 3'", {1 << 20, 0}, MMX_ERR_OVERFLOW, "larger than the limit of 1048576 bytes"},
    };
    for (size_t i = 0; i < sizeof pipes / sizeof *pipes; i++) {
        FILE *p = popen(pipes[i].cmd, "r");
        cr_assert(p);
        char path[64];
        snprintf(path, sizeof path, "/dev/fd/%d", fileno(p));
        mmx_mesh *m = NULL;
        mmx_status s = mmx_mesh_read_ex(ctx, path, MMX_FORMAT_OBJ, &pipes[i].opts, NULL, &m);
        pclose(p);
        cr_assert_eq(s, pipes[i].want, "%s: %s", pipes[i].cmd, mmx_ctx_error(ctx));
        cr_assert(strstr(mmx_ctx_error(ctx), pipes[i].word), "%s", mmx_ctx_error(ctx));
        cr_assert_null(m);
    }
    mmx_ctx_free(ctx);
}

/* The STL samples of tests/data (make_stl.py): the tetrahedron of the PLY samples, ascii in
 * two solids with CRLF and upper-case keywords, and binary with a header beginning "solid". */
Test(io_read, stl_data_files)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char *names[] = {"tetra_ascii.stl", "tetra_binary.stl"};
    for (int i = 0; i < 2; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(names[i]), MMX_FORMAT_AUTO, &m));
        /* Welded vertices come in order of first appearance (0, 2, 1, 3 here): compare each
         * face corner's position with the tetrahedron's. */
        static const int tet_faces[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
        cr_assert_eq(mmx_mesh_nverts(m), 4);
        cr_assert_eq(mmx_mesh_nfaces(m), 4);
        mmx_index *st, *vs;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &st, &vs));
        for (int c = 0; c < 12; c++)
            for (int d = 0; d < 3; d++)
                cr_assert_eq(m->pos[3 * vs[c] + d], tet_pos[3 * tet_faces[c] + d], "%s corner %d", names[i], c);
        cr_assert_eq(vs[1], 1, "vertex 2 of the tetrahedron came second");
        free(st);
        free(vs);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}
