// Linux calls Glibc does not export to Swift (timerfd) and the ones the daemon's loop uses.
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/types.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stddef.h>
#include <time.h>

// Macros and inline functions Swift cannot import directly.
static inline int clinux_s_isfifo(mode_t m) { return S_ISFIFO(m); }
static inline int clinux_s_isdir(mode_t m) { return S_ISDIR(m); }
static inline int clinux_s_isreg(mode_t m) { return S_ISREG(m); }
static inline int clinux_s_islnk(mode_t m) { return S_ISLNK(m); }
static inline size_t clinux_sun_path_offset(void) { return offsetof(struct sockaddr_un, sun_path); }
static inline size_t clinux_pipe_buf(void) { return PIPE_BUF; }
