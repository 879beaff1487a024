/* Meshes from arrays in either space (mmx_mesh_from_arrays), zero-copy wraps
 * (mmx_mesh_wrap_arrays), the conversions for bindings (mmx_convert_f64, mmx_convert_i64) and
 * a CUDA context on the caller's stream (mmx_ctx_use_cuda_stream): what issue 29's Python
 * package needs of the C library. The gpu_* tests run the same on device arrays and skip,
 * saying why, where there is no CUDA device. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#ifdef MMX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* A shape's face lists and positions, in host memory (malloc'd). */
typedef struct lists {
    mmx_index nverts, nfaces, nnz;
    mmx_index *start, *verts;
    float *pos;
} lists;

static lists shape_lists(const char *spec)
{
    mmx_ctx *h = tu_host_ctx();
    mmx_mesh *m = tu_shape(h, spec);
    lists l = {.nverts = mmx_mesh_nverts(m), .nfaces = mmx_mesh_nfaces(m)};
    MMX_OK_OR_FAIL(h, mmx_mesh_faces(h, m, &l.start, &l.verts));
    l.nnz = l.start[l.nfaces];
    l.pos = malloc(3 * (size_t)l.nverts * sizeof *l.pos);
    cr_assert(l.pos);
    memcpy(l.pos, m->pos, 3 * (size_t)l.nverts * sizeof *l.pos);
    mmx_mesh_free(m);
    mmx_ctx_free(h);
    return l;
}

static void lists_free(lists *l)
{
    free(l->start);
    free(l->verts);
    free(l->pos);
}

static mmx_mesh_arrays general(const lists *l)
{
    return (mmx_mesh_arrays){.nverts = l->nverts, .nfaces = l->nfaces, .order = 0,
                             .start = l->start, .verts = l->verts, .pos = l->pos,
                             .space = MMX_SPACE_HOST};
}

static mmx_mesh_arrays uniform(const lists *l, int order)
{
    return (mmx_mesh_arrays){.nverts = l->nverts, .nfaces = l->nfaces, .order = order,
                             .verts = l->verts, .pos = l->pos, .space = MMX_SPACE_HOST};
}

/* Both meshes' arrays brought to the host and compared byte for byte, with the matrix's
 * properties. */
static void assert_same_mesh(mmx_ctx *ctx, const mmx_mesh *a, const mmx_mesh *b)
{
    mmx_mesh *ha = NULL, *hb = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, a, MMX_SPACE_HOST, &ha));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, b, MMX_SPACE_HOST, &hb));
    const mmx_csc *A = ha->M, *B = hb->M;
    cr_assert_eq(A->nrows, B->nrows);
    cr_assert_eq(A->ncols, B->ncols);
    cr_assert_eq(A->nnz, B->nnz);
    cr_assert_eq(A->order, B->order);
    cr_assert_eq(A->maxcol, B->maxcol);
    cr_assert_eq(A->minval, B->minval);
    cr_assert_eq(A->maxval, B->maxval);
    cr_assert_eq(A->positional, B->positional);
    cr_assert_arr_eq(A->rowidx, B->rowidx, (size_t)A->nnz * sizeof *A->rowidx);
    cr_assert_eq(!A->colptr, !B->colptr);
    if (A->colptr) {
        cr_assert_arr_eq(A->colptr, B->colptr, ((size_t)A->ncols + 1) * sizeof *A->colptr);
        cr_assert_arr_eq(A->val, B->val, (size_t)A->nnz * sizeof *A->val);
    }
    cr_assert_eq(!ha->pos, !hb->pos);
    if (ha->pos) cr_assert_arr_eq(ha->pos, hb->pos, 3 * (size_t)A->nrows * sizeof(float));
    mmx_mesh_free(ha);
    mmx_mesh_free(hb);
}

/* ---- mmx_mesh_from_arrays on host arrays ---- */

Test(arrays, offsets_give_the_mesh_of_mmx_mesh_from_faces)
{
    mmx_ctx *ctx = tu_host_ctx();
    lists l = shape_lists("mixed");
    mmx_mesh *a = NULL, *b = NULL;
    const mmx_mesh_arrays arr = general(&l);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &a));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, l.nverts, l.nfaces, l.start, l.verts, l.pos, &b));
    cr_assert_eq(a->M->order, 0);
    cr_assert_eq(a->M->maxcol, 6); /* the hexagon */
    cr_assert_neq(a->M->rowidx, l.verts); /* copied */
    assert_same_mesh(ctx, a, b);
    mmx_mesh_free(a);
    mmx_mesh_free(b);
    lists_free(&l);
    mmx_ctx_free(ctx);
}

