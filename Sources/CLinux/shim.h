// Linux calls Glibc does not export to Swift (timerfd) and the ones the daemon's loop uses.
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
