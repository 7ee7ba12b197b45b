#!/usr/bin/env python3
"""The host's side of the system test's scenario `web`: while the guest runs, wait for the guest
to say alarm-web is up (OUT_DIR/web-ready holds the token), then reach it through qemu's
forwarded port from this machine, with and without the token, and write what it got to
OUT_DIR/host-results.json for the guest to check. Standard library only.

    web_host.py OUT_DIR HOST_PORT SECONDS
"""
import json, os, sys, time, urllib.error, urllib.request

out, port, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.time() + limit
ready = os.path.join(out, "web-ready")
while not os.path.exists(ready):
    if time.time() > deadline:
        sys.exit(0)
    time.sleep(0.5)
token = open(ready).read().strip()


def request(method, path, token=None, body=None):
    headers = {"Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method, headers=headers)
    for attempt in range(20):
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return {"status": r.status, "body": r.read().decode("utf-8", "replace")}
        except urllib.error.HTTPError as e:
            return {"status": e.code, "body": e.read().decode("utf-8", "replace")}
        except OSError as e:  # the forwarding may need a moment
            last = str(e)
            time.sleep(1)
    return {"status": 0, "body": last}


results = {
    "page": request("GET", "/"),
    "no_token": request("GET", "/api/status"),
    "wrong_token": request("GET", "/api/status", token="A" * 43),
    "status": request("GET", "/api/status", token=token),
    "add": request("POST", "/api/alarms", token=token, body={"id": "from-host", "expression": "Mon..Fri 06:30"}),
    "alarms": request("GET", "/api/alarms", token=token),
}
with open(os.path.join(out, "host-results.json"), "w") as f:
    json.dump(results, f)
# For the guest, which has no JSON parser: NAME STATUS BODY, one line each.
tmp = os.path.join(out, "host-results.txt.tmp")
with open(tmp, "w") as f:
    for name, r in results.items():
        f.write("%s %d %s\n" % (name, r["status"], " ".join(r["body"].split())))
os.rename(tmp, os.path.join(out, "host-results.txt"))
