import Foundation

/// A fake of alarm-stream (issue #43) on a Unix socket of its own: it speaks the wire
/// (docs/sounds.md) and misbehaves on purpose, so the clients' judgement of a stream can be
/// tested at exact moments. The fake is the point: the real alarm-stream with Icecast is tested
/// end to end elsewhere.
///
/// Each connection reads the request line (written, one per line, to `requestsPath`) and then
/// follows `mode`:
/// - `sine`: a header (`rate`, `channels`), then a sine at `frequency` Hz in real time, in
///   100 ms audio frames split across writes at odd places, with an `M` frame now and then;
/// - `stall`: as `sine` for `seconds`, then nothing more, the connection left open;
/// - `close`: as `sine` for `seconds`, then the connection closed without an `E`;
/// - `error`: as `sine` for `seconds`, then an `E` frame naming the URL ("... connection refused");
/// - `garbage`: as `sine` for `seconds`, then bytes that are no frame;
/// - `format`: as `sine` for `seconds`, then a header with another rate and audio in it;
/// - `header-only`: a header and nothing more.
public final class FakeStreamServer: @unchecked Sendable {
    public let socketPath: String
    public let requestsPath: String
    private let directory: String
    private let process: Spawned

    public init(
        mode: String, seconds: Double = 0, frequency: Double = 660, rate: Int = 44_100, channels: Int = 2,
        directory: String? = nil
    ) throws {
        let dir =
            directory ?? (FileManager.default.temporaryDirectory.path + "/alarm-stream-fake-" + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        self.directory = dir
        socketPath = dir + "/socket"
        requestsPath = dir + "/requests"
        let script = dir + "/fake-alarm-stream.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        process = try Spawned(
            "/usr/bin/python3",
            [
                script, socketPath, requestsPath, mode, String(seconds), String(frequency), String(rate),
                String(channels),
            ],
            environment: [:], output: dir + "/server.log")
        let up = waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: socketPath) }
        if !up {
            process.terminate()
            throw PulseNullSink.Failed(
                description: "the fake alarm-stream did not listen: "
                    + ((try? String(contentsOfFile: dir + "/server.log", encoding: .utf8)) ?? ""))
        }
    }

    /// The request lines received so far.
    public var requests: [String] {
        ((try? String(contentsOfFile: requestsPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// How many connections are open now (the server writes it after each change).
    public var openConnections: Int {
        Int(
            ((try? String(contentsOfFile: directory + "/open", encoding: .utf8)) ?? "0").trimmingCharacters(
                in: .whitespacesAndNewlines)) ?? 0
    }

    public var log: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    /// Ends the server (connections and all): a server that is gone.
    public func kill() { process.terminate() }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static let script = #"""
        import json, math, os, socket, struct, sys, threading, time

        path, requests, mode, seconds, freq, rate, channels = sys.argv[1:8]
        seconds, freq, rate, channels = float(seconds), float(freq), int(rate), int(channels)
        lock = threading.Lock()
        count = [0]

        def opened(d):
            with lock:
                count[0] += d
                tmp = os.path.dirname(path) + "/open.tmp"
                with open(tmp, "w") as f:
                    f.write(str(count[0]))
                os.replace(tmp, os.path.dirname(path) + "/open")

        def frame(t, payload):
            return bytes([ord(t)]) + struct.pack("<I", len(payload)) + payload

        def audio(start, n, r, ch):
            out = bytearray()
            for i in range(n):
                v = 0.5 * math.sin(2 * math.pi * freq * (start + i) / r)
                out += struct.pack("<f", v) * ch
            return bytes(out)

        def header(r, ch, url):
            return frame("H", json.dumps({"rate": r, "channels": ch, "codec": "mp3", "url": url}).encode())

        def serve(conn):
            opened(1)
            try:
                line = b""
                while not line.endswith(b"\n"):
                    b = conn.recv(4096)
                    if not b:
                        return
                    line += b
                with lock:
                    with open(requests, "a") as f:
                        f.write(line.decode())
                url = json.loads(line)["url"]
                conn.sendall(header(rate, channels, url))
                if mode == "header-only":
                    while conn.recv(4096):
                        pass
                    return
                begun = time.monotonic()
                sent = 0
                chunk = rate // 10
                odd = 0
                while True:
                    if mode != "sine" and time.monotonic() - begun >= seconds:
                        break
                    data = frame("A", audio(sent, chunk, rate, channels))
                    if sent % (rate * 2) == 0:
                        data = frame("M", b'{"title":"fake"}') + data
                    # Split the frame across writes at odd places.
                    odd = (odd + 7) % 13 + 1
                    conn.sendall(data[:odd])
                    time.sleep(0.002)
                    conn.sendall(data[odd:])
                    sent += chunk
                    due = begun + sent / rate
                    time.sleep(max(0, due - time.monotonic()))
                if mode == "stall":
                    while conn.recv(4096):
                        pass
                elif mode == "error":
                    conn.sendall(frame("E", json.dumps({"error": url + ": connection refused"}).encode()))
                elif mode == "garbage":
                    conn.sendall(b"Z\x01\x02\x03\x04 this is no frame")
                    while conn.recv(4096):
                        pass
                elif mode == "format":
                    conn.sendall(header(48000, 1, url) + frame("A", audio(0, 4800, 48000, 1)))
                    while conn.recv(4096):
                        pass
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                conn.close()
                opened(-1)

        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path + ".tmp")
        os.rename(path + ".tmp", path)
        s.listen(8)
        opened(0)
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """#
}