Test(arrays, one_order_gives_the_reduced_form)
{
    mmx_ctx *ctx = tu_host_ctx();
    lists l = shape_lists("torus:12:8");
    mmx_mesh *a = NULL, *b = NULL;
    const mmx_mesh_arrays arr = uniform(&l, 4);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &a));
    cr_assert_eq(a->M->order, 4);
    cr_assert_null(a->M->colptr);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, l.nverts, l.nfaces, l.start, l.verts, l.pos, &b));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, b));
    assert_same_mesh(ctx, a, b);
    /* and the operations take it: the statistics of a torus */
    mmx_mesh_stats st;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_stats_compute(ctx, a, &st));
    cr_assert_eq(st.euler, 0);
    cr_assert_eq(st.genus, 1);
    mmx_mesh_free(a);
    mmx_mesh_free(b);
    lists_free(&l);
    mmx_ctx_free(ctx);
}

Test(arrays, no_positions_and_no_faces)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index tri[3] = {0, 1, 2};
    mmx_mesh_arrays arr = {.nverts = 3, .nfaces = 1, .order = 3, .verts = tri};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &m));
    cr_assert_null(m->pos);
    mmx_mesh_free(m);
    arr = (mmx_mesh_arrays){.nverts = 5, .nfaces = 0, .order = 3};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &m));
    cr_assert_eq(mmx_mesh_nfaces(m), 0);
    cr_assert_eq(m->M->maxcol, 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* One refusal of mmx_mesh_from_arrays: status and a detail containing `says`; with
 * `as_faces`, mmx_mesh_from_faces says exactly the same of the same lists. */
static void refused(mmx_ctx *ctx, const mmx_mesh_arrays *arr, mmx_status want, const char *says,
                    int as_faces)
{
    mmx_mesh *m = (mmx_mesh *)1;
    mmx_status s = mmx_mesh_from_arrays(ctx, arr, &m);
    cr_assert_eq(s, want, "%s, expected %s: %s", mmx_status_str(s), mmx_status_str(want),
                 mmx_ctx_error(ctx));
    cr_assert_null(m);
    cr_assert(strstr(mmx_ctx_error(ctx), says), "detail \"%s\" lacks \"%s\"", mmx_ctx_error(ctx), says);
    if (!as_faces) return;
    char first[600];
    strcpy(first, mmx_ctx_error(ctx));
    s = mmx_mesh_from_faces(ctx, arr->nverts, arr->nfaces, arr->start, arr->verts, arr->pos, &m);
    cr_assert_eq(s, want);
    cr_assert_str_eq(mmx_ctx_error(ctx), first);
}

Test(arrays, every_refusal_names_the_face_or_vertex)
{
    mmx_ctx *ctx = tu_host_ctx();
    float pos[3 * 5] = {0};
    mmx_index start[4] = {0, 3, 6, 9};
    mmx_index v[9] = {0, 1, 2, 2, 1, 3, 1, 4, 3};
    mmx_mesh_arrays arr = {.nverts = 5, .nfaces = 3, .start = start, .verts = v, .pos = pos};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &m));
    mmx_mesh_free(m);

    v[7] = 5; /* bad index in face 2 */
    refused(ctx, &arr, MMX_ERR_MESH, "face 2: vertex index 5 outside [0, 5)", 1);
    v[7] = -1;
    refused(ctx, &arr, MMX_ERR_MESH, "face 2: vertex index -1 outside [0, 5)", 1);
    v[7] = 4;
    v[5] = 2; /* face 1 repeats vertex 2 */
    refused(ctx, &arr, MMX_ERR_MESH, "face 1: vertex 2 appears twice in the face", 1);
    v[5] = 3;
    start[1] = 2; /* face 0 of order 2 (and face 1 of order 4) */
    refused(ctx, &arr, MMX_ERR_MESH, "face 0: face of order 2: a face needs at least 3 vertices", 1);
    start[1] = 7; /* decreasing offsets */
    refused(ctx, &arr, MMX_ERR_MESH, "face 1: start[2] = 6 is below start[1] = 7", 1);
    start[1] = 3;
    start[0] = 1;
    refused(ctx, &arr, MMX_ERR_MESH, "start[0] is 1, not 0", 1);
    start[0] = 0;
    pos[3 * 4 + 1] = NAN;
    refused(ctx, &arr, MMX_ERR_MESH, "vertex 4: coordinate y is NaN", 1);
    pos[3 * 4 + 1] = -INFINITY;
    refused(ctx, &arr, MMX_ERR_MESH, "vertex 4: coordinate y is infinite", 1);
    pos[3 * 4 + 1] = 0;
    /* a face fault is named before a coordinate fault, as mmx_mesh_from_faces does */
    pos[0] = NAN;
    v[8] = 7;
    refused(ctx, &arr, MMX_ERR_MESH, "face 2: vertex index 7", 1);
    pos[0] = 0;
    v[8] = 3;

    /* the uniform layout: the same rules */
    mmx_index tri[6] = {0, 1, 2, 3, 3, 4};
    mmx_mesh_arrays u = {.nverts = 5, .nfaces = 2, .order = 3, .verts = tri, .pos = pos};
    refused(ctx, &u, MMX_ERR_MESH, "face 1: vertex 3 appears twice in the face", 0);
    u.order = 2;
    refused(ctx, &u, MMX_ERR_MESH, "order 2: a face needs at least 3 vertices", 0);
    u.order = -1;
    refused(ctx, &u, MMX_ERR_ARG, "bad sizes", 0);
    u.order = 3;
    u.nverts = -2;
    refused(ctx, &u, MMX_ERR_ARG, "bad sizes", 0);
    u.nverts = 5;
    u.verts = NULL;
    refused(ctx, &u, MMX_ERR_ARG, "verts is NULL", 0);
    u.verts = tri;
    u.nfaces = MMX_INDEX_MAX / 3 + 1;
    refused(ctx, &u, MMX_ERR_OVERFLOW, "more corners than 32-bit indices hold", 0);
    u.nfaces = 2;
    u.space = MMX_SPACE_DEVICE; /* device arrays on a host context */
    refused(ctx, &u, MMX_ERR_SPACE, "device memory", 0);
    arr.start = NULL;
    refused(ctx, &arr, MMX_ERR_ARG, "start is NULL", 0);
    cr_assert_eq(mmx_mesh_from_arrays(ctx, NULL, &m), MMX_ERR_ARG);
    cr_assert_eq(mmx_mesh_from_arrays(NULL, &u, &m), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

/* A face of more than 32 corners is checked by a sort, not pairwise. */
Test(arrays, long_faces)
{
    mmx_ctx *ctx = tu_host_ctx();
    enum { N = 40 };
    mmx_index v[N + 3], start[3] = {0, 3, N + 3};
    v[0] = 0, v[1] = 1, v[2] = 2;
    for (int i = 0; i < N; i++) v[3 + i] = i;
    mmx_mesh_arrays arr = {.nverts = N, .nfaces = 2, .start = start, .verts = v};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &m));
    cr_assert_eq(m->M->maxcol, N);
    mmx_mesh_free(m);
    v[3 + 35] = 17;
    refused(ctx, &arr, MMX_ERR_MESH, "face 1: vertex 17 appears twice in the face", 1);
    /* a bad short face after it is still found, and the first one is named */
    v[0] = 1;
    refused(ctx, &arr, MMX_ERR_MESH, "face 0: vertex 1 appears twice", 1);
    /* the uniform layout with long faces */
    mmx_mesh_arrays u = {.nverts = N, .nfaces = 1, .order = N, .verts = v + 3};
    refused(ctx, &u, MMX_ERR_MESH, "face 0: vertex 17 appears twice in the face", 0);
    v[3 + 35] = 35;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &u, &m));
    cr_assert_eq(m->M->order, N);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- mmx_mesh_wrap_arrays ---- */

