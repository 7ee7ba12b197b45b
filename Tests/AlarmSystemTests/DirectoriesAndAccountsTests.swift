import AlarmSystem
import Foundation
import Glibc
import Testing

@Suite("Directories and Accounts")
struct DirectoriesTests {
    private func mode(_ path: String) -> UInt32 {
        var info = stat()
        precondition(stat(path, &info) == 0)
        return UInt32(info.st_mode & 0o7777)
    }

    @Test("mkdir -p creates every missing level with the exact mode, leaves existing ones alone")
    func makeDirectories() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        #expect(chmod(dir.path, 0o711) == 0)
        let deep = dir.sub("var/lib/alarm")
        let old = Directories.setUmask(0o077)
        defer { Directories.setUmask(old) }
        try Directories.create(deep, mode: 0o750)
        #expect(mode(dir.sub("var")) == 0o750)
        #expect(mode(deep) == 0o750)
        #expect(mode(dir.path) == 0o711, "an existing parent keeps its mode")
        try Directories.create(deep + "/", mode: 0o700)  // again: no error, no change
        #expect(mode(deep) == 0o750)
    }

    @Test("mkdir -p through a file fails with ENOTDIR")
    func fileInTheWay() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        _ = FileManager.default.createFile(atPath: dir.sub("f"), contents: nil)
        #expect(throws: SystemError("mkdir(\(dir.sub("f")))", errno: ENOTDIR)) {
            try Directories.create(dir.sub("f/x"))
        }
    }

    @Test("setUmask returns the previous mask and new files follow the new one")
    func umaskApplies() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let original = Directories.setUmask(0o027)
        defer { Directories.setUmask(original) }
        #expect(Directories.setUmask(0o027) == 0o027)
        let fd = open(dir.sub("f"), O_CREAT | O_WRONLY, 0o666)
        #expect(fd >= 0)
        close(fd)
        #expect(mode(dir.sub("f")) == 0o640)
    }

    @Test("group names resolve to ids from /etc/group; unknown names are nil")
    func groups() throws {
        #expect(try Accounts.groupID(named: "root") == 0)
        let line = try String(contentsOfFile: "/etc/group", encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: ":", omittingEmptySubsequences: false) }
            .first { $0.count >= 3 && $0[0] != "root" }
        if let line {
            #expect(try Accounts.groupID(named: String(line[0])) == UInt32(line[2]))
        }
        #expect(try Accounts.groupID(named: "no-such-group-alarm-test") == nil)
    }

    @Test("isProcessAlive: ourselves and init yes, a reaped child no")
    func processAlive() throws {
        #expect(Accounts.isProcessAlive(getpid()))
        #expect(Accounts.isProcessAlive(1))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        #expect(!Accounts.isProcessAlive(p.processIdentifier))
        #expect(!Accounts.isProcessAlive(0))
        #expect(!Accounts.isProcessAlive(-1))
    }
}
