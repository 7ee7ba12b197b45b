/// The page alarm-web serves at `/`: one mobile-first page, its script and its style, written
/// here as they are sent (no build step, nothing from a CDN). The script talks to the JSON API
/// only; the Content-Security-Policy lets the page run nothing else.
enum Page {
    static let html = WebResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(PageHTML.text.utf8))
    static let script = WebResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: Array(PageScript.text.utf8))
    static let style = WebResponse(status: 200, contentType: "text/css; charset=utf-8", body: Array(PageStyle.text.utf8))
}

/// The page: sign-in, the ringing controls, the next alarm, the list, the add form with its
/// preview, "ring now", the history. Ids are what the script (and the browser test) use.
enum PageHTML {
    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Alarm</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <h1>Alarm</h1>
  <button type="button" id="signout" class="link" hidden>Sign out</button>
</header>

<main>
<p id="message" class="message" role="status" aria-live="polite"></p>
<section id="signin-view" hidden aria-labelledby="signin-title">
  <h2 id="signin-title">Sign in</h2>
  <form id="signin-form">
    <label for="token">Access token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" autocapitalize="off" spellcheck="false" required>
    <p class="hint">On the alarm clock, <code>alarm web-token</code> prints it.</p>
    <button type="submit" id="signin" class="primary">Sign in</button>
  </form>
</section>

<div id="app-view" hidden>
  <section id="ringing" class="ringing" hidden aria-live="assertive" aria-labelledby="ringing-title">
    <h2 id="ringing-title">Ringing</h2>
    <p id="ringing-what"></p>
    <div class="big-buttons">
      <button type="button" id="snooze" class="big snooze">Snooze</button>
      <button type="button" id="stop" class="big stop">Stop</button>
    </div>
  </section>

  <section aria-labelledby="next-title">
    <h2 id="next-title">Next alarm</h2>
    <p id="next" class="next">…</p>
    <p id="next-detail" class="muted"></p>
    <p id="daemon" class="warning" hidden></p>
    <ul id="warnings" class="warnings"></ul>
  </section>

  <section aria-labelledby="list-title">
    <h2 id="list-title">Alarms</h2>
    <p id="empty" class="muted" hidden>No alarms yet.</p>
    <ul id="alarms" class="alarms"></ul>
  </section>

  <section aria-labelledby="add-title">
    <h2 id="add-title">Add an alarm</h2>
    <form id="add-form">
      <label for="expr">When (calendar expression)</label>
      <input id="expr" name="expr" type="text" placeholder="Mon..Fri 06:30" autocapitalize="off" autocomplete="off" spellcheck="false" required>
      <p class="hint">Examples: <code>07:00</code>, <code>Mon..Fri 06:30</code>, <code>Sat,Sun 09:00</code>, <code>*-12-25 08:00</code></p>
      <div id="preview" class="preview" aria-live="polite">
        <p id="preview-title" class="muted">Next rings appear here as you type.</p>
        <ol id="preview-list"></ol>
      </div>
      <label for="label">Label (optional)</label>
      <input id="label" name="label" type="text" autocomplete="off">
      <label for="alarm-id">Id (optional; an existing id is replaced)</label>
      <input id="alarm-id" name="id" type="text" autocapitalize="off" autocomplete="off" spellcheck="false" pattern="[A-Za-z0-9_][A-Za-z0-9_.\-]{0,63}">
      <label for="sound">Sound file (optional)</label>
      <input id="sound" name="sound" type="text" autocapitalize="off" autocomplete="off" spellcheck="false">
      <details id="more" class="more">
        <summary>More options</summary>
        <label for="every">Repeat every (optional: 2w every other week, 3d every third day)</label>
        <input id="every" name="every" type="text" placeholder="2w" autocapitalize="off" autocomplete="off" spellcheck="false">
        <label for="from">From (optional; repeats count from this day)</label>
        <input id="from" name="from" type="date">
        <label for="until">Until (optional; the last day it may ring)</label>
        <input id="until" name="until" type="date">
        <label class="check" for="skip-holidays"><input id="skip-holidays" name="skip_holidays" type="checkbox"> Skip holidays</label>
        <label for="max-snoozes">Snoozes allowed (optional; empty: no limit)</label>
        <input id="max-snoozes" name="max_snoozes" type="number" min="0" max="1000" inputmode="numeric">
        <label for="when-ignored">When nobody answers</label>
        <select id="when-ignored" name="when_ignored">
          <option value="">As configured</option>
          <option value="snooze">Snooze, then ring again</option>
          <option value="silence">Go silent</option>
        </select>
      </details>
      <button type="submit" id="add" class="primary">Add alarm</button>
    </form>
  </section>

  <section aria-labelledby="test-title">
    <h2 id="test-title">Test the speaker</h2>
    <button type="button" id="ring-now">Ring now</button>
  </section>

  <section aria-labelledby="history-title">
    <h2 id="history-title">History</h2>
    <p id="history-empty" class="muted" hidden>Nothing has rung yet.</p>
    <ol id="history" class="history" reversed></ol>
  </section>
</div>
</main>
</body>
</html>
"""#
}
