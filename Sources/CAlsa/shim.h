#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

/* An alsa-lib error handler that prints nothing (Swift cannot define a variadic C function). */
static void alarm_alsa_discard_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Defined in Swift (AlarmAudio's AlsaLibraryLog, @_cdecl): one alsa-lib error, its message formatted. */
extern void alarm_alsa_error_message(const char *file, int line, const char *function, int err, const char *message);

/* An alsa-lib error handler that formats the message (at most 511 bytes kept) and passes it to
   alarm_alsa_error_message, which logs it rate-limited instead of alsa-lib printing it on stderr. */
static void alarm_alsa_forward_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt ? fmt : "", ap);
    va_end(ap);
    alarm_alsa_error_message(file, line, function, err, message);
}

/* Who gets alsa-lib's error lines ("ALSA lib pcm.c:...": its own printing on stderr):
   0 alsa-lib itself, 1 nobody, 2 alarm_alsa_error_message. AlarmAudio's AlsaErrorOutput decides. */
static inline void calsa_route_errors(int route) {
    snd_lib_error_set_handler(route == 1 ? alarm_alsa_discard_error : route == 2 ? alarm_alsa_forward_error : NULL);
}
