#!/usr/bin/python3
"""Drives alarm-web's page in Debian's headless Chromium over the DevTools protocol, as a person
on a phone would: sign in with the token, add 'Mon..Fri 06:30' and see its next ring listed,
ring now, press stop. Saves a screenshot of each step and prints one JSON object with what it
saw and when (wall-clock seconds), for the Swift test to check against the sink's recording.

    drive_page.py URL TOKEN SCREENSHOT_DIR

Needs the packages chromium and python3-websocket (scripts/deps); run with /usr/bin/python3.
"""
import base64, json, os, shutil, subprocess, sys, tempfile, time, urllib.request

import websocket  # python3-websocket


class Page:
    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mine:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"script failed: {expression}: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    def wait(self, expression, what, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.js(expression):
                    return
            except RuntimeError:
                pass  # the page is still loading
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {what}; page text: {self.js('document.body.innerText')!r}")

    def click(self, selector):
        # A real click at the element's centre, as a finger would.
        self.js(f"document.querySelector({json.dumps(selector)}).scrollIntoView({{block: 'center'}})")
        rect = self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                       f" return [r.x + r.width / 2, r.y + r.height / 2, r.width, r.height]; }})()")
        if rect[2] == 0 or rect[3] == 0:
            raise RuntimeError(f"{selector} is not visible")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=rect[0], y=rect[1], button="left", clickCount=1)

    def type(self, selector, text):
        self.click(selector)
        self.call("Input.insertText", text=text)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


def main():
    url, token, shots = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(shots, exist_ok=True)
    browser = shutil.which("chromium")
    if not browser:
        raise SystemExit("chromium is not installed: run scripts/deps (Debian package chromium)")
    profile = tempfile.mkdtemp(prefix="alarm-web-chromium-")
    proc = subprocess.Popen(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--disable-sync", "--disable-dev-shm-usage",
         "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(shots, "chromium.log"), "w"))
    result = {"steps": []}
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() > deadline or proc.poll() is not None:
                raise SystemExit(f"chromium did not start its DevTools server (see {shots}/chromium.log)")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = Page(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Runtime.enable")
        # A phone: 360 px wide, touch, device pixel ratio 2.
        page.call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)

        def step(name):
            page.screenshot(os.path.join(shots, name + ".png"))
            result["steps"].append(name)

        def preview_and_add(previewed, what_previewed, key, shot, listed, what_listed):
            """Waits until `previewed` holds, records the previewed rings as `key` and takes `shot`;
            then adds the alarm and waits until an alarm in the list matches `listed` (about `li`)."""
            page.wait(previewed, what_previewed)
            result[key] = page.js("Array.from(document.querySelectorAll('#preview-list li')).map(e => e.textContent)")
            step(shot)
            page.click("#add")
            page.wait(f"Array.from(document.querySelectorAll('#alarms li')).some(li => {listed})", what_listed)

        page.call("Page.navigate", url=url)
        page.wait("!document.getElementById('signin-view').hidden", "the sign-in form")
        step("01-sign-in")
        # Every control has a name a screen reader can say.
        result["unlabelled"] = page.js("""Array.from(document.querySelectorAll('input, button')).filter(e => {
            const byLabel = e.id && document.querySelector('label[for="' + e.id + '"]');
            return !(byLabel || e.getAttribute('aria-label') || e.textContent.trim()); }).map(e => e.id || e.outerHTML)""")

        page.type("#token", "wrong-token")
        page.click("#signin")
        page.wait("document.getElementById('message').textContent.includes('wrong token')", "the wrong-token message")
        result["wrong_token_message"] = page.js("document.getElementById('message').textContent")
        page.js("document.getElementById('token').value = ''")
        page.type("#token", token)
        page.click("#signin")
        page.wait("!document.getElementById('app-view').hidden", "the signed-in page")
        page.wait("document.getElementById('next').textContent === 'No alarm set'", "the empty next alarm")
        result["cookie_visible_to_script"] = page.js("document.cookie")
        step("02-signed-in")

        page.type("#expr", "Mon..Fri 06:30")
        preview_and_add("document.querySelectorAll('#preview-list li').length === 5", "five previewed rings",
                        "preview", "03-preview",
                        "li.textContent.includes('Mon..Fri *-*-* 06:30:00') && li.textContent.includes('next: ')",
                        "the new alarm with its next ring in the list")
        result["listed"] = page.js("document.querySelector('#alarms li').innerText")
        result["next"] = page.js("document.getElementById('next').textContent")
        step("04-added")

        # More options (issue #12): every other Saturday; the preview follows the rule as it is typed.
        page.click("#more summary")
        page.wait("document.getElementById('more').open", "the more options")
        page.type("#expr", "Sat 09:00")
        page.type("#every", "2w")
        preview_and_add("(document.getElementById('preview-list').dataset.query || '').includes('every=2w') && "
                        "document.querySelectorAll('#preview-list li').length === 5",
                        "the five rings previewed with every 2w", "every_preview", "04b-every-other-week",
                        "li.textContent.includes('every 2w from ')", "the every-other-week alarm in the list")
        result["every_listed"] = page.js("Array.from(document.querySelectorAll('#alarms li')).map(li => li.innerText).join('\\n---\\n')")

        # 320 px: nothing wider than the screen.
        page.call("Emulation.setDeviceMetricsOverride", width=320, height=740, deviceScaleFactor=2, mobile=True)
        time.sleep(0.3)
        result["scroll_width_at_320"] = page.js("document.documentElement.scrollWidth")
        step("05-320px")
        page.call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)

        page.js("window.scrollTo(0, 0)")
        result["ring_clicked_at"] = time.time()
        page.click("#ring-now")
        page.wait("!document.getElementById('ringing').hidden && document.getElementById('ringing-title').textContent === 'Ringing'", "the ringing controls")
        result["ringing_shown_at"] = time.time()
        result["ringing_text"] = page.js("document.getElementById('ringing-what').textContent")
        page.js("window.scrollTo(0, 0)")
        step("06-ringing")
        time.sleep(2.0)  # let it ring: the sink hears it
        result["stop_clicked_at"] = time.time()
        page.click("#stop")
        page.wait("document.getElementById('ringing').hidden", "the ringing controls to go")
        result["stopped_shown_at"] = time.time()
        step("07-stopped")
        time.sleep(2.5)  # the silence the test listens to
        page.js("window.scrollTo(0, document.body.scrollHeight)")
        page.wait("document.querySelectorAll('#history li').length > 0", "the ring in the history")
        result["history"] = page.js("document.querySelector('#history li').textContent")
        step("08-history")
        result["finished_at"] = time.time()
        result["ok"] = True
    except Exception as e:  # reported to the Swift test, with the screenshots so far
        result["ok"] = False
        result["error"] = str(e)
        try:
            page.screenshot(os.path.join(shots, "failure.png"))
        except Exception:
            pass
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
