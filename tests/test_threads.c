/* Two contexts on two threads (core.h's contract): each thread, with its own context, makes a
 * shape, subdivides it and computes the adjacency of the result in a loop, and every round must
 * give exactly what one thread alone gives (a digest of the topology, the positions' bits and
 * the adjacency). On the host backend this shows the library keeps no shared state; on CUDA
 * that the two streams and pools are independent (nothing waits for the whole device, and
 * one context's frees never release the other's memory early). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

enum { ROUNDS = 12, THREADS = 2 };

/* FNV-1a over bytes, continued from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Adds n bytes at p, in `space` of ctx, to the digest (copied to the host first). */
static int digest_array(mmx_ctx *ctx, uint64_t *h, const void *p, mmx_space space, size_t n)
{
    if (!p || n == 0) {
        *h = fnv(*h, "-", 1);
        return 0;
    }
    void *tmp = malloc(n);
    if (!tmp) return -1;
    int bad = mmx_mem_copy(ctx, tmp, MMX_SPACE_HOST, p, space, n) != MMX_OK;
    if (!bad) *h = fnv(*h, tmp, n);
    free(tmp);
    return bad ? -1 : 0;
}

static int digest_csc(mmx_ctx *ctx, uint64_t *h, const mmx_csc *A)
{
    size_t ix = sizeof(mmx_index);
    *h = fnv(*h, &A->nrows, ix);
    *h = fnv(*h, &A->ncols, ix);
    *h = fnv(*h, &A->nnz, ix);
    *h = fnv(*h, &A->order, ix);
    int bad = 0;
    if (!A->order) bad |= digest_array(ctx, h, A->colptr, A->space, ix * ((size_t)A->ncols + 1));
    bad |= digest_array(ctx, h, A->rowidx, A->space, ix * (size_t)A->nnz);
    if (!A->order) bad |= digest_array(ctx, h, A->val, A->space, ix * (size_t)A->nnz);
    return bad;
}

/* One round: shape, `levels` of `scheme`, the adjacency of the result, digested. Returns 0 and
 * sets *out, or -1 with the context's error left for the caller. */
static int one_round(mmx_ctx *ctx, const char *shape, mmx_scheme scheme, int levels,
                     uint64_t *out)
{
    mmx_mesh *m = NULL, *r = NULL;
    mmx_adjacency *adj = NULL;
    uint64_t h = 1469598103934665603ull;
    int bad = mmx_mesh_shape(ctx, shape, &m) != MMX_OK ||
              mmx_subdivide(ctx, scheme, m, levels, NULL, &r) != MMX_OK ||
              mmx_adjacency_compute(ctx, r, &adj) != MMX_OK;
    if (!bad) {
        size_t ix = sizeof(mmx_index);
        bad |= digest_csc(ctx, &h, r->M);
        bad |= digest_array(ctx, &h, r->pos, r->space, sizeof(float) * 3 * (size_t)r->M->nrows);
        h = fnv(h, &adj->nedges, ix);
        h = fnv(h, &adj->boundary_edges, ix);
        bad |= digest_array(ctx, &h, adj->ev, adj->space, 2 * ix * (size_t)adj->nedges);
        bad |= digest_array(ctx, &h, adj->fe, adj->space, ix * (size_t)r->M->nnz);
    }
    mmx_adjacency_free(adj);
    mmx_mesh_free(r);
    mmx_mesh_free(m);
    *out = h;
    return bad ? -1 : 0;
}

/* The work of one round: two schemes on two shapes, so the pools see different sizes. */
static const struct {
    const char *shape;
    mmx_scheme scheme;
    int levels;
} WORK[] = {
    {"torus:20", MMX_SCHEME_CATMULL_CLARK, 3},
    {"icosphere:2", MMX_SCHEME_LOOP, 3},
    {"icosphere:1", MMX_SCHEME_SQRT3, 2},
};
enum { NWORK = sizeof WORK / sizeof WORK[0] };

typedef struct worker {
    int cuda;                  /* run on device 0 instead of the host */
    const uint64_t *want;      /* NWORK digests from one thread alone */
    int mismatches, failures;  /* rounds whose digest differs; calls that failed */
    char err[256];             /* the first failure's detail */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx) != MMX_OK || (w->cuda && mmx_ctx_use_cuda(ctx, 0) != MMX_OK)) {
        snprintf(w->err, sizeof w->err, "context: %s", ctx ? mmx_ctx_error(ctx) : "no memory");
        w->failures++;
        mmx_ctx_free(ctx);
        return NULL;
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < NWORK; k++) {
            uint64_t got;
            if (one_round(ctx, WORK[k].shape, WORK[k].scheme, WORK[k].levels, &got)) {
                if (!w->failures++)
                    snprintf(w->err, sizeof w->err, "%s: %s", WORK[k].shape, mmx_ctx_error(ctx));
            } else if (got != w->want[k]) {
                w->mismatches++;
            }
        }
    }
    mmx_ctx_free(ctx);
    return NULL;
}

static void two_threads(mmx_ctx *alone, int cuda)
{
    uint64_t want[NWORK];
    for (int k = 0; k < NWORK; k++)
        cr_assert_eq(one_round(alone, WORK[k].shape, WORK[k].scheme, WORK[k].levels, &want[k]), 0,
                     "%s alone: %s", WORK[k].shape, mmx_ctx_error(alone));
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.cuda = cuda, .want = want};
        cr_assert_eq(pthread_create(&t[i], NULL, work, &w[i]), 0, "pthread_create");
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        cr_expect_eq(w[i].failures, 0, "thread %d: %d failed calls, the first: %s", i,
                     w[i].failures, w[i].err);
        cr_expect_eq(w[i].mismatches, 0, "thread %d: %d of %d rounds differ from one thread alone",
                     i, w[i].mismatches, ROUNDS * NWORK);
    }
}

Test(threads, two_host_contexts_give_the_single_threaded_results)
{
    mmx_ctx *ctx = tu_host_ctx();
    two_threads(ctx, 0);
    mmx_ctx_free(ctx);
}

Test(threads, gpu_two_cuda_contexts_give_the_single_threaded_results)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    two_threads(ctx, 1);
    mmx_ctx_free(ctx);
}
