// Rewraps the Apple IMA4 packets of an AIFF-C 'ima4' file (as libsndfile writes it) into a CAF
// file, byte for byte: the same thing `afconvert -d ima4 -f caff` produces on a Mac.
// Usage: swift scripts/aifc-ima4-to-caf.swift in.aifc out.caf
import Foundation

func fail(_ m: String) -> Never { FileHandle.standardError.write(Data((m + "\n").utf8)); exit(1) }
let args = CommandLine.arguments
guard args.count == 3, let input = FileManager.default.contents(atPath: args[1]) else { fail("usage: aifc-ima4-to-caf in.aifc out.caf") }
let b = [UInt8](input)
func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
func id(_ i: Int) -> String { String(decoding: b[i..<i + 4], as: UTF8.self) }
guard b.count >= 12, id(0) == "FORM", id(8) == "AIFC" else { fail("not an AIFF-C file") }
var channels = 0, packets = 0, rate = 0.0, audio: [UInt8] = []
var pos = 12
while pos + 8 <= b.count {
    let size = be32(pos + 4)
    if id(pos) == "COMM" {
        channels = Int(b[pos + 8]) << 8 | Int(b[pos + 9])
        packets = be32(pos + 10)
        let exp = (Int(b[pos + 16]) << 8 | Int(b[pos + 17])) & 0x7FFF
        var mant: UInt64 = 0
        for k in 0..<8 { mant = mant << 8 | UInt64(b[pos + 18 + k]) }
        rate = Double(mant) * pow(2, Double(exp - 16383 - 63))
        guard id(pos + 26) == "ima4" else { fail("not ima4 but \(id(pos + 26))") }
    }
    if id(pos) == "SSND" { audio = Array(b[(pos + 16 + be32(pos + 8))..<(pos + 8 + size)]) }
    pos += 8 + size + (size & 1)
}
guard channels > 0, !audio.isEmpty, audio.count == packets * 34 * channels else { fail("no ima4 audio found") }

func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (24 - 8 * $0) & 0xFF) } }
func u64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(v >> (56 - 8 * UInt64($0)) & 0xFF) } }
func chunk(_ t: String, _ body: [UInt8]) -> [UInt8] { Array(t.utf8) + u64(UInt64(body.count)) + body }
var out = Array("caff".utf8) + u16(1) + u16(0)
out += chunk("desc", u64(rate.bitPattern) + Array("ima4".utf8) + u32(0) + u32(34 * channels) + u32(64) + u32(channels) + u32(0))
// Packet table: no per-packet entries for a constant-bitrate format; every decoded frame is valid.
out += chunk("pakt", u64(UInt64(packets)) + u64(UInt64(packets * 64)) + u32(0) + u32(0))
out += chunk("data", u32(0) + audio)
guard FileManager.default.createFile(atPath: args[2], contents: Data(out)) else { fail("cannot write \(args[2])") }
