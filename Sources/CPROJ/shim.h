// C shim for PROJ: proj.h (CRS transforms) and geodesic.h (Karney's geodesics).
#ifndef TREELINE_CPROJ_SHIM_H
#define TREELINE_CPROJ_SHIM_H

#include <proj.h>
#include <geodesic.h>

// glibc's sincos: sine and cosine in one call, the same values as sin and cos (the same code
// inside), for about 60% of the two calls' work. <math.h> declares it only under _GNU_SOURCE,
// which an imported module's <math.h> has not seen: declared here.
extern void sincos(double x, double *sinx, double *cosx);
static inline void tl_sincos(double x, double *sinx, double *cosx) { sincos(x, sinx, cosx); }

static inline int tl_proj_version_major(void) { return PROJ_VERSION_MAJOR; }
static inline int tl_proj_version_minor(void) { return PROJ_VERSION_MINOR; }

#endif
