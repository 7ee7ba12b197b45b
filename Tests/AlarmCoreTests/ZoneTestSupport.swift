import Foundation

@testable import AlarmCore

/// A fresh directory under the system's temporary directory; the caller removes it.
func makeTempDir(_ prefix: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
}

/// Runs a program to the end; throws with its stderr when it fails.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw ToolError(
            description:
                "\(executable) \(arguments.joined(separator: " ")) exited \(p.terminationStatus): \(String(decoding: stderr, as: UTF8.self))"
        )
    }
    return String(decoding: stdout, as: UTF8.self)
}

/// The tz compiler: Debian ships it in libc-bin as /usr/sbin/zic.
func zicPath() throws -> String {
    for dir in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    where FileManager.default.isExecutableFile(atPath: dir + "/zic") {
        return dir + "/zic"
    }
    throw ToolError(description: "zic not found: install libc-bin (it ships /usr/sbin/zic)")
}

/// Compiles tz source text (zic(8) input) into `directory`; `bloat` is zic's `-b` (slim or fat).
func zic(_ source: String, into directory: String, bloat: String = "fat") throws {
    let file = directory + "/.source-\(UUID().uuidString).zi"
    try Data(source.utf8).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    try run(try zicPath(), ["-b", bloat, "-d", directory, file])
}

func unix(_ rfc3339: String) -> Int64 { Int64(RFC3339.parse(rfc3339)!.timeIntervalSince1970) }

func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
