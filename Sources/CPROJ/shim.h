// C shim for PROJ: proj.h (CRS transforms) and geodesic.h (Karney's geodesics).
#ifndef TREELINE_CPROJ_SHIM_H
#define TREELINE_CPROJ_SHIM_H

#include <proj.h>
#include <geodesic.h>

static inline int tl_proj_version_major(void) { return PROJ_VERSION_MAJOR; }
static inline int tl_proj_version_minor(void) { return PROJ_VERSION_MINOR; }

#endif
