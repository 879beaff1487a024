/*
 * meshmatrix: polygon meshes as sparse linear algebra, on the host and on CUDA GPUs.
 * This umbrella header includes every module's header.
 */
#ifndef MESHMATRIX_H
#define MESHMATRIX_H

#define MMX_VERSION_MAJOR 0
#define MMX_VERSION_MINOR 1
#define MMX_VERSION_PATCH 0

#include "meshmatrix/core.h"
#include "meshmatrix/spla.h"
#include "meshmatrix/mesh.h"
#include "meshmatrix/io.h"
#include "meshmatrix/subdiv.h"
#include "meshmatrix/query.h"
#include "meshmatrix/patch.h"
#include "meshmatrix/geom.h"
#include "meshmatrix/dynamic.h"

#endif
