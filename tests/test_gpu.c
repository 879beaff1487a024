/* The CUDA backend: device contexts, host<->device copies of matrices and meshes, the device
 * structural check and conversions, checked against the host. Every test skips, with the
 * reason, where the build has no CUDA or the machine has no device. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#ifdef MMX_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "core/core_internal.h" /* the context's memory pool */
#endif

Test(gpu, context_and_memory_round_trip)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    cr_assert_eq(mmx_ctx_backend(ctx), MMX_BACKEND_CUDA);
    cr_assert_eq(mmx_ctx_space(ctx), MMX_SPACE_DEVICE);
    cr_assert_eq(mmx_ctx_device(ctx), 0);
    enum { N = 1 << 20 };
    int *h = malloc(N * sizeof *h), *back = malloc(N * sizeof *back);
    cr_assert(h && back);
    for (int i = 0; i < N; i++) h[i] = i ^ 0x5a5a;
    void *d1 = NULL, *d2 = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, N * sizeof *h, &d1));
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, N * sizeof *h, &d2));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d1, MMX_SPACE_DEVICE, h, MMX_SPACE_HOST, N * sizeof *h));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d2, MMX_SPACE_DEVICE, d1, MMX_SPACE_DEVICE, N * sizeof *h));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, back, MMX_SPACE_HOST, d2, MMX_SPACE_DEVICE, N * sizeof *h));
    cr_assert_arr_eq(h, back, N * sizeof *h);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d1);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d2);
    free(h);
    free(back);
    mmx_ctx_free(ctx);
}

Test(gpu, an_absurd_allocation_fails_cleanly)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    void *p = (void *)1;
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (size_t)1 << 50, &p);
    cr_assert_eq(s, MMX_ERR_NOMEM, "%s: %s", mmx_status_str(s), mmx_ctx_error(ctx));
    cr_assert_null(p);
    /* and the context still works afterwards */
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 64, &p));
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, p);
    mmx_ctx_free(ctx);
}

Test(gpu, timer_uses_events)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_timer *t = NULL;
    double ms = -1;
    void *d = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_timer_create(ctx, &t));
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 1 << 26, &d));
    MMX_OK_OR_FAIL(ctx, mmx_timer_start(t));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, (char *)d + (1 << 25), MMX_SPACE_DEVICE, d, MMX_SPACE_DEVICE, 1 << 25));
    MMX_OK_OR_FAIL(ctx, mmx_timer_stop(t, &ms));
    cr_assert_gt(ms, 0.0);
    cr_assert_lt(ms, 10000.0);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d);
    mmx_timer_free(t);
    mmx_ctx_free(ctx);
}

/* A device mesh equals its host original after a round trip, in both forms. */
Test(gpu, mesh_round_trip_and_reduced_form_on_the_device)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const char *specs[] = {"mixed", "torus:64:48", "icosphere:4", "grid:20:9"};
    for (int s = 0; s < 4; s++) {
        mmx_mesh *h = NULL, *d = NULL, *back = NULL;
        MMX_OK_OR_FAIL(hctx, mmx_mesh_shape(hctx, specs[s], &h));
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, MMX_SPACE_DEVICE, &d));
        cr_assert_eq(d->space, MMX_SPACE_DEVICE);
        cr_assert_eq(d->M->space, MMX_SPACE_DEVICE);
        MMX_OK_OR_FAIL(ctx, mmx_csc_check(ctx, d->M));
        mmx_index order = -1, horder = -1;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, d, &order));
        MMX_OK_OR_FAIL(hctx, mmx_mesh_uniform_order(hctx, h, &horder));
        cr_assert_eq(order, horder, "%s", specs[s]);
        if (order) {
            MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, d));
            MMX_OK_OR_FAIL(ctx, mmx_csc_check(ctx, d->M));
            MMX_OK_OR_FAIL(ctx, mmx_mesh_expand(ctx, d)); /* rebuilt by the device kernels */
        }
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, d, MMX_SPACE_HOST, &back));
        size_t nnz = (size_t)h->M->nnz, nf = (size_t)mmx_mesh_nfaces(h);
        cr_assert_arr_eq(back->M->colptr, h->M->colptr, (nf + 1) * sizeof(mmx_index), "%s", specs[s]);
        cr_assert_arr_eq(back->M->rowidx, h->M->rowidx, nnz * sizeof(mmx_index), "%s", specs[s]);
        cr_assert_arr_eq(back->M->val, h->M->val, nnz * sizeof(mmx_index), "%s", specs[s]);
        cr_assert_arr_eq(back->pos, h->pos, (size_t)mmx_mesh_nverts(h) * 3 * sizeof(float));
        mmx_mesh_free(h);
        mmx_mesh_free(d);
        mmx_mesh_free(back);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(ctx);
}

