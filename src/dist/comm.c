/* The communicator and the collectives the dist layer uses: the only file that calls MPI.
 * Without MPI (MMX_HAVE_MPI undefined) mmx_dist_create refuses, so the wrappers, which then
 * report an internal error, are never reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dist_internal.h"
#ifdef MMX_HAVE_MPI
#include <mpi.h>
#endif

double mmx__dist_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int mmx_dist_rank(const mmx_dist *d)
{
    return d ? d->rank : 0;
}

int mmx_dist_size(const mmx_dist *d)
{
    return d ? d->size : 1;
}

#ifdef MMX_HAVE_MPI

#define COMM(d) (*(MPI_Comm *)(d)->comm)

int mmx_dist_available(void)
{
    return 1;
}

static mmx_status mpi_fail(mmx_ctx *ctx, int rc, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
    msg[len] = 0;
    return mmx__fail(ctx, MMX_ERR_INTERNAL, "%s failed: %s", call, msg);
}
#define MPI_CALL(ctx, call)                                                                   \
    do {                                                                                      \
        const int rc_ = (call);                                                               \
        if (rc_ != MPI_SUCCESS) return mpi_fail((ctx), rc_, #call);                           \
    } while (0)

mmx_status mmx_dist_create(mmx_ctx *ctx, const void *comm, mmx_dist **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_create: out is NULL");
    *out = NULL;
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                         "mmx_dist_create: MPI is %s (call MPI_Init first)",
                         fin ? "finalized" : "not initialised");
    mmx_dist *d = calloc(1, sizeof *d);
    MPI_Comm *c = malloc(sizeof *c);
    if (!d || !c) {
        free(d), free(c);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_create: out of host memory");
    }
    const int rc = MPI_Comm_dup(comm ? *(const MPI_Comm *)comm : MPI_COMM_WORLD, c);
    if (rc != MPI_SUCCESS) {
        free(d), free(c);
        return mpi_fail(ctx, rc, "MPI_Comm_dup");
    }
    /* Errors come back as codes (and become statuses) rather than aborting the job. */
    MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN);
    d->comm = c;
    MPI_Comm_rank(*c, &d->rank);
    MPI_Comm_size(*c, &d->size);
    *out = d;
    return MMX_OK;
}

void mmx_dist_free(mmx_dist *d)
{
    if (!d) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) mmx__dist_nccl_free(d);
    if (!fin) MPI_Comm_free((MPI_Comm *)d->comm);
    free(d->comm);
    free(d);
}

mmx_status mmx_dist_agree(mmx_ctx *ctx, mmx_dist *d, mmx_status s)
{
    if (!d) return ctx ? mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_agree: d is NULL") : MMX_ERR_ARG;
    int who = s ? d->rank : d->size, first = d->size;
    MPI_CALL(ctx, MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, COMM(d)));
    if (first == d->size) return MMX_OK;
    struct {
        int status;
        char msg[MMX__ERRLEN];
    } m;
    memset(&m, 0, sizeof m);
    if (d->rank == first) {
        m.status = (int)s;
        snprintf(m.msg, sizeof m.msg, "%s", ctx ? mmx_ctx_error(ctx) : "");
    }
    MPI_CALL(ctx, MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, COMM(d)));
    m.msg[MMX__ERRLEN - 1] = 0;
    /* A failure agreed before (the steps after it pass it on) keeps its "rank r: ". */
    int r = -1, n = 0;
    if (sscanf(m.msg, "rank %d: %n", &r, &n) == 1 && n > 0)
        return mmx__fail(ctx, (mmx_status)m.status, "%s", m.msg);
    return mmx__fail(ctx, (mmx_status)m.status, "rank %d: %s", first, m.msg);
}

mmx_status mmx__dist_allreduce_i64(mmx_ctx *ctx, mmx_dist *d, int64_t *v, int n, int op)
{
    const MPI_Op o = op == MMX__DIST_MIN ? MPI_MIN : op == MMX__DIST_MAX ? MPI_MAX : MPI_SUM;
    MPI_CALL(ctx, MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, o, COMM(d)));
    return MMX_OK;
}

mmx_status mmx__dist_sum_f64(mmx_ctx *ctx, mmx_dist *d, double *v, int n)
{
    double *all = malloc((size_t)n * (size_t)d->size * sizeof *all + 8);
    if (!all) return mmx__fail(ctx, MMX_ERR_NOMEM, "a sum over the ranks: out of host memory");
    const int e = MPI_Allgather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, COMM(d));
    if (e == MPI_SUCCESS)
        for (int i = 0; i < n; i++) {
            double t = 0;
            for (int q = 0; q < d->size; q++) t += all[(size_t)q * (size_t)n + (size_t)i];
            v[i] = t;
        }
    free(all);
    return e == MPI_SUCCESS ? MMX_OK : mpi_fail(ctx, e, "MPI_Allgather");
}

