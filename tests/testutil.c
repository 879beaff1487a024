#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testutil.h"

mmx_ctx *tu_host_ctx(void)
{
    mmx_ctx *ctx = NULL;
    cr_assert_eq(mmx_ctx_create(&ctx), MMX_OK);
    return ctx;
}

mmx_ctx *tu_cuda_ctx_or_skip(void)
{
    mmx_ctx *ctx = tu_host_ctx();
    int n = 0;
    cr_assert_eq(mmx_cuda_device_count(ctx, &n), MMX_OK);
    if (n == 0) {
        /* The reason (built without CUDA, no device, driver error) is in the detail. */
        char why[600];
        snprintf(why, sizeof why, "GPU test skipped: %s", mmx_ctx_error(ctx));
        mmx_ctx_free(ctx);
        cr_skip_test("%s", why);
        return NULL;
    }
    mmx_status s = mmx_ctx_use_cuda(ctx, 0);
    cr_assert_eq(s, MMX_OK, "a device is present but mmx_ctx_use_cuda failed: %s", mmx_ctx_error(ctx));
    return ctx;
}

const char *tu_data(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("MMX_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "tests/data", name);
    return buf;
}

const char *tu_tmp(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("MMX_TEST_TMP");
    snprintf(buf, sizeof buf, "%s/tmp_%ld_%s", dir ? dir : "/tmp", (long)getpid(), name);
    return buf;
}

uint32_t tu_rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

void tu_random_csc(uint32_t *seed, int nrows, int ncols, mmx_index *colptr, mmx_index *rowidx,
                   mmx_index *val)
{
    int nnz = 0;
    colptr[0] = 0;
    for (int j = 0; j < ncols; j++) {
        for (int i = 0; i < nrows; i++)
            if (tu_rng(seed) % 3 == 0) {
                rowidx[nnz] = i;
                val[nnz] = (mmx_index)(tu_rng(seed) % 9) - 4;
                nnz++;
            }
        /* shuffle the column: rows are not assumed sorted */
        for (int k = colptr[j] + 1; k < nnz; k++) {
            int r = colptr[j] + (int)(tu_rng(seed) % (uint32_t)(k - colptr[j] + 1));
            mmx_index t = rowidx[k]; rowidx[k] = rowidx[r]; rowidx[r] = t;
            t = val[k]; val[k] = val[r]; val[r] = t;
        }
        colptr[j + 1] = nnz;
    }
}

mmx_mesh *tu_shape(mmx_ctx *ctx, const char *spec)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, spec, &m));
    return m;
}

mmx_mesh *tu_triangles(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *verts,
                       const float *pos)
{
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start);
    cr_assert(start);
    for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
    free(start);
    return m;
}

mmx_mesh *tu_jittered_grid_of(mmx_ctx *ctx, int nx, int ny, float amp, int alternate, uint32_t seed)
{
    const mmx_index nv = (nx + 1) * (ny + 1), nf = 2 * nx * ny;
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts), *v = verts;
    cr_assert(pos && verts);
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) {
            float *p = pos + 3 * (size_t)(j * (nx + 1) + i);
            const int inner = i > 0 && i < nx && j > 0 && j < ny;
            p[0] = (float)i + (inner ? amp * ((float)(tu_rng(&seed) % 1000) / 1000.0f - 0.5f) : 0);
            p[1] = (float)j + (inner ? amp * ((float)(tu_rng(&seed) % 1000) / 1000.0f - 0.5f) : 0);
            p[2] = 0;
        }
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const mmx_index a = j * (nx + 1) + i, b = a + 1, c = a + nx + 2, d = a + nx + 1;
            if (!alternate || (i + j) % 2) v[0] = a, v[1] = b, v[2] = c, v[3] = a, v[4] = c, v[5] = d;
            else v[0] = a, v[1] = b, v[2] = d, v[3] = b, v[4] = c, v[5] = d;
            v += 6;
        }
    mmx_mesh *m = tu_triangles(ctx, nv, nf, verts, pos);
    free(pos);
    free(verts);
    return m;
}

mmx_mesh *tu_jittered_grid(mmx_ctx *ctx, int n, uint32_t seed)
{
    return tu_jittered_grid_of(ctx, n, n, 0.6f, 1, seed);
}