/* The device check finds the same first fault, in the same words, as the host check. */
Test(gpu, device_check_agrees_with_the_host)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const mmx_index colptr[] = {0, 3, 6, 9, 12};
    const mmx_index cases[][12] = {
        {0, 1, 2, 2, 1, 3, 3, 4, 5, 5, 4, 0},  /* valid */
        {0, 1, 2, 2, 1, 3, 3, 4, 9, 5, 4, 0},  /* row 9 out of range in column 2 */
        {0, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5, 0},  /* repeats in columns 1 and 3 */
        {0, 1, 2, 2, 1, 3, 3, 4, 5, -7, 4, 4}, /* negative row in column 3 */
    };
    for (int c = 0; c < 4; c++) {
        mmx_index *d_colptr = NULL, *d_rowidx = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof colptr, (void **)&d_colptr));
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof cases[c], (void **)&d_rowidx));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d_colptr, MMX_SPACE_DEVICE, colptr, MMX_SPACE_HOST, sizeof colptr));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d_rowidx, MMX_SPACE_DEVICE, cases[c], MMX_SPACE_HOST, sizeof cases[c]));
        mmx_csc *A = NULL, *H = NULL;
        mmx_status sd = mmx_csc_create(ctx, 6, 4, d_colptr, d_rowidx, NULL, MMX_SPACE_DEVICE, &A);
        mmx_status sh = mmx_csc_create(hctx, 6, 4, colptr, cases[c], NULL, MMX_SPACE_HOST, &H);
        cr_assert_eq(sd, sh, "case %d: device %s, host %s", c, mmx_status_str(sd), mmx_status_str(sh));
        if (sd) {
            cr_assert_str_eq(mmx_ctx_error(ctx), mmx_ctx_error(hctx), "case %d", c);
        } else {
            mmx_csc *back = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &back));
            cr_assert_arr_eq(back->val, H->val, 12 * sizeof(mmx_index), "positions filled on the device");
            mmx_csc_free(back);
        }
        mmx_csc_free(A);
        mmx_csc_free(H);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_colptr);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_rowidx);
    }
    /* A decreasing column pointer is named the same way too. */
    const mmx_index dec[] = {0, 3, 2, 9, 12};
    mmx_index *d_dec = NULL, *d_rows = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof dec, (void **)&d_dec));
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof cases[0], (void **)&d_rows));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d_dec, MMX_SPACE_DEVICE, dec, MMX_SPACE_HOST, sizeof dec));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d_rows, MMX_SPACE_DEVICE, cases[0], MMX_SPACE_HOST, sizeof cases[0]));
    mmx_csc *A = NULL;
    cr_assert_eq(mmx_csc_create(ctx, 6, 4, d_dec, d_rows, NULL, MMX_SPACE_DEVICE, &A), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "column 1: column pointers decrease"), "%s", mmx_ctx_error(ctx));
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_dec);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_rows);
    mmx_ctx_free(hctx);
    mmx_ctx_free(ctx);
}

/* Long columns (a face of 100,000 corners) are searched for repeated rows by a sort on the
 * device: valid ones pass, and a repeat is named as the host names it (the earliest repeat in
 * storage order of the first faulty column), also behind a short column's later fault. */
