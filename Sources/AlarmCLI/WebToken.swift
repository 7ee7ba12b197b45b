import AlarmState
import AlarmOptions
import AlarmSystem
import AlarmWebAuth
import ArgumentParser

/// `alarm web-token [--rotate]`: prints alarm-web's access token, or replaces it.
struct WebToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-token",
        abstract: "Print alarm-web's access token (--rotate: replace it; as root).",
        discussion: """
            The token is in /etc/alarm/web-token (config web_token_file; mode 0640, group alarm), made \
            when the package is installed. Type it once on the page's sign-in form, or send it as \
            'Authorization: Bearer TOKEN'. --rotate writes a new one: the old token stops working at once \
            and every signed-in page must sign in again.
            """)

    @OptionGroup var options: SettingsOptions

    @Flag(help: "Replace the token with a new random one, and print that.")
    var rotate = false

    func run() throws {
        let config = try options.configuration()
        let file = WebTokenFile(path: config.webTokenPath)
        if rotate {
            // Group alarm may read it (alarm-web runs in it); without such a group (a
            // development machine), the file stays with the writer's group.
            let group = (try? Accounts.groupID(named: "alarm")) ?? nil
            do { print(try file.rotate(group: group)) } catch { throw UserError(error) }
            return
        }
        do { print(try file.read()) } catch { throw UserError(error) }
    }
}
