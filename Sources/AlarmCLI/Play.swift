import AlarmState
import Glibc
import AlarmSystem
import AlarmAudio
import ArgumentParser
import FoundationEssentials

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a sound through ALSA the way an alarm would, to test your speaker.",
        discussion: """
            A sound that will not play is replaced by the default tone, and the reason is printed on \
            stderr. Exits 0 when something played, 1 when no ALSA device would play.
            """)

    @Argument(help: "The sound's file name, as in the sound directories (see 'alarm sounds').")
    var name: String?

    @Flag(name: .customLong("default"), help: "Play the built-in default tone.")
    var defaultTone = false

    @Option(
        help: ArgumentHelp(
            "ALSA PCM to play on (default: $ALARM_DEVICE, else 'default'); falls back to 'default', then the first card.",
            valueName: "pcm"))
    var device: String?

    @Option(help: ArgumentHelp("Volume in percent of full scale, 0-100.", valueName: "percent"))
    var volume: Int = 100

    @Option(
        help: ArgumentHelp("Seconds to rise from silence to full volume.", valueName: "seconds"))
    var fadeIn: Double = 0

    @Flag(help: "Ring like an alarm: loop the sound with a short pause until interrupted (Ctrl-C, SIGTERM).")
    var loop = false

    @Option(
        help: ArgumentHelp("With --loop: stop after this many seconds of audio.", valueName: "seconds"))
    var maxSeconds: Double?

    @OptionGroup var sounds: SoundOptions

    func validate() throws {
        if defaultTone && name != nil { throw ValidationError("give a sound name or --default, not both") }
        if !defaultTone && name == nil { throw ValidationError("give a sound name (see 'alarm sounds') or --default") }
        guard (0...100).contains(volume) else { throw ValidationError("--volume must be between 0 and 100") }
        guard fadeIn.isFinite, fadeIn >= 0 else { throw ValidationError("--fade-in must be 0 or more seconds") }
        if let maxSeconds, !(maxSeconds > 0) { throw ValidationError("--max-seconds must be more than 0") }
        if maxSeconds != nil && !loop { throw ValidationError("--max-seconds goes with --loop") }
    }

    func run() throws {
        let choice = try sounds.library.choose(defaultTone ? nil : name)
        if let problem = choice.problem {
            stderr("alarm: \(problem); playing the default tone instead")
        }
        let what = choice.name.map { "'\($0)'" } ?? "the default tone"
        let player = AlarmPlayer(device: try sounds.configuration(device: device).device)
        let loudness = Loudness(volumePercent: Double(volume), fadeIn: fadeIn)
        if loop {
            // Block the stop signals before the player thread exists, so only sigwait sees them.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            player.start(choice.clip, loudness: loudness, maxDuration: maxSeconds) { started in
                stderr("alarm: ringing \(started.substitution == nil ? what : "the default tone") on \(started.device)")
            }
            var timeout = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            while player.isRinging {
                if sigtimedwait(&set, nil, &timeout) > 0 { break }
            }
            let summary = player.stop()
            guard summary.framesWritten > 0 else { throw ExitCode.failure }
            print("played \(summary.substitution == nil ? what : "the default tone") on \(summary.device ?? "?")")
            return
        }
        do {
            // The player says on stderr when a device refused the clip and the default tone played.
            let summary = try player.playOnce(choice.clip, loudness: loudness)
            print("played \(summary.substitution == nil ? what : "the default tone") on \(summary.device ?? "?")")
        } catch {
            stderr("alarm: no ALSA device would play: \(error)")
            throw ExitCode.failure
        }
    }
}

func stderr(_ line: String) {
    StandardError.write(line)
}
