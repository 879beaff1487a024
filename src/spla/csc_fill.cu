/* The device half of the derived CSC arrays: the kernels and launchers that
 * core/elementwise.h makes of the steps in csc_fill_step.h (host side: csc_fill.c). */
#include "csc_fill_step.h"
