#!/usr/bin/env python3
"""The step table of scripts/test and its critical path.

Reads the ledger scripts/test writes, one line per step that ended:
    NAME START END AFTER
START and END are seconds since the run began; AFTER names the steps (comma separated, "-" for
none) whose end the step waited for before it started. Prints every step with its start, end and
length, then the critical path: from the step that ended last, back through the step it waited
for that ended last, to the beginning. Those are the steps the total waited on; making any other
step faster does not make the run shorter.

    python3 scripts/lib/steps.py LEDGER
"""
import sys


def main(path):
    steps = {}
    order = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4:
                continue
            name, start, end, after = parts
            steps[name] = (int(start), int(end), [] if after == "-" else after.split(","))
            order.append(name)
    if not steps:
        print("steps: none recorded")
        return
    width = max(len(n) for n in order)
    print(f"{'step':<{width}}  {'start':>6}  {'end':>6}  {'length':>7}")
    for name in sorted(order, key=lambda n: (steps[n][0], steps[n][1])):
        start, end, _ = steps[name]
        print(f"{name:<{width}}  {start:>5}s  {end:>5}s  {end - start:>6}s")
    # Back from the step that ended last, each time through the awaited step that ended last.
    path = [max(order, key=lambda n: steps[n][1])]
    while True:
        before = [a for a in steps[path[0]][2] if a in steps]
        if not before:
            break
        path.insert(0, max(before, key=lambda n: steps[n][1]))
    total = steps[path[-1]][1]
    parts = []
    for name in path:
        start, end, _ = steps[name]
        parts.append(f"{name} {end - start} s")
    print(f"critical path ({total} s): " + " -> ".join(parts))
    # Where the path waited with nothing of its own running (a step started after the one it
    # waited for had ended: the machine was busy with something else, or the shell in between).
    gaps = sum(
        max(0, steps[b][0] - steps[a][1]) for a, b in zip(path, path[1:])) + steps[path[0]][0]
    print(f"critical path: {total - gaps} s in its steps, {gaps} s between them")


if __name__ == "__main__":
    main(sys.argv[1])
