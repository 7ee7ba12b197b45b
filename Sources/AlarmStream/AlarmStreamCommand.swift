import ArgumentParser
import CAlarmVersion
import FoundationEssentials
import Glibc

/// `alarm-stream`: fetches internet radio for alarmd, which has no network (issue #43). Run by
/// systemd per connection (alarm-stream.socket, Accept=yes), or listening itself (`--listen`).
public struct AlarmStreamCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "alarm-stream",
        abstract: "Fetch and decode an internet radio stream for alarmd, over a Unix socket.",
        discussion: """
            Under systemd (alarm-stream.socket) it serves the connection it is given. Otherwise \
            --listen PATH serves connections on a Unix socket it makes, or --url URL writes what \
            a client would get (the wire's frames) to standard output, for a look at a station.
            """,
        version: String(cString: alarm_version()))

    @Option(name: .long, help: ArgumentHelp("Serve connections on a Unix socket made at PATH.", valueName: "PATH"))
    public var listen: String?

    @Option(
        name: .long, help: ArgumentHelp("Fetch URL and write the wire's frames to standard output.", valueName: "URL"))
    public var url: String?

    @Option(name: .long, help: ArgumentHelp("With --url: stop after this much audio.", valueName: "SECONDS"))
    public var seconds: Double = 5

    public init() {}

    public func validate() throws {
        if listen != nil && url != nil { throw ValidationError("--listen and --url: one or the other") }
        if url == nil && seconds != 5 { throw ValidationError("--seconds goes with --url") }
        if seconds <= 0 || !seconds.isFinite { throw ValidationError("--seconds must be a number of seconds above 0") }
        if let listen, listen.isEmpty { throw ValidationError("--listen needs a path") }
    }

    public func run() throws {
        // A parent may hand down a mask that blocks SIGTERM (a thread pool's, say): then
        // "stop" would not stop it. None is blocked here.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        if let listen {
            do throws(StreamServer.Failure) {
                try StreamServer.listen(path: listen)
            } catch {
                throw ValidationError("alarm-stream: \(error.description)")
            }
        }
        if let url {
            let request: StreamRequest
            do throws(StreamRequestError) {
                request = try StreamRequest.parse(
                    Array(
                        #"{"url":"\#(url.replacing("\\", with: "\\\\").replacing("\"", with: "\\\""))"}"#
                            .utf8))
            } catch {
                throw ValidationError(error.description)
            }
            StreamServer.ignoreSIGPIPE()
            StreamSession(input: -1, output: 1, audioLimit: seconds).serve(request)
            return
        }
        if StreamServer.serveActivated() { return }
        throw ValidationError("no socket from systemd (LISTEN_FDS): give --listen PATH, or --url URL")
    }
}
