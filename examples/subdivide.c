/* Subdivides a mesh with Catmull-Clark on the GPU when there is one (else on the host) and
 * writes the result.
 *   cc subdivide.c $(pkg-config --cflags --libs meshmatrix) -o subdivide
 *   ./subdivide cage.obj 3 smooth.obj */
#include <stdio.h>
#include <stdlib.h>
#include <meshmatrix.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: subdivide IN LEVELS OUT\n");
        return 2;
    }
    mmx_ctx *ctx = NULL;
    mmx_mesh *cage = NULL, *fine = NULL;
    if (mmx_ctx_create(&ctx)) return 1;
    int ndev = 0;
    if (mmx_has_cuda() && mmx_cuda_device_count(ctx, &ndev) == MMX_OK && ndev > 0)
        mmx_ctx_use_cuda(ctx, 0); /* meshes read through ctx now live on the GPU */
    mmx_subdiv_options opts = {0}; /* the defaults: the thesis's (edge-only) boundary rule */
    mmx_status s = mmx_mesh_read(ctx, argv[1], MMX_FORMAT_AUTO, &cage);
    if (!s) s = mmx_subdivide(ctx, MMX_SCHEME_CATMULL_CLARK, cage, atoi(argv[2]), &opts, &fine);
    if (!s) s = mmx_mesh_write(ctx, fine, argv[3], MMX_FORMAT_AUTO);
    if (s) fprintf(stderr, "subdivide: %s: %s\n", mmx_status_str(s), mmx_ctx_error(ctx));
    else printf("%s: %d quads on the %s\n", argv[3], (int)mmx_mesh_nfaces(fine),
                mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA ? "GPU" : "host");
    mmx_mesh_free(fine);
    mmx_mesh_free(cage);
    mmx_ctx_free(ctx);
    return s ? 1 : 0;
}
