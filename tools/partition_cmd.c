/* mmx partition: a mesh cut into part files for a later run over MPI ranks (dist.h's
 * mmx_dist_mesh_write_parts), under mpirun with as many ranks as parts (dist_run.c does the
 * work: it is MPI code). */
#include "dist_run.h"
#include "tool.h"

static const opt_spec partition_opts[DIST_PARTITION_NOPTS] = {
    [DIST_PARTITION_RINGS] = {"rings", 0, "K",
                              "ghost rings around each part (1 to 64, default 1: what normals,\n"
                              "subdivision, the queries and the one-step smoothers need; 2 for\n"
                              "Taubin)"},
    [DIST_PARTITION_FROM] = OPT_SPEC_FROM,
};

static int run(const tool_args *a)
{
    return dist_partition(&partition_command, a);
}

const tool_cmd partition_command = {
    .name = "partition",
    .summary = "cut a mesh into part files for MPI ranks (run under mpirun -n R)",
    .synopsis = "partition [--rings K] IN PREFIX",
    .help = "Run as `mpirun -n R mmx partition IN PREFIX` (alone: one part). Every rank reads\n"
            "IN, cuts the faces into R parts along the patches' Morton order, each with K\n"
            "ghost rings, and writes its part as PREFIX.R.part; rank 0 then writes\n"
            "PREFIX.index (ranks, rings, the whole mesh's counts). `mpirun -n R mmx\n"
            "normals|smooth|subdiv|query ... PREFIX.index ...` reads them back on as many\n"
            "ranks (another count is an error), each rank reading only its part, as a program\n"
            "does with mmx_dist_mesh_read_parts (docs/dist.md gives the formats). Positions\n"
            "and crease, corner and hole tags are kept; texture coordinates, normals and\n"
            "colours are not. The report gives each rank's part and halo.",
    .opts = partition_opts,
    .nopts = DIST_PARTITION_NOPTS,
    .flags = CMD_JSON,
    .run = run,
};
