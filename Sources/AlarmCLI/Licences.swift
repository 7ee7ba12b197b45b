import ArgumentParser

/// `alarm licences`: the copyright and licences of everything linked into this binary.
///
/// The text is the package's /usr/share/doc/alarm/copyright, byte for byte: scripts/licences
/// writes both from the pinned dependencies and the binary's link map, and its `--check` (CI)
/// fails when the copy embedded here differs from what generation gives, so it cannot drift
/// and it works without the package installed.
struct Licences: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "licences",
        abstract: "Print the copyright and licences of alarm and of what it links (Swift runtime, packages).")

    func run() {
        print(String(decoding: PackageResources.copyright, as: UTF8.self), terminator: "")
    }
}
