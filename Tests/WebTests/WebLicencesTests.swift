import AlarmTestSupport
import Foundation
import Testing

/// `alarm-web --licences` (issue #32): the licences of what alarm-web links, as its package ships them.
@Suite("alarm-web --licences: the copyright of what alarm-web links (the built binary)")
struct WebLicencesTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("alarm-web --licences prints debian/alarm-web.copyright: Hummingbird, SwiftNIO, llhttp's MIT licence")
    func webLicences() throws {
        let r = try Binaries.run("alarm-web", ["--licences"])
        #expect(r.status == 0, "alarm-web --licences: \(r.stderr)")
        let file = try String(
            contentsOf: Self.repo.appendingPathComponent("debian/alarm-web.copyright"), encoding: .utf8)
        #expect(r.stdout == file, "alarm-web --licences differs from debian/alarm-web.copyright: run scripts/licences")
        for word in [
            "hummingbird 2.", "swift-nio 2.", "llhttp", "MIT License", "License: Expat", "cpp_magic.h", "Fedor Indutny",
            "The SwiftNIO Project",
        ] {
            #expect(r.stdout.contains(word), "alarm-web --licences does not name \(word)")
        }
    }
}
