"""The host's judgement of the power-cut scenario (issue #42), called by analyse.py: the guest
(scenarios/power-cut.sh) copies, after each boot that followed a cut, the state files as the boot
found them and what `alarm list --json` says into OUT/power-cut/round-N/; the ids of the adds
that returned 0 were written to OUT/power-cut/added-N over 9p as they returned, so this record
is the host's, not lost with the guest's page cache. For each round:
  - alarms.json (as the boot found it) parses as a JSON array, or it is empty, its backup is not,
    and `alarm list` said it uses the backup;
  - history.jsonl is whole up to its last complete line: no complete line is unreadable but those
    an earlier round's cut had already torn (an append after a torn line starts a new line); the
    last line may be cut;
  - every id recorded as added is in `alarm list --json` or in the history (it rang);
  - rounds: as many cut and checked as asked.
"""
import json, os


def _lines(path):
    """The complete lines of a file and whether it ends in a cut line."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    tail = lines.pop()
    return lines, bool(tail)


def _ids_in_history(path):
    ids = set()
    if not os.path.exists(path):
        return ids
    lines, _ = _lines(path)
    for line in lines:
        try:
            ids.add(json.loads(line).get("alarm"))
        except (ValueError, AttributeError):
            pass
    return ids


def check(d):
    """(failures, figures, notes) of the scenario's out dir d."""
    failures, notes = [], []
    try:
        asked = int(open(os.path.join(os.path.dirname(d), "..", "power-cut-rounds")).read())
    except (OSError, ValueError):
        asked = None
    rounds, adds, delays, torn_known, cut_lines = 0, 0, [], 0, 0
    while os.path.exists(os.path.join(d, "cut-%d.done" % (rounds + 1))):
        rounds += 1
    for n in range(1, rounds + 1):
        r = os.path.join(d, "round-%d" % n)
        delays.append(float(open(os.path.join(d, "cut-%d.done" % n)).read().split()[0]))
        if not os.path.exists(os.path.join(r, "checked")):
            failures.append("round %d: cut, but not checked after the boot" % n)
            continue
        # The store.
        store = os.path.join(r, "alarms.json.after-boot")
        try:
            if not isinstance(json.load(open(store)), list):
                failures.append("round %d: alarms.json is not a JSON array after the boot" % n)
        except (OSError, ValueError) as e:
            empty = not os.path.exists(store) or os.path.getsize(store) == 0
            bak = os.path.join(r, "alarms.json.bak.after-boot")
            said = open(os.path.join(r, "list-empty.out"), errors="replace").read() if os.path.exists(os.path.join(r, "list-empty.out")) else ""
            if empty and os.path.exists(bak) and os.path.getsize(bak) > 0 and "backup" in said:
                notes.append("round %d: alarms.json empty after the boot, alarm list used the backup" % n)
            else:
                failures.append("round %d: alarms.json does not parse after the boot (%s)" % (n, e))
        # The history, as the boot found it.
        hist = os.path.join(r, "history.jsonl.after-boot")
        if os.path.exists(hist):
            lines, tail = _lines(hist)
            bad = 0
            for line in lines:
                try:
                    json.loads(line)
                except ValueError:
                    bad += 1
            if bad > torn_known:
                failures.append("round %d: history.jsonl has %d unreadable complete line(s) after the boot (%d torn by earlier cuts): only its last line may be cut" % (n, bad, torn_known))
            if tail:
                cut_lines += 1
                notes.append("round %d: history.jsonl's last line cut" % n)
            torn_known = bad + (1 if tail else 0)
        # Every add that returned 0 is listed or rang.
        with open(os.path.join(d, "added-%d" % n)) as f:
            added = [i for i in f.read().split("\n")[:-1] if i]  # complete lines only
        adds += len(added)
        try:
            listed = {a["id"] for a in json.load(open(os.path.join(r, "list.json")))}
        except (OSError, ValueError, KeyError, TypeError) as e:
            failures.append("round %d: alarm list --json after the boot is not a list of alarms (%s)" % (n, e))
            continue
        rang = _ids_in_history(os.path.join(r, "history.jsonl.after-boot")) | _ids_in_history(os.path.join(r, "history.jsonl.after-stop"))
        lost = [i for i in added if i not in listed and i not in rang]
        if lost:
            failures.append("round %d: %d of %d alarm(s) whose add returned 0 are neither listed nor in the history after the boot: %s" % (n, len(lost), len(added), " ".join(lost[:5])))
    if asked is not None and rounds < asked:
        failures.append("%d round(s) cut of %d asked" % (rounds, asked))
    figures = ["%d rounds" % rounds, "%d adds kept" % adds]
    if delays:
        figures.append("cut %.1f-%.1f s into the loop" % (min(delays), max(delays)))
    figures.append("%d history line(s) cut" % cut_lines)
    return failures, figures, notes
