// AlarmDaemon: see STYLE.md. Filled in by its issue.
