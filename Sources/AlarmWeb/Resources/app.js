"use strict";
// alarm-web's page: plain script, no libraries. Data is only ever put into the page as text.
(function () {
  const $ = (id) => document.getElementById(id);
  const weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  let csrf = null;
  let lastStatusKey = "";
  let pollTimer = null;
  let refreshTimer = null;
  let previewSeq = 0;
  let previewTimer = null;

  class SignedOut extends Error {}

  async function api(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET" && csrf) headers["X-CSRF-Token"] = csrf;
    const response = await fetch(path, {
      method, headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (response.status === 401 && path !== "/api/session") {
      showSignIn(data && data.error);
      throw new SignedOut((data && data.error) || "signed out");
    }
    if (!response.ok) throw new Error((data && data.error) || ("HTTP " + response.status));
    return data;
  }

  function say(text, isError) {
    const m = $("message");
    m.textContent = text || "";
    m.className = "message" + (isError ? " error" : "");
  }

  // "2026-11-23T06:30:00+01:00" as the alarm clock's own wall clock: "Mon 23 Nov 06:30".
  function wall(text, withDate) {
    const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?/.exec(text || "");
    if (!m) return text || "";
    const day = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).getUTCDay();
    const time = m[4] + ":" + m[5] + (m[6] && m[6] !== "00" ? ":" + m[6] : "");
    return weekdays[day] + (withDate === false ? "" : " " + (+m[3]) + " " + months[+m[2] - 1]) + " " + time;
  }

  function spoken(seconds) {
    if (seconds < 60) return "less than a minute";
    const minutes = Math.round(seconds / 60);
    const d = Math.floor(minutes / 1440), h = Math.floor((minutes % 1440) / 60), min = minutes % 60;
    const parts = [];
    if (d) parts.push(d + " d");
    if (h) parts.push(h + " h");
    if (min && d === 0) parts.push(min + " min");
    return parts.join(" ");
  }

  function element(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(text, label, onClick, className) {
    const b = element("button", className, text);
    b.type = "button";
    b.setAttribute("aria-label", label);
    b.addEventListener("click", onClick);
    return b;
  }

  async function act(work, done) {
    try {
      const result = await work();
      if (done) say(done(result));
      await refreshAll();
      return result;
    } catch (e) {
      if (!(e instanceof SignedOut)) say(e.message, true);
      return null;
    }
  }

  // --- status: ringing, snoozed, idle; polled twice a second while the page is visible ---

  function renderStatus(s) {
    const ringing = $("ringing");
    const daemon = $("daemon");
    daemon.hidden = s.running !== false;
    daemon.textContent = s.running === false ? "alarmd is not running: alarms will not ring." : "";
    const warnings = $("warnings");
    warnings.replaceChildren(...(s.warnings || []).map((w) => element("li", "", w)));
    if (s.state === "ringing" || s.state === "snoozed") {
      ringing.hidden = false;
      const who = s.alarm || "the test ring";
      if (s.state === "ringing") {
        $("ringing-title").textContent = "Ringing";
        $("ringing-what").textContent = (s.alarm ? s.alarm + " is ringing" : "Ringing now") + " (" + (s.sound && s.sound !== "default" ? s.sound : "default tone") + ")";
        $("snooze").hidden = false;
      } else {
        $("ringing-title").textContent = "Snoozed";
        $("ringing-what").textContent = who + " rings again at " + wall(s.snoozed_until, false);
        $("snooze").hidden = true;
      }
    } else {
      ringing.hidden = true;
    }
    const key = [s.state, s.alarm, s.snoozed_until, s.next && s.next.id, s.next && s.next.at, s.running].join("|");
    const changed = key !== lastStatusKey;
    lastStatusKey = key;
    return changed;
  }

  async function poll() {
    try {
      const s = await api("GET", "/api/status");
      if (renderStatus(s)) await refreshLists();
    } catch (e) {
      if (e instanceof SignedOut) return;
    }
  }

  function startPolling() {
    stopPolling();
    pollTimer = setInterval(() => { if (document.visibilityState === "visible") poll(); }, 500);
    refreshTimer = setInterval(() => { if (document.visibilityState === "visible") refreshLists(); }, 15000);
  }

  function stopPolling() {
    if (pollTimer) clearInterval(pollTimer);
    if (refreshTimer) clearInterval(refreshTimer);
    pollTimer = refreshTimer = null;
  }

  // --- the next alarm, the list, the history ---

  function renderNext(n) {
    if (!n) {
      $("next").textContent = "No alarm set";
      $("next-detail").textContent = "";
      return;
    }
    $("next").textContent = wall(n.at, false);
    $("next-detail").textContent = n.id + " · in " + spoken(n.in) + " · " + wall(n.at);
  }

  function renderAlarms(list) {
    $("empty").hidden = list.length > 0;
    list.sort((a, b) => (a.next || "~").localeCompare(b.next || "~") || a.id.localeCompare(b.id));
    const items = list.map((a) => {
      const li = element("li");
      li.dataset.id = a.id;
      li.appendChild(element("div", "alarm-title", a.label ? a.label + " (" + a.id + ")" : a.id));
      // The schedule's rules (issue #12), as alarm list words them.
      const rules = [];
      if (a.every) rules.push("every " + a.every + (a.from ? " from " + a.from : ""));
      else if (a.from) rules.push("from " + a.from);
      if (a.until) rules.push("until " + a.until);
      if (a.skip_holidays) rules.push("skipping holidays");
      if (a.paused) rules.push(a.paused_until ? "paused until " + a.paused_until : "paused");
      const when = (a.expression ? a.expression + (a.zone ? " " + a.zone : "") + (a.once ? " (once)" : "") : "at " + wall(a.at))
        + (rules.length ? ", " + rules.join(", ") : "");
      li.appendChild(element("div", "alarm-when", when));
      const next = a.next ? "next: " + wall(a.next) + (a.skip_next ? " (skipping one)" : "") : "never rings again";
      li.appendChild(element("div", "alarm-next", next));
      const row = element("div", "row");
      if (a.skip_next) {
        row.appendChild(button("Unskip", "Unskip " + a.id, () => act(() => api("POST", "/api/alarms/" + encodeURIComponent(a.id) + "/unskip"), () => a.id + " rings at its next time again")));
      } else {
        row.appendChild(button("Skip next", "Skip the next ring of " + a.id, () => act(() => api("POST", "/api/alarms/" + encodeURIComponent(a.id) + "/skip"), (r) => a.id + ": skipping one; next " + (r.next ? wall(r.next) : "never"))));
      }
      const remove = button("Remove", "Remove " + a.id, () => {
        if (remove.dataset.armed !== "1") {
          remove.dataset.armed = "1";
          remove.textContent = "Tap again to remove";
          setTimeout(() => { remove.dataset.armed = ""; remove.textContent = "Remove"; }, 4000);
          return;
        }
        act(() => api("DELETE", "/api/alarms/" + encodeURIComponent(a.id)), () => "removed " + a.id);
      }, "danger");
      row.appendChild(remove);
      li.appendChild(row);
      return li;
    });
    $("alarms").replaceChildren(...items);
  }

  function renderHistory(entries) {
    const last = entries.slice(-10).reverse();
    $("history-empty").hidden = last.length > 0;
    $("history").replaceChildren(...last.map((e) => {
      let text = wall(e.scheduled) + " · " + (e.alarm || "ring") + " · " + e.outcome;
      if (e.late) text += " (late)";
      return element("li", "", text);
    }));
  }

  async function refreshLists() {
    try {
      const [next, alarms, history] = await Promise.all([api("GET", "/api/next"), api("GET", "/api/alarms"), api("GET", "/api/history")]);
      renderNext(next);
      renderAlarms(alarms);
      renderHistory(history);
    } catch (e) {
      if (!(e instanceof SignedOut)) say(e.message, true);
    }
  }

  async function refreshAll() {
    try {
      renderStatus(await api("GET", "/api/status"));
    } catch (e) {
      if (e instanceof SignedOut) return;
    }
    await refreshLists();
  }

  // --- the add form, with the next rings as one types ---

  function schedulePreview() {
    if (previewTimer) clearTimeout(previewTimer);
    previewTimer = setTimeout(preview, 250);
  }

  async function preview() {
    const expr = $("expr").value.trim();
    const seq = ++previewSeq;
    const title = $("preview-title");
    const list = $("preview-list");
    if (!expr) {
      title.textContent = "Next rings appear here as you type.";
      title.className = "muted";
      list.replaceChildren();
      delete list.dataset.query;
      return;
    }
    try {
      let query = "/api/preview?expr=" + encodeURIComponent(expr) + "&count=5";
      for (const key of ["every", "from", "until"]) {
        const v = $(key).value.trim();
        if (v) query += "&" + key + "=" + encodeURIComponent(v);
      }
      if ($("skip-holidays").checked) query += "&skip_holidays=true";
      const rings = await api("GET", query);
      if (seq !== previewSeq) return;
      title.textContent = "Next rings:";
      title.className = "muted";
      list.replaceChildren(...rings.map((r) => element("li", "", wall(r))));
      list.dataset.query = query;  // what the list shows the rings of
    } catch (e) {
      if (seq !== previewSeq || e instanceof SignedOut) return;
      title.textContent = e.message;
      title.className = "error";
      list.replaceChildren();
      delete list.dataset.query;
    }
  }

  // The sound field offers the sounds that play (GET /api/sounds, fetched when it is first
  // focused: inspecting every file takes a moment on a Pi), with container and length.
  let soundsLoaded = false;
  async function offerSounds() {
    if (soundsLoaded) return;
    soundsLoaded = true;
    try {
      const sounds = await api("GET", "/api/sounds");
      $("sound-list").replaceChildren(...sounds.filter((s) => s.playable).map((s) => {
        const o = document.createElement("option");
        o.value = s.name;
        o.label = s.name + " (" + s.container + ", " + Number(s.duration).toFixed(1) + " s)";
        return o;
      }));
    } catch (e) {
      soundsLoaded = false;  // tried again on the next focus
    }
  }

  async function add(event) {
    event.preventDefault();
    const value = (id) => { const v = $(id).value.trim(); return v === "" ? null : v; };
    const alarm = { id: value("alarm-id") || "", expression: $("expr").value.trim(), label: value("label"), sound: value("sound") };
    // The more options (issues #12 and #13), sent only when given: the fields of list --json.
    for (const [id, key] of [["every", "every"], ["from", "from"], ["until", "until"], ["when-ignored", "when_ignored"]]) {
      const v = value(id);
      if (v !== null) alarm[key] = v;
    }
    if ($("skip-holidays").checked) alarm.skip_holidays = true;
    const snoozes = value("max-snoozes");
    if (snoozes !== null) alarm.max_snoozes = Number(snoozes);
    const stored = await act(() => api("POST", "/api/alarms", alarm), (a) => "added " + a.id + ": next ring " + (a.next ? wall(a.next) : "never"));
    if (stored) {
      $("add-form").reset();
      preview();
    }
  }

  // --- signing in and out ---

  function showSignIn(why) {
    stopPolling();
    csrf = null;
    $("app-view").hidden = true;
    $("signout").hidden = true;
    $("signin-view").hidden = false;
    if (why) say(why, true);
    $("token").focus();
  }

  function showApp() {
    $("signin-view").hidden = true;
    $("app-view").hidden = false;
    $("signout").hidden = false;
    lastStatusKey = "";
    refreshAll();
    startPolling();
  }

  async function signIn(event) {
    event.preventDefault();
    const field = $("token");
    try {
      const r = await api("POST", "/api/session", { token: field.value.trim() });
      field.value = "";
      csrf = r.csrf;
      say("");
      showApp();
    } catch (e) {
      say(e.message, true);
    }
  }

  async function start() {
    $("signin-form").addEventListener("submit", signIn);
    $("add-form").addEventListener("submit", add);
    $("expr").addEventListener("input", schedulePreview);
    for (const id of ["every", "from", "until"]) $(id).addEventListener("input", schedulePreview);
    $("skip-holidays").addEventListener("change", schedulePreview);
    $("sound").addEventListener("focus", offerSounds);
    $("snooze").addEventListener("click", () => act(() => api("POST", "/api/snooze"), () => "snoozed"));
    $("stop").addEventListener("click", () => act(() => api("POST", "/api/stop"), () => "stopped"));
    $("ring-now").addEventListener("click", () => act(() => api("POST", "/api/ring"), () => "ringing now"));
    $("signout").addEventListener("click", async () => {
      try { await api("DELETE", "/api/session"); } catch (e) { /* signed out either way */ }
      showSignIn("signed out");
    });
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible" && csrf) refreshAll(); });
    try {
      const r = await fetch("/api/session", { credentials: "same-origin", cache: "no-store" });
      if (r.ok) {
        csrf = (await r.json()).csrf;
        showApp();
        return;
      }
    } catch (e) { /* not signed in */ }
    showSignIn();
  }

  start();
})();
