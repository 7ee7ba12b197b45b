import AlarmTestSupport
import Foundation
import Testing

/// `alarm licences` (issue #32): the licences of what the binary links, as the package ships them.
@Suite("alarm licences: the copyright of what alarm links (the built binary)")
struct LicencesTests {
    /// The checkout this test was built from: debian/copyright is there.
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("alarm licences prints debian/copyright: its packages and the runtime, nothing only alarm-web links")
    func alarmLicences() throws {
        let r = try Binaries.run("alarm", ["licences"])
        #expect(r.status == 0, "alarm licences: \(r.stderr)")
        let file = try String(contentsOf: Self.repo.appendingPathComponent("debian/copyright"), encoding: .utf8)
        #expect(r.stdout == file, "alarm licences differs from debian/copyright: run scripts/licences and rebuild")
        for word in [
            "swift-argument-parser", "swift-log", "Apache-2.0", "Runtime Library Exception",
            "libFoundationEssentials.a", "swift-corelibs-libdispatch",
        ] {
            #expect(r.stdout.contains(word), "alarm licences does not name \(word)")
        }
        for word in ["checkouts/hummingbird", "checkouts/swift-nio/", "llhttp"] {
            #expect(!r.stdout.contains(word), "alarm licences names \(word), which only alarm-web links")
        }
    }
}
