#include <alsa/asoundlib.h>

/* An alsa-lib error handler that prints nothing (Swift cannot define a variadic C function). */
static void alarm_alsa_discard_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Stops alsa-lib from printing its own error lines on stderr ("ALSA lib pcm.c:...") while quiet is 1;
   0 puts back its own printing. AlarmAudio's AlsaErrorOutput decides (the caller reports the errors). */
static inline void calsa_quiet_errors(int quiet) {
    snd_lib_error_set_handler(quiet ? alarm_alsa_discard_error : NULL);
}
