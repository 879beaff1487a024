/* The device half of the conversions: the kernels that core/elementwise.h makes of the steps
 * in convert_step.h (host side: convert.c). */
#include "convert_step.h"