Test(gpu, long_columns_are_checked_in_linear_time)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    enum { N = 100000, COLS = 3 };
    /* Columns: 0 short (3 rows), 1 long (N rows: a permutation), 2 short (3 rows). */
    const mmx_index colptr[COLS + 1] = {0, 3, 3 + N, 6 + N};
    mmx_index *rows = malloc((N + 6) * sizeof *rows);
    cr_assert(rows);
    uint32_t seed = 7;
    for (int c = 0; c < 5; c++) {
        rows[0] = 0, rows[1] = 1, rows[2] = 2;
        for (int i = 0; i < N; i++) rows[3 + i] = i;
        for (int i = N - 1; i > 0; i--) { /* shuffle the long column */
            int k = (int)(tu_rng(&seed) % (uint32_t)(i + 1));
            mmx_index t = rows[3 + i];
            rows[3 + i] = rows[3 + k], rows[3 + k] = t;
        }
        rows[3 + N] = 5, rows[4 + N] = 6, rows[5 + N] = 7;
        if (c == 1) rows[3 + 90000] = rows[3 + 70000];        /* a repeat in the long column */
        if (c == 2) rows[3 + 80000] = rows[3 + 10], rows[3 + 95000] = rows[3 + 20]; /* two */
        if (c == 3) rows[3 + 90000] = rows[3 + 70000], rows[4 + N] = 5; /* and in column 2 */
        if (c == 4) rows[3 + 500] = -3;                        /* a bad row, long column */
        mmx_index *d_colptr = NULL, *d_rows = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof colptr, (void **)&d_colptr));
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (N + 6) * sizeof *rows, (void **)&d_rows));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d_colptr, MMX_SPACE_DEVICE, colptr, MMX_SPACE_HOST, sizeof colptr));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d_rows, MMX_SPACE_DEVICE, rows, MMX_SPACE_HOST, (N + 6) * sizeof *rows));
        mmx_csc *A = NULL, *H = NULL;
        mmx_status sd = mmx_csc_create(ctx, N, COLS, d_colptr, d_rows, NULL, MMX_SPACE_DEVICE, &A);
        mmx_status sh = mmx_csc_create(hctx, N, COLS, colptr, rows, NULL, MMX_SPACE_HOST, &H);
        cr_assert_eq(sh, c == 0 ? MMX_OK : MMX_ERR_ARG, "case %d: host %s", c, mmx_status_str(sh));
        cr_assert_eq(sd, sh, "case %d: device %s (%s), host %s", c, mmx_status_str(sd),
                     mmx_ctx_error(ctx), mmx_status_str(sh));
        if (sd) cr_assert_str_eq(mmx_ctx_error(ctx), mmx_ctx_error(hctx), "case %d", c);
        mmx_csc_free(A);
        mmx_csc_free(H);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_colptr);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_rows);
    }
    free(rows);
    mmx_ctx_free(hctx);
    mmx_ctx_free(ctx);
}

Test(gpu, mesh_from_faces_lands_on_the_device)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    const mmx_index start[] = {0, 3, 6}, verts[] = {0, 1, 2, 2, 1, 3};
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 4, 2, start, verts, pos, &m));
    cr_assert_eq(m->space, MMX_SPACE_DEVICE);
    mmx_index *s = NULL, *v = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &s, &v));
    cr_assert_arr_eq(s, start, sizeof start);
    cr_assert_arr_eq(v, verts, sizeof verts);
    free(s);
    free(v);
    mmx_mesh_free(m);
    const mmx_index bad[] = {0, 1, 2, 2, 1, 7};
    cr_assert_eq(mmx_mesh_from_faces(ctx, 4, 2, start, bad, pos, &m), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 1: vertex index 7"), "%s", mmx_ctx_error(ctx));
    mmx_ctx_free(ctx);
}

/* Device allocations come from the context's stream-ordered pool and go back to it when
 * freed: the pool's use rises by the request and falls back (bench/ reads its high-water
 * mark). */
Test(gpu, device_memory_returns_to_the_pool)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
#ifdef MMX_HAVE_CUDA
    cudaMemPool_t pool = (cudaMemPool_t)ctx->pool;
    uint64_t before = 0, during = 0, after = 0;
    cr_assert_not_null(pool);
    cr_assert_eq(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &before), cudaSuccess);
    void *p = NULL;
    const size_t bytes = (size_t)64 << 20;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, &p));
    cr_assert_eq(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &during), cudaSuccess);
    cr_assert_geq(during, before + bytes);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, p);
    cr_assert_eq(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &after), cudaSuccess);
    cr_assert_eq(after, before);
    MMX_OK_OR_FAIL(ctx, mmx_ctx_sync(ctx));
    cr_assert_not_null(mmx_ctx_cuda_stream(ctx));