mmx_status mmx__dist_bcast(mmx_ctx *ctx, mmx_dist *d, void *buf, size_t bytes, int root)
{
    if (bytes > INT32_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "broadcast of %zu bytes: past MPI's int counts", bytes);
    MPI_CALL(ctx, MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, COMM(d)));
    return MMX_OK;
}

mmx_status mmx__dist_alltoall_i64(mmx_ctx *ctx, mmx_dist *d, const int64_t *send, int64_t *recv)
{
    MPI_CALL(ctx, MPI_Alltoall(send, 1, MPI_INT64_T, recv, 1, MPI_INT64_T, COMM(d)));
    return MMX_OK;
}

/* Byte counts and displacements as MPI's ints, refusing what does not fit. */
static mmx_status int_counts(mmx_ctx *ctx, int n, const int64_t *count, int *c, int *off)
{
    int64_t at = 0;
    for (int q = 0; q < n; q++) {
        if (count[q] < 0 || count[q] > INT32_MAX || at > INT32_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                             "a message of %lld bytes at offset %lld: past MPI's int counts",
                             (long long)count[q], (long long)at);
        c[q] = (int)count[q], off[q] = (int)at;
        at += count[q];
    }
    return MMX_OK;
}

/* The most bytes one MPI call moves for a rank (its send or receive total, or a chunk of a
 * file): MPI's int counts and offsets stop at 2^31 - 1, and a larger exchange goes in rounds
 * through buffers of this size. MMX_DIST_ROUND_BYTES (a test's knob) sets a smaller one. */
static int64_t round_bytes(void)
{
    const char *e = getenv("MMX_DIST_ROUND_BYTES");
    const long long v = e ? atoll(e) : 0;
    return v >= 64 && v < ((int64_t)1 << 29) ? (int64_t)v : (int64_t)1 << 29;
}

mmx_status mmx__dist_alltoallv(mmx_ctx *ctx, mmx_dist *d, const void *send,
                               const int64_t *scount, void *recv, const int64_t *rcount)
{
    const int R = d->size;
    /* The rounds, the same on every rank: by the largest total any rank sends or receives. */
    int64_t st = 0, rt = 0, big = 0;
    for (int q = 0; q < R; q++) st += scount[q], rt += rcount[q];
    big = st > rt ? st : rt;
    MPI_CALL(ctx, MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_INT64_T, MPI_MAX, COMM(d)));
    const int64_t lim = round_bytes(), K = big > lim ? (big + lim - 1) / lim : 1;
    int *sc = malloc(4 * (size_t)R * sizeof *sc);
    int64_t *sz = malloc(4 * (size_t)R * sizeof *sz);
    char *sb = NULL, *rb = NULL;
    int bad = !sc || !sz;
    if (!bad && K > 1) {
        /* each pair's bytes cut into K slices of ceil(count / K): a round moves at most
         * lim + R bytes a rank */
        sb = malloc((size_t)(lim + R)), rb = malloc((size_t)(lim + R));
        bad = !sb || !rb;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, COMM(d));
    mmx_status s = bad ? mmx__fail(ctx, MMX_ERR_NOMEM, "all-to-all: out of host memory") : MMX_OK;
    int *so = sc ? sc + R : NULL, *rc = sc ? sc + 2 * R : NULL, *ro = sc ? sc + 3 * R : NULL;
    if (!s && K == 1) {
        s = int_counts(ctx, R, scount, sc, so);
        if (!s) s = int_counts(ctx, R, rcount, rc, ro);
        if (!s) {
            const int e = MPI_Alltoallv(send, sc, so, MPI_BYTE, recv, rc, ro, MPI_BYTE, COMM(d));
            if (e != MPI_SUCCESS) s = mpi_fail(ctx, e, "MPI_Alltoallv");
        }
    }
    int64_t *soff = sz ? sz + 2 * R : NULL, *roff = sz ? sz + 3 * R : NULL;
    if (!s && K > 1) {
        for (int q = 0; q < R; q++) {
            sz[q] = (scount[q] + K - 1) / K, sz[R + q] = (rcount[q] + K - 1) / K;
            soff[q] = q ? soff[q - 1] + scount[q - 1] : 0;
            roff[q] = q ? roff[q - 1] + rcount[q - 1] : 0;
        }
    }
    for (int64_t k = 0; !s && K > 1 && k < K; k++) {
        int at = 0, rat = 0;
        for (int q = 0; q < R; q++) {
            const int64_t a = k * sz[q], n = a < scount[q] ? (scount[q] - a < sz[q] ? scount[q] - a : sz[q]) : 0;
            const int64_t b = k * sz[R + q], m = b < rcount[q] ? (rcount[q] - b < sz[R + q] ? rcount[q] - b : sz[R + q]) : 0;
            if (n) memcpy(sb + at, (const char *)send + soff[q] + a, (size_t)n);
            sc[q] = (int)n, so[q] = at, rc[q] = (int)m, ro[q] = rat;
            at += (int)n, rat += (int)m;
        }
        const int e = MPI_Alltoallv(sb, sc, so, MPI_BYTE, rb, rc, ro, MPI_BYTE, COMM(d));
        if (e != MPI_SUCCESS) s = mpi_fail(ctx, e, "MPI_Alltoallv");
        for (int q = 0; !s && q < R; q++)
            if (rc[q]) memcpy((char *)recv + roff[q] + k * sz[R + q], rb + ro[q], (size_t)rc[q]);
    }
    free(sc), free(sz), free(sb), free(rb);
    return s;
}

