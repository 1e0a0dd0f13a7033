// libmosquitto (Debian 12: 2.0.11), the MQTT client library the bridge is built on.
#ifndef TREELINE_CMOSQUITTO_SHIM_H
#define TREELINE_CMOSQUITTO_SHIM_H

#include <mosquitto.h>

/// The library's version as one number (major * 1000000 + minor * 1000 + revision).
static inline int tl_mosquitto_version(void) { return mosquitto_lib_version(NULL, NULL, NULL); }

#endif
