/* Round trips through the writers and the readers: every built-in shape, a reduced-form mesh,
 * OBJ tags, a mesh without positions and awkward floats, written in each format and read back
 * with identical face lists and bit-identical positions; the exact text the writers produce;
 * PLY's count type; the float formatting against printf; and the errors of unwritable paths. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io/io_internal.h"
#include "testutil.h"

static const mmx_format formats[] = {MMX_FORMAT_OBJ, MMX_FORMAT_OFF, MMX_FORMAT_PLY};
static const char *const exts[] = {"obj", "off", "ply"};

/* A scratch path of our own (tu_tmp's buffer is shared). */
static char *tmp_path(const char *name)
{
    char *p = strdup(tu_tmp(name));
    cr_assert_not_null(p);
    return p;
}

/* The whole file as a NUL-terminated string; *len gets its size. */
static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    cr_assert_eq(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp);
    cr_assert_geq(n, 0);
    rewind(fp);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    buf[n] = '\0';
    if (len) *len = (size_t)n;
    return buf;
}

/* b has a's face lists (same faces, same order, same cyclic order) and a's positions bit for
 * bit (zeros where a has none). */
static void expect_same_mesh(mmx_ctx *ctx, const mmx_mesh *a, const mmx_mesh *b, const char *what)
{
    cr_assert_eq(mmx_mesh_nverts(b), mmx_mesh_nverts(a), "%s: vertex count", what);
    cr_assert_eq(mmx_mesh_nfaces(b), mmx_mesh_nfaces(a), "%s: face count", what);
    mmx_index *sa, *va, *sb, *vb;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, a, &sa, &va));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, b, &sb, &vb));
    mmx_index nf = mmx_mesh_nfaces(a);
    cr_assert_arr_eq(sb, sa, ((size_t)nf + 1) * sizeof *sa, "%s: face orders differ", what);
    for (mmx_index k = 0; k < sa[nf]; k++)
        cr_assert_eq(vb[k], va[k], "%s: entry %d: vertex %d read back as %d", what, k, va[k], vb[k]);
    free(sa);
    free(va);
    free(sb);
    free(vb);
    size_t n = 3 * (size_t)mmx_mesh_nverts(a);
    cr_assert(n == 0 || b->pos, "%s: positions missing after reading", what);
    for (size_t i = 0; i < n; i++) {
        float x = a->pos ? a->pos[i] : 0.0f, y = b->pos[i];
        cr_assert(memcmp(&x, &y, sizeof x) == 0, "%s: coordinate %zu: %.9g (%a) read back as %.9g (%a)",
                  what, i, (double)x, (double)x, (double)y, (double)y);
    }
}

/* Writes m in each format (by extension), reads it back and compares. */
static void round_trip_all_formats(mmx_ctx *ctx, const mmx_mesh *m, const char *name)
{
    for (int f = 0; f < 3; f++) {
        char file[128], what[192];
        snprintf(file, sizeof file, "rt_%s.%s", name, exts[f]);
        snprintf(what, sizeof what, "%s as %s", name, exts[f]);
        char *path = tmp_path(file);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
        mmx_mesh *back = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &back));
        expect_same_mesh(ctx, m, back, what);
        mmx_mesh_free(back);
        remove(path);
        free(path);
    }
}

