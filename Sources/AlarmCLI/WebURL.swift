import AlarmState
import AlarmOptions
import AlarmSystem
import AlarmWebAuth
import ArgumentParser

/// `alarm web-url`: the address to open on the phone, from `web_listen`.
struct WebURL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-url",
        abstract: "Print the address of alarm-web's page, to open on a phone.",
        discussion: """
            From web_listen in the config (default 127.0.0.1:8475, this machine only). For 0.0.0.0:PORT \
            (every address) it prints one address per network interface, the first one first.
            """)

    @OptionGroup var options: SettingsOptions

    func run() throws {
        let config = try options.configuration()
        let listen: ListenAddress
        do { listen = try ListenAddress(config.webListen) } catch { throw UserError("\(config.configPath): \(error)") }
        if listen.isWildcard {
            let candidates = NetworkInterfaces.addresses().filter {
                !$0.isLoopback && (listen.host == "::" || !$0.isIPv6) && !$0.address.hasPrefix("fe80:")
            }
            guard !candidates.isEmpty else {
                print(ListenAddress.url(host: "127.0.0.1", port: listen.port))
                printError("note: this machine has no network address besides loopback right now")
                return
            }
            for c in candidates { print(ListenAddress.url(host: c.address, port: listen.port)) }
            return
        }
        print(ListenAddress.url(host: listen.host, port: listen.port))
        if listen.isLoopback {
            printError(
                "note: alarm-web listens on \(listen) (this machine only); to open it from a phone on your network, "
                    + "set 'web_listen = 0.0.0.0:\(listen.port)' (or this machine's LAN address) in \(config.configPath) "
                    + "and restart alarm-web (sudo systemctl restart alarm-web)")
        }
    }
}
