import AlarmCLI
import AlarmDaemon
import AlarmOptions
import AlarmSystem
import AlarmWebAuth
import ArgumentParser

/// `alarm-web`: the phone's page and the JSON API (issue #14). Wiring only: settings → token,
/// gate, actions → server. The multi-call binary runs it when called as `alarm-web`;
/// `alarm-web.service` starts it (off by default).
public struct AlarmWebCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "alarm-web",
        abstract: "Serve alarm's web page and JSON API (web_listen; default 127.0.0.1:8475).",
        discussion: """
            Every request but the page's own files needs the token of /etc/alarm/web-token (alarm web-token \
            prints it): as 'Authorization: Bearer TOKEN', or signed in once on the page. It reads and \
            writes the alarms as the CLI does and talks to alarmd through its FIFO and status.json, so it \
            must run as a member of the group alarm. alarm web-url prints the address to open.
            """)

    @OptionGroup var settings: SettingsOptions

    @Option(help: ArgumentHelp("Where to listen, HOST:PORT (config web_listen; default 127.0.0.1:8475; port 0: any free one).", valueName: "address"))
    var listen: String?

    public func run() throws {
        let config = try settings.configuration()
        let listenText = listen ?? config.webListen
        let address: ListenAddress
        do { address = try ListenAddress(listenText, allowingAnyPort: true) } catch { throw ValidationError("\(error)") }
        let token = CurrentToken(file: WebTokenFile(path: config.webTokenPath))
        if case .failure(let problem) = token.get() {
            // Keep running: the token may be made later (it is read again when it changes).
            WebLog.error("\(problem); every request is refused until then")
        }
        let api = WebAPI(actions: AlarmActions(config: config), gate: SharedGate(token: token))
        let server = WebServer(api: api, listen: address)
        Termination.exitCleanlyOnSignals()
        do {
            try server.run { bound in
                WebLog.info("listening on http://\(bound)/ (state \(config.stateDir), runtime \(config.runtimeDir))")
                try? SDNotify().ready()
            }
        } catch {
            WebLog.error("cannot listen on \(address): \(error)")
            throw ExitCode(1)
        }
    }
}
