import AlarmSystem
import Foundation
import Glibc
import Testing

@Suite("Inotify")
struct InotifyTests {
    private func symlink(_ target: String, _ path: String) {
        precondition(Glibc.symlink(target, path) == 0, "symlink: \(errno)")
    }

    private func events(_ inotify: Inotify) throws -> [Inotify.Event] {
        _ = waitReadable(inotify.descriptor, milliseconds: 1000)
        return try inotify.readEvents()
    }

    @Test(
        "a symlink renamed over the watched name (timedatectl set-timezone) is reported by name; the temp name is not")
    func renameOverSymlink() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let localtime = dir.sub("localtime")
        symlink("/usr/share/zoneinfo/Europe/Berlin", localtime)

        let inotify = try Inotify()
        try inotify.watch(file: localtime)
        #expect(try inotify.readEvents().isEmpty, "nothing happened yet")

        symlink("/usr/share/zoneinfo/America/New_York", dir.sub(".#localtime.tmp"))
        #expect(rename(dir.sub(".#localtime.tmp"), localtime) == 0)

        let got = try events(inotify)
        #expect(got.count == 1, "\(got)")
        #expect(got.first?.name == "localtime")
        #expect(got.first?.path == localtime)
        #expect(got.first?.kinds.contains(.movedTo) == true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: localtime).hasSuffix("New_York"))
    }

    @Test("delete and re-create (ln -sf) is reported as delete then create")
    func deleteAndCreate() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let localtime = dir.sub("localtime")
        symlink("/usr/share/zoneinfo/UTC", localtime)
        let inotify = try Inotify()
        try inotify.watch(file: localtime)

        #expect(unlink(localtime) == 0)
        symlink("/usr/share/zoneinfo/Asia/Tokyo", localtime)

        let got = try events(inotify)
        #expect(got.map(\.name) == ["localtime", "localtime"], "\(got)")
        #expect(got.first?.kinds.contains(.delete) == true)
        #expect(got.last?.kinds.contains(.create) == true)
    }

    @Test("writing into the watched file is reported as modify and closeWrite")
    func writeInPlace() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let file = dir.sub("localtime")
        _ = FileManager.default.createFile(atPath: file, contents: Data("a".utf8))
        let inotify = try Inotify()
        try inotify.watch(file: file)

        let fd = open(file, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        _ = "TZif".withCString { write(fd, $0, 4) }
        close(fd)

        let got = try events(inotify)
        let kinds = got.reduce(Inotify.Kinds()) { $0.union($1.kinds) }
        #expect(kinds.contains(.modify), "\(got)")
        #expect(kinds.contains(.closeWrite), "\(got)")
        #expect(got.allSatisfy { $0.name == "localtime" })
    }

    @Test("the store renamed into the state directory is seen; other files there are not")
    func atomicStoreReplace() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let inotify = try Inotify()
        try inotify.watch(file: dir.sub("alarms.json"))  // does not exist yet

        _ = FileManager.default.createFile(atPath: dir.sub("alarms.json.tmp"), contents: Data("[]".utf8))
        _ = FileManager.default.createFile(atPath: dir.sub("history.jsonl"), contents: Data("{}".utf8))
        #expect(rename(dir.sub("alarms.json.tmp"), dir.sub("alarms.json")) == 0)

        let got = try events(inotify)
        #expect(got.count == 1, "\(got)")
        #expect(got.first?.name == "alarms.json")
        #expect(got.first?.kinds.contains(.movedTo) == true)
    }

    @Test("two files watched in one directory are both reported; a directory watch reports every name")
    func twoFilesAndWholeDirectory() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let byName = try Inotify()
        try byName.watch(file: dir.sub("a"))
        try byName.watch(file: dir.sub("b"))
        let whole = try Inotify()
        try whole.watch(directory: dir.path, for: .create)

        for name in ["a", "b", "c"] {
            // open(O_CREAT), not FileManager.createFile, which writes a temp file and renames it.
            let fd = open(dir.sub(name), O_WRONLY | O_CREAT | O_EXCL, 0o644)
            #expect(fd >= 0)
            close(fd)
        }
        let named = try events(byName).filter { $0.kinds.contains(.create) }.compactMap(\.name)
        #expect(named == ["a", "b"])
        let all = try events(whole).compactMap(\.name)
        #expect(all == ["a", "b", "c"])
    }

    @Test("deleting the watched directory reports deleteSelf; a missing directory is an error")
    func directoryGoesAway() throws {
        let dir = TempDir()
        let sub = dir.sub("state")
        #expect(mkdir(sub, 0o755) == 0)
        let inotify = try Inotify()
        try inotify.watch(file: sub + "/alarms.json")
        #expect(rmdir(sub) == 0)
        let got = try events(inotify)
        #expect(got.contains { $0.kinds.contains(.deleteSelf) && $0.name == nil }, "\(got)")
        dir.cleanup()

        #expect(throws: SystemError("inotify_add_watch(/nonexistent-dir)", errno: ENOENT)) {
            try inotify.watch(file: "/nonexistent-dir/localtime")
        }
    }

    @Test("a removed watch reports nothing more")
    func removeWatch() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let inotify = try Inotify()
        let watch = try inotify.watch(file: dir.sub("x"))
        try inotify.remove(watch)
        _ = FileManager.default.createFile(atPath: dir.sub("x"), contents: nil)
        _ = waitReadable(inotify.descriptor, milliseconds: 200)
        #expect(try inotify.readEvents().isEmpty)
    }
}
