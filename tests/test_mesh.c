/* The mesh matrix: built from face lists (and refused when invalid), its reduced form, face
 * lists back, copies, and the built-in shapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static const float quad_tri_pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0};

Test(mesh, from_faces_keeps_cyclic_order_and_positions)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[] = {0, 4, 7}, verts[] = {0, 1, 2, 3, 1, 4, 2};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 5, 2, start, verts, quad_tri_pos, &m));
    cr_assert_eq(mmx_mesh_nverts(m), 5);
    cr_assert_eq(mmx_mesh_nfaces(m), 2);
    cr_assert_eq(m->space, MMX_SPACE_HOST);
    cr_assert_arr_eq(m->M->colptr, start, sizeof start);
    cr_assert_arr_eq(m->M->rowidx, verts, sizeof verts);
    const mmx_index val[] = {1, 2, 3, 4, 1, 2, 3};
    cr_assert_arr_eq(m->M->val, val, sizeof val, "values are positions in the face cycle");
    cr_assert_arr_eq(m->pos, quad_tri_pos, sizeof quad_tri_pos);
    cr_assert_null(m->tags);
    mmx_index order = -1;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, m, &order));
    cr_assert_eq(order, 0, "mixed orders have no uniform order");
    cr_assert_eq(mmx_mesh_reduce(ctx, m), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 1 has order 3"), "%s", mmx_ctx_error(ctx));
    cr_assert_not_null(m->M->colptr, "a refused reduction leaves the mesh as it was");
    mmx_mesh_free(m);
    mmx_mesh_free(NULL);
    mmx_ctx_free(ctx);
}

Test(mesh, invalid_faces_are_refused_with_the_face_named)
{
    mmx_ctx *ctx = tu_host_ctx();
    struct { mmx_index start[3]; mmx_index verts[8]; mmx_status want; const char *msg; } bad[] = {
        {{0, 3, 5}, {0, 1, 2, 2, 3}, MMX_ERR_MESH, "face 1: face of order 2"},
        {{0, 3, 6}, {0, 1, 2, 2, 3, 5}, MMX_ERR_MESH, "face 1: vertex index 5 outside [0, 5)"},
        {{0, 3, 6}, {0, 1, -1, 2, 3, 4}, MMX_ERR_MESH, "face 0: vertex index -1"},
        {{0, 4, 7}, {0, 1, 2, 1, 2, 3, 4}, MMX_ERR_MESH, "face 0: vertex 1 appears twice"},
        {{0, 3, 2}, {0, 1, 2, 3}, MMX_ERR_MESH, "face 1: start[2] = 2 is below"},
        {{1, 3, 6}, {0, 1, 2, 3, 4, 0}, MMX_ERR_MESH, "start[0] is 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mmx_mesh *m = (mmx_mesh *)1;
        mmx_status s = mmx_mesh_from_faces(ctx, 5, 2, bad[i].start, bad[i].verts, quad_tri_pos, &m);
        cr_assert_eq(s, bad[i].want, "case %zu: %s", i, mmx_status_str(s));
        cr_assert_null(m);
        cr_assert(strstr(mmx_ctx_error(ctx), bad[i].msg), "case %zu: '%s' lacks '%s'", i, mmx_ctx_error(ctx), bad[i].msg);
    }
    float nan_pos[15];
    memcpy(nan_pos, quad_tri_pos, sizeof nan_pos);
    nan_pos[3 * 3 + 1] = NAN;
    const mmx_index start[] = {0, 4, 7}, verts[] = {0, 1, 2, 3, 1, 4, 2};
    mmx_mesh *m = NULL;
    cr_assert_eq(mmx_mesh_from_faces(ctx, 5, 2, start, verts, nan_pos, &m), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "vertex 3: coordinate y is NaN"), "%s", mmx_ctx_error(ctx));
    nan_pos[3 * 3 + 1] = -INFINITY;
    cr_assert_eq(mmx_mesh_from_faces(ctx, 5, 2, start, verts, nan_pos, &m), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "infinite"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_mesh_from_faces(ctx, -1, 2, start, verts, NULL, &m), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_from_faces(ctx, 5, 2, start, verts, NULL, NULL), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

Test(mesh, a_long_face_with_a_repeat_is_found)
{
    /* Faces above 32 vertices take the sorting path of the repeat check. */
    mmx_ctx *ctx = tu_host_ctx();
    enum { N = 360 };
    mmx_index start[2] = {0, N}, verts[N];
    for (int i = 0; i < N; i++) verts[i] = i;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, N, 1, start, verts, NULL, &m));
    mmx_index order = 0;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, m, &order));
    cr_assert_eq(order, N);
    mmx_mesh_free(m);
    verts[300] = 17;
    cr_assert_eq(mmx_mesh_from_faces(ctx, N, 1, start, verts, NULL, &m), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "vertex 17 appears twice"), "%s", mmx_ctx_error(ctx));
    mmx_ctx_free(ctx);
}

