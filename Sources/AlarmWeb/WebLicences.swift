import ArgumentParser

/// `alarm-web licences`: the copyright and licences of everything linked into alarm-web.
///
/// The text is the package's /usr/share/doc/alarm-web/copyright, byte for byte: scripts/licences
/// writes both from the pinned dependencies and the binary's link map, and its `--check` (CI)
/// fails when the copy embedded here differs from what generation gives.
struct WebLicences: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "licences",
        abstract: "Print the copyright and licences of alarm-web and of what it links (Hummingbird, SwiftNIO...).")

    func run() {
        print(String(decoding: PackageResources.copyright, as: UTF8.self), terminator: "")
    }
}
