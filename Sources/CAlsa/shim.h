#include <alsa/asoundlib.h>

/* An alsa-lib error handler that prints nothing (Swift cannot define a variadic C function). */
static void alarm_alsa_discard_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Stops alsa-lib from printing its own error lines on stderr ("ALSA lib pcm.c:...") for the
   rest of the process; the caller reports the errors it gets back instead. */
static inline void alarm_alsa_silence_errors(void) {
    snd_lib_error_set_handler(alarm_alsa_discard_error);
}

/* The same for a while: on (1) around a silent probe, off (0) after it (alsa-lib's own printing). */
static inline void calsa_quiet_errors(int quiet) {
    snd_lib_error_set_handler(quiet ? alarm_alsa_discard_error : NULL);
}
