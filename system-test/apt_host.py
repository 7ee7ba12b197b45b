#!/usr/bin/env python3
"""The host's side of the system test's apt repository (scenarios apt and guide, issue #32): an
HTTP server on this machine's loopback, which the guest reaches through qemu's user network as
10.0.2.2:PORT, serving WWW_DIR:

    WWW_DIR/tampered/   release 1 with a byte of its Packages changed after signing
    WWW_DIR/apt/        the published repository: release 1 at first, release 2 once asked for

When the guest writes OUT_DIR/publish (the number of a release, "2"), the release's tree
(RELEASES_DIR/2) is published into WWW_DIR/apt (pool first, then the indexes and signatures, as
a mirror is updated) and OUT_DIR/published-N is written. Every request is logged in
OUT_DIR/http.log. Standard library only.

    apt_host.py WWW_DIR RELEASES_DIR OUT_DIR PORT SECONDS
"""
import functools, http.server, os, shutil, sys, threading, time

www, releases, out, port, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
os.makedirs(out, exist_ok=True)
log = open(os.path.join(out, "http.log"), "a", buffering=1)


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        log.write("%.3f %s %s\n" % (time.time(), self.address_string(), fmt % args))


server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=www))
threading.Thread(target=server.serve_forever, daemon=True).start()


def publish(n):
    src, dst = os.path.join(releases, n), os.path.join(www, "apt")
    # The pool first (new files only), then everything else: a client never sees an index
    # naming a package that is not there yet.
    # Copied with the time of publishing as their modification time, as an upload gives them:
    # with the release's own times, the new InRelease could carry the same second as the old one
    # and an apt client's If-Modified-Since would get 304 (seen when the two releases were made
    # within a second).
    shutil.copytree(os.path.join(src, "pool"), os.path.join(dst, "pool"), dirs_exist_ok=True, copy_function=shutil.copy)
    for name in os.listdir(src):
        if name == "pool":
            continue
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if os.path.isdir(s):
            tmp = d + ".new"
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(s, tmp, copy_function=shutil.copy)
            shutil.rmtree(d, ignore_errors=True)
            os.rename(tmp, d)
        else:
            shutil.copy(s, d + ".new")
            os.rename(d + ".new", d)
    log.write("%.3f published release %s\n" % (time.time(), n))
    with open(os.path.join(out, "published-%s" % n), "w") as f:
        f.write("%.3f\n" % time.time())


deadline = time.time() + limit
request = os.path.join(out, "publish")
while time.time() < deadline:
    if os.path.exists(request):
        n = open(request).read().strip()
        os.remove(request)
        if n.isdigit() and os.path.isdir(os.path.join(releases, n)):
            publish(n)
        else:
            log.write("%.3f no release %r to publish\n" % (time.time(), n))
    time.sleep(0.2)