Test(io_roundtrip, every_builtin_shape_in_every_format)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char *const specs[] = {"tetrahedron", "cube",     "icosphere:2", "torus:8:6",
                                        "grid:8:8",    "mixed",    "icosphere:0", "torus:3:3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, specs[i], &m));
        char name[64];
        snprintf(name, sizeof name, "shape%zu", i);
        round_trip_all_formats(ctx, m, name);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, reduced_form_meshes_are_written_like_general_ones)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char *const specs[] = {"torus:8:6", "icosphere:1"};
    for (size_t i = 0; i < 2; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, specs[i], &m));
        MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
        cr_assert_gt(m->M->order, 0);
        cr_assert_null(m->M->colptr);
        round_trip_all_formats(ctx, m, i ? "reduced_tri" : "reduced_quad");
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, obj_keeps_tags_verbatim)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &m));
    static const char tags[] = "t crease 2/1/0 0 1 4.5\nt corner 1/1/0 3 10\nt hole 1/0/0 2\n";
    m->tags = strdup(tags);
    cr_assert_not_null(m->tags);
    char *path = tmp_path("tags.obj");
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
    mmx_mesh *back = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &back));
    expect_same_mesh(ctx, m, back, "cube with tags");
    cr_assert_not_null(back->tags, "tags lost");
    cr_assert_str_eq(back->tags, tags);
    /* The tags follow the faces, as OpenSubdiv's files have them. */
    char *text = slurp(path, NULL);
    char *t = strstr(text, "\nt crease"), *lastf = strstr(text, "\nf ");
    cr_assert(t && lastf);
    while (strstr(lastf + 1, "\nf ")) lastf = strstr(lastf + 1, "\nf ");
    cr_assert_gt(t, lastf, "tags must come after the last face");
    free(text);
    mmx_mesh_free(back);

    /* Tags without a final newline get one, so the file stays line-structured. */
    free(m->tags);
    m->tags = strdup("t crease 2/1/0 4 5 1");
    cr_assert_not_null(m->tags);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_OBJ));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_OBJ, &back));
    cr_assert_not_null(back->tags);
    cr_assert_str_eq(back->tags, "t crease 2/1/0 4 5 1\n");
    mmx_mesh_free(back);
    remove(path);
    free(path);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, a_mesh_without_positions_is_written_with_zeros)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[] = {0, 4, 7}, verts[] = {0, 1, 2, 3, 1, 4, 2};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 5, 2, start, verts, NULL, &m));
    cr_assert_null(m->pos);
    round_trip_all_formats(ctx, m, "nopos");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, awkward_floats_read_back_bit_for_bit)
{
    /* Signed zeros, subnormals, the extremes of float, values printf writes in %e style, and
     * a spread of random bit patterns (made finite). */
    mmx_ctx *ctx = tu_host_ctx();
    enum { NV = 3000 };
    static float pos[3 * NV];
    static const float special[] = {0.0f,     -0.0f,         1.0f,          -1.0f,
                                    0.1f,     1.0f / 3.0f,   1e-5f,         1.2345e-5f,
                                    9.9999e-5f, 1e-4f,       123456.0625f,  99999999.0f,
                                    1e9f,     16777217.0f,   3.40282347e38f, -3.40282347e38f,
                                    1.17549435e-38f, 1e-45f, 2.5e-42f,      6.02214076e23f};
    size_t ns = sizeof special / sizeof special[0];
    uint32_t r = 12345u;
    for (size_t i = 0; i < 3 * (size_t)NV; i++) {
        if (i < ns) {
            pos[i] = special[i];
            continue;
        }
        r = r * 1664525u + 1013904223u;
        uint32_t u = r;
        if (((u >> 23) & 0xffu) == 0xffu) u &= ~(1u << 30); /* no inf or NaN */
        memcpy(&pos[i], &u, sizeof u);
    }
    mmx_index start[NV / 3 + 1], verts[NV];
    for (mmx_index f = 0; f <= NV / 3; f++) start[f] = 3 * f;
    for (mmx_index k = 0; k < NV; k++) verts[k] = k;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, NV, NV / 3, start, verts, pos, &m));
    round_trip_all_formats(ctx, m, "floats");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, the_text_is_what_the_format_says)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[] = {0, 4, 7}, verts[] = {0, 1, 2, 3, 1, 4, 2};
    const float pos[] = {0, 0, 0, 1.5f, -0.0f, 0, 1, 0.1f, 1e-7f, 0, 1, 0, 2, 3e10f, 0};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 5, 2, start, verts, pos, &m));

    char *obj = tmp_path("text.obj"), *off = tmp_path("text.off"), *ply = tmp_path("text.ply");
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, obj, MMX_FORMAT_AUTO));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, off, MMX_FORMAT_AUTO));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, ply, MMX_FORMAT_AUTO));
    char *text = slurp(obj, NULL);
    cr_assert_str_eq(text, "# meshmatrix: 5 vertices, 2 faces\n"
                           "v 0 0 0\nv 1.5 -0 0\nv 1 0.100000001 1.00000001e-07\nv 0 1 0\n"
                           "v 2 3.0000001e+10 0\n"
                           "f 1 2 3 4\nf 2 5 3\n");
    free(text);
    text = slurp(off, NULL);
    cr_assert_str_eq(text, "OFF\n5 2 0\n"
                           "0 0 0\n1.5 -0 0\n1 0.100000001 1.00000001e-07\n0 1 0\n"
                           "2 3.0000001e+10 0\n"
                           "4 0 1 2 3\n3 1 4 2\n");
    free(text);
    size_t len;
    text = slurp(ply, &len);
    static const char header[] = "ply\nformat binary_little_endian 1.0\n"
                                 "comment written by meshmatrix\nelement vertex 5\n"
                                 "property float x\nproperty float y\nproperty float z\n"
                                 "element face 2\nproperty list uchar int vertex_indices\n"
                                 "end_header\n";
    cr_assert_eq(strncmp(text, header, sizeof header - 1), 0, "header:\n%.300s", text);
    cr_assert_eq(len, sizeof header - 1 + 5 * 12 + (1 + 4 * 4) + (1 + 3 * 4));
    const unsigned char *b = (const unsigned char *)text + sizeof header - 1;
    /* vertex 1's x = 1.5f = 0x3fc00000, little endian */
    cr_assert(b[12] == 0x00 && b[13] == 0x00 && b[14] == 0xc0 && b[15] == 0x3f);
    const unsigned char *fb = b + 5 * 12;
    cr_assert(fb[0] == 4 && fb[1] == 0 && fb[5] == 1 && fb[9] == 2 && fb[13] == 3);
    cr_assert(fb[17] == 3 && fb[18] == 1 && fb[22] == 4 && fb[26] == 2);
    free(text);
    remove(obj);
    remove(off);
    remove(ply);
    free(obj);
    free(off);
    free(ply);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, ply_counts_are_int_above_255_vertices)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const mmx_index orders[] = {255, 256, 300};
    for (size_t i = 0; i < 3; i++) {
        mmx_index n = orders[i];
        mmx_index start[3] = {0, n, n + 3};
        mmx_index *verts = malloc(((size_t)n + 3) * sizeof *verts);
        float *pos = malloc(((size_t)n + 1) * 3 * sizeof *pos);
        cr_assert(verts && pos);
        for (mmx_index k = 0; k < n; k++) {
            verts[k] = k;
            pos[3 * k] = cosf(6.2831853f * (float)k / (float)n);
            pos[3 * k + 1] = sinf(6.2831853f * (float)k / (float)n);
            pos[3 * k + 2] = 0;
        }
        pos[3 * n] = pos[3 * n + 1] = 0;
        pos[3 * n + 2] = 1;
        verts[n] = 0, verts[n + 1] = n, verts[n + 2] = 1;
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, n + 1, 2, start, verts, pos, &m));
        char *path = tmp_path("big.ply");
        MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_PLY));
        char *text = slurp(path, NULL);
        const char *want = n > 255 ? "property list int int vertex_indices\n"
                                   : "property list uchar int vertex_indices\n";
        cr_assert_not_null(strstr(text, want), "order %d: header lacks '%s'", n, want);
        free(text);
        round_trip_all_formats(ctx, m, "bigface");
        mmx_mesh_free(m);
        remove(path);
        free(path);
        free(verts);
        free(pos);
    }
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, an_explicit_format_overrides_the_extension)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL, *back = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "mixed", &m));
    char *path = tmp_path("mixed.mesh");
    cr_assert_eq(mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO), MMX_ERR_ARG);
    cr_assert_not_null(strstr(mmx_ctx_error(ctx), "mixed.mesh"), "%s", mmx_ctx_error(ctx));
    cr_assert_not_null(strstr(mmx_ctx_error(ctx), "extension"), "%s", mmx_ctx_error(ctx));
    struct stat sb;
    cr_assert_neq(stat(path, &sb), 0, "nothing is created for a refused format");
    for (int f = 0; f < 3; f++) {
        MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, formats[f]));
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, formats[f], &back));
        expect_same_mesh(ctx, m, back, exts[f]);
        mmx_mesh_free(back);
    }
    /* Upper-case extensions are recognised too. */
    char *upper = tmp_path("MIXED.PLY");
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, upper, MMX_FORMAT_AUTO));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, upper, MMX_FORMAT_PLY, &back));
    expect_same_mesh(ctx, m, back, "MIXED.PLY");
    mmx_mesh_free(back);
    remove(upper);
    remove(path);
    free(upper);
    free(path);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, unwritable_paths_give_an_io_error_naming_the_path)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "tetrahedron", &m));
    static const char *const paths[] = {"/nonexistent/dir/x.obj", "/nonexistent/dir/x.off",
                                        "/nonexistent/dir/x.ply"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(mmx_mesh_write(ctx, m, paths[i], MMX_FORMAT_AUTO), MMX_ERR_IO);
        const char *e = mmx_ctx_error(ctx);
        cr_assert_not_null(strstr(e, paths[i]), "'%s' lacks the path", e);
        cr_assert_not_null(strstr(e, strerror(ENOENT)), "'%s' lacks the system's reason", e);
    }
    /* A directory cannot be opened for writing. */
    const char *dir = getenv("MMX_TEST_TMP");
    if (dir) {
        cr_assert_eq(mmx_mesh_write(ctx, m, dir, MMX_FORMAT_OBJ), MMX_ERR_IO);
        cr_assert_not_null(strstr(mmx_ctx_error(ctx), dir), "%s", mmx_ctx_error(ctx));
    }
    cr_assert_eq(mmx_mesh_write(ctx, NULL, "x.obj", MMX_FORMAT_AUTO), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_write(ctx, m, NULL, MMX_FORMAT_AUTO), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_write(ctx, m, "x.obj", (mmx_format)42), MMX_ERR_ARG);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, a_full_disk_is_reported_not_ignored)
{
    /* /dev/full accepts the open and refuses every write with ENOSPC: the error must surface
     * (from fwrite or from fclose), and the device must of course not be removed. */
    struct stat sb;
    if (stat("/dev/full", &sb) != 0 || !S_ISCHR(sb.st_mode)) cr_skip_test("no /dev/full here");
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &m));
    for (int f = 0; f < 3; f++) {
        cr_assert_eq(mmx_mesh_write(ctx, m, "/dev/full", formats[f]), MMX_ERR_IO);
        const char *e = mmx_ctx_error(ctx);
        cr_assert_not_null(strstr(e, "/dev/full"), "%s", e);
        cr_assert_not_null(strstr(e, strerror(ENOSPC)), "%s", e);
    }
    cr_assert_eq(stat("/dev/full", &sb), 0);
    cr_assert(S_ISCHR(sb.st_mode));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, a_device_mesh_is_written_from_its_host_copy)
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *dm = NULL, *hm = NULL, *back = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_shape(gpu, "torus:8:6", &dm));
    cr_assert_eq(dm->space, MMX_SPACE_DEVICE);
    MMX_OK_OR_FAIL(host, mmx_mesh_shape(host, "torus:8:6", &hm));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_reduce(gpu, dm));
    for (int f = 0; f < 3; f++) {
        char name[32];
        snprintf(name, sizeof name, "device.%s", exts[f]);
        char *path = tmp_path(name);
        MMX_OK_OR_FAIL(gpu, mmx_mesh_write(gpu, dm, path, MMX_FORMAT_AUTO));
        MMX_OK_OR_FAIL(host, mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &back));
        expect_same_mesh(host, hm, back, name);
        mmx_mesh_free(back);
        remove(path);
        free(path);
    }
    mmx_mesh_free(dm);
    mmx_mesh_free(hm);
    mmx_ctx_free(gpu);
    mmx_ctx_free(host);
}

