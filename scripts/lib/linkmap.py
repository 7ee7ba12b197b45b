"""What alarm's release binaries link, for scripts/licences (issue #32): the resolved dependency
graph (checked against Package.resolved), the targets and toolchain archives each binary's link
kept, and, for the arm64 cross build (use_cross), the translation of the paths the compiler root
saw and the symbols of the linker's map. See scripts/licences for how each is matched.
Python 3, standard library only."""

import json
import os
import re
import subprocess
from collections import defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Failure(Exception):
    pass


# --cross: (prefix as the compiler root names it, the same file here), most specific first.
TRANSLATE = []
# --cross: the target root whose swift_static holds the archives the binaries were linked with.
CROSS_SDK = None


def use_cross(sdk, cache):
    """Reads the arm64 cross build under CACHE (the checkout is /src in its compiler root, its
    checkouts the same pinned revisions as .build/checkouts) linked against SDK's archives."""
    global CROSS_SDK
    CROSS_SDK = sdk
    rel = os.path.relpath(cache, REPO)
    TRANSLATE[:] = [(f"/src/{rel}/release/checkouts/", os.path.join(REPO, ".build", "checkouts") + os.sep),
                    ("/src/", REPO + os.sep)]


def host_path(path):
    for there, here in TRANSLATE:
        if path.startswith(there):
            return here + path[len(there):]
    return path