static int released;
static void *released_owner;
static void count_release(void *owner)
{
    released++;
    released_owner = owner;
}

Test(arrays, wrap_uses_the_arrays_in_place_and_releases_once)
{
    mmx_ctx *ctx = tu_host_ctx();
    lists l = shape_lists("icosphere:2");
    const mmx_mesh_arrays arr = uniform(&l, 3);
    mmx_mesh *w = NULL, *c = NULL;
    released = 0;
    int token;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_wrap_arrays(ctx, &arr, 0, count_release, &token, &w));
    cr_assert_eq(w->M->rowidx, l.verts);
    cr_assert_eq(w->pos, l.pos);
    cr_assert_eq(w->M->order, 3);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &arr, &c));
    assert_same_mesh(ctx, w, c);
    /* operations read it as any mesh: normals agree with the copy's bit for bit */
    float *n1 = malloc(3 * (size_t)l.nverts * sizeof *n1), *n2 = malloc(3 * (size_t)l.nverts * sizeof *n2);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, w, MMX_NORMAL_AREA, n1));
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, c, MMX_NORMAL_AREA, n2));
    cr_assert_arr_eq(n1, n2, 3 * (size_t)l.nverts * sizeof *n1);
    /* a subdivision makes an ordinary mesh of it */
    mmx_mesh *r = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_LOOP, w, 1, NULL, &r));
    cr_assert_null(r->borrow);
    mmx_mesh_free(r);
    /* expanding adds arrays of the library's beside the borrowed ones; all freed right */
    MMX_OK_OR_FAIL(ctx, mmx_mesh_expand(ctx, w));
    cr_assert_eq(w->M->rowidx, l.verts);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, w));
    cr_assert_eq(released, 0);
    mmx_mesh_free(w);
    cr_assert_eq(released, 1);
    cr_assert_eq(released_owner, &token);
    /* the caller's arrays are intact (ASan: not freed) */
    cr_assert_arr_eq(l.verts, c->M->rowidx, (size_t)l.nnz * sizeof *l.verts);
    mmx_mesh_free(c);
    /* a NULL release is allowed */
    MMX_OK_OR_FAIL(ctx, mmx_mesh_wrap_arrays(ctx, &arr, 0, NULL, NULL, &w));
    mmx_mesh_free(w);
    cr_assert_eq(released, 1);
    free(n1);
    free(n2);
    lists_free(&l);
    mmx_ctx_free(ctx);
}