mmx_status mmx__dist_node_distinct(mmx_ctx *ctx, mmx_dist *d, int device, int *distinct)
{
    MPI_Comm node;
    int n = 0, mine = 1;
    *distinct = 0;
    MPI_CALL(ctx, MPI_Comm_split_type(COMM(d), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &n);
    int *all = malloc((size_t)n * sizeof *all + sizeof *all);
    int e = all ? MPI_Allgather(&device, 1, MPI_INT, all, 1, MPI_INT, node) : MPI_SUCCESS;
    for (int i = 0; all && e == MPI_SUCCESS && i < n; i++)
        for (int j = 0; j < i; j++) mine &= all[i] != all[j];
    if (!all) mine = 0;
    free(all);
    MPI_Comm_free(&node);
    if (e != MPI_SUCCESS) return mpi_fail(ctx, e, "MPI_Allgather");
    MPI_CALL(ctx, MPI_Allreduce(&mine, distinct, 1, MPI_INT, MPI_MIN, COMM(d)));
    return MMX_OK;
}

mmx_status mmx__dist_gather_i64(mmx_ctx *ctx, mmx_dist *d, int64_t v, int64_t *all, int root)
{
    MPI_CALL(ctx, MPI_Gather(&v, 1, MPI_INT64_T, all, 1, MPI_INT64_T, root, COMM(d)));
    return MMX_OK;
}

mmx_status mmx__dist_gatherv(mmx_ctx *ctx, mmx_dist *d, const void *send, int64_t bytes,
                             void *recv, const int64_t *rcount, int root)
{
    const int R = d->size;
    int *rc = NULL, *ro = NULL;
    if (bytes < 0 || bytes > INT32_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "a gather of %lld bytes: past MPI's int counts",
                         (long long)bytes);
    mmx_status s = MMX_OK;
    if (d->rank == root) {
        rc = malloc(2 * (size_t)R * sizeof *rc);
        if (!rc) return mmx__fail(ctx, MMX_ERR_NOMEM, "gather: out of host memory");
        ro = rc + R;
        s = int_counts(ctx, R, rcount, rc, ro);
    }
    /* The root's refusal of its counts must not leave the others in the gather: agree first. */
    int bad = s != MMX_OK;
    MPI_CALL(ctx, MPI_Bcast(&bad, 1, MPI_INT, root, COMM(d)));
    if (bad) {
        free(rc);
        return s ? s : mmx__fail(ctx, MMX_ERR_OVERFLOW, "rank %d: a gather past MPI's int counts", root);
    }
    const int e = MPI_Gatherv(send, (int)bytes, MPI_BYTE, recv, rc, ro, MPI_BYTE, root, COMM(d));
    free(rc);
    return e == MPI_SUCCESS ? MMX_OK : mpi_fail(ctx, e, "MPI_Gatherv");
}

mmx_status mmx__dist_allgather_i64(mmx_ctx *ctx, mmx_dist *d, const int64_t *mine, int n,
                                   int64_t *all)
{
    MPI_CALL(ctx, MPI_Allgather(mine, n, MPI_INT64_T, all, n, MPI_INT64_T, COMM(d)));
    return MMX_OK;
}

mmx_status mmx__dist_write_at(mmx_ctx *ctx, mmx_dist *d, const char *path,
                              const mmx__dist_chunk *chunk, int n)
{
    MPI_File fh;
    int e = MPI_File_open(COMM(d), path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (e != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(e, why, &len);
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot create: %s", path, why);
    }
    /* Every rank writes each chunk in the same collective calls (a rank with nothing to
     * write passes 0 bytes), in pieces of round_bytes() (MPI's int counts): as many calls for
     * a chunk on every rank as its largest piece count over the ranks. */
    int bad = 0;
    for (int i = 0; i < n; i++) bad |= chunk[i].bytes < 0;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, COMM(d));
    e = bad ? MPI_SUCCESS : MPI_File_set_size(fh, 0);
    const int64_t lim = round_bytes();
    for (int i = 0; !bad && e == MPI_SUCCESS && i < n; i++) {
        int64_t pieces = (chunk[i].bytes + lim - 1) / lim;
        e = MPI_Allreduce(MPI_IN_PLACE, &pieces, 1, MPI_INT64_T, MPI_MAX, COMM(d));
        for (int64_t k = 0; e == MPI_SUCCESS && k < (pieces > 0 ? pieces : 1); k++) {
            const int64_t a = k * lim, m = a < chunk[i].bytes ? (chunk[i].bytes - a < lim ? chunk[i].bytes - a : lim) : 0;
            const void *p = m ? (const void *)((const char *)chunk[i].data + a) : chunk[i].data;
            e = MPI_File_write_at_all(fh, (MPI_Offset)(chunk[i].offset + (m ? a : 0)), p, (int)m,
                                      MPI_BYTE, MPI_STATUS_IGNORE);
        }
    }
    const int c = MPI_File_close(&fh);
    if (bad)
        return mmx__fail(ctx, MMX_ERR_INTERNAL, "%s: a negative byte count", path);
    if (e == MPI_SUCCESS) e = c;
    if (e != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(e, why, &len);
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot write: %s", path, why);
    }
    return MMX_OK;
}

#else /* no MPI */

int mmx_dist_available(void)
{
    return 0;
}

mmx_status mmx_dist_create(mmx_ctx *ctx, const void *comm, mmx_dist **out)
{
    MMX__NEED_CTX(ctx);
    (void)comm;
    if (out) *out = NULL;
    return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                     "mmx_dist_create: this build has no MPI (meson -Dmpi=enabled with an MPI "
                     "for C, Debian: libopenmpi-dev)");
}