def run(args, cwd=REPO):
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise Failure(f"{' '.join(args[:4])}... failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# ---- the resolved graph ---------------------------------------------------------------------

def dependencies():
    """identity -> {name, url, version, revision, path}, the graph SwiftPM resolved, checked
    against Package.resolved."""
    pins = {p["identity"]: p for p in json.loads(read(os.path.join(REPO, "Package.resolved")))["pins"]}
    out = run(["swift", "package", "show-dependencies", "--format", "json"])
    tree = json.loads(out[out.index("{"):])
    found = {}

    def walk(node):
        for dep in node.get("dependencies", []):
            ident = dep["identity"]
            pin = pins.get(ident)
            if pin is None:
                raise Failure(f"{ident} is in the dependency graph but not in Package.resolved")
            if pin["state"].get("version") != dep["version"]:
                raise Failure(f"{ident}: the graph has {dep['version']}, Package.resolved pins "
                              f"{pin['state'].get('version')}")
            found[ident] = {"name": dep["name"], "url": dep["url"].removesuffix(".git"),
                            "version": dep["version"], "revision": pin["state"]["revision"],
                            "path": dep["path"]}
            walk(dep)

    walk(tree)
    return found


# ---- the link map ---------------------------------------------------------------------------

WEAK = set("WwVvu")


def symbols(paths, globals_only):
    """path -> the symbols the file (object or archive: all its members) defines. Weak symbols
    are left out of the global ones: an inline function defined in many libraries says nothing
    about which of them is linked."""
    result = defaultdict(set)
    args = ["nm", "--defined-only", "--format=posix", "--no-sort"] + (["--extern-only"] if globals_only else [])
    for start in range(0, len(paths), 200):
        batch = paths[start:start + 200]
        current = batch[0]
        for line in run(args + batch).splitlines():
            if not line:
                continue
            if line.endswith(":") and " " not in line:
                name = line[:-1]
                # "archive.a[member.o]:" or "object.o:"
                base = name.split("[", 1)[0]
                current = base if base in batch else current
                continue
            fields = line.rsplit(" ", 3) if line.count(" ") >= 3 else line.split(" ")
            name, kind = (fields[0], fields[1]) if len(fields) >= 2 else (fields[0], "?")
            if globals_only and kind in WEAK:
                continue
            result[current].add(name)
    return result


def linked_targets(bin_dir, product):
    """target -> (its source files, whether its code is in the binary)."""
    binary = os.path.join(bin_dir, product)
    listing = os.path.join(bin_dir, f"{product}.product", "Objects.LinkFileList")
    if not os.path.exists(binary) or not os.path.exists(listing):
        raise Failure(f"no release build of {product} in {bin_dir}: run swift build -c release "
                      f"--static-swift-stdlib --product {product}")
    objects = [host_path(line.strip().strip("'\"")) for line in read(listing).splitlines() if line.strip()]
    in_binary = map_symbols(binary + ".map") if CROSS_SDK else symbols([binary], False)[binary]
    if not any(name.startswith("$s") for name in in_binary):
        raise Failure(f"{binary} has no symbol table (stripped?): the link map needs the unstripped binary")
    by_target = defaultdict(list)  # target -> its .build directory and objects
    for obj in objects:
        parts = os.path.relpath(obj, os.path.realpath(bin_dir)).split(os.sep)
        if len(parts) < 2 or not parts[0].endswith(".build"):
            raise Failure(f"{product}: the linker's object {obj} is not in a target's build directory")
        by_target[parts[0]].append(obj)
    defined = symbols(objects, True)
    result = {}
    for build_dir, objs in by_target.items():
        mine = set().union(*(defined[o] for o in objs))
        directory = os.path.join(os.path.realpath(bin_dir), build_dir)
        # A Swift module handed to the linker counts even when none of its own symbols is left:
        # its @inlinable and generic code is compiled into the modules that use it, under their
        # names. A C target counts only with a symbol in the binary (swift-nio's Darwin, Windows
        # and WASI shims compile to nothing on Linux).
        swift = os.path.exists(os.path.join(directory, "sources"))
        result[build_dir.removesuffix(".build")] = (sources_of(directory), swift or bool(mine & in_binary))
    return result, in_binary


def map_symbols(path):
    """The symbols an lld map file (-Map) lists: those of the input sections the link kept."""
    if not os.path.exists(path):
        raise Failure(f"no linker map {path}: the cross build writes it (scripts/lib/cross.sh, -Map)")
    found = set()
    # "VMA LMA Size Align Out In Symbol": an output section, an input section one level in, a
    # symbol two levels in.
    row = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+ {17}(\S.*)$")
    for line in read(path).splitlines():
        m = row.match(line)
        if m:
            found.add(m.group(1))
    return found


def sources_of(build_dir):
    """The source files a target's build directory was compiled from: a Swift module's `sources`
    list, a C target's dependency files (.d)."""
    listed = os.path.join(build_dir, "sources")
    if os.path.exists(listed):
        return sorted(host_path(line.strip().strip("'\"")) for line in read(listed).splitlines() if line.strip())
    found = set()
    for root, _, names in sorted(os.walk(build_dir)):
        for name in sorted(n for n in names if n.endswith(".d")):
            text = read(os.path.join(root, name)).replace("\\\n", " ")
            paths = [host_path(p) for p in text.split(":", 1)[-1].split()]
            # The compiled file, then the headers of its own package (not the system's).
            home = os.path.dirname(paths[0]).split(os.sep + "Sources" + os.sep)[0]
            found.update(p for p in paths if p == paths[0] or p.startswith(home + os.sep))
    return sorted(found)


def toolchain_static_dir():
    if CROSS_SDK:
        return os.path.join(CROSS_SDK, "usr", "lib", "swift_static", "linux")
    info = json.loads(run(["swiftc", "-print-target-info"]))
    resource = info["paths"]["runtimeResourcePath"]
    return os.path.join(os.path.dirname(resource), "swift_static", "linux")


def linked_toolchain(in_binary):
    """archive name -> linked?, for every static library of the toolchain."""
    static = toolchain_static_dir()
    files = sorted(os.path.join(static, f) for f in os.listdir(static) if f.endswith(".a"))
    arch_dir = [os.path.join(static, d) for d in sorted(os.listdir(static)) if os.path.isdir(os.path.join(static, d))]
    files += [os.path.join(d, "swiftrt.o") for d in arch_dir if os.path.exists(os.path.join(d, "swiftrt.o"))][:1]
    defined = symbols(files, True)
    return {os.path.basename(f): bool(defined[f] & in_binary) for f in files}