Test(io_roundtrip, float_text_matches_printf)
{
    /* The writers' own float formatting must print what "%.9g" prints: the special values,
     * every float near powers of ten and two, and random bit patterns. */
    char a[32], b[32];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (long i = 0; i < 400000; i++) {
        float f;
        uint32_t u;
        if (i < 200000) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            u = (uint32_t)x;
        } else { /* the floats next to 10^k, where the decimal exponent changes */
            float p = powf(10.0f, (float)((i - 200000) / 4000 - 25));
            memcpy(&u, &p, sizeof u);
            u += (uint32_t)((i % 4000) - 2000);
        }
        memcpy(&f, &u, sizeof f);
        size_t n = mmx__fmt_float(a, f);
        cr_assert_lt(n, 17u);
        a[n] = '\0';
        snprintf(b, sizeof b, "%.9g", (double)f);
        cr_assert_str_eq(a, b, "bits 0x%08x", (unsigned)u);
    }
    char c[16];
    for (uint32_t v = 0; v < 2000000u; v += 997u) {
        size_t n = mmx__fmt_u32(c, v);
        snprintf(b, sizeof b, "%u", (unsigned)v);
        cr_assert(n == strlen(b) && memcmp(c, b, n) == 0);
    }
    size_t n = mmx__fmt_u32(c, UINT32_MAX);
    cr_assert(n == 10 && memcmp(c, "4294967295", 10) == 0);
}

