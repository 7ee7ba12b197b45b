import Foundation
import Testing

@testable import AlarmSystem

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "alarm-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite struct AtomicFileTests {
    @Test func writeThenReadGivesTheBytesBack() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/a.json"
        try AtomicFile.write(Array("hello".utf8), to: path)
        #expect(try AtomicFile.read(path) == Array("hello".utf8))
        try AtomicFile.write(Array("second, longer content".utf8), to: path)
        #expect(try AtomicFile.read(path) == Array("second, longer content".utf8))
        try AtomicFile.write([], to: path)
        #expect(try AtomicFile.read(path) == [])
    }

    @Test func readingAMissingFileGivesNil() throws {
        let dir = try temporaryDirectory()
        #expect(try AtomicFile.read(dir + "/nothing") == nil)
    }

    @Test func largeFilesRoundTrip() throws {
        let dir = try temporaryDirectory()
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try AtomicFile.write(bytes, to: dir + "/big")
        #expect(try AtomicFile.read(dir + "/big") == bytes)
    }

    @Test func aMappedFileGivesTheBytesReadGives() throws {
        let dir = try temporaryDirectory()
        let bytes = (0..<300_001).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try AtomicFile.write(bytes, to: dir + "/big")
        #expect(try AtomicFile.withMapped(dir + "/big") { $0.map(Array.init) } == bytes)
        // Absent: nil; empty (nothing to map): no bytes; a FIFO is read, not mapped.
        #expect(try AtomicFile.withMapped(dir + "/nothing") { $0 == nil })
        try AtomicFile.write([], to: dir + "/empty")
        #expect(try AtomicFile.withMapped(dir + "/empty") { $0.map(Array.init) } == [])
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        let writer = Thread {
            let fd = open(dir + "/fifo", O_WRONLY)
            _ = "piped".withCString { write(fd, $0, 5) }
            close(fd)
        }
        writer.start()
        #expect(try AtomicFile.withMapped(dir + "/fifo") { $0.map(Array.init) } == Array("piped".utf8))
        // A file replaced (by rename, as every write here) while mapped: the mapping keeps
        // the version it had.
        try AtomicFile.write(Array("old".utf8), to: dir + "/swap")
        let seen = try AtomicFile.withMapped(dir + "/swap") { buffer -> [UInt8] in
            try AtomicFile.write(Array("new content".utf8), to: dir + "/swap")
            return Array(buffer!)
        }
        #expect(seen == Array("old".utf8))
    }

    @Test func noTemporaryFilesAreLeftBehind() throws {
        let dir = try temporaryDirectory()
        for i in 0..<5 { try AtomicFile.write(Array("\(i)".utf8), to: dir + "/state.json") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state.json"])
    }

    @Test func permissionsAreApplied() throws {
        let dir = try temporaryDirectory()
        try AtomicFile.write([1], to: dir + "/p", permissions: 0o600)
        let attrs = try FileManager.default.attributesOfItem(atPath: dir + "/p")
        #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func failureNamesTheCallAndLeavesNothing() throws {
        let dir = try temporaryDirectory()
        #expect {
            try AtomicFile.write([1], to: dir + "/missing-dir/x")
        } throws: { error in
            guard let e = error as? SystemError else { return false }
            return e.errno == ENOENT && e.call.hasPrefix("open ") && e.description.contains("No such file")
        }
        // Renaming over a directory fails after the temp file was written: the temp file goes.
        try FileManager.default.createDirectory(atPath: dir + "/adir/inner", withIntermediateDirectories: true)
        #expect(throws: SystemError.self) { try AtomicFile.write([1], to: dir + "/adir") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["adir"])
    }

    @Test func appendAddsToTheEnd() throws {
        let dir = try temporaryDirectory()
        try AtomicFile.append(Array("one\n".utf8), to: dir + "/h")
        try AtomicFile.append(Array("two\n".utf8), to: dir + "/h")
        #expect(try AtomicFile.read(dir + "/h") == Array("one\ntwo\n".utf8))
    }

    @Test func readersSeeTheOldOrTheNewContentNeverAMix() async throws {
        let dir = try temporaryDirectory()
        let path = dir + "/swap"
        let a = [UInt8](repeating: UInt8(ascii: "a"), count: 200_000)
        let b = [UInt8](repeating: UInt8(ascii: "b"), count: 150_000)
        try AtomicFile.write(a, to: path)
        let writer = Task.detached {
            for i in 0..<60 { try AtomicFile.write(i % 2 == 0 ? b : a, to: path) }
        }
        var reads = 0
        var torn = 0
        while reads < 2000 {
            let got = try AtomicFile.read(path)
            if got != a && got != b { torn += 1 }
            reads += 1
        }
        try await writer.value
        #expect(torn == 0)
    }
}
