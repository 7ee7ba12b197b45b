#include <alsa/asoundlib.h>

// alsa-lib prints its own errors to stderr; a silent probe (alarm check) reports them itself.
// Swift cannot write the variadic handler, so it lives here.
static void calsa_quiet_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void calsa_quiet_errors(int quiet) {
    snd_lib_error_set_handler(quiet ? calsa_quiet_error : NULL);
}