/* ---- vertex normals ------------------------------------------------------------------------- */

/* m with area-weighted vertex normals attached (geom.h). */
static void attach_normals(mmx_ctx *ctx, mmx_mesh *m)
{
    const mmx_index nv = mmx_mesh_nverts(m);
    float *n = malloc(3 * (size_t)(nv ? nv : 1) * sizeof *n);
    cr_assert_not_null(n);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_AREA, n));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_normals(ctx, m, n, MMX_SPACE_HOST));
    free(n);
}

Test(io_roundtrip, vertex_normals_are_written_as_obj_vn_and_ply_nx_ny_nz)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char *const specs[] = {"icosphere:1", "cube", "mixed"};
    for (size_t i = 0; i < 3; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, specs[i], &m));
        attach_normals(ctx, m);
        const mmx_index nv = mmx_mesh_nverts(m);
        /* The faces and positions read back as before, in every format. */
        char name[32];
        snprintf(name, sizeof name, "normals%zu", i);
        round_trip_all_formats(ctx, m, name);
        /* OBJ: one vn line per vertex (the floats exactly), every corner v//v. */
        char *path = tmp_path("normals.obj");
        MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
        char *text = slurp(path, NULL);
        mmx_index seen = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            if (strncmp(line, "vn ", 3) == 0) {
                float x, y, z;
                cr_assert_eq(sscanf(line + 3, "%f %f %f", &x, &y, &z), 3, "%s", line);
                cr_assert_lt(seen, nv);
                const float *want = m->normals + 3 * seen;
                cr_assert(x == want[0] && y == want[1] && z == want[2], "vn %d: %s", seen, line);
                seen++;
            } else if (line[0] == 'f') {
                for (char *tok = line + 1; *tok;) {
                    while (*tok == ' ') tok++;
                    if (!*tok) break;
                    unsigned a, b;
                    cr_assert_eq(sscanf(tok, "%u//%u", &a, &b), 2, "corner '%s'", tok);
                    cr_assert_eq(a, b);
                    while (*tok && *tok != ' ') tok++;
                }
            }
        }
        cr_assert_eq(seen, nv);
        free(text);
        /* PLY: nx ny nz after x y z in the header, six floats per vertex in the body. */
        free(path);
        path = tmp_path("normals.ply");
        MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
        size_t len;
        char *bin = slurp(path, &len);
        cr_assert_not_null(strstr(bin, "property float z\nproperty float nx\nproperty float ny\n"
                                       "property float nz\nelement face"));
        const char *body = strstr(bin, "end_header\n") + strlen("end_header\n");
        cr_assert_geq(len, (size_t)(body - bin) + 24 * (size_t)nv);
        for (mmx_index v = 0; v < nv; v++) {
            float rec[6];
            memcpy(rec, body + 24 * (size_t)v, sizeof rec); /* little endian, as the test hosts */
            cr_assert_eq(memcmp(rec, m->pos + 3 * v, 12), 0);
            cr_assert_eq(memcmp(rec + 3, m->normals + 3 * v, 12), 0, "vertex %d's normal", v);
        }
        free(bin);
        remove(path);
        free(path);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(io_roundtrip, normals_with_texture_coordinates_give_v_vt_vn_corners)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("textured.obj"), MMX_FORMAT_AUTO, &m));
    cr_assert_not_null(m->uv);
    attach_normals(ctx, m);
    char *path = tmp_path("normals_uv.obj");
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
    char *text = slurp(path, NULL);
    const char *f = strstr(text, "\nf ");
    cr_assert_not_null(f);
    unsigned a, t, n;
    cr_assert_eq(sscanf(f + 3, "%u/%u/%u", &a, &t, &n), 3, "%.40s", f);
    cr_assert_eq(a, n);
    free(text);
    /* The reader takes v/vt/vn corners: faces, positions and texture coordinates come back. */
    mmx_mesh *back = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &back));
    expect_same_mesh(ctx, m, back, "textured with normals");
    cr_assert_not_null(back->uv);
    cr_assert_eq(back->uv->nvalues, m->uv->nvalues);
    cr_assert_eq(memcmp(back->uv->index, m->uv->index, (size_t)m->M->nnz * sizeof *m->uv->index), 0);
    mmx_mesh_free(back);
    remove(path);
    free(path);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- issue 26: STL and the empty mesh ------------------------------------------------------ */