#endif
    mmx_ctx_free(ctx);
}

/* The cached properties computed by the device kernel equal the host's, on a matrix with
 * arbitrary values and one with positions. */
Test(gpu, cached_properties_agree_with_the_host)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    enum { NC = 3000 };
    static mmx_index colptr[NC + 1], rowidx[NC * 8], val[NC * 8];
    uint32_t seed = 99;
    int nnz = 0;
    colptr[0] = 0;
    for (int j = 0; j < NC; j++) {
        seed = seed * 1664525u + 1013904223u;
        int len = (int)((seed >> 8) % 8);
        for (int k = 0; k < len; k++) {
            rowidx[nnz] = (j + 7 * k) % 500;
            val[nnz] = j == 1234 && k == 2 ? -17 : k + 1 + (j == 2000 && k == 0 ? 40 : 0);
            nnz++;
        }
        colptr[j + 1] = nnz;
    }
    for (int withval = 0; withval < 2; withval++) {
        mmx_csc *H = NULL, *D = NULL;
        const mmx_index *v = withval ? val : NULL;
        MMX_OK_OR_FAIL(host, mmx_csc_create(host, 500, NC, colptr, rowidx, v, MMX_SPACE_HOST, &H));
        MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 500, NC, colptr, rowidx, v, MMX_SPACE_HOST, &D));
        cr_assert_eq(D->maxcol, H->maxcol);
        cr_assert_eq(D->minval, H->minval);
        cr_assert_eq(D->maxval, H->maxval);
        cr_assert_eq(D->positional, H->positional);
        cr_assert_eq(H->positional, !withval);
        mmx_csc_free(H);
        mmx_csc_free(D);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(ctx);
}

/* The synchronisation contract (core.h) held to account: mmx_adjacency_compute waits for the
 * stream once and mmx_subdivide (fused path) twice, once on a later call on the same mesh (its
 * adjacency kept), on an expanded and a reduced mesh of each face order, whatever the mesh's
 * size (the waits are counted by mmx__stream_sync). */
Test(gpu, adjacency_waits_once_and_subdivide_twice)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
#ifdef MMX_HAVE_CUDA
    static const struct { const char *spec; mmx_scheme scheme; mmx_index order; } cases[] = {
        {"torus:24:16", MMX_SCHEME_CATMULL_CLARK, 4}, {"icosphere:2", MMX_SCHEME_LOOP, 3},
        {"icosphere:2", MMX_SCHEME_SQRT3, 3},         {"grid:9:7", MMX_SCHEME_CATMULL_CLARK, 4},
        {"mixed", MMX_SCHEME_CATMULL_CLARK, 0},
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++)
        for (int reduced = 0; reduced <= (cases[q].order > 0); reduced++) {
            mmx_mesh *m = NULL, *out = NULL;
            mmx_adjacency *a = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, cases[q].spec, &m));
            if (reduced) MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
            else MMX_OK_OR_FAIL(ctx, mmx_mesh_expand(ctx, m));
            MMX_OK_OR_FAIL(ctx, mmx_ctx_sync(ctx));
            unsigned long long s0 = mmx__ctx_syncs(ctx);
            MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &a));
            unsigned long long s1 = mmx__ctx_syncs(ctx);
            MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, cases[q].scheme, m, 3, NULL, &out));
            unsigned long long s2 = mmx__ctx_syncs(ctx);
            cr_assert_eq(s1 - s0, 1, "%s (%s): adjacency waited %llu times", cases[q].spec,
                         reduced ? "reduced" : "expanded", s1 - s0);
            cr_assert_eq(s2 - s1, 2, "%s (%s): subdivide waited %llu times", cases[q].spec,
                         reduced ? "reduced" : "expanded", s2 - s1);
            /* A second call on the mesh finds its adjacency kept (mesh.h's cache): one wait,
             * the input level's verdict. */
            mmx_mesh_free(out);
            MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, cases[q].scheme, m, 3, NULL, &out));
            cr_assert_eq(mmx__ctx_syncs(ctx) - s2, 1, "%s (%s): a second subdivide waited %llu times",
                         cases[q].spec, reduced ? "reduced" : "expanded", mmx__ctx_syncs(ctx) - s2);
            cr_assert_eq(a->face_order, cases[q].order, "%s: face order %d", cases[q].spec,
                         a->face_order);
            mmx_adjacency_free(a);
            mmx_mesh_free(out);
            mmx_mesh_free(m);
        }