Test(mesh, reduce_and_expand_round_trip)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "torus:6:5", &m));
    mmx_index *s0, *v0, *s1, *v1;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &s0, &v0));
    mmx_index order = 0;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, m, &order));
    cr_assert_eq(order, 4);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
    cr_assert_eq(m->M->order, 4);
    cr_assert_null(m->M->colptr);
    cr_assert_null(m->M->val);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
    MMX_OK_OR_FAIL(ctx, mmx_csc_check(ctx, m->M));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &s1, &v1));
    cr_assert_arr_eq(s0, s1, 31 * sizeof(mmx_index));
    cr_assert_arr_eq(v0, v1, 120 * sizeof(mmx_index));
    free(s1);
    free(v1);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_expand(ctx, m));
    cr_assert_eq(m->M->order, 0);
    cr_assert_arr_eq(m->M->colptr, s0, 31 * sizeof(mmx_index));
    for (int k = 0; k < 120; k++) cr_assert_eq(m->M->val[k], k % 4 + 1);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_expand(ctx, m));
    free(s0);
    free(v0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(mesh, copy_is_deep)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *a = NULL, *b = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "mixed", &a));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, a, MMX_SPACE_HOST, &b));
    cr_assert_neq(a->M->rowidx, b->M->rowidx);
    cr_assert_arr_eq(a->M->rowidx, b->M->rowidx, (size_t)a->M->nnz * sizeof(mmx_index));
    cr_assert_arr_eq(a->pos, b->pos, (size_t)mmx_mesh_nverts(a) * 3 * sizeof(float));
    mmx_mesh_free(a);
    cr_assert_eq(mmx_csc_check(ctx, b->M), MMX_OK);
    cr_assert_eq(mmx_mesh_copy(ctx, b, MMX_SPACE_DEVICE, &a), MMX_ERR_SPACE);
    mmx_mesh_free(b);
    mmx_ctx_free(ctx);
}

/* Signed volume by the divergence theorem, summing a fan of triangles per face: positive when
 * a closed mesh is oriented counter-clockwise seen from outside. */
static double signed_volume(const mmx_mesh *m)
{
    double vol = 0;
    for (mmx_index f = 0; f < mmx_mesh_nfaces(m); f++) {
        const mmx_index *v = m->M->rowidx + m->M->colptr[f];
        mmx_index n = m->M->colptr[f + 1] - m->M->colptr[f];
        for (mmx_index i = 1; i + 1 < n; i++) {
            const float *a = m->pos + 3 * v[0], *b = m->pos + 3 * v[i], *c = m->pos + 3 * v[i + 1];
            vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                    a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
        }
    }
    return vol;
}