Test(arrays, wrap_refusals_never_release)
{
    mmx_ctx *ctx = tu_host_ctx();
    lists l = shape_lists("mixed");
    released = 0;
    mmx_mesh *w = (mmx_mesh *)1;
    mmx_mesh_arrays arr = general(&l);
    mmx_status s = mmx_mesh_wrap_arrays(ctx, &arr, 1, count_release, NULL, &w);
    cr_assert_eq(s, MMX_ERR_ARG);
    cr_assert_null(w);
    cr_assert(strstr(mmx_ctx_error(ctx), "cannot be used in place"), "%s", mmx_ctx_error(ctx));
    /* device arrays on a host context: another space than the context's */
    mmx_index tri[3] = {0, 1, 2};
    arr = (mmx_mesh_arrays){.nverts = 3, .nfaces = 1, .order = 3, .verts = tri,
                            .space = MMX_SPACE_DEVICE};
    s = mmx_mesh_wrap_arrays(ctx, &arr, 1, count_release, NULL, &w);
    cr_assert_eq(s, MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "in device memory but the context works in host memory"),
              "%s", mmx_ctx_error(ctx));
    /* a failed check */
    tri[2] = 3;
    arr.space = MMX_SPACE_HOST;
    s = mmx_mesh_wrap_arrays(ctx, &arr, 1, count_release, NULL, &w);
    cr_assert_eq(s, MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 0: vertex index 3 outside [0, 3)"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(released, 0);
    lists_free(&l);
    mmx_ctx_free(ctx);
}

/* In-place smoothing writes the positions: refused on a read-only wrap, done on a writable
 * one (the caller's array changes), and smoothing into another array is always allowed. */
Test(arrays, wrap_read_only_refuses_in_place_smoothing)
{
    mmx_ctx *ctx = tu_host_ctx();
    lists l = shape_lists("grid:6:6");
    const mmx_mesh_arrays arr = uniform(&l, 4);
    const size_t bytes = 3 * (size_t)l.nverts * sizeof(float);
    float *before = malloc(bytes), *other = malloc(bytes);
    memcpy(before, l.pos, bytes);
    mmx_mesh *w = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_wrap_arrays(ctx, &arr, 0, NULL, NULL, &w));
    mmx_status s = mmx_smooth(ctx, w, NULL, w->pos, NULL);
    cr_assert_eq(s, MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "read-only"), "%s", mmx_ctx_error(ctx));
    cr_assert_arr_eq(l.pos, before, bytes);
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, w, NULL, other, NULL));
    mmx_mesh_free(w);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_wrap_arrays(ctx, &arr, 1, NULL, NULL, &w));
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, w, NULL, w->pos, NULL));
    cr_assert_arr_eq(l.pos, other, bytes); /* in place, the same result */
    mmx_mesh_free(w);
    free(before);
    free(other);
    lists_free(&l);
    mmx_ctx_free(ctx);
}

/* ---- conversions ---- */

