import AlarmCore
import FoundationEssentials

/// `.m3u` and `.pls` playlists, as radio stations publish them: the first stream URL in them.
public enum Playlist {
    public enum Kind: Equatable, Sendable { case m3u, pls }

    /// The kind of playlist a response is, by its content type (`audio/x-mpegurl`,
    /// `audio/x-scpls`...) or else by the URL's suffix (`.m3u`, `.m3u8`, `.pls`); nil for
    /// anything else (a stream, or a page).
    public static func kind(url: String, contentType: String?) -> Kind? {
        let type = (contentType ?? "").split(separator: ";").first.map {
            $0.trimmingBlanks().lowercased()
        }
        switch type {
        case "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl":
            return .m3u
        case "audio/x-scpls", "application/pls+xml", "audio/scpls":
            return .pls
        default: break
        }
        let name = StreamURL.lastPathComponent(of: url)
        if name.hasSuffix(".m3u") || name.hasSuffix(".m3u8") { return .m3u }
        if name.hasSuffix(".pls") { return .pls }
        return nil
    }

    /// The first http or https URL of a playlist's text; nil when it has none.
    /// m3u: the first line that is not empty and not a `#` comment. pls: the `FileN=` entry with
    /// the lowest N.
    public static func firstURL(_ text: String, kind: Kind) -> String? {
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map {
            $0.trimmingBlanks()
        }
        var candidate: String?
        switch kind {
        case .m3u:
            candidate = lines.first { !$0.isEmpty && !$0.hasPrefix("#") }
        case .pls:
            var best: (Int, String)?
            for line in lines {
                guard let eq = line.firstIndex(of: "=") else { continue }
                let key = line[..<eq].lowercased()
                guard key.hasPrefix("file"), let n = Int(key.dropFirst(4)) else { continue }
                let value = line[line.index(after: eq)...].trimmingBlanks()
                if best == nil || n < best!.0 { best = (n, value) }
            }
            candidate = best?.1
        }
        guard let url = candidate, let scheme = StreamURL.scheme(of: url), scheme == "http" || scheme == "https"
        else { return nil }
        return url
    }
}
