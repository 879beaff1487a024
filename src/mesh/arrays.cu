/* The device half of the array checks: the kernels that core/elementwise.h makes of the steps
 * in arrays_step.h (host side: arrays.c). */
#include "arrays_step.h"
