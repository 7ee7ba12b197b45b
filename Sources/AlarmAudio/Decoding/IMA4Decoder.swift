/// Apple IMA4 ("ima4"), as written by `afconvert -d ima4 -f caff`: libsndfile reads it inside
/// AIFF-C but not inside CAF, so CAF 'ima4' is decoded here.
///
/// Layout (Apple Technical Note TN1081 / Core Audio `kAudioFormatAppleIMA4`): a packet holds 64
/// frames; per channel it is a 34-byte block: a big-endian 16-bit header whose top 9 bits are the
/// initial predictor (the high bits of a 16-bit sample) and low 7 bits the step index, then 32
/// bytes of 4-bit codes, low nibble first. Channel blocks follow each other inside the packet.
/// The arithmetic is the standard IMA ADPCM expansion, done in integers, so our output matches
/// libsndfile's AIFF-C ima4 decoder sample for sample.
enum IMA4 {
    static let framesPerPacket = 64
    static let bytesPerChannelBlock = 34

    static let stepTable: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
        73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408,
        449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
        2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630,
        9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
        32767,
    ]
    static let indexTable: [Int32] = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8]

    /// Decodes whole packets from `bytes` (any trailing partial packet is ignored) into interleaved
    /// 16-bit samples, at most `maxPackets` packets.
    static func decode(_ bytes: [UInt8], channels: Int, maxPackets: Int) -> [Int16] {
        precondition(channels > 0)
        let packetBytes = bytesPerChannelBlock * channels
        let packets = min(bytes.count / packetBytes, maxPackets)
        var out = [Int16](repeating: 0, count: packets * framesPerPacket * channels)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for p in 0..<packets {
                    for c in 0..<channels {
                        let base = p * packetBytes + c * bytesPerChannelBlock
                        decodeBlock(
                            src, at: base, into: dst, from: p * framesPerPacket * channels + c, stride: channels)
                    }
                }
            }
        }
        return out
    }

    /// One 34-byte channel block into 64 samples at `dst[from + k * stride]`.
    static func decodeBlock(
        _ src: UnsafeBufferPointer<UInt8>, at base: Int, into dst: UnsafeMutableBufferPointer<Int16>,
        from: Int, stride: Int
    ) {
        let header = UInt16(src[base]) << 8 | UInt16(src[base + 1])
        var predictor = Int32(Int16(bitPattern: header & 0xFF80))
        var index = Int32(header & 0x7F)
        if index > 88 { index = 88 }
        var k = from
        for i in 0..<32 {
            let byte = src[base + 2 + i]
            for nibble in [byte & 0x0F, byte >> 4] {
                let code = Int32(nibble)
                let step = stepTable[Int(index)]
                var diff = step >> 3
                if code & 4 != 0 { diff += step }
                if code & 2 != 0 { diff += step >> 1 }
                if code & 1 != 0 { diff += step >> 2 }
                predictor += (code & 8 != 0) ? -diff : diff
                predictor = min(32767, max(-32768, predictor))
                index = min(88, max(0, index + indexTable[Int(code)]))
                dst[k] = Int16(predictor)
                k += stride
            }
        }
    }
}
