/// The page's style (`/app.css`): one column from 320 px up, controls at least 44 px high,
/// large snooze and stop buttons, contrast at WCAG AA in light and dark.
enum PageStyle {
    static let text = #"""
:root {
  --bg: #ffffff; --fg: #111418; --muted: #4a5360; --line: #c9ced6; --card: #f3f5f8;
  --accent: #0b57d0; --accent-fg: #ffffff; --danger: #b3261e; --danger-fg: #ffffff;
  --warn-bg: #fff4ce; --warn-fg: #4d3800; --ring-bg: #fde7e5; --ring-fg: #5c0f0a;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  font-size: 17px; line-height: 1.4; color: var(--fg); background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #121417; --fg: #eef0f3; --muted: #b4bcc8; --line: #3a414b; --card: #1d2126;
    --accent: #8ab4f8; --accent-fg: #0b1b33; --danger: #f2b8b5; --danger-fg: #3b0907;
    --warn-bg: #3d3000; --warn-fg: #ffe08a; --ring-bg: #4a1410; --ring-fg: #ffdad6;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
header { display: flex; align-items: center; justify-content: space-between; padding: 12px 16px; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.3rem; margin: 0; }
h2 { font-size: 1.05rem; margin: 0 0 8px; }
main { max-width: 560px; margin: 0 auto; padding: 8px 12px 48px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 12px; margin: 12px 0; }
label { display: block; font-weight: 600; margin: 12px 0 4px; }
input { width: 100%; font: inherit; padding: 10px; border: 1px solid var(--muted); border-radius: 8px; background: var(--bg); color: var(--fg); min-height: 44px; }
select { width: 100%; font: inherit; padding: 10px; border: 1px solid var(--muted); border-radius: 8px; background: var(--bg); color: var(--fg); min-height: 44px; }
label.check { display: flex; align-items: center; gap: 10px; min-height: 44px; font-weight: 600; }
label.check input { width: 24px; min-height: 24px; height: 24px; margin: 0; }
details.more { margin-top: 12px; }
details.more summary { min-height: 44px; display: flex; align-items: center; cursor: pointer; font-weight: 600; color: var(--accent); list-style: none; }
details.more summary::before { content: "\25B8"; display: inline-block; width: 1.2em; }
details.more[open] summary::before { content: "\25BE"; }
input:focus, select:focus, summary:focus, button:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
button { font: inherit; min-height: 44px; padding: 8px 14px; border-radius: 8px; border: 1px solid var(--muted); background: var(--bg); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); margin-top: 14px; width: 100%; font-weight: 600; }
button.link { border: none; background: none; text-decoration: underline; min-height: 44px; padding: 0 4px; }
button.danger { color: var(--danger); border-color: var(--danger); }
button:disabled { opacity: 0.6; }
.hint, .muted { color: var(--muted); font-size: 0.9rem; margin: 4px 0; }
code { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 0.9em; }
.next { font-size: 2.2rem; font-weight: 700; margin: 0; line-height: 1.15; overflow-wrap: anywhere; }
.warning, .warnings li { background: var(--warn-bg); color: var(--warn-fg); border-radius: 8px; padding: 8px; margin: 6px 0; }
.warnings { list-style: none; padding: 0; margin: 0; }
.ringing { background: var(--ring-bg); color: var(--ring-fg); border-color: var(--danger); }
.ringing h2 { font-size: 1.6rem; }
.big-buttons { display: flex; flex-direction: column; gap: 12px; }
button.big { min-height: 88px; font-size: 1.6rem; font-weight: 700; width: 100%; }
button.snooze { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
button.stop { background: var(--danger); color: var(--danger-fg); border-color: var(--danger); }
.alarms, .history { list-style: none; padding: 0; margin: 0; }
.alarms li { border-top: 1px solid var(--line); padding: 10px 0; }
.alarms li:first-child { border-top: none; }
.alarm-title { font-weight: 700; overflow-wrap: anywhere; }
.alarm-when, .alarm-next { margin: 2px 0; overflow-wrap: anywhere; }
.alarm-next { font-weight: 600; }
.row { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 6px; }
.row button { flex: 1 1 120px; }
.preview ol { margin: 4px 0 0; padding-left: 1.4em; }
.preview .error { color: var(--danger); }
.history li { border-top: 1px solid var(--line); padding: 6px 0; font-size: 0.95rem; overflow-wrap: anywhere; }
.message:empty { display: none; }
.message { margin: 8px 0 0; font-weight: 600; overflow-wrap: anywhere; }
.message.error { color: var(--danger); }
[hidden] { display: none !important; }
"""#
}