Test(arrays, convert_f64)
{
    mmx_ctx *ctx = tu_host_ctx();
    double src[6] = {0.1, -2.5, 1e-40, 3.4028234e38, -1e30, 7};
    float dst[6];
    MMX_OK_OR_FAIL(ctx, mmx_convert_f64(ctx, src, 6, dst));
    for (int i = 0; i < 6; i++) cr_assert_eq(dst[i], (float)src[i]);
    MMX_OK_OR_FAIL(ctx, mmx_convert_f64(ctx, NULL, 0, NULL));
    src[4] = NAN;
    src[5] = 1e300;
    cr_assert_eq(mmx_convert_f64(ctx, src, 6, dst), MMX_ERR_ARG);
    cr_assert_str_eq(mmx_ctx_error(ctx), "element 4 is NaN");
    src[4] = 0;
    cr_assert_eq(mmx_convert_f64(ctx, src, 6, dst), MMX_ERR_OVERFLOW);
    cr_assert(strstr(mmx_ctx_error(ctx), "element 5 is 1e+300, beyond float's range"), "%s", mmx_ctx_error(ctx));
    src[1] = -INFINITY;
    cr_assert_eq(mmx_convert_f64(ctx, src, 6, dst), MMX_ERR_ARG);
    cr_assert_str_eq(mmx_ctx_error(ctx), "element 1 is minus infinite");
    cr_assert_eq(mmx_convert_f64(ctx, NULL, 3, dst), MMX_ERR_ARG);
    cr_assert_eq(mmx_convert_f64(NULL, src, 3, dst), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

Test(arrays, convert_i64)
{
    mmx_ctx *ctx = tu_host_ctx();
    int64_t src[5] = {0, 7, MMX_INDEX_MAX, 12, 3};
    mmx_index dst[5];
    MMX_OK_OR_FAIL(ctx, mmx_convert_i64(ctx, src, 5, dst));
    for (int i = 0; i < 5; i++) cr_assert_eq(dst[i], (mmx_index)src[i]);
    src[3] = (int64_t)1 << 32;
    src[4] = -1;
    cr_assert_eq(mmx_convert_i64(ctx, src, 5, dst), MMX_ERR_OVERFLOW);
    cr_assert_str_eq(mmx_ctx_error(ctx),
                     "element 3 is 4294967296, outside the index range [0, 2147483647]");
    src[3] = (int64_t)MMX_INDEX_MAX + 1;
    cr_assert_eq(mmx_convert_i64(ctx, src, 5, dst), MMX_ERR_OVERFLOW);
    src[3] = 0;
    cr_assert_eq(mmx_convert_i64(ctx, src, 5, dst), MMX_ERR_ARG);
    cr_assert_str_eq(mmx_ctx_error(ctx), "element 4 is -1, outside the index range [0, 2147483647]");
    mmx_ctx_free(ctx);
}

/* ---- the caller's stream ---- */

Test(arrays, default_streams_are_refused)
{
    mmx_ctx *ctx = tu_host_ctx();
    cr_assert_eq(mmx_ctx_use_cuda_stream(ctx, 0, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "legacy default stream (NULL)"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_ctx_use_cuda_stream(ctx, 0, (void *)0x1), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "cudaStreamLegacy"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_ctx_use_cuda_stream(ctx, 0, (void *)0x2), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "per-thread"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_ctx_backend(ctx), MMX_BACKEND_HOST); /* unchanged */
    cr_assert_eq(mmx_ctx_use_cuda_stream(NULL, 0, (void *)0x10), MMX_ERR_ARG);
    if (!mmx_has_cuda())
        cr_assert_eq(mmx_ctx_use_cuda_stream(ctx, 0, (void *)0x10), MMX_ERR_UNSUPPORTED);
    mmx_ctx_free(ctx);
}

/* ---- device arrays (CUDA) ---- */

/* bytes of host memory copied into device memory of ctx's pool. */
static void *to_device(mmx_ctx *ctx, const void *src, size_t bytes)
{
    void *d = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, &d));
    if (bytes) MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d, MMX_SPACE_DEVICE, src, MMX_SPACE_HOST, bytes));
    return d;
}

/* The arrays of h (host) copied to the device; give them back with device_free. */
static mmx_mesh_arrays on_device(mmx_ctx *ctx, const mmx_mesh_arrays *h, size_t nnz)
{
    mmx_mesh_arrays d = *h;
    d.space = MMX_SPACE_DEVICE;
    const size_t ix = sizeof(mmx_index);
    if (h->start) d.start = to_device(ctx, h->start, ((size_t)h->nfaces + 1) * ix);
    if (h->verts) d.verts = to_device(ctx, h->verts, nnz * ix);
    if (h->pos) d.pos = to_device(ctx, h->pos, 3 * (size_t)h->nverts * sizeof(float));
    return d;
}

static void device_free(mmx_ctx *ctx, mmx_mesh_arrays *d)
{
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, (void *)d->start);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, (void *)d->verts);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, (void *)d->pos);
}

#include "core/core_internal.h" /* mmx__ctx_syncs: the waits a call made */

