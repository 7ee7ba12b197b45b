import Foundation
import Glibc
import Testing

@testable import AlarmSystem

/// Issue #42: the state directory's files are opened without following links, as regular files
/// only, never waiting on a FIFO, and only up to a size cap.
@Suite struct RegularFileTests {
    /// Runs `body` on a thread and waits at most `seconds` for it: a read that would hang fails
    /// the test instead of hanging it (the thread is left behind, blocked).
    func within(_ seconds: Double, _ body: @escaping @Sendable () -> String) -> String? {
        final class Box: @unchecked Sendable { var value: String? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.value = body()
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success ? box.value : nil
    }

    func reason(_ body: () throws -> Void) -> FileRefusal.Reason? {
        do { try body() } catch let r as FileRefusal { return r.reason } catch { return nil }
        return nil
    }

    @Test func aFIFOIsRefusedAtOnceNotWaitedOn() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("alarms.json")
        #expect(mkfifo(path, 0o600) == 0)
        let outcome = within(5) { () -> String in
            do {
                _ = try AtomicFile.read(path, limit: 1 << 20)
                return "read"
            } catch { return "\(error)" }
        }
        let text = try #require(outcome, "reading a FIFO hung")
        #expect(text.contains("is a FIFO, not a regular file"), "\(text)")
        let mapped = within(5) { () -> String in
            do { return try AtomicFile.withMapped(path, limit: 1 << 20) { _ in "read" } } catch { return "\(error)" }
        }
        #expect(mapped?.contains("a FIFO") == true, "\(mapped ?? "hung")")
        #expect(reason { _ = try AtomicFile.append([1], to: path) } == .notRegular("a FIFO"))
    }

    @Test func aSparse100GiBFileIsRefusedBySizeWithoutReadingIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("alarms.json")
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 100 << 30) == 0)
        close(fd)
        let start = Date()
        #expect(
            reason { _ = try AtomicFile.read(path, limit: 16 << 20) } == .tooLarge(size: 100 << 30, limit: 16 << 20))
        #expect(reason { _ = try AtomicFile.withMapped(path, limit: 16 << 20) { _ in 0 } } != nil)
        #expect(Date().timeIntervalSince(start) < 2)
        do { _ = try AtomicFile.read(path, limit: 16 << 20) } catch {
            #expect("\(error)".contains("is 100 GiB, more than the 16 MiB it may be"), "\(error)")
        }
    }

    @Test func aFileWithinTheCapIsReadWhole() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.sub("f")
        try AtomicFile.write(Array(repeating: 7, count: 1000), to: path)
        #expect(try AtomicFile.read(path, limit: 1000)?.count == 1000)
        #expect(reason { _ = try AtomicFile.read(path, limit: 999) } == .tooLarge(size: 1000, limit: 999))
        #expect(try AtomicFile.read(dir.sub("none"), limit: 10) == nil)
    }

    @Test func aSymbolicLinkIsNotFollowedForReadingOrLocking() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try AtomicFile.write(Array("secret".utf8), to: dir.sub("target"))
        #expect(symlink(dir.sub("target"), dir.sub("alarms.json")) == 0)
        #expect(reason { _ = try AtomicFile.read(dir.sub("alarms.json"), limit: 100) } == .symbolicLink)
        // A dangling link as the lock: refused, and its target never created.
        #expect(symlink(dir.sub("made-by-the-lock"), dir.sub("alarms.lock")) == 0)
        #expect(reason { _ = try FileLock(path: dir.sub("alarms.lock"), timeout: 0.1) } == .symbolicLink)
        #expect(!FileManager.default.fileExists(atPath: dir.sub("made-by-the-lock")))
        #expect(reason { try AtomicFile.append([1], to: dir.sub("alarms.lock")) } == .symbolicLink)
        #expect(!FileManager.default.fileExists(atPath: dir.sub("made-by-the-lock")))
    }

    @Test func aDirectoryInPlaceOfAFileIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.sub("state.json"), withIntermediateDirectories: false)
        #expect(reason { _ = try AtomicFile.read(dir.sub("state.json"), limit: 100) } == .notRegular("a directory"))
        #expect(reason { _ = try FileLock(path: dir.sub("state.json"), timeout: 0.1) } == .notRegular("a directory"))
        #expect(reason { try AtomicFile.append([1], to: dir.sub("state.json")) } == .notRegular("a directory"))
        #expect(reason { _ = try ReadingFile(path: dir.sub("state.json")) } == .notRegular("a directory"))
    }

    @Test func aDeviceIsRefused() throws {
        #expect(reason { _ = try AtomicFile.read("/dev/zero", limit: 100) } == .notRegular("a character device"))
    }

    @Test func locksAndAppendsMadeWithExactPermissionsAreSoWhateverTheUmask() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        // Group-writable modes, which the test process's umask (022, or 077: the umask is not
        // changed here, other tests run beside this one) would take away. AlarmStateTests run
        // `alarm add`'s store under umask 077 in a child.
        let lock = try FileLock(path: dir.sub("alarms.lock"), timeout: 1, permissions: 0o660, ignoringUmask: true)
        try AtomicFile.append([1], to: dir.sub("history.jsonl"), permissions: 0o664, ignoringUmask: true)
        try AtomicFile.write([1], to: dir.sub("alarms.json"), permissions: 0o660, ignoringUmask: true)
        lock.unlock()
        func mode(_ name: String) -> UInt32 {
            var st = stat()
            return lstat(dir.sub(name), &st) == 0 ? UInt32(st.st_mode) & 0o7777 : 0
        }
        #expect(mode("alarms.lock") == 0o660)
        #expect(mode("history.jsonl") == 0o664)
        #expect(mode("alarms.json") == 0o660)
    }

    @Test func anOwnLockFileMadeTooNarrowGetsItsModeBack() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let fd = open(dir.sub("alarms.lock"), O_WRONLY | O_CREAT, 0o600)
        close(fd)
        #expect(chmod(dir.sub("alarms.lock"), 0o600) == 0)
        try FileLock.withLock(dir.sub("alarms.lock"), timeout: 1, permissions: 0o660, ignoringUmask: true) {}
        var st = stat()
        #expect(stat(dir.sub("alarms.lock"), &st) == 0)
        #expect(UInt32(st.st_mode) & 0o777 == 0o660)
    }

    @Test func sizesAreSpokenAsPeopleSayThem() {
        #expect(FileRefusal.spoken(bytes: 12) == "12 bytes")
        #expect(FileRefusal.spoken(bytes: 16 << 20) == "16 MiB")
        #expect(FileRefusal.spoken(bytes: 100 << 30) == "100 GiB")
        #expect(FileRefusal.spoken(bytes: 1536) == "1.5 KiB")
    }
}
