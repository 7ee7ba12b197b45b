#!/usr/bin/env python3
"""The manual pages of alarm, alarmd, alarm-hooks, alarm-button, alarm-web and alarm-stream: what scripts/install
does around swift-argument-parser's generate-manual (issue #32). Deterministic: the same input
gives the same page, byte for byte.

  manpage.py help-json IN OUT
      The program's --experimental-dump-help, without the `help` subcommand ArgumentParser
      lists for every root command: a program with no other subcommand has none (alarmd,
      alarm-hooks, alarm-button and alarm-web take no subcommand; their page said
      "alarmd subcommand" and listed `help`). `alarm help` exists and stays. Text that is not
      ASCII, which generate-manual would drop, is written in ASCII (an ellipsis as ...).
  manpage.py finish PAGE [SECTIONS] [--os "alarm VERSION"]
      Rewrites the generated mdoc PAGE so that `mandoc -T lint` finds nothing in it:
       - a line break in a help text is one on the page, as in --help (consecutive text lines
         get .br; a blank line, a paragraph break, becomes .Pp);
       - each sentence starts a new line (mdoc's rule, mandoc's "new sentence, new line");
       - the one-line description (.Nd) ends without a period;
       - text lines are folded at 80 bytes;
       - the footer names the package and its version (.Os alarm VERSION): generate-manual
         writes a bare .Os, which groff shows as "BSD" and mandoc as the viewer's own system;
      and merges the hand-written sections of SECTIONS (man/sections/PROGRAM.SECTION, mdoc, in
      page order): a section the page has (EXIT STATUS) is extended, the others go before or
      after EXIT STATUS as they stand before or after it in SECTIONS.
"""
import json
import re
import sys

WIDTH = 80


# generate-manual drops every character that is not ASCII (String+Escaping.swift): "another
# format, ...)" lost its ellipsis. These are written in ASCII instead; any other is an error, so
# that no text goes missing from a page unseen.
ASCII = {"\u2026": "...", "\u2013": "-", "\u2014": "--", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}


def ascii_only(value):
    if isinstance(value, str):
        text = "".join(ASCII.get(c, c) for c in value)
        other = sorted({c for c in text if ord(c) > 127})
        if other:
            sys.exit(f"manpage.py: help text with {' '.join(other)}, which generate-manual would drop: {text!r}")
        return text
    if isinstance(value, list):
        return [ascii_only(v) for v in value]
    if isinstance(value, dict):
        return {k: ascii_only(v) for k, v in value.items()}
    return value


def help_json(src, dst):
    with open(src) as f:
        info = ascii_only(json.load(f))
    command = info["command"]
    subcommands = [s for s in command.get("subcommands") or [] if s.get("commandName") != "help"]
    if not subcommands:
        command.pop("subcommands", None)
    with open(dst, "w") as f:
        json.dump(info, f, indent=2, sort_keys=True)
        f.write("\n")


def is_text(line):
    return line != "" and not line.startswith((".", "'"))


def safe_start(line):
    """A text line must not start with a control character or a blank."""
    line = line.lstrip(" ")
    return "\\&" + line if line.startswith((".", "'")) else line


def sentences(line):
    """Splits a text line where mandoc sees a new sentence: a period after two letters or
    digits, then a blank (its rule in mdoc_ptext)."""
    out, start = [], 0
    for m in re.finditer(r"(?<=[A-Za-z0-9]{2})\. +(?=[^ .])", line):
        word = line[max(0, m.start() - 2) : m.start()]
        if word in ("nc", "vs"):
            continue
        out.append(line[start : m.start() + 1])
        start = m.end()
    out.append(line[start:])
    return [safe_start(s) for s in out if s]


def fold(line):
    """Folds a text line at blanks to WIDTH bytes, never after a word ending in a period (roff
    would take it for a sentence's end)."""
    out = []
    while len(line.encode()) > WIDTH:
        cut = -1
        for m in re.finditer(r" +", line):
            if len(line[: m.start()].encode()) > WIDTH:
                break
            if not line[: m.start()].endswith(".") and m.start() > 0:
                cut = m
        if cut == -1:
            break
        out.append(line[: cut.start()])
        line = safe_start(line[cut.end() :])
    out.append(line)
    return out


def tidy(lines):
    out = []
    for i, line in enumerate(lines):
        if line.startswith(".Nd "):
            line = re.sub(r'\.(")?$', r"\1", line)
        if line == "":
            out.append(".Pp")
            continue
        if is_text(line) and out and is_text(out[-1]):
            out.append(".br")
        out.extend(sentences(line) if is_text(line) else [line])
    folded = []
    for line in out:
        folded.extend(fold(line) if is_text(line) else [line])
    # .Pp right after a section heading or before one is redundant (mandoc warns).
    result = []
    for i, line in enumerate(folded):
        nxt = folded[i + 1] if i + 1 < len(folded) else ".Sh"
        if line == ".Pp" and (result[-1].startswith((".Sh", ".Pp")) or nxt.startswith((".Sh", ".Pp"))):
            continue
        result.append(line)
    return result


def split_sections(lines):
    """[(title or None for the preamble, [lines])]"""
    parts = [(None, [])]
    for line in lines:
        if line.startswith(".Sh "):
            parts.append((line[4:].strip().strip('"').upper(), [line]))
        else:
            parts[-1][1].append(line)
    return parts


def merge(page, extra):
    page_parts = split_sections(page)
    extra_parts = [p for p in split_sections(extra) if p[0] is not None]
    titles = [t for t, _ in page_parts]
    anchor = titles.index("EXIT STATUS") if "EXIT STATUS" in titles else len(page_parts)
    before, after, extend = [], [], {}
    seen_exit = False
    for title, body in extra_parts:
        if title == "EXIT STATUS":
            seen_exit = True
        if title in titles:
            extend[title] = body[1:]
        elif seen_exit:
            after.append(body)
        else:
            before.append(body)
    result = []
    for index, (title, body) in enumerate(page_parts):
        if index == anchor:
            for b in before:
                result.extend(b)
        result.extend(body)
        result.extend(extend.get(title, []))
        if index == anchor:
            for b in after:
                result.extend(b)
    if anchor == len(page_parts):
        for b in before + after:
            result.extend(b)
    return result


def finish(path, sections=None, os_name=None):
    with open(path) as f:
        page = tidy(f.read().splitlines())
    if os_name:
        page = [f".Os {os_name}" if line == ".Os" else line for line in page]
    if sections:
        with open(sections) as f:
            extra = [line for line in f.read().splitlines() if not line.startswith('.\\"')]
        page = merge(page, extra)
    with open(path, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "help-json":
        help_json(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (3, 4, 5, 6) and sys.argv[1] == "finish":
        args = sys.argv[2:]
        os_name = None
        if "--os" in args:
            i = args.index("--os")
            if i + 1 >= len(args):
                sys.exit(__doc__)
            os_name = args[i + 1]
            del args[i : i + 2]
        if len(args) not in (1, 2):
            sys.exit(__doc__)
        finish(*args, os_name=os_name)
    else:
        sys.exit(__doc__)
