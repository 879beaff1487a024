/* The device half of the diagonal of a mapped matrix and of setting a matrix's diagonal: the
 * kernels and launchers that core/elementwise.h makes of the steps in diag_step.h (checks and
 * host side: diag.c). */
#include "diag_step.h"
