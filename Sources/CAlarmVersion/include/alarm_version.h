#ifndef ALARM_VERSION_H
#define ALARM_VERSION_H

/// The version `--version` prints: the package's (ALARM_VERSION when the package was built).
const char *alarm_version(void);

#endif