/* b is a up to the numbering of its vertices: the same faces in the same order, each corner
 * at a's position bit for bit, and as many vertices (STL keeps no isolated ones). */
static void expect_same_welded(mmx_ctx *ctx, const mmx_mesh *a, const mmx_mesh *b, const char *what)
{
    cr_assert_eq(mmx_mesh_nverts(b), mmx_mesh_nverts(a), "%s: vertex count", what);
    cr_assert_eq(mmx_mesh_nfaces(b), mmx_mesh_nfaces(a), "%s: face count", what);
    mmx_index *sa, *va, *sb, *vb;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, a, &sa, &va));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, b, &sb, &vb));
    mmx_index nf = mmx_mesh_nfaces(a);
    cr_assert_arr_eq(sb, sa, ((size_t)nf + 1) * sizeof *sa, "%s: face orders differ", what);
    for (mmx_index k = 0; k < sa[nf]; k++)
        cr_assert(memcmp(a->pos + 3 * (size_t)va[k], b->pos + 3 * (size_t)vb[k], 3 * sizeof(float)) == 0,
                  "%s: corner %d moved", what, k);
    free(sa), free(va), free(sb), free(vb);
}

Test(io_roundtrip, stl_binary_and_ascii)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char *const specs[] = {"tetrahedron", "icosphere:2", "icosphere:0"};
    static const mmx_format stl[] = {MMX_FORMAT_STL, MMX_FORMAT_STL_ASCII};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, specs[i], &m));
        for (int k = 0; k < 2; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s as %s STL", specs[i], k ? "ascii" : "binary");
            char *p1 = tmp_path(k ? "rt1_a.stl" : "rt1_b.stl"), *p2 = tmp_path(k ? "rt2_a.stl" : "rt2_b.stl");
            MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, p1, stl[k]));
            mmx_mesh *back = NULL, *again = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, p1, MMX_FORMAT_AUTO, &back));
            expect_same_welded(ctx, m, back, what);
            /* Once welded, a mesh comes back exactly: same numbering, same bytes. */
            MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, back, p2, stl[k]));
            MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, p2, MMX_FORMAT_AUTO, &again));
            expect_same_mesh(ctx, back, again, what);
            size_t n1, n2;
            char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
            cr_assert(n1 == n2 && memcmp(b1, b2, n1) == 0, "%s: the second write differs", what);
            if (!k) cr_assert_eq(n1, 84 + 50 * (size_t)mmx_mesh_nfaces(m));
            free(b1), free(b2);
            mmx_mesh_free(again);
            mmx_mesh_free(back);
            remove(p1), remove(p2);
            free(p1), free(p2);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Facet normals: unit, outward for a closed counter-clockwise mesh; the tetrahedron's face
 * in the z = 0 plane, (0, 2, 1) in the samples' winding, points down. */
