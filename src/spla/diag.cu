/* The device half of the diagonal of a mapped matrix: the kernel and launcher that
 * core/elementwise.h makes of the step in diag_step.h (checks and host side: diag.c). */
#include "diag_step.h"
