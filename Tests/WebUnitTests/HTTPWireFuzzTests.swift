import AlarmCore
@testable import AlarmWeb
import Foundation
import Testing

/// HTTPWire against generated input: valid requests in random framings and pieces read back
/// exactly, and mutated or random bytes never crash the reader (a trap here would take
/// alarm-web down for every caller): each input gives a request or a `Failure`.
@Suite struct HTTPWireFuzzTests {
    /// The core's SplitMix64: the same inputs on every run.
    typealias Rand = SplitMix64

    func read(_ bytes: [UInt8], pieces rng: inout Rand, maximumBody: Int = 64 * 1024) -> Result<(head: HTTPWire.Head, body: [UInt8]), HTTPWire.Failure> {
        var rest = bytes[...]
        var r = rng
        defer { rng = r }
        do {
            return .success(try HTTPWire.read(maximumBody: maximumBody) {
                let n = 1 + r.below(r.below(4) == 0 ? 3 : 600)
                let chunk = Array(rest.prefix(n))
                rest = rest.dropFirst(n)
                return chunk
            })
        } catch {
            return .failure(error)
        }
    }

    /// A valid request with a random body, framed by Content-Length or in random chunks.
    func request(_ rng: inout Rand) -> (bytes: [UInt8], body: [UInt8]) {
        let body = (0..<rng.below(3000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        var head = "POST /api/alarms?x=\(rng.below(100)) HTTP/1.1\r\nHost: pi\r\nX-CSRF-Token: \(rng.next())\r\n"
        var bytes: [UInt8] = []
        if rng.below(2) == 0 {
            head += "Content-Length: \(body.count)\r\n\r\n"
            bytes = Array(head.utf8) + body
        } else {
            head += "Transfer-Encoding: chunked\r\n\r\n"
            bytes = Array(head.utf8)
            var i = 0
            while i < body.count {
                let n = min(body.count - i, 1 + rng.below(700))
                let size = String(n, radix: 16, uppercase: rng.below(2) == 0)
                bytes += Array((size + (rng.below(3) == 0 ? ";ext=v" : "") + "\r\n").utf8) + body[i..<i + n] + [13, 10]
                i += n
            }
            bytes += Array((rng.below(2) == 0 ? "0\r\n\r\n" : "0\r\nX-Trailer: t\r\n\r\n").utf8)
        }
        return (bytes, body)
    }

    @Test func validRequestsInAnyFramingAndPiecesReadBackExactly() throws {
        var rng = Rand(state: 0x9E37_79B9_7F4A_7C15)
        for k in 0..<2000 {
            let (bytes, body) = request(&rng)
            let got = try read(bytes, pieces: &rng).get()
            #expect(got.body == body, "case \(k)")
            #expect(got.head.method == "POST" && got.head.path == "/api/alarms", "case \(k)")
        }
    }

    @Test func mutatedAndRandomBytesGiveARequestOrAFailureNeverACrash() {
        var rng = Rand(state: 0xD1B5_4A32_D192_ED03)
        let alphabet = Array("0123456789abcdefABCDEF-+;: \r\n\t/?%xGETPOSTContent-LengthTransfer-Encodingchunked".utf8)
        var outcomes: [String: Int] = [:]
        for _ in 0..<20_000 {
            var (bytes, _) = request(&rng)
            switch rng.below(4) {
            case 0:  // flip, insert or delete bytes
                for _ in 0..<(1 + rng.below(8)) where !bytes.isEmpty {
                    let i = rng.below(bytes.count)
                    switch rng.below(3) {
                    case 0: bytes[i] = alphabet[rng.below(alphabet.count)]
                    case 1: bytes.insert(alphabet[rng.below(alphabet.count)], at: i)
                    default: bytes.remove(at: i)
                    }
                }
            case 1:  // cut short
                bytes = Array(bytes.prefix(rng.below(bytes.count + 1)))
            case 2:  // a hostile chunk size or length in place of the real one
                let hostile = ["-1", "+1", "-0", "7fffffffffffffff", "ffffffff", "1 1", "0x10", "", " ", "-8000000000000000", "99999999999999999999"]
                let text = String(decoding: bytes, as: UTF8.self)
                let h = hostile[rng.below(hostile.count)]
                var mutated = text
                if let r = text.range(of: "Content-Length: ") {
                    let end = text[r.upperBound...].firstIndex(of: "\r") ?? text.endIndex
                    mutated = String(text[..<r.upperBound]) + h + String(text[end...])
                } else if let r = text.range(of: "\r\n\r\n") {
                    let end = text[r.upperBound...].firstIndex(of: "\r") ?? text.endIndex
                    mutated = String(text[..<r.upperBound]) + h + String(text[end...])
                }
                bytes = Array(mutated.utf8)
            default:  // noise
                bytes = (0..<rng.below(400)).map { _ in alphabet[rng.below(alphabet.count)] }
            }
            switch read(bytes, pieces: &rng, maximumBody: 1 + rng.below(4096)) {
            case .success(let r):
                outcomes["request", default: 0] += 1
                #expect(r.body.count <= 4096)
            case .failure(let f):
                outcomes["\(f)".prefix(while: { $0 != "(" }).description, default: 0] += 1
            }
        }
        // Every kind of outcome was reached: the generator is not stuck on one path.
        for kind in ["request", "closed", "bad", "tooLarge"] { #expect((outcomes[kind] ?? 0) > 0, "\(outcomes)") }
    }

    @Test func aSignedOrOverlongChunkSizeIsRefused() {
        for size in ["-1", "+1", "-0", "123456789", " 1 1"] {
            var rng = Rand(state: 1)
            let text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nabc\r\n0\r\n\r\n"
            guard case .failure(let f) = read(Array(text.utf8), pieces: &rng) else {
                Issue.record("chunk size '\(size)' was taken")
                continue
            }
            #expect(f == .bad("a bad chunk size"), "\(size)")
        }
    }
}

extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
