/* The round driver: one flow for every template of the cavity operator on both backends
 * (dynamic_internal.h states it). A template gives its propose and fill stages; the driver
 * allocates the per-seed arrays in the context's space, runs the stages through the backend,
 * selects in between, and gathers the counts (on CUDA from the device counters, read once). */
#include <stdlib.h>
#include <string.h>
#include "core/device.h"
#include "dynamic_internal.h"

mmx_status mmx__round_tally(mmx__round *r)
{
    if (r->tallied || r->n == 0) return MMX_OK;
    /* The counts' one wait. */
    mmx_status s = mmx__dev_copy(r->ctx, &r->htally, MMX_SPACE_HOST, r->dtally, MMX_SPACE_DEVICE,
                                 sizeof r->htally);
    if (!s) r->tallied = 1;
    return s;
}

/* The host's selection: the valid seeds (state UNDECIDED) in key order (priority, element,
 * seed position), the greedy pass over their rings (mmx__cavity_select). */
static mmx_status select_host(mmx__round *r)
{
    mmx_ctx *ctx = r->ctx;
    mmx__cavity_key *order = NULL;
    unsigned char *taken = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)r->n + 1, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)r->nelem + 1, 1, (void **)&taken);
    if (!s) s = mmx__host_alloc(ctx, (size_t)r->n + 1, sizeof *r->kept, (void **)&r->kept);
    if (!s) {
        mmx_index nvalid = 0;
        for (mmx_index i = 0; i < r->n; i++)
            if (r->state[i] == MMX__UNDECIDED)
                order[nvalid++] = (mmx__cavity_key){r->key[i], r->elem[i], i};
        mmx__cavity_key_sort(order, nvalid);
        memset(taken, 0, (size_t)r->nelem);
        r->c.kept = mmx__cavity_select(order, nvalid, r->sd, r->ring_ptr, r->ring, taken, r->kept);
    }
    free(order);
    free(taken);
    return s;
}

static mmx_status select_cuda(mmx__round *r)
{
    return mmx__select_cuda(r->ctx, r->n, r->key, r->ring_ptr, r->ring_len, r->ring, r->nelem,
                            r->state, &r->c.kept);
}

static void release(mmx__round *r, mmx_cavity_seed *own_sd)
{
    const int b = r->cuda;
    if (b) free(r->priv);
    r->priv = NULL;
    for (size_t k = 0; k < sizeof r->own / sizeof *r->own; k++) {
        if (b) mmx__dev_free(r->ctx, r->own[k]);
        else free(r->own[k]);
        r->own[k] = NULL;
    }
    if (b) {
        mmx__dev_free(r->ctx, r->dtally);
        mmx__dev_free(r->ctx, own_sd);
    } else {
        free(own_sd);
        free(r->kept);
    }
    r->dtally = NULL, r->kept = NULL;
}

mmx_status mmx__round_run(mmx__round *r, const mmx__round_ops *ops, mmx_mesh **out,
                          mmx_cavity_counts *counts)
{
    mmx_ctx *ctx = r->ctx;
    const int b = r->cuda;
    mmx_cavity_seed *own = NULL;
    mmx_status s = MMX_OK;
    if (out) *out = NULL;
    r->c = (mmx_cavity_counts){r->n, 0, 0, 0};
    /* The per-seed records: the caller's, or the round's own. */
    if (!r->sd) {
        s = b ? mmx__dev_alloc(ctx, ((size_t)r->n + 1) * sizeof *own, (void **)&own)
              : mmx__host_alloc(ctx, (size_t)r->n + 1, sizeof *own, (void **)&own);
        r->sd = own;
    }
    if (!s && b) {
        s = mmx__dev_alloc(ctx, sizeof *r->dtally, (void **)&r->dtally);
        if (!s) s = mmx__dev_zero(ctx, r->dtally, sizeof *r->dtally);
    }
    /* The waits of a CUDA round, each named where it is: the proposal of a collapse or a
     * vertex removal reads its rings' total (which sizes them); the selection reads its
     * undecided count (select.cu says when); the counts are read once (mmx__round_tally:
     * in the fill where they size the output, else here, none without r->tally). */
    if (!s) s = ops->propose[b](r);
    if (!s && !r->decided) s = b ? select_cuda(r) : select_host(r);
    if (!s) s = ops->fill[b](r, out);
    if (!s && b && r->tally) s = mmx__round_tally(r);
    if (!s && b) {
        /* Without the tally (the Delaunay loop's flips, remeshing's flips and moves) invalid
         * and conflicts are unknown: their callers need the kept count alone. */
        const int known = r->tally || r->n == 0;
        r->c.invalid = known ? (mmx_index)r->htally.invalid : -1;
        r->c.conflicts = known ? r->n - r->c.kept - r->c.invalid : -1;
    } else if (!s) {
        r->c.conflicts = r->n - r->c.kept - r->c.invalid;
    }
    if (!s && counts) *counts = r->c;
    if (s && out && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    if (r->sd == own) r->sd = NULL;
    release(r, own);
    return s;
}

mmx_status mmx__round_take(mmx__round *r, size_t bytes, void **p)
{
    size_t k = 0;
    while (k < sizeof r->own / sizeof *r->own && r->own[k]) k++;
    if (k == sizeof r->own / sizeof *r->own)
        return mmx__fail(r->ctx, MMX_ERR_INTERNAL, "mmx__round_take: more than %d pieces",
                         (int)k);
    mmx_status s = r->cuda ? mmx__dev_alloc(r->ctx, bytes + 8, p)
                           : mmx__host_alloc(r->ctx, bytes + 8, 1, p);
    if (!s) r->own[k] = *p;
    return s;
}

mmx_status mmx__round_upload(mmx_ctx *ctx, const void *host, size_t bytes, void **dev)
{
    *dev = NULL;
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, dev);
    if (!s && bytes) s = mmx_mem_copy(ctx, *dev, MMX_SPACE_DEVICE, host, MMX_SPACE_HOST, bytes);
    return s;
}

mmx_status mmx__round_run_host_args(mmx__round *r, const mmx__round_ops *ops,
                                    mmx_cavity_seed *per_seed, mmx_mesh **out,
                                    mmx_cavity_counts *counts)
{
    mmx_ctx *ctx = r->ctx;
    const size_t n = (size_t)r->n, db = n * sizeof *per_seed;
    mmx_index *seeds = NULL;
    float *targets = NULL;
    mmx_cavity_seed *sd = NULL;
    mmx_status s = mmx__round_upload(ctx, r->seeds, n * sizeof *seeds, (void **)&seeds);
    if (!s && r->targets)
        s = mmx__round_upload(ctx, r->targets, 3 * n * sizeof *targets, (void **)&targets);
    if (!s && per_seed) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, db, (void **)&sd);
    r->seeds = seeds, r->targets = targets, r->sd = sd;
    if (!s) s = mmx__round_run(r, ops, out, counts);
    /* The seeds' outcomes are read on the host: the copy waits for the round. */
    if (!s && per_seed && n)
        s = mmx_mem_copy(ctx, per_seed, MMX_SPACE_HOST, sd, MMX_SPACE_DEVICE, db);
    if (s && out && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, seeds);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, targets);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, sd);
    return s;
}