#endif
    mmx_ctx_free(ctx);
}

/* The device scans (core/device.h) equal the host's loops on both sides of the one-block
 * threshold (16384 items) and on sums that wrap past 2^32: exclusive in place, offsets. */
Test(gpu, scans_equal_the_host_loops_on_both_sides_of_the_one_block_threshold)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
#ifdef MMX_HAVE_CUDA
    mmx_ctx *host = tu_host_ctx();
    static const int64_t sizes[] = {1, 2, 17, 1000, 16383, 16384, 16385, 70001};
    for (size_t q = 0; q < sizeof sizes / sizeof sizes[0]; q++) {
        const int64_t n = sizes[q];
        const size_t bytes = (size_t)(n + 1) * sizeof(mmx_index);
        mmx_index *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes), *d = NULL,
                  *d2 = NULL;
        cr_assert(in && want && got);
        uint32_t seed = 7u + (uint32_t)q;
        for (int64_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            /* Large values every so often, so that the sums wrap. */
            in[i] = (mmx_index)(seed % 7 == 0 ? (seed >> 1) : seed % 100);
        }
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)&d));
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)&d2));
        /* Offsets: n + 1 entries, from in to another array. */
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, d, MMX_SPACE_DEVICE, in, MMX_SPACE_HOST, (size_t)n * sizeof *in));
        MMX_OK_OR_FAIL(host, mmx__scan_offsets(host, in, n, want));
        MMX_OK_OR_FAIL(ctx, mmx__scan_offsets(ctx, d, n, d2));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, got, MMX_SPACE_HOST, d2, MMX_SPACE_DEVICE, bytes));
        cr_assert_arr_eq(got, want, bytes, "offsets of %lld items differ", (long long)n);
        /* Exclusive, in place. */
        MMX_OK_OR_FAIL(host, mmx__scan_exclusive(host, in, n, want));
        MMX_OK_OR_FAIL(ctx, mmx__scan_exclusive(ctx, d, n, d));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, got, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, (size_t)n * sizeof *got));
        cr_assert_arr_eq(got, want, (size_t)n * sizeof *got, "exclusive scan of %lld items differs",
                         (long long)n);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, d);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, d2);
        free(in), free(want), free(got);
    }
    mmx_ctx_free(host);
#endif
    mmx_ctx_free(ctx);
}

/* mmx_mesh_triangulate of a device mesh: on the device, the host's triangles. */
Test(gpu, triangulate_a_device_mesh_as_the_host_does)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *d = NULL, *h = NULL, *dt = NULL, *ht = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "mixed", &d));
    MMX_OK_OR_FAIL(host, mmx_mesh_shape(host, "mixed", &h));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, d, &dt));
    MMX_OK_OR_FAIL(host, mmx_mesh_triangulate(host, h, &ht));
    cr_assert_eq(dt->space, MMX_SPACE_DEVICE);
    mmx_index *ds = NULL, *dv = NULL, *hs = NULL, *hv = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, dt, &ds, &dv));
    MMX_OK_OR_FAIL(host, mmx_mesh_faces(host, ht, &hs, &hv));
    cr_assert_eq(mmx_mesh_nfaces(dt), mmx_mesh_nfaces(ht));
    cr_assert_arr_eq(dv, hv, (size_t)hs[mmx_mesh_nfaces(ht)] * sizeof *hv);
    free(ds), free(dv), free(hs), free(hv);
    mmx_mesh_free(dt), mmx_mesh_free(ht), mmx_mesh_free(d), mmx_mesh_free(h);
    mmx_ctx_free(host);
    mmx_ctx_free(ctx);
}
