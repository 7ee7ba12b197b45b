import AlarmCore
import AlarmSystem
import AlarmTestSupport
import Foundation
import Glibc
import Testing

@testable import AlarmState

/// Issue #42: nothing a housemate, a group member or a power cut does to the state directory
/// loses an alarm.
@Suite struct StateFileSafetyTests {
    static let umaskChildDir = ProcessInfo.processInfo.environment["ALARM_UMASK_CHILD_DIR"]

    func mode(_ path: String) -> UInt32 {
        var st = stat()
        return lstat(path, &st) == 0 ? UInt32(st.st_mode) & 0o7777 : 0
    }

    @Test(.enabled(if: umaskChildDir != nil, "runs only as the child of addUnderUmask077"))
    func umaskChild() throws {
        umask(0o077)
        let store = AlarmStore(stateDir: Self.umaskChildDir!)
        try store.add(try daily("a"))
        try store.add(try daily("b"))
    }

    @Test("issue #42: alarm add under umask 077 leaves alarms.json, its backup and alarms.lock 0660")
    func addUnderUmask077() throws {
        guard Self.umaskChildDir == nil else { return }
        let dir = try stateDirectory()
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: me)
        p.arguments = ["--testing-library", "swift-testing", "--filter", "umaskChild"]
        p.environment = ProcessInfo.processInfo.environment.merging(["ALARM_UMASK_CHILD_DIR": dir]) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        for name in ["alarms.json", "alarms.json.bak", "alarms.lock"] {
            #expect(mode(dir + "/" + name) == 0o660, "\(name): \(String(mode(dir + "/" + name), radix: 8))")
        }
        #expect(try AlarmStore(stateDir: dir).load().map(\.id) == ["a", "b"])
    }

    @Test(
        "issue #42: an empty alarms.json with a good backup gives the backup's alarms with a note, and the next change keeps the backup"
    )
    func emptyStoreWithAGoodBackup() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        try store.add(try daily("a"))
        try store.add(try daily("b"))
        let backup = try Data(contentsOf: URL(fileURLWithPath: store.backupPath))
        #expect(truncate(store.path, 0) == 0)

        let contents = try store.read()
        #expect(contents.alarms.map(\.id) == ["a"])
        let note = try #require(contents.note)
        #expect(note.contains("is empty") && note.contains("alarms.json.bak") && note.contains("1 alarm"), "\(note)")
        #expect(try store.load().map(\.id) == ["a"])
        // alarmd's reading refuses it as a damaged file, so it keeps or rings the backup.
        #expect(throws: StoreError.self) { _ = try store.bytes() }

        try store.add(try daily("c"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.backupPath)) == backup, "the backup was overwritten")
        #expect(try store.read() == AlarmStore.Contents(alarms: [try daily("a"), try daily("c")], note: nil))
    }

    @Test("an empty alarms.json without a backup, or with an empty one, is an empty list")
    func emptyStoreWithoutABackup() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        FileManager.default.createFile(atPath: store.path, contents: Data())
        #expect(try store.read() == AlarmStore.Contents(alarms: [], note: nil))
        FileManager.default.createFile(atPath: store.backupPath, contents: Data("[]\n".utf8))
        #expect(try store.read() == AlarmStore.Contents(alarms: [], note: nil))
        #expect(try store.bytes() == [])
        try store.add(try daily("a"))
        #expect(try store.load().map(\.id) == ["a"])
    }

    @Test("issue #42: a FIFO as alarms.json is refused at once with what it is; the list is not read")
    func fifoStore() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        #expect(mkfifo(store.path, 0o660) == 0)
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var text = "" }
        let box = Box()
        Thread.detachNewThread {
            do { _ = try store.load() } catch { box.text = "\(error)" }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 5) == .success, "loading a FIFO store hung")
        #expect(box.text.contains("it is a FIFO, not a regular file"), "\(box.text)")
        #expect(throws: StoreError.self) { try store.add(try daily("a")) }
    }

    @Test("issue #42: a 100 GiB sparse alarms.json is refused by its size, saying the cap")
    func hugeStore() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        FileManager.default.createFile(atPath: store.path, contents: Data())
        #expect(truncate(store.path, 100 << 30) == 0)
        let start = Date()
        #expect {
            try store.load()
        } throws: { error in
            "\(error)".contains("it is 100 GiB, more than the 16 MiB an alarm list may be")
        }
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test("issue #42: a symbolic link as alarms.lock is refused and its target is not created")
    func symlinkLock() throws {
        let dir = try stateDirectory()
        let store = AlarmStore(stateDir: dir)
        #expect(symlink(dir + "/elsewhere", dir + "/alarms.lock") == 0)
        #expect {
            try store.add(try daily("a"))
        } throws: { error in
            "\(error)".contains("symbolic link")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere"))
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test("issue #42: a directory as state.json or the history is refused; the state file is set aside by rename")
    func directoriesInPlace() throws {
        let dir = try stateDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/state.json", withIntermediateDirectories: false)
        let state = StateFile(stateDir: dir)
        #expect {
            try state.load()
        } throws: { error in
            "\(error)".contains("it is a directory, not a regular file")
        }
        _ = try state.setAside()
        #expect(try state.load() == nil)
        try FileManager.default.createDirectory(atPath: dir + "/history.jsonl", withIntermediateDirectories: false)
        #expect(throws: StoreError.self) { _ = try HistoryLog(stateDir: dir).read() }
    }
}