Test(io_roundtrip, stl_normals)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1.5f, 0, 0, 0, 1.25f, 0, 0, 0, 0.75f};
    static const mmx_index verts[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    mmx_mesh *m = tu_triangles(ctx, 4, 4, verts, pos);
    char *path = tmp_path("normals.stl");
    MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_STL));
    size_t n;
    unsigned char *b = (unsigned char *)slurp(path, &n);
    cr_assert_eq(n, 84 + 4 * 50);
    cr_assert_neq(memcmp(b, "solid", 5), 0, "a binary header must not begin with 'solid'");
    float nrm[3];
    memcpy(nrm, b + 84, sizeof nrm); /* little endian, as the test hosts are */
    cr_assert(nrm[0] == 0.0f && nrm[1] == 0.0f && nrm[2] == -1.0f, "%g %g %g", nrm[0], nrm[1], nrm[2]);
    free(b);
    mmx_mesh_free(m);
    remove(path);
    free(path);
    mmx_ctx_free(ctx);
}

/* STL holds triangles: a quad is refused before the file is made. */
Test(io_roundtrip, stl_refuses_non_triangles)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &m));
    char *path = tmp_path("cube.stl");
    remove(path);
    cr_assert_eq(mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "STL holds triangles only, and face 0 has 4 vertices"),
              "%s", mmx_ctx_error(ctx));
    struct stat st;
    cr_assert_neq(stat(path, &st), 0, "no file is left behind");
    free(path);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Item 3: what is written is read back, the empty mesh included, in every format. */
