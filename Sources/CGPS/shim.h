// C shim for libgps (gpsd 3.22, GPSD_API_MAJOR_VERSION 11).
// Swift cannot import variadic functions (gps_send) or compound macros (UNION_SET, ...);
// these static inline wrappers give them a Swift-callable form.
#ifndef TREELINE_CGPS_SHIM_H
#define TREELINE_CGPS_SHIM_H

#include <gps.h>

static inline int tl_gps_api_major(void) { return GPSD_API_MAJOR_VERSION; }
static inline int tl_gps_api_minor(void) { return GPSD_API_MINOR_VERSION; }

/// gps_send() is variadic; send one pre-formatted command string.
static inline int tl_gps_send(struct gps_data_t *gpsdata, const char *command) {
    return gps_send(gpsdata, "%s", command);
}

/// Mask of the report kinds that are not a position fix (SKY, DEVICE, ...), compound macro.
static inline gps_mask_t tl_union_set(void) { return UNION_SET; }

/// Size of gps_data_t as this libgps was compiled, so Swift can check it allocates the right thing.
static inline size_t tl_gps_data_size(void) { return sizeof(struct gps_data_t); }

/// The GST report sits in an anonymous union of gps_data_t: plain accessors for Swift.
static inline double tl_gst_lat_err(const struct gps_data_t *d) { return d->gst.lat_err_deviation; }
static inline double tl_gst_lon_err(const struct gps_data_t *d) { return d->gst.lon_err_deviation; }
static inline timespec_t tl_gst_time(const struct gps_data_t *d) { return d->gst.utctime; }

#endif
