/* geom_dump MESH: writes, as text, what tests/igl_check.py compares with libigl: the mesh
 * (positions as read, faces), our cotangent Laplacian's triplets, the barycentric and Voronoi
 * mass diagonals and the area-, angle- and uniformly weighted vertex normals, computed on the
 * host backend. MESH is a file or builtin:SPEC. Sections:
 *   V n / n lines x y z;  F m / m lines a b c;  L nnz / nnz lines i j w;
 *   MB n / n values;  MV n / n values;  NAREA, NANGLE, NUNIFORM n / n lines x y z.
 * Exit 0, or 1 with the context's detail on stderr. Uses the public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "meshmatrix.h"

static int die(mmx_ctx *ctx, mmx_status s, const char *what)
{
    fprintf(stderr, "geom_dump: %s: %s: %s\n", what, mmx_status_str(s), mmx_ctx_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: geom_dump MESH (a file or builtin:SPEC)\n");
        return 2;
    }
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx)) return 1;
    mmx_mesh *m = NULL;
    mmx_status s = strncmp(argv[1], "builtin:", 8) == 0 ? mmx_mesh_shape(ctx, argv[1] + 8, &m)
                                                        : mmx_mesh_read(ctx, argv[1], MMX_FORMAT_AUTO, &m);
    if (s) return die(ctx, s, argv[1]);
    const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    mmx_index *start = NULL, *verts = NULL;
    if ((s = mmx_mesh_faces(ctx, m, &start, &verts))) return die(ctx, s, "faces");
    printf("V %d\n", nv);
    for (mmx_index v = 0; v < nv; v++)
        printf("%.9g %.9g %.9g\n", m->pos[3 * v], m->pos[3 * v + 1], m->pos[3 * v + 2]);
    printf("F %d\n", nf);
    for (mmx_index f = 0; f < nf; f++) {
        for (mmx_index k = start[f]; k < start[f + 1]; k++) printf(k > start[f] ? " %d" : "%d", verts[k]);
        printf("\n");
    }
    mmx_weighted *L = NULL, *Mb = NULL, *Mv = NULL;
    if ((s = mmx_cotan_laplacian(ctx, m, NULL, &L))) return die(ctx, s, "cotan Laplacian");
    if ((s = mmx_mass_matrix(ctx, m, MMX_MASS_BARYCENTRIC, &Mb))) return die(ctx, s, "mass");
    if ((s = mmx_mass_matrix(ctx, m, MMX_MASS_VORONOI, &Mv))) return die(ctx, s, "mass");
    printf("L %d\n", L->A->nnz);
    for (mmx_index j = 0; j < nv; j++)
        for (mmx_index q = L->A->colptr[j]; q < L->A->colptr[j + 1]; q++)
            printf("%d %d %.9g\n", L->A->rowidx[q], j, L->w[q]);
    printf("MB %d\n", nv);
    for (mmx_index v = 0; v < nv; v++) printf("%.9g\n", Mb->w[v]);
    printf("MV %d\n", nv);
    for (mmx_index v = 0; v < nv; v++) printf("%.9g\n", Mv->w[v]);
    float *n = malloc(3 * (size_t)(nv ? nv : 1) * sizeof *n);
    if (!n) return 1;
    static const char *const names[] = {"NAREA", "NANGLE", "NUNIFORM"};
    for (int w = 0; w < 3; w++) {
        if ((s = mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, n))) return die(ctx, s, "normals");
        printf("%s %d\n", names[w], nv);
        for (mmx_index v = 0; v < nv; v++) printf("%.9g %.9g %.9g\n", n[3 * v], n[3 * v + 1], n[3 * v + 2]);
    }
    free(n);
    free(start);
    free(verts);
    mmx_weighted_free(L);
    mmx_weighted_free(Mb);
    mmx_weighted_free(Mv);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
    return fflush(stdout) == 0 ? 0 : 1;
}