Test(io_roundtrip, empty_mesh_in_every_format)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read_mem(ctx, "e.off", "OFF\n0 0 0\n", 10, MMX_FORMAT_AUTO, &m));
    static const mmx_format all[] = {MMX_FORMAT_OBJ, MMX_FORMAT_OFF, MMX_FORMAT_PLY, MMX_FORMAT_STL,
                                     MMX_FORMAT_STL_ASCII};
    for (size_t f = 0; f < sizeof all / sizeof *all; f++) {
        char *path = tmp_path("empty.mesh");
        MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, all[f]));
        mmx_mesh *back = NULL;
        mmx_status s = mmx_mesh_read(ctx, path, all[f] == MMX_FORMAT_STL_ASCII ? MMX_FORMAT_STL : all[f], &back);
        cr_assert_eq(s, MMX_OK, "format %d: %s", (int)all[f], mmx_ctx_error(ctx));
        expect_same_mesh(ctx, m, back, "the empty mesh");
        mmx_mesh_free(back);
        remove(path);
        free(path);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A device mesh (reduced triangles) written as STL from its host copy, and an STL read into
 * a CUDA context: the same as on the host. */
Test(io_roundtrip, stl_device_mesh)
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *dm = NULL, *hm = NULL, *back = NULL, *dback = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_shape(gpu, "icosphere:2", &dm));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_reduce(gpu, dm));
    MMX_OK_OR_FAIL(host, mmx_mesh_shape(host, "icosphere:2", &hm));
    char *path = tmp_path("device.stl");
    MMX_OK_OR_FAIL(gpu, mmx_mesh_write(gpu, dm, path, MMX_FORMAT_AUTO));
    MMX_OK_OR_FAIL(host, mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &back));
    expect_same_welded(host, hm, back, "device STL");
    MMX_OK_OR_FAIL(gpu, mmx_mesh_read(gpu, path, MMX_FORMAT_AUTO, &dback));
    cr_assert_eq(dback->space, MMX_SPACE_DEVICE);
    mmx_mesh *copy = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, dback, MMX_SPACE_HOST, &copy));
    expect_same_mesh(host, back, copy, "STL read on the device");
    mmx_mesh_free(copy);
    mmx_mesh_free(dback);
    mmx_mesh_free(back);
    remove(path);
    free(path);
    mmx_mesh_free(dm);
    mmx_mesh_free(hm);
    mmx_ctx_free(gpu);
    mmx_ctx_free(host);
}

/* Item 4: vertex colors go through PLY -> PLY, PLY -> OBJ -> PLY ("v x y z r g b") exactly
 * (uchar values), and are kept by a copy and a permutation. The samples are the tetrahedra of
 * tests/data (uchar red green blue). */
Test(io_roundtrip, vertex_colors)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float want[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    static const char *const samples[] = {"tetra_ascii.ply", "tetra_le.ply", "tetra_be.ply"};
    for (int i = 0; i < 3; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(samples[i]), MMX_FORMAT_AUTO, &m));
        cr_assert_not_null(m->colors, "%s: colors read", samples[i]);
        for (int k = 0; k < 12; k++) cr_assert_eq(m->colors[k], want[k], "%s: channel %d", samples[i], k);
        static const char *const via[] = {"col.ply", "col.obj"};
        for (int v = 0; v < 2; v++) {
            char *path = tmp_path(via[v]);
            MMX_OK_OR_FAIL(ctx, mmx_mesh_write(ctx, m, path, MMX_FORMAT_AUTO));
            mmx_mesh *back = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &back));
            cr_assert_not_null(back->colors, "%s via %s", samples[i], via[v]);
            cr_assert(memcmp(back->colors, m->colors, sizeof want) == 0, "%s via %s", samples[i], via[v]);
            mmx_mesh_free(back);
            remove(path);
            free(path);
        }
        mmx_mesh *c = NULL, *p = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &c));
        cr_assert(c->colors && memcmp(c->colors, m->colors, sizeof want) == 0);
        static const mmx_index vperm[] = {3, 2, 1, 0};
        MMX_OK_OR_FAIL(ctx, mmx_mesh_permute(ctx, m, vperm, NULL, &p));
        cr_assert(p->colors && memcmp(p->colors, m->colors + 9, 3 * sizeof(float)) == 0, "vertex 0 is old 3");
        mmx_mesh_free(p);
        mmx_mesh_free(c);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}
