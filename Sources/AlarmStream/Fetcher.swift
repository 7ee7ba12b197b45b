import AlarmCore
import CAlarmVersion
import CCurl
import FoundationEssentials
import Glibc

/// Fetches a stream with libcurl into a `ByteQueue`: http and https, redirects followed, a
/// connect timeout, given up after `stallSeconds` without a byte; `.m3u` / `.pls` playlists
/// resolved to their first stream; ICY metadata asked for and stripped. Runs on the calling
/// thread until the stream ends, fails, or `shouldStop` says the client is gone.
final class StreamFetcher: @unchecked Sendable {
    static let userAgent = "alarm-stream/" + String(cString: alarm_version())
    /// How many playlists may point to one another before the stream.
    static let maximumPlaylistDepth = 3
    /// The longest playlist read.
    static let maximumPlaylistBytes = 65536

    struct Options: Sendable {
        var connectTimeout = 10
        /// No byte for this long: the stream has failed (the wire's 30 s).
        var stallSeconds = 30
    }

    private let queue: ByteQueue
    private let options: Options
    private let shouldStop: @Sendable () -> Bool

    init(queue: ByteQueue, options: Options = Options(), shouldStop: @escaping @Sendable () -> Bool) {
        self.queue = queue
        self.options = options
        self.shouldStop = shouldStop
    }

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    /// Fetches `url` (and what its playlists point to); always ends with `queue.finish`.
    func run(url: String) {
        _ = Self.globalInit
        var current = url
        for _ in 0...Self.maximumPlaylistDepth {
            let transfer = Transfer(url: current, queue: queue, shouldStop: shouldStop)
            let outcome = transfer.perform(options)
            switch outcome {
            case .failed(let message):
                queue.finish("\(current): \(message)")
                return
            case .ended:
                queue.finish("\(current): the stream ended")
                return
            case .stopped:
                queue.finish("\(current): stopped")
                return
            case .playlist(let kind, let text):
                guard let next = Playlist.firstURL(text, kind: kind) else {
                    queue.finish("\(current): a playlist with no http or https stream in it")
                    return
                }
                current = next
            }
        }
        queue.finish("\(url): playlists nested more than \(Self.maximumPlaylistDepth) deep")
    }
}

/// One HTTP transfer: its libcurl handle and callbacks.
private final class Transfer {
    enum Outcome {
        case ended
        case stopped
        case failed(String)
        case playlist(Playlist.Kind, String)
    }

    let url: String
    let queue: ByteQueue
    let shouldStop: @Sendable () -> Bool
    var metaint: Int?
    var stripper: IcyMetadataStripper?
    /// Decided at the first byte of the body: stream it, or collect a playlist.
    var mode: Mode = .undecided
    var playlist: [UInt8] = []
    var stoppedByUs = false
    var refused: String?
    var handle: UnsafeMutableRawPointer?

    enum Mode {
        case undecided
        case stream
        case playlist(Playlist.Kind)
    }

    init(url: String, queue: ByteQueue, shouldStop: @escaping @Sendable () -> Bool) {
        self.url = url
        self.queue = queue
        self.shouldStop = shouldStop
    }

    func perform(_ options: StreamFetcher.Options) -> Outcome {
        guard let curl = curl_easy_init() else { return .failed("libcurl could not start a transfer") }
        defer { curl_easy_cleanup(curl) }
        handle = curl
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let headers = curl_slist_append(nil, "Icy-MetaData: 1")
        defer { curl_slist_free_all(headers) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            _ = ccurl_setopt_string(curl, CURLOPT_URL, url)
            _ = ccurl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errors.baseAddress)
            _ = ccurl_setopt_string(curl, CURLOPT_USERAGENT, StreamFetcher.userAgent)
            _ = ccurl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 1)
            _ = ccurl_setopt_long(curl, CURLOPT_MAXREDIRS, 10)
            _ = ccurl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = ccurl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            _ = ccurl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT, options.connectTimeout)
            _ = ccurl_setopt_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
            _ = ccurl_setopt_long(curl, CURLOPT_LOW_SPEED_TIME, options.stallSeconds)
            _ = ccurl_setopt_long(curl, CURLOPT_FAILONERROR, 1)
            _ = ccurl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
            _ = ccurl_setopt_string(curl, CURLOPT_ACCEPT_ENCODING, "identity")
            _ = ccurl_setopt_slist(curl, CURLOPT_HTTPHEADER, headers)
            _ = ccurl_setopt_data_callback(curl, CURLOPT_HEADERFUNCTION, transferHeader)
            _ = ccurl_setopt_pointer(curl, CURLOPT_HEADERDATA, me)
            _ = ccurl_setopt_data_callback(curl, CURLOPT_WRITEFUNCTION, transferWrite)
            _ = ccurl_setopt_pointer(curl, CURLOPT_WRITEDATA, me)
            _ = ccurl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
            _ = ccurl_setopt_progress_callback(curl, transferProgress)
            _ = ccurl_setopt_pointer(curl, CURLOPT_XFERINFODATA, me)
            return curl_easy_perform(curl)
        }
        if let refused { return .failed(refused) }
        if stoppedByUs { return .stopped }
        if code != CURLE_OK {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            if code == CURLE_OPERATION_TIMEDOUT && message.contains("slower than") {
                message = "no data for \(options.stallSeconds) s (\(message))"
            }
            return .failed(message)
        }
        if case .playlist(let kind) = mode {
            return .playlist(kind, String(decoding: playlist, as: UTF8.self))
        }
        if case .undecided = mode { return .failed("the server sent no data") }
        return .ended
    }

    func header(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self).trimmingBlanks()
        if text.hasPrefix("HTTP/") || text.hasPrefix("ICY ") {
            // A new response (after a redirect): forget what the last one said.
            metaint = nil
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingBlanks()
        if name == "icy-metaint", let n = Int(value), n > 0 { metaint = n }
    }

    /// The body's bytes; the number taken (anything else stops the transfer).
    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        if case .undecided = mode {
            var type: UnsafePointer<CChar>?
            _ = ccurl_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &type)
            let contentType = type.map { String(cString: $0) }
            var effective: UnsafePointer<CChar>?
            _ = ccurl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
            let finalURL = effective.map { String(cString: $0) } ?? url
            if let kind = Playlist.kind(url: finalURL, contentType: contentType) {
                mode = .playlist(kind)
            } else {
                mode = .stream
                if let metaint { stripper = IcyMetadataStripper(interval: metaint) }
                queue.started(url: finalURL, contentType: contentType)
            }
        }
        switch mode {
        case .playlist:
            guard playlist.count + bytes.count <= StreamFetcher.maximumPlaylistBytes else {
                refused = "a playlist longer than \(StreamFetcher.maximumPlaylistBytes) bytes"
                return 0
            }
            playlist.append(contentsOf: bytes)
        case .stream:
            var ok: Bool
            if stripper != nil {
                let (audio, titles) = stripper!.feed(bytes)
                for t in titles { queue.title(t) }
                ok = audio.withUnsafeBytes { queue.push($0) }
            } else {
                ok = queue.push(bytes)
            }
            if !ok {
                stoppedByUs = true
                return 0
            }
        case .undecided: break
        }
        return bytes.count
    }

    /// Called by libcurl at least once a second: nonzero stops the transfer.
    func progress() -> Int32 {
        if queue.isAbandoned || shouldStop() {
            stoppedByUs = true
            return 1
        }
        return 0
    }
}

private func transferHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    transfer.header(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

private func transferWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    return transfer.write(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func transferProgress(
    _ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t
) -> Int32 {
    Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().progress()
}
