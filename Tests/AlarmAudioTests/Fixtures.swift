import CSndfile
import Foundation

/// A private temporary directory per test, removed when the value goes away.
final class TempDir {
    let path: String
    init() {
        let base = FileManager.default.temporaryDirectory.path + "/alarm-audio-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    func write(_ name: String, _ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(bytes))
    }
    func bytes(_ name: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: file(name)) ?? Data()) }
}

/// Writes fixtures with libsndfile (the writer is libsndfile; the reader under test is ours +
/// libsndfile's decoder behind our checks).
enum Fixture {
    struct Failed: Error, CustomStringConvertible { var description: String }

    /// Writes interleaved `samples` to `path` as `format` (SF_FORMAT_* major | subtype).
    static func write(_ path: String, samples: [Float], channels: Int, rate: Int, format: Int32) throws {
        var info = SF_INFO()
        info.channels = Int32(channels)
        info.samplerate = Int32(rate)
        info.format = format
        guard sf_format_check(&info) != 0 else {
            throw Failed(description: String(format: "libsndfile cannot write format 0x%08X", format))
        }
        guard let sf = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw Failed(description: "sf_open(\(path)): \(String(cString: sf_strerror(nil)))")
        }
        // Float data into integer formats: libsndfile scales ±1.0 to full scale.
        var s = samples
        let frames = samples.count / channels
        let written = s.withUnsafeMutableBufferPointer { sf_writef_float(sf, $0.baseAddress, sf_count_t(frames)) }
        sf_close(sf)
        guard written == frames else { throw Failed(description: "wrote \(written) of \(frames) frames") }
    }

    /// Runs a program, failing the test when it does not exit 0.
    @discardableResult
    static func run(_ argv: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw Failed(description: "\(argv.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}

/// Our own CAF writer for Apple IMA4, used to wrap the very packets libsndfile wrote into an
/// AIFF-C 'ima4' file, so the two decoders can be compared sample for sample.
enum CAFWriter {
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * $0)) & 0xFF) } }
    static func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * $0)) & 0xFF) } }
    static func chunk(_ id: String, _ body: [UInt8], size: Int64? = nil) -> [UInt8] {
        Array(id.utf8) + be64(UInt64(bitPattern: size ?? Int64(body.count))) + body
    }

    struct Pakt {
        var validFrames: Int64
        var priming: Int32 = 0
        var remainder: Int32 = 0
    }

    static func ima4(packets: [UInt8], channels: Int, rate: Double, pakt: Pakt?, dataSize: Int64? = nil) -> [UInt8] {
        var desc = be64(rate.bitPattern) + Array("ima4".utf8) + be32(0)
        desc += be32(UInt32(34 * channels)) + be32(64) + be32(UInt32(channels)) + be32(0)
        var file = Array("caff".utf8) + be16(1) + be16(0)
        file += chunk("desc", desc)
        if let pakt {
            let nPackets = packets.count / (34 * channels)
            var body = be64(UInt64(nPackets)) + be64(UInt64(bitPattern: pakt.validFrames))
            body += be32(UInt32(bitPattern: pakt.priming)) + be32(UInt32(bitPattern: pakt.remainder))
            // A constant-bitrate format has no packet table entries.
            file += chunk("pakt", body)
        }
        file += chunk("data", be32(0) + packets, size: dataSize)
        return file
    }

    /// The packets of an AIFF-C 'ima4' file (its SSND audio).
    static func ssndPayload(_ aifc: [UInt8]) -> [UInt8]? {
        var pos = 12
        while pos + 8 <= aifc.count {
            let id = String(decoding: aifc[pos..<pos + 4], as: UTF8.self)
            let size =
                Int(aifc[pos + 4]) << 24 | Int(aifc[pos + 5]) << 16 | Int(aifc[pos + 6]) << 8 | Int(aifc[pos + 7])
            if id == "SSND" {
                let offset =
                    Int(aifc[pos + 8]) << 24 | Int(aifc[pos + 9]) << 16 | Int(aifc[pos + 10]) << 8 | Int(aifc[pos + 11])
                let start = pos + 16 + offset
                return Array(aifc[start..<min(aifc.count, pos + 8 + size)])
            }
            pos += 8 + size + (size & 1)
        }
        return nil
    }
}
