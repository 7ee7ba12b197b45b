import AlarmCore
import AlarmState
import AlarmOptions
import AlarmSystem
import AlarmWebAuth
import ArgumentParser
import FoundationEssentials
import Hummingbird
import NIOPosix
import Synchronization

/// `alarm-web`: the phone's page and the JSON API. Wiring only: settings → token, gate, host
/// policy, actions → Hummingbird. A binary of its own, in the package `alarm-web`;
/// `alarm-web.service` starts it (off by default).
public struct AlarmWebCommand: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "alarm-web",
        abstract: "Serve alarm's web page and JSON API (web_listen; default 127.0.0.1:8475).",
        discussion: """
            Every request but the page's own files needs the token of /etc/alarm/web-token (alarm web-token \
            prints it): as 'Authorization: Bearer TOKEN', or signed in once on the page. It reads and \
            writes the alarms as the CLI does and talks to alarmd through its FIFO and status.json, so it \
            must run as a member of the group alarm. alarm web-url prints the address to open.
            """,
        version: AlarmVersion.string)

    @OptionGroup var settings: SettingsOptions

    @Option(
        help: ArgumentHelp(
            "Where to listen, HOST:PORT (config web_listen; default 127.0.0.1:8475; port 0: any free one).",
            valueName: "address"))
    var listen: String?

    // A flag, not a subcommand: alarm-web takes none, and its usage line and manual page stay so.
    @Flag(
        help: """
            Print the copyright and licences of alarm-web and of everything it links (Hummingbird, \
            SwiftNIO, llhttp, the Swift runtime), and exit.
            """
    )
    var licences = false

    public func run() async throws {
        if licences {
            // The package's /usr/share/doc/alarm-web/copyright, byte for byte: scripts/licences
            // writes both from the pinned dependencies and the binary's link map, and its --check
            // (CI) fails when the copy embedded here differs from what generation gives.
            print(String(decoding: PackageResources.copyright, as: UTF8.self), terminator: "")
            return
        }
        try await serve()
    }

    /// Serves until the process is ended (SIGTERM, SIGINT: exit 0 at once).
    public func serve() async throws {
        let config = try settings.configuration()
        let listenText = listen ?? config.webListen
        let address: ListenAddress
        do { address = try ListenAddress(listenText, allowingAnyPort: true) } catch {
            throw ValidationError("\(error)")
        }
        let token = CurrentToken(file: WebTokenFile(path: config.webTokenPath))
        if case .failure(let problem) = token.get() {
            // Keep running: the token may be made later (it is read again when it changes).
            WebLog.error("\(problem); every request is refused until then")
        }
        let refusals = SharedRefusalLog { WebLog.notice($0) }
        let hosts = HostNames(listen: address, configured: config.webHosts)
        let api = WebAPI(
            actions: AlarmActions(config: config), gate: SharedGate(token: token), hosts: { hosts.policy() },
            refusals: refusals)
        Termination.exitCleanlyOnSignals()
        OpenFileLimit.raise()
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        var limits = ConnectionLimits()
        limits.perAddress = config.webConnectionsPerAddress
        limits.total = config.webConnections
        let opened: WebListeners.Opened
        do { opened = try WebListeners.open(address) } catch {
            WebLog.error("cannot listen on \(address): \(error)")
            throw ExitCode(1)
        }
        for note in opened.notes { WebLog.notice(note) }
        let port = opened.sockets.first?.port ?? address.port
        let held = opened.sockets.map { $0.host.contains(":") ? "[\($0.host)]:\($0.port)" : "\($0.host):\($0.port)" }
        let scope = opened.scope
        let running: @Sendable () async -> Void = {
            WebLog.info(
                "listening on http://\(ListenAddress(host: address.host, port: port))/ (sockets \(held.joined(separator: " ")); state \(config.stateDir), runtime \(config.runtimeDir))"
            )
            try? SDNotify().ready()
        }
        do {
            try await WebServer.run(
                api: api, sockets: opened.sockets, serves: { scope.serves(localAddress: $0) }, limits: limits,
                memoryLimit: config.webMemoryLimit, refusals: refusals, pool: pool, onRunning: running)
        } catch {
            WebLog.error("cannot serve on \(address): \(error)")
            throw ExitCode(1)
        }
    }
}

/// The names the server answers to (`HostPolicy`), with the machine's addresses and host name
/// read again at most every 10 s (an address from DHCP changes; a request must not wait).
final class HostNames: @unchecked Sendable {
    private let listen: ListenAddress
    private let configured: [String]
    private let cached = Mutex<(policy: HostPolicy, at: ContinuousClock.Instant)?>(nil)

    init(listen: ListenAddress, configured: [String]) {
        self.listen = listen
        self.configured = configured
    }

    func policy() -> HostPolicy {
        let now = ContinuousClock.now
        return cached.withLock { cached in
            if let cached, now - cached.at < .seconds(10) { return cached.policy }
            let policy = HostPolicy(
                listen: listen, configured: configured, addresses: NetworkInterfaces.addresses().map(\.address),
                hostName: NetworkInterfaces.hostName())
            cached = (policy, now)
            return policy
        }
    }
}