Test(arrays, gpu_device_arrays_give_the_same_mesh_with_one_wait)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const char *specs[] = {"mixed", "torus:64:48", "icosphere:4", "grid:20:9"};
    const int orders[] = {0, 4, 3, 4};
    for (int k = 0; k < 4; k++)
        for (int form = 0; form < 2; form++) {
            if (form && !orders[k]) continue;
            lists l = shape_lists(specs[k]);
            mmx_mesh_arrays h = form ? uniform(&l, orders[k]) : general(&l);
            mmx_mesh_arrays d = on_device(ctx, &h, (size_t)l.nnz);
            mmx_mesh *on_host = NULL, *from_host = NULL, *from_dev = NULL;
            MMX_OK_OR_FAIL(hctx, mmx_mesh_from_arrays(hctx, &h, &on_host));
            MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &h, &from_host));
            const unsigned long long before = mmx__ctx_syncs(ctx);
            MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &d, &from_dev));
            cr_assert_eq(mmx__ctx_syncs(ctx) - before, 1, "%s: %llu waits", specs[k],
                         mmx__ctx_syncs(ctx) - before);
            cr_assert_eq(from_dev->space, MMX_SPACE_DEVICE);
            cr_assert_eq(from_dev->M->order, form ? orders[k] : 0);
            assert_same_mesh(ctx, from_dev, from_host);
            assert_same_mesh(ctx, from_dev, on_host);
            /* the wrap: the same mesh on the caller's device arrays, no copy */
            if (form) {
                mmx_mesh *w = NULL;
                MMX_OK_OR_FAIL(ctx, mmx_mesh_wrap_arrays(ctx, &d, 0, NULL, NULL, &w));
                cr_assert_eq(w->M->rowidx, d.verts);
                cr_assert_eq(w->pos, d.pos);
                assert_same_mesh(ctx, w, on_host);
                mmx_mesh_free(w);
            }
            mmx_mesh_free(on_host);
            mmx_mesh_free(from_host);
            mmx_mesh_free(from_dev);
            device_free(ctx, &d);
            lists_free(&l);
        }
    mmx_ctx_free(hctx);
    mmx_ctx_free(ctx);
}

/* Each fault of host arrays, put in device arrays: the same status and the same sentence. */
static void same_refusal(mmx_ctx *ctx, const mmx_mesh_arrays *h, size_t nnz)
{
    mmx_mesh *m = NULL;
    const mmx_status want = mmx_mesh_from_arrays(ctx, h, &m);
    cr_assert_neq(want, MMX_OK);
    char says[600];
    strcpy(says, mmx_ctx_error(ctx));
    mmx_mesh_arrays d = on_device(ctx, h, nnz);
    const mmx_status got = mmx_mesh_from_arrays(ctx, &d, &m);
    cr_assert_eq(got, want, "device %s (%s), host %s (%s)", mmx_status_str(got),
                 mmx_ctx_error(ctx), mmx_status_str(want), says);
    cr_assert_null(m);
    cr_assert_str_eq(mmx_ctx_error(ctx), says);
    if (h->order) { /* the wrap checks the same */
        cr_assert_eq(mmx_mesh_wrap_arrays(ctx, &d, 0, count_release, NULL, &m), want);
        cr_assert_str_eq(mmx_ctx_error(ctx), says);
    }
    device_free(ctx, &d);
}

Test(arrays, gpu_device_checks_say_what_the_host_checks_say)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    released = 0;
    float pos[3 * 5] = {0};
    mmx_index start[4] = {0, 3, 6, 9};
    mmx_index v[9] = {0, 1, 2, 2, 1, 3, 1, 4, 3};
    mmx_mesh_arrays arr = {.nverts = 5, .nfaces = 3, .start = start, .verts = v, .pos = pos};
    v[7] = 5;
    same_refusal(ctx, &arr, 9);
    v[7] = -1;
    same_refusal(ctx, &arr, 9);
    v[7] = 4;
    v[5] = 2;
    same_refusal(ctx, &arr, 9);
    v[5] = 3;
    start[1] = 2;
    same_refusal(ctx, &arr, 9);
    start[1] = 7;
    same_refusal(ctx, &arr, 9);
    start[1] = 3;
    start[0] = 1;
    same_refusal(ctx, &arr, 9);
    start[0] = 0;
    /* offsets that point past the corners: nothing is read there (compute-sanitizer) */
    start[1] = 1000;
    same_refusal(ctx, &arr, 9);
    start[1] = 3;
    pos[3 * 4 + 1] = NAN;
    same_refusal(ctx, &arr, 9);
    pos[3 * 4 + 1] = INFINITY;
    pos[3 * 2] = -INFINITY;
    same_refusal(ctx, &arr, 9);
    pos[3 * 4 + 1] = pos[3 * 2] = 0;
    mmx_index tri[6] = {0, 1, 2, 3, 3, 4};
    mmx_mesh_arrays u = {.nverts = 5, .nfaces = 2, .order = 3, .verts = tri, .pos = pos};
    same_refusal(ctx, &u, 6);
    tri[4] = 9;
    same_refusal(ctx, &u, 6);
    /* long faces: sorted on the host from a copy */
    enum { N = 40 };
    mmx_index lv[N + 3], ls[3] = {0, 3, N + 3};
    lv[0] = 0, lv[1] = 1, lv[2] = 2;
    for (int i = 0; i < N; i++) lv[3 + i] = i;
    lv[3 + 35] = 17;
    mmx_mesh_arrays lf = {.nverts = N, .nfaces = 2, .start = ls, .verts = lv};
    same_refusal(ctx, &lf, N + 3);
    lv[0] = 1;
    same_refusal(ctx, &lf, N + 3);
    mmx_mesh_arrays lu = {.nverts = N, .nfaces = 1, .order = N, .verts = lv + 3};
    same_refusal(ctx, &lu, N);
    lv[3 + 35] = 35;
    mmx_mesh_arrays d = on_device(ctx, &lu, N);
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &d, &m));
    cr_assert_eq(m->M->order, N);
    mmx_mesh_free(m);
    device_free(ctx, &d);
    /* host arrays cannot be wrapped on a CUDA context */
    mmx_status s = mmx_mesh_wrap_arrays(ctx, &u, 1, count_release, NULL, &m);
    cr_assert_eq(s, MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "in host memory but the context works in device memory"),
              "%s", mmx_ctx_error(ctx));
    cr_assert_eq(released, 0);
    mmx_ctx_free(ctx);
}

