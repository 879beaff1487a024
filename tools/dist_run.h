/* mmx under mpirun (dist_run.c): normals, smooth, subdiv and query run partitioned over the
 * ranks. */
#ifndef MMX_TOOL_DIST_RUN_H
#define MMX_TOOL_DIST_RUN_H

#include "meshmatrix/dist.h"
#include "tool.h"

/* The ranks of the MPI job this process was started in (Open MPI's OMPI_COMM_WORLD_SIZE, or
 * the PMI's PMI_SIZE / PMIX_SIZE), 1 when it was not started by mpirun. */
int dist_launched(void);

/* 1 when cmd (normals, smooth, subdiv or query) names part files as its input: IN is
 * PREFIX.index (mmx partition's), which runs partitioned even on one rank; else 0. */
int dist_parts_input(const tool_cmd *cmd, const tool_args *a);

/* Runs cmd partitioned over the job's ranks (MPI_Init and MPI_Finalize here): normals, smooth,
 * subdiv and query (IN a mesh every rank reads and cuts, or PREFIX.index: each rank reads its
 * part, mmx_dist_mesh_read_parts); any other command, an option not supported over ranks, or
 * a build without MPI is a usage error. Returns the exit status, the same on every rank. */
int dist_run(const tool_cmd *cmd, const tool_args *a);

/* mmx partition (partition_cmd.c's options, in this order): IN cut over the job's ranks (one
 * rank when not started by mpirun) and written as part files PREFIX.R.part and PREFIX.index
 * (mmx_dist_mesh_write_parts). A build without MPI is a usage error. Returns the exit
 * status, the same on every rank. */
enum { DIST_PARTITION_RINGS, DIST_PARTITION_FROM, DIST_PARTITION_NOPTS };
int dist_partition(const tool_cmd *cmd, const tool_args *a);

#endif
