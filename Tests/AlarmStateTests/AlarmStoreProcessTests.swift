import AlarmCore
import AlarmTestSupport
import Foundation
import Testing

@testable import AlarmState

/// Two real processes and this one writing the same store at once: the test binary runs itself
/// again, filtered to `childWriter`, which only runs when the parent asks for it.
@Suite struct AlarmStoreProcessTests {
    static let childDir = ProcessInfo.processInfo.environment["ALARM_STORE_CHILD_DIR"]
    static let childName = ProcessInfo.processInfo.environment["ALARM_STORE_CHILD_NAME"] ?? "child"

    static func writeMany(_ dir: String, _ name: String) throws {
        let store = AlarmStore(stateDir: dir, lockTimeout: 60)
        for i in 0..<30 {
            try store.add(Alarm(id: "\(name)-\(i)", trigger: .calendar(try CalendarExpression("07:\(10 + i)"))))
        }
    }

    @Test(.enabled(if: childDir != nil, "runs only as the child of twoProcessesAndThreadsLoseNothing"))
    func childWriter() throws {
        try Self.writeMany(Self.childDir!, Self.childName)
    }

    @Test(.enabled(if: childDir == nil))
    func twoProcessesAndThreadsLoseNothing() async throws {
        let dir = try stateDirectory()
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var children: [Process] = []
        for name in ["p1", "p2"] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: me)
            p.arguments = ["--testing-library", "swift-testing", "--filter", "childWriter"]
            var env = ProcessInfo.processInfo.environment
            env["ALARM_STORE_CHILD_DIR"] = dir
            env["ALARM_STORE_CHILD_NAME"] = name
            p.environment = env
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            children.append(p)
        }
        try Self.writeMany(dir, "parent")
        for p in children {
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        }
        let ids = Set(try AlarmStore(stateDir: dir).load().map(\.id))
        #expect(ids.count == 90)
        for name in ["p1", "p2", "parent"] {
            #expect(ids.isSuperset(of: (0..<30).map { "\(name)-\($0)" }), "all of \(name)'s alarms")
        }
    }
}