Test(arrays, gpu_conversions_match_the_host_bit_for_bit)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    enum { N = 100000 };
    double *src = malloc(N * sizeof *src);
    float *fh = malloc(N * sizeof *fh), *fd = malloc(N * sizeof *fd);
    int64_t *isrc = malloc(N * sizeof *isrc);
    mmx_index *ih = malloc(N * sizeof *ih), *id = malloc(N * sizeof *id);
    uint32_t seed = 29;
    for (int i = 0; i < N; i++) {
        /* mantissas that need rounding, over exponents from subnormal floats to 1e38 */
        const double m = (double)tu_rng(&seed) / (1 << 24) + (double)tu_rng(&seed) / 1e14;
        src[i] = (i % 2 ? -m : m) * pow(10.0, (int)(tu_rng(&seed) % 80) - 42);
        isrc[i] = (int64_t)tu_rng(&seed) * 97;
    }
    double *dsrc = to_device(ctx, src, N * sizeof *src);
    int64_t *disrc = to_device(ctx, isrc, N * sizeof *isrc);
    float *dst = NULL;
    mmx_index *idst = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, N * sizeof *dst, (void **)&dst));
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, N * sizeof *idst, (void **)&idst));
    MMX_OK_OR_FAIL(hctx, mmx_convert_f64(hctx, src, N, fh));
    MMX_OK_OR_FAIL(ctx, mmx_convert_f64(ctx, dsrc, N, dst));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, fd, MMX_SPACE_HOST, dst, MMX_SPACE_DEVICE, N * sizeof *fd));
    cr_assert_arr_eq(fh, fd, N * sizeof *fh);
    MMX_OK_OR_FAIL(hctx, mmx_convert_i64(hctx, isrc, N, ih));
    MMX_OK_OR_FAIL(ctx, mmx_convert_i64(ctx, disrc, N, idst));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, id, MMX_SPACE_HOST, idst, MMX_SPACE_DEVICE, N * sizeof *id));
    cr_assert_arr_eq(ih, id, N * sizeof *ih);
    /* faults: the first is named, as on the host */
    const double bad[3] = {NAN, 1e300, -INFINITY};
    const int at[3] = {77777, 31, 99999};
    for (int k = 0; k < 3; k++) {
        src[at[k]] = bad[k];
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, dsrc, MMX_SPACE_DEVICE, src, MMX_SPACE_HOST, N * sizeof *src));
        const mmx_status want = mmx_convert_f64(hctx, src, N, fh);
        cr_assert_neq(want, MMX_OK);
        cr_assert_eq(mmx_convert_f64(ctx, dsrc, N, dst), want);
        cr_assert_str_eq(mmx_ctx_error(ctx), mmx_ctx_error(hctx));
    }
    isrc[500] = -3;
    isrc[40000] = (int64_t)1 << 40;
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, disrc, MMX_SPACE_DEVICE, isrc, MMX_SPACE_HOST, N * sizeof *isrc));
    cr_assert_eq(mmx_convert_i64(ctx, disrc, N, idst), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "element 500 is -3"), "%s", mmx_ctx_error(ctx));
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dsrc);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, disrc);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dst);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, idst);
    free(src), free(fh), free(fd), free(isrc), free(ih), free(id);
    mmx_ctx_free(hctx);
    mmx_ctx_free(ctx);
}

#ifdef MMX_HAVE_CUDA
/* A binding's producer: device arrays of its own (cudaMalloc, not the library's pool), freed
 * by the release the mesh calls. */
typedef struct producer {
    void *verts, *pos;
    int releases;
} producer;

static void producer_release(void *owner)
{
    producer *p = owner;
    cr_assert_eq(cudaFree(p->verts), cudaSuccess);
    cr_assert_eq(cudaFree(p->pos), cudaSuccess);
    p->verts = p->pos = NULL;
    p->releases++;
}

