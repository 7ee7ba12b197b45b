#include "alarm_version.h"

// Package.swift defines ALARM_VERSION from the environment variable of the same name, which
// scripts/install and scripts/build-deb set; a plain `swift build` gets its development default.
#ifndef ALARM_VERSION
#define ALARM_VERSION "unknown"
#endif

const char *alarm_version(void) { return ALARM_VERSION; }
