#!/usr/bin/env python3
"""Installs the user documentation into one flat directory (/usr/share/doc/alarm), with its
links made true there (issue #30): a relative link to a document installed beside it is
rewritten to its flat name (README's `docs/using.md` becomes `using.md`); a link to anything
not installed (the developer docs, scripts, the benchmarks) keeps its text and loses the link.
`--check DIR` instead says which relative links in DIR's .md files lead nowhere (exit 1).

    install-docs.py DEST FILE.md...
    install-docs.py --check DIR
"""
import os, re, sys

LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def is_relative(target):
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and not target.startswith("#")


def rewrite(text, installed):
    def one(m):
        bang, label, target = m.groups()
        if not is_relative(target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        name = os.path.basename(path)
        if name in installed:
            return "%s[%s](%s%s)" % (bang, label, name, "#" + anchor if anchor else "")
        return label
    return LINK.sub(one, text)


def check(directory):
    bad = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".md"):
            continue
        text = open(os.path.join(directory, name), encoding="utf-8").read()
        for m in LINK.finditer(text):
            target = m.group(3)
            if is_relative(target):
                path = target.partition("#")[0]
                if path and not os.path.exists(os.path.join(directory, path)):
                    bad.append("%s: [%s](%s)" % (name, m.group(2), target))
    return bad


if __name__ == "__main__":
    if sys.argv[1:2] == ["--check"]:
        bad = check(sys.argv[2])
        for b in bad:
            print("install-docs: a link that leads nowhere: " + b, file=sys.stderr)
        sys.exit(1 if bad else 0)
    dest, files = sys.argv[1], sys.argv[2:]
    installed = {os.path.basename(f) for f in files}
    os.makedirs(dest, exist_ok=True)
    for f in files:
        text = open(f, encoding="utf-8").read()
        out = os.path.join(dest, os.path.basename(f))
        with open(out, "w", encoding="utf-8") as o:
            o.write(rewrite(text, installed))
        os.chmod(out, 0o644)