/* The caller's stream: the library queues its work there, ordered with the caller's own work
 * on it without any wait (an asynchronous copy from pinned memory just before the call, a
 * copy of the result just after), and leaves the stream alive when the context goes. The
 * mesh wraps device arrays the caller owns; its release frees them, once. */
Test(arrays, gpu_callers_stream_and_a_device_owner)
{
    mmx_ctx *probe = tu_cuda_ctx_or_skip();
    mmx_ctx_free(probe);
    cudaStream_t st;
    cr_assert_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    mmx_ctx *ctx = tu_host_ctx();
    MMX_OK_OR_FAIL(ctx, mmx_ctx_use_cuda_stream(ctx, 0, st));
    cr_assert_eq(mmx_ctx_cuda_stream(ctx), (void *)st);
    cr_assert_eq(mmx_ctx_backend(ctx), MMX_BACKEND_CUDA);

    lists l = shape_lists("icosphere:5");
    const size_t vbytes = (size_t)l.nnz * sizeof(mmx_index), pbytes = 3 * (size_t)l.nverts * sizeof(float);
    void *pinned = NULL, *back = NULL;
    cr_assert_eq(cudaMallocHost(&pinned, vbytes + pbytes), cudaSuccess);
    cr_assert_eq(cudaMallocHost(&back, pbytes), cudaSuccess);
    memcpy(pinned, l.verts, vbytes);
    memcpy((char *)pinned + vbytes, l.pos, pbytes);
    producer p = {0};
    float *normals = NULL;
    cr_assert_eq(cudaMalloc(&p.verts, vbytes), cudaSuccess);
    cr_assert_eq(cudaMalloc(&p.pos, pbytes), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&normals, pbytes), cudaSuccess);
    /* the caller's work, queued and not waited for */
    cr_assert_eq(cudaMemcpyAsync(p.verts, pinned, vbytes, cudaMemcpyHostToDevice, st), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(p.pos, (char *)pinned + vbytes, pbytes, cudaMemcpyHostToDevice, st), cudaSuccess);
    mmx_mesh_arrays d = uniform(&l, 3);
    d.verts = p.verts, d.pos = p.pos, d.space = MMX_SPACE_DEVICE;
    mmx_mesh *w = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_wrap_arrays(ctx, &d, 0, producer_release, &p, &w));
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, w, MMX_NORMAL_AREA, normals));
    /* read the library's result on the same stream: ordered, no mmx_ctx_sync */
    cr_assert_eq(cudaMemcpyAsync(back, normals, pbytes, cudaMemcpyDeviceToHost, st), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(st), cudaSuccess);
    mmx_ctx *hctx = tu_host_ctx();
    mmx_mesh *hm = NULL;
    const mmx_mesh_arrays h = uniform(&l, 3);
    MMX_OK_OR_FAIL(hctx, mmx_mesh_from_arrays(hctx, &h, &hm));
    float *hn = malloc(pbytes);
    MMX_OK_OR_FAIL(hctx, mmx_vertex_normals(hctx, hm, MMX_NORMAL_AREA, hn));
    const float *dn = back;
    for (size_t i = 0; i < 3 * (size_t)l.nverts; i++)
        cr_assert(fabsf(dn[i] - hn[i]) <= 1e-5f * (1 + fabsf(hn[i])), "normal %zu: %g vs %g", i,
                  dn[i], hn[i]);
    /* a subdivision of the wrapped mesh, equal to that of a copy on the same context */
    mmx_mesh *c = NULL, *r1 = NULL, *r2 = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_arrays(ctx, &h, &c));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_LOOP, w, 2, NULL, &r1));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_LOOP, c, 2, NULL, &r2));
    /* in-place smoothing of read-only device positions is refused */
    cr_assert_eq(mmx_smooth(ctx, w, NULL, w->pos, NULL), MMX_ERR_ARG);
    cr_assert_eq(p.releases, 0);
    mmx_mesh_free(w); /* waits for the stream, then the producer frees its arrays */
    cr_assert_eq(p.releases, 1);
    assert_same_mesh(ctx, r1, r2); /* queued before the free: unaffected */
    mmx_mesh_free(r1);
    mmx_mesh_free(r2);
    mmx_mesh_free(c);
    mmx_mesh_free(hm);
    mmx_ctx_free(hctx);
    cr_assert_eq(cudaFree(normals), cudaSuccess);
    mmx_ctx_free(ctx);
    /* the stream is the caller's: still alive */
    cr_assert_eq(cudaStreamSynchronize(st), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(st), cudaSuccess);
    cudaFreeHost(pinned);
    cudaFreeHost(back);
    free(hn);
    lists_free(&l);
}
#endif