Test(mesh, shapes_have_their_closed_form_sizes)
{
    mmx_ctx *ctx = tu_host_ctx();
    struct { const char *spec; mmx_index nv, nf, order; double volume; } want[] = {
        {"tetrahedron", 4, 4, 3, 8.0 / 3.0},
        {"cube", 8, 6, 4, 8.0},
        {"icosphere:0", 12, 20, 3, -1},
        {"icosphere:3", 642, 1280, 3, -1},
        {"torus:7:5", 35, 35, 4, -1},
        {"torus", 24 * 12, 24 * 12, 4, -1},
        {"grid:3:2", 12, 6, 4, 0},
        {"grid:8:8", 81 - 2, 64 - 8, 4, 0}, /* two 2x2 holes: 8 cells and their two centre points */
        {"mixed", 18, 13, 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, want[i].spec, &m));
        cr_assert_eq(mmx_mesh_nverts(m), want[i].nv, "%s", want[i].spec);
        cr_assert_eq(mmx_mesh_nfaces(m), want[i].nf, "%s", want[i].spec);
        mmx_index order = -1;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, m, &order));
        cr_assert_eq(order, want[i].order, "%s", want[i].spec);
        double vol = signed_volume(m);
        if (want[i].volume > 0)
            cr_assert_float_eq(vol, want[i].volume, 1e-5, "%s: volume %g", want[i].spec, vol);
        else if (want[i].volume < 0)
            cr_assert_gt(vol, 0.0, "%s is closed and must enclose a positive volume", want[i].spec);
        else
            cr_assert_float_eq(vol, 0.0, 1e-9, "%s is flat", want[i].spec);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(mesh, flat_shapes_face_up)
{
    /* Open flat shapes are counter-clockwise seen from +z: positive signed area per face. */
    mmx_ctx *ctx = tu_host_ctx();
    const char *specs[] = {"grid:9:8", "mixed"};
    for (int s = 0; s < 2; s++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, specs[s], &m));
        for (mmx_index f = 0; f < mmx_mesh_nfaces(m); f++) {
            double area = 0;
            mmx_index a = m->M->colptr[f], n = m->M->colptr[f + 1] - a;
            for (mmx_index i = 0; i < n; i++) {
                const float *p = m->pos + 3 * m->M->rowidx[a + i], *q = m->pos + 3 * m->M->rowidx[a + (i + 1) % n];
                area += p[0] * q[1] - q[0] * p[1];
            }
            cr_assert_gt(area, 0.0, "%s face %d runs clockwise", specs[s], f);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(mesh, unknown_or_bad_shapes_are_refused)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *bad[] = {"dodecahedron", "torus:2:5", "torus:5:x", "icosphere:11", "grid:0:3",
                         "cube:3", "torus:4:4:4", "", "icosphere:-1", "torus:-3:-3", "grid:-1",
                         "torus:5:-1", "icosphere:", "icosphere:2:3", "torus:5:", "torus::5",
                         "grid:+4", "grid: 4", "icosphere:2x", "torus:99999999999999999999",
                         "cube:", "icosphere:1:2:3:4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mmx_mesh *m = (mmx_mesh *)1;
        cr_assert_eq(mmx_mesh_shape(ctx, bad[i], &m), MMX_ERR_ARG, "'%s' accepted", bad[i]);
        cr_assert_null(m);
        cr_assert(strlen(mmx_ctx_error(ctx)) > 0);
    }
    /* A bad size is named in the sentence. */
    mmx_mesh *m = NULL;
    cr_assert_eq(mmx_mesh_shape(ctx, "torus:-3:-3", &m), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "'-3'"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_mesh_shape(ctx, "icosphere:2:3", &m), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "one size"), "%s", mmx_ctx_error(ctx));
    /* The sizes still work. */
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "torus:5:4", &m));
    cr_assert_eq(mmx_mesh_nfaces(m), 20);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(mesh, set_tags_refuses_missing_arrays)
{
    /* Creases without their sharpness (and the like) were read through NULL. */
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &m));
    const mmx_index pair[2] = {0, 1};
    const float w = 2;
    const mmx_mesh_tags sets[] = {
        {1, (mmx_index *)pair, NULL, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1},
        {1, NULL, (float *)&w, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1},
        {0, NULL, NULL, 1, NULL, (float *)&w, 0, NULL, -1, -1, -1, -1, -1},
        {0, NULL, NULL, 1, (mmx_index *)pair, NULL, 0, NULL, -1, -1, -1, -1, -1},
        {0, NULL, NULL, 0, NULL, NULL, 2, NULL, -1, -1, -1, -1, -1},
        {-1, NULL, NULL, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1},
    };
    const char *named[] = {"crease_sharpness", "crease_verts", "corner_verts", "corner_sharpness",
                           "holes", "negative"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        cr_assert_eq(mmx_mesh_set_tags(ctx, m, &sets[i]), MMX_ERR_ARG, "set %zu", i);
        cr_assert(strstr(mmx_ctx_error(ctx), named[i]), "set %zu: %s", i, mmx_ctx_error(ctx));
        cr_assert_null(m->tags, "a refused set leaves the tags");
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- tags (OpenSubdiv's 't' lines as data) ---------------------------------------------- */

/* A cube whose tags are `text` (set as an OBJ read would set them). */
static mmx_mesh *tagged_cube(mmx_ctx *ctx, const char *text)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &m));
    free(m->tags);
    m->tags = text ? strdup(text) : NULL;
    return m;
}

