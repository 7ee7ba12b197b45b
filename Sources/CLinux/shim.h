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
#include <sys/timex.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <spawn.h>
#include <pthread.h>
#include <malloc.h>
#include <sys/prctl.h>

// Thread names (what `top -H` and /proc/PID/task/TID/comm show): glibc declares these only with
// _GNU_SOURCE, which this module's headers are not built with.
int pthread_setname_np(pthread_t thread, const char *name);
int pthread_getname_np(pthread_t thread, char *name, size_t len);
// glibc 2.34 and later, also only with _GNU_SOURCE: a spawned child closes every descriptor from
// `from` up (ChildProcess: hooks and fallback_command inherit nothing of the daemon's).
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// Macros and inline functions Swift cannot import directly.
static inline int clinux_s_isfifo(mode_t m) { return S_ISFIFO(m); }
static inline int clinux_s_isdir(mode_t m) { return S_ISDIR(m); }
static inline int clinux_s_isreg(mode_t m) { return S_ISREG(m); }
static inline int clinux_s_islnk(mode_t m) { return S_ISLNK(m); }
static inline size_t clinux_sun_path_offset(void) { return offsetof(struct sockaddr_un, sun_path); }
static inline size_t clinux_pipe_buf(void) { return PIPE_BUF; }
static inline int clinux_wifexited(int status) { return WIFEXITED(status); }
static inline int clinux_wexitstatus(int status) { return WEXITSTATUS(status); }
static inline int clinux_wifsignaled(int status) { return WIFSIGNALED(status); }
static inline int clinux_wtermsig(int status) { return WTERMSIG(status); }
// pidfd_open(2) (Linux 5.3): glibc has a wrapper only from 2.36, so through syscall(2).
static inline int clinux_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
// prctl(2) is variadic, which Swift cannot call: PR_SET_NO_NEW_PRIVS and its reading.
static inline int clinux_set_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }
static inline int clinux_get_no_new_privs(void) { return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); }
static inline int clinux_set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0); }
// initgroups(3) and setgroups(2) are declared only under _DEFAULT_SOURCE / _GNU_SOURCE.
int initgroups(const char *user, gid_t group);
int setgroups(size_t size, const gid_t *list);
// getresuid(2) and getresgid(2) need _GNU_SOURCE.
int getresuid(uid_t *ruid, uid_t *euid, uid_t *suid);
int getresgid(gid_t *rgid, gid_t *egid, gid_t *sgid);
// pipe2(2) and F_SETPIPE_SZ need _GNU_SOURCE, which this module's headers are not built with.
static inline int clinux_pipe2(int fds[2], int flags) { return (int)syscall(SYS_pipe2, fds, flags); }
static inline int clinux_set_pipe_size(int fd, int size) { return fcntl(fd, 1031 /* F_SETPIPE_SZ */, size); }

// Input devices (evdev, issue #30): the ioctls are macros Swift cannot import.
#include <sys/ioctl.h>
#include <linux/input.h>
static inline int clinux_eviocgrab(int fd, int grab) { return ioctl(fd, EVIOCGRAB, grab); }
static inline int clinux_eviocsclockid(int fd, int clock) { return ioctl(fd, EVIOCSCLOCKID, &clock); }
static inline int clinux_eviocgname(int fd, char *buf, int len) { return ioctl(fd, EVIOCGNAME(len), buf); }
static inline int clinux_eviocgphys(int fd, char *buf, int len) { return ioctl(fd, EVIOCGPHYS(len), buf); }
static inline int clinux_eviocgbit_key(int fd, unsigned char *buf, int len) { return ioctl(fd, EVIOCGBIT(EV_KEY, len), buf); }
static inline int clinux_eviocgkey(int fd, unsigned char *buf, int len) { return ioctl(fd, EVIOCGKEY(len), buf); }
