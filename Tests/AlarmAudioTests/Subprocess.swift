import Foundation

/// Runs the built binaries (the `alarm` CLI sits next to the test bundle in .build/<config>/).
enum Subprocess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Failed: Error, CustomStringConvertible { var description: String }

    /// The directory holding the test bundle and the package's executables.
    static var buildDirectory: URL {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The test runner may live inside a bundle directory (…/alarmPackageTests.xctest/…).
        while dir.path != "/" && !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("alarm").path)
        {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }

    static func executable(_ name: String) throws -> String {
        let path = buildDirectory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failed(
                description:
                    "\(name) is not built next to the tests (looked in \(buildDirectory.path)); run `swift build` first"
            )
        }
        return path
    }

    /// Runs `argv` with `environment` added to ours; kills it after `timeout` seconds.
    static func run(_ argv: [String], environment: [String: String] = [:], timeout: Double = 30) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: argv[0])
        p.arguments = Array(argv.dropFirst())
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let killer = DispatchWorkItem { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Read both pipes concurrently so neither fills up.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        killer.cancel()
        return Result(
            status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// alsa-lib's `file` plugin behind a `plug`: every frame written to PCM `recplug` lands in a WAV.
/// Unpaced (the slave is `null`), so it records what was played, instantly. Also defines
/// `pcm.!default` as the same recorder when `recordDefault` is set, to test the device fallback.
struct FilePluginDevice {
    let dir: TempDir
    var wavPath: String { dir.file("recorded.wav") }
    var environment: [String: String] {
        // No sound server: a PULSE_SERVER this test process exports for a suite run alongside
        // (StopSilenceTests, HungServerTests: process-wide, and HungServerTests hangs its server)
        // would make alsa-lib's pulse hook turn `default` into that server, as CheckHarness says;
        // the child's `default` then failed with snd_pcm_wait EIO in a run of the whole target.
        [
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + dir.file("test.conf"), "ALARM_DEVICE": "",
            "PULSE_SERVER": "unix:" + dir.file("no-pulse-server"),
        ]
    }

    init(recordDefault: Bool = false) {
        dir = TempDir()
        var conf = """
            pcm.rec { type file slave { pcm { type null } } file "\(dir.file("recorded.wav"))" format "wav" }
            pcm.recplug { type plug slave { pcm "rec" format S16_LE } }

            """
        if recordDefault { conf += "pcm.!default { type plug slave { pcm \"rec\" format S16_LE } }\n" }
        _ = FileManager.default.createFile(atPath: dir.file("test.conf"), contents: Data(conf.utf8))
    }
}