Test(mesh, tags_parse_every_kind_of_line)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tagged_cube(ctx, NULL);
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    /* Two edges of face 0 and one of face 1, from the cube's own faces. */
    const mmx_index a = verts[0], b = verts[1], c = verts[2], d = verts[start[1]], e = verts[start[1] + 1];
    char text[512];
    snprintf(text, sizeof text,
             "t crease 4/1/0 %d %d %d %d 2.5\n"
             "\n"
             "t crease 2/1/0 %d %d 10\n"
             "t corner 2/2/0 3 5 1 -4\n"
             "t hole 2/0/0 1 4\n"
             "t interpolateboundary 1/0/0 1\n"
             "t facevaryinginterpolateboundary 1/0/0 4\n"
             "t facevaryingpropagatecorners 1/0/0 0\n"
             "t creasemethod 0/0/1 chaikin\n"
             "t smoothtriangles 0/0/1 smooth\n",
             a, b, b, c, d, e);
    free(m->tags);
    m->tags = strdup(text);
    mmx_mesh_tags *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, m, &t));
    cr_assert_eq(t->ncreases, 3);
    const mmx_index want[6] = {a, b, b, c, d, e};
    cr_assert_arr_eq(t->crease_verts, want, sizeof want);
    cr_assert(t->crease_sharpness[0] == 2.5f && t->crease_sharpness[1] == 2.5f &&
              t->crease_sharpness[2] == 10.0f);
    cr_assert(t->ncorners == 2 && t->corner_verts[0] == 3 && t->corner_verts[1] == 5);
    cr_assert(t->corner_sharpness[0] == 1.0f && t->corner_sharpness[1] == 0.0f,
              "a negative sharpness reads as 0");
    cr_assert(t->nholes == 2 && t->holes[0] == 1 && t->holes[1] == 4);
    cr_assert(t->interpolate_boundary == 1 && t->fvar_interpolate_boundary == 4 &&
              t->fvar_propagate_corners == 0 && t->crease_method == 1 && t->smooth_triangles == 1);
    /* Written back as lines and parsed again: the same set. */
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_tags(ctx, m, t));
    mmx_mesh_tags *u = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, m, &u));
    cr_assert(u->ncreases == 3 && u->ncorners == 2 && u->nholes == 2);
    cr_assert_arr_eq(u->crease_verts, t->crease_verts, 6 * sizeof(mmx_index));
    cr_assert_arr_eq(u->crease_sharpness, t->crease_sharpness, 3 * sizeof(float));
    cr_assert_arr_eq(u->corner_sharpness, t->corner_sharpness, 2 * sizeof(float));
    cr_assert(u->interpolate_boundary == 1 && u->crease_method == 1 && u->smooth_triangles == 1 &&
              u->fvar_interpolate_boundary == 4 && u->fvar_propagate_corners == 0);
    /* No tags: an empty set with every option unset. */
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_tags(ctx, m, NULL));
    cr_assert_null(m->tags);
    mmx_mesh_tags_free(u);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, m, &u));
    cr_assert(u->ncreases == 0 && u->ncorners == 0 && u->nholes == 0 &&
              u->interpolate_boundary == -1 && u->crease_method == -1);
    mmx_mesh_tags_free(u);
    mmx_mesh_tags_free(t);
    mmx_mesh_tags_free(NULL);
    free(start);
    free(verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(mesh, tags_refuse_bad_lines_naming_them)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const struct { const char *text, *needle; mmx_status want; } cases[] = {
        {"t crease 2/1/0 0 99 1\n", "line 1: crease names vertex 99, outside [0, 8)", MMX_ERR_MESH},
        {"t interpolateboundary 1/0/0 2\nt crease 3/1/0 0 1 2 1\n", "line 2: crease wants vertex pairs", MMX_ERR_MESH},
        {"t corner 1/2/0 0 1 2\n", "line 1: corner wants vertices", MMX_ERR_MESH},
        {"t hole 1/0/0 6\n", "hole names face 6, outside [0, 6)", MMX_ERR_MESH},
        {"t crease 1/1\n", "bad argument counts '1/1'", MMX_ERR_MESH},
        {"t crease 2/1/0 0 x 1\n", "integer 2 of 2 is 'x'", MMX_ERR_MESH},
        {"t crease 2/1/0 0 1 nan\n", "float 1 of 1 is 'nan'", MMX_ERR_MESH},
        {"t corner 1/1/0 0 1 5\n", "more arguments than its counts say", MMX_ERR_MESH},
        {"t creasemethod 0/0/1 sharp\n", "creasemethod wants one string, normal or chaikin", MMX_ERR_MESH},
        {"t interpolateboundary 1/0/0 3\n", "interpolateboundary wants one integer in 0..2", MMX_ERR_MESH},
        {"t bevel 0/0/0\n", "unknown tag 'bevel'", MMX_ERR_MESH},
        {"x crease\n", "line 1: not a 't NAME I/F/S ...' line", MMX_ERR_MESH},
        {"t vertexedit 1/0/0 3\n", "vertexedit is a hierarchical edit", MMX_ERR_UNSUPPORTED},
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        mmx_mesh *m = tagged_cube(ctx, cases[q].text);
        mmx_mesh_tags *t = (mmx_mesh_tags *)&t;
        cr_assert_eq(mmx_mesh_tags_parse(ctx, m, &t), cases[q].want, "%s", cases[q].text);
        cr_assert_null(t);
        cr_assert(strstr(mmx_ctx_error(ctx), cases[q].needle), "%s: %s", cases[q].text,
                  mmx_ctx_error(ctx));
        mmx_mesh_free(m);
    }
    /* A crease on two vertices that no face joins: the cube's opposite corners. */
    mmx_mesh *m = tagged_cube(ctx, NULL);
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    mmx_index far = -1; /* a vertex in no face with vertex verts[0] */
    for (mmx_index v = 0; v < 8 && far < 0; v++) {
        int shares = 0;
        for (mmx_index f = 0; f < 6; f++) {
            int has0 = 0, hasv = 0;
            for (mmx_index k = start[f]; k < start[f + 1]; k++)
                has0 |= verts[k] == verts[0], hasv |= verts[k] == v;
            shares |= has0 && hasv;
        }
        if (!shares) far = v;
    }
    cr_assert_geq(far, 0);
    const mmx_index pair[2] = {verts[0], far};
    const float w = 1;
    mmx_mesh_tags bad = {1, (mmx_index *)pair, (float *)&w, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1};
    m->tags = strdup("t interpolateboundary 1/0/0 2\n");
    cr_assert_eq(mmx_mesh_set_tags(ctx, m, &bad), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "is not an edge of the mesh"), "%s", mmx_ctx_error(ctx));
    cr_assert_str_eq(m->tags, "t interpolateboundary 1/0/0 2\n", "a refused set leaves the tags");
    free(start);
    free(verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- triangulation -------------------------------------------------------------------------- */

/* mmx_mesh_triangulate: a quad along its shorter diagonal, other polygons as fans from their
 * first corner, triangles as they are, faces in order; texture coordinates follow their
 * corners, tags stay (a hole becomes its triangles). */
Test(mesh, triangulate_by_its_rule_with_uv_and_tags)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A quad whose 1-3 diagonal is the shorter, a triangle, and a pentagon. */
    const char text[] = "v 0 0 0\nv 3 0 0\nv 3 1 0\nv 0.5 1 0\nv 4 1 0\n"
                        "v 5 0 0\nv 6 0 0\nv 7 1 0\nv 6 2 0\nv 5 2 0\n"
                        "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                        "f 1/1 2/2 3/3 4/4\nf 2/1 5/2 3/3\nf 6/1 7/2 8/3 9/4 10/1\n"
                        "t crease 2/1/0 1 2 3\nt hole 1/0/0 2\n";
    mmx_mesh *m = NULL, *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read_mem(ctx, "t.obj", text, sizeof text - 1, MMX_FORMAT_OBJ, &m));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, m, &t));
    cr_assert_eq(mmx_mesh_nverts(t), 10);
    cr_assert_eq(mmx_mesh_nfaces(t), 2 + 1 + 3);
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, t, &start, &verts));
    const mmx_index want[] = {0, 1, 3, 1, 2, 3, 1, 4, 2, 5, 6, 7, 5, 7, 8, 5, 8, 9};
    cr_assert_arr_eq(verts, want, sizeof want);
    cr_assert_arr_eq(t->pos, m->pos, 10 * 3 * sizeof(float));
    cr_assert_not_null(t->uv);
    cr_assert_eq(t->uv->nvalues, 4);
    const mmx_index uv[] = {0, 1, 3, 1, 2, 3, 0, 1, 2, 0, 1, 2, 0, 2, 3, 0, 3, 0};
    cr_assert_arr_eq(t->uv->index, uv, sizeof uv);
    mmx_mesh_tags *tags = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, t, &tags));
    cr_assert_eq(tags->ncreases, 1);
    cr_assert_eq(tags->nholes, 3, "the pentagon (face 2) is now triangles 3, 4, 5");
    for (int k = 0; k < 3; k++) cr_assert_eq(tags->holes[k], 3 + k);
    mmx_mesh_tags_free(tags);
    free(start);
    free(verts);
    /* Triangles in, the same triangles out; the cube's 6 quads give 12 and stay closed. */
    mmx_mesh *cube = NULL, *tc = NULL, *again = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &cube));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, cube, &tc));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, tc, &again));
    cr_assert_eq(mmx_mesh_nfaces(tc), 12);
    cr_assert_arr_eq(again->M->rowidx, tc->M->rowidx, 36 * sizeof(mmx_index));
    mmx_mesh_stats st;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_stats_compute(ctx, tc, &st));
    cr_assert(st.boundary_edges == 0 && st.oriented && st.manifold && st.genus == 0);
    mmx_mesh_free(again);
    again = NULL;
    cr_assert_eq(mmx_mesh_triangulate(ctx, NULL, &again), MMX_ERR_ARG);
    cr_assert_null(again, "nothing made on a refusal");
    cr_assert_eq(mmx_mesh_triangulate(ctx, cube, NULL), MMX_ERR_ARG);
    mmx_mesh_free(tc);
    mmx_mesh_free(cube);
    mmx_mesh_free(t);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A polygon of 200k corners is one fan: linear work (a quadratic rule would take minutes). */
Test(mesh, triangulate_a_huge_polygon_in_linear_time)
{
    mmx_ctx *ctx = tu_host_ctx();
    enum { N = 200000 };
    mmx_index *verts = malloc(N * sizeof *verts), start[2] = {0, N};
    float *pos = malloc(3 * (size_t)N * sizeof *pos);
    cr_assert(verts && pos);
    for (int i = 0; i < N; i++) {
        verts[i] = i;
        pos[3 * i] = cosf(6.2831853f * (float)i / N), pos[3 * i + 1] = sinf(6.2831853f * (float)i / N);
        pos[3 * i + 2] = 0;
    }
    mmx_mesh *m = NULL, *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, N, 1, start, verts, pos, &m));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, m, &t));
    cr_assert_eq(mmx_mesh_nfaces(t), N - 2);
    cr_assert_eq(t->M->rowidx[3 * (N - 3) + 2], N - 1);
    mmx_mesh_free(t);
    mmx_mesh_free(m);
    free(verts);
    free(pos);
    mmx_ctx_free(ctx);
}
