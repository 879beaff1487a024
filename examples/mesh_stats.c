/* Loads a mesh (a file, or a built-in shape "builtin:SPEC") and prints its statistics.
 *   cc mesh_stats.c $(pkg-config --cflags --libs meshmatrix) -o mesh_stats
 *   ./mesh_stats bunny.obj */
#include <stdio.h>
#include <string.h>
#include <meshmatrix.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "builtin:torus";
    mmx_ctx *ctx = NULL;
    mmx_mesh *mesh = NULL;
    mmx_mesh_stats st;
    mmx_status s = mmx_ctx_create(&ctx);
    if (s) return 1;
    if (!strncmp(path, "builtin:", 8))
        s = mmx_mesh_shape(ctx, path + 8, &mesh);
    else
        s = mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &mesh);
    if (!s) s = mmx_mesh_stats_compute(ctx, mesh, &st);
    if (s) {
        fprintf(stderr, "mesh_stats: %s: %s\n", mmx_status_str(s), mmx_ctx_error(ctx));
        mmx_mesh_free(mesh);
        mmx_ctx_free(ctx);
        return 1;
    }
    printf("%s: %d vertices, %d faces, %d edges, Euler characteristic %lld, %d component(s)\n",
           path, st.nverts, st.nfaces, st.nedges, (long long)st.euler, st.components);
    if (st.genus_valid) printf("genus %d, %d boundary loop(s)\n", st.genus, st.boundary_loops);
    else printf("genus not defined: the mesh is non-manifold or inconsistently oriented\n");
    mmx_mesh_free(mesh);
    mmx_ctx_free(ctx);
    return 0;
}
