/// Which codecs alarm plays, decided from the header before any decoder runs.
///
/// A well-formed file in a codec we do not decode (MP3 or GSM in WAV, AAC or Opus in CAF, MACE in
/// AIFF-C) is *unsupported*, with the codec's name: left to libsndfile, some of these fail to open
/// with a "malformed" error that would read as *corrupt*. Once a file passes this check, an open
/// failure in libsndfile really is a damaged file.
enum Codecs {
    /// WAV format tags we play (after WAVE_FORMAT_EXTENSIBLE is resolved to its sub-format).
    static let wavPlayed: Set<UInt16> = [0x0001, 0x0002, 0x0003, 0x0006, 0x0007, 0x0011]

    /// Names of WAV format tags people meet (RFC 2361 and Microsoft's mmreg.h).
    static let wavNames: [UInt16: String] = [
        0x0001: "PCM", 0x0002: "MS ADPCM", 0x0003: "IEEE float", 0x0006: "a-law", 0x0007: "µ-law",
        0x0010: "OKI ADPCM", 0x0011: "IMA ADPCM", 0x0014: "G.723 ADPCM", 0x0020: "Yamaha ADPCM",
        0x0022: "TrueSpeech", 0x0031: "GSM 6.10", 0x0040: "G.721 ADPCM", 0x0042: "G.723.1", 0x0045: "G.726 ADPCM",
        0x0050: "MPEG audio", 0x0055: "MP3", 0x0064: "G.726 ADPCM", 0x0065: "G.722 ADPCM", 0x0092: "AC-3",
        0x00FF: "AAC", 0x0160: "WMA 1", 0x0161: "WMA", 0x0162: "WMA Pro", 0x0163: "WMA Lossless",
        0x028F: "G.722 ADPCM", 0x1600: "AAC", 0x1610: "HE-AAC", 0x2000: "AC-3", 0x2001: "DTS",
        0x674F: "Ogg Vorbis", 0x6750: "Ogg Vorbis", 0x6751: "Ogg Vorbis", 0xF1AC: "FLAC",
    ]

    /// AIFF-C compression types libsndfile decodes and we play: PCM in either byte order and its
    /// sized variants, floats, the two laws, Apple IMA4.
    static let aifcPlayed: Set<String> = [
        "NONE", "twos", "sowt", "raw ", "in24", "42ni", "in32", "23ni", "fl32", "FL32", "fl64", "FL64",
        "ulaw", "ULAW", "alaw", "ALAW", "ima4",
    ]

    static let appleNames: [String: String] = [
        "MAC3": "MACE 3:1", "MAC6": "MACE 6:1", "GSM ": "GSM 6.10", "QDM2": "QDesign 2", "QDMC": "QDesign",
        "Qclp": "QCELP", "G722": "G.722 ADPCM", "G726": "G.726 ADPCM", "DWVW": "DWVW",
        "aac ": "AAC", "aach": "HE-AAC", "aacl": "AAC-LD", "aace": "AAC-ELD", "opus": "Opus", "flac": "FLAC",
        ".mp3": "MP3", ".mp2": "MP2", ".mp1": "MP1", "ac-3": "AC-3", "ec-3": "E-AC-3", "samr": "AMR",
        "ilbc": "iLBC",
    ]

    /// Ogg codecs libsndfile decodes and we play.
    static let oggPlayed: Set<String> = ["Vorbis", "Opus"]

    /// CAF format IDs we play: libsndfile's four and our own IMA4.
    static let cafPlayed: Set<String> = ["lpcm", "ulaw", "alaw", "alac", "ima4"]

    /// Throws `.unsupported` when the header names a codec we do not play.
    static func check(_ l: ContainerLayout, name: String) throws(SoundProblem) {
        switch l.container {
        case .wav:
            let tag = l.wavFormatTag
            // An extensible header too short to name its sub-format is left to libsndfile.
            guard !wavPlayed.contains(tag), tag != 0xFFFE else { return }
            let hex = "0x" + SoundDecoder.hex4(Int(tag))
            let what = wavNames[tag].map { "\($0) (format tag \(hex))" } ?? "format tag \(hex)"
            throw .unsupported(
                name,
                detail:
                    "\(what) in WAV is not supported (not a data format we play); convert it to PCM, e.g. 'ffmpeg -i IN -c:a pcm_s16le OUT.wav'"
            )
        case .aiff:
            return
        case .aifc:
            guard !aifcPlayed.contains(l.aiffCompression) else { return }
            throw .unsupported(
                name,
                detail:
                    "\(describe(l.aiffCompression)) in AIFF-C is not supported (not a data format we play); convert it to PCM, e.g. 'ffmpeg -i IN -c:a pcm_s16be OUT.aiff'"
            )
        case .caf:
            guard !cafPlayed.contains(l.cafFormatID) else { return }
            throw .unsupported(
                name,
                detail:
                    "\(describe(l.cafFormatID)) in CAF is not supported (not a data format we play); convert it to PCM, e.g. 'ffmpeg -i IN -c:a pcm_s16le OUT.caf'"
            )
        case .ogg:
            guard !oggPlayed.contains(l.oggCodec) else { return }
            let what = l.oggCodec == "unknown" ? "an unknown codec" : l.oggCodec
            throw .unsupported(
                name,
                detail:
                    "\(what) in Ogg is not supported (Vorbis and Opus are played); convert it, e.g. 'ffmpeg -i IN OUT.flac'"
            )
        case .flac, .mp3:
            return
        }
    }

    /// "MACE 3:1 ('MAC3')", or just "'XYZW'" for a four-character code we have no name for.
    static func describe(_ fourCC: String) -> String {
        let code = "'\(fourCC.trimmingSpaces)'"
        return appleNames[fourCC].map { "\($0) (\(code))" } ?? code
    }
}
