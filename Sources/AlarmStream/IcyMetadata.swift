/// Removes the ICY metadata blocks a Shoutcast/Icecast server puts into the audio when asked
/// (`Icy-MetaData: 1`, answered with `icy-metaint: N`): after every N bytes of audio, one length
/// byte L and 16 * L bytes of metadata (`StreamTitle='...';`). Fed the response body in pieces of
/// any size; gives back the audio and each StreamTitle it saw.
public struct IcyMetadataStripper: Sendable {
    public let interval: Int
    private var audioLeft: Int
    private var metadataLeft = 0
    private var readingLength = false
    private var metadata: [UInt8] = []

    public init(interval: Int) {
        precondition(interval > 0)
        self.interval = interval
        self.audioLeft = interval
    }

    /// The audio of `bytes`, and the titles of the metadata blocks that ended in them.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> (audio: [UInt8], titles: [String]) {
        var audio: [UInt8] = []
        audio.reserveCapacity(bytes.count)
        var titles: [String] = []
        var i = 0
        while i < bytes.count {
            if audioLeft > 0 {
                let n = min(audioLeft, bytes.count - i)
                audio.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]))
                audioLeft -= n
                i += n
                if audioLeft == 0 { readingLength = true }
            } else if readingLength {
                metadataLeft = Int(bytes[i]) * 16
                readingLength = false
                i += 1
                metadata.removeAll(keepingCapacity: true)
                if metadataLeft == 0 { audioLeft = interval }
            } else {
                let n = min(metadataLeft, bytes.count - i)
                metadata.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]))
                metadataLeft -= n
                i += n
                if metadataLeft == 0 {
                    if let title = Self.streamTitle(metadata) { titles.append(title) }
                    audioLeft = interval
                }
            }
        }
        return (audio, titles)
    }

    /// `StreamTitle='...';` of a metadata block (NUL padded); nil without one.
    static func streamTitle(_ block: [UInt8]) -> String? {
        let end = block.firstIndex(of: 0) ?? block.count
        let text = String(decoding: block[..<end], as: UTF8.self)
        guard let start = text.firstRange(of: "StreamTitle='") else { return nil }
        let rest = text[start.upperBound...]
        let stop = rest.firstRange(of: "';")?.lowerBound ?? rest.endIndex
        return String(rest[..<stop])
    }
}