void mmx_dist_free(mmx_dist *d)
{
    free(d);
}

static mmx_status no_mpi(mmx_ctx *ctx)
{
    return mmx__fail(ctx, MMX_ERR_INTERNAL, "dist: MPI code reached in a build without MPI");
}

mmx_status mmx_dist_agree(mmx_ctx *ctx, mmx_dist *d, mmx_status s)
{
    (void)d;
    return s ? s : no_mpi(ctx);
}
mmx_status mmx__dist_allreduce_i64(mmx_ctx *ctx, mmx_dist *d, int64_t *v, int n, int op)
{
    (void)d, (void)v, (void)n, (void)op;
    return no_mpi(ctx);
}
mmx_status mmx__dist_sum_f64(mmx_ctx *ctx, mmx_dist *d, double *v, int n)
{
    (void)d, (void)v, (void)n;
    return no_mpi(ctx);
}
mmx_status mmx__dist_bcast(mmx_ctx *ctx, mmx_dist *d, void *buf, size_t bytes, int root)
{
    (void)d, (void)buf, (void)bytes, (void)root;
    return no_mpi(ctx);
}
mmx_status mmx__dist_alltoall_i64(mmx_ctx *ctx, mmx_dist *d, const int64_t *send, int64_t *recv)
{
    (void)d, (void)send, (void)recv;
    return no_mpi(ctx);
}
mmx_status mmx__dist_alltoallv(mmx_ctx *ctx, mmx_dist *d, const void *send,
                               const int64_t *scount, void *recv, const int64_t *rcount)
{
    (void)d, (void)send, (void)scount, (void)recv, (void)rcount;
    return no_mpi(ctx);
}
mmx_status mmx__dist_gatherv(mmx_ctx *ctx, mmx_dist *d, const void *send, int64_t bytes,
                             void *recv, const int64_t *rcount, int root)
{
    (void)d, (void)send, (void)bytes, (void)recv, (void)rcount, (void)root;
    return no_mpi(ctx);
}
mmx_status mmx__dist_gather_i64(mmx_ctx *ctx, mmx_dist *d, int64_t v, int64_t *all, int root)
{
    (void)d, (void)v, (void)all, (void)root;
    return no_mpi(ctx);
}
mmx_status mmx__dist_node_distinct(mmx_ctx *ctx, mmx_dist *d, int device, int *distinct)
{
    (void)d, (void)device;
    *distinct = 0;
    return no_mpi(ctx);
}
mmx_status mmx__dist_allgather_i64(mmx_ctx *ctx, mmx_dist *d, const int64_t *mine, int n,
                                   int64_t *all)
{
    (void)d, (void)mine, (void)n, (void)all;
    return no_mpi(ctx);
}
mmx_status mmx__dist_write_at(mmx_ctx *ctx, mmx_dist *d, const char *path,
                              const mmx__dist_chunk *chunk, int n)
{
    (void)d, (void)path, (void)chunk, (void)n;
    return no_mpi(ctx);
}

#endif
