import AlarmAudio
import AlarmCore
import AlarmSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The facts of the checks, from the system: alsa-lib (the device chain opened without a sound,
/// the card's mixer), the kernel (`adjtimex`, `statvfs`, `access`), the sound directories.
public struct LivePreflightProbes: PreflightProbes {
    public var sounds: SoundLibrary
    /// alarmd checks its own access; `alarm check` run by a user outside the state directory's
    /// group cannot, and says so instead of reporting alarmd's directory as unwritable.
    public var asDaemon: Bool
    /// systemd-timesyncd's flag file, consulted when `adjtimex` is refused (alarmd's sandbox has
    /// `ProtectClock=yes`, which blocks even the read-only call).
    public var timesyncFlag = "/run/systemd/timesync/synchronized"
    /// Where the kernel's sound devices are.
    public var soundDevices = "/dev/snd"
    /// alarm-stream's socket and how long a stream may give no audio (config `stream_socket`,
    /// `stream_timeout`): a stream sound is checked by decoding a second of it (issue #43).
    public var streamSocket = "/run/alarm-stream/socket"
    public var streamTimeout: TimeInterval = 5
    /// The outcome of a stream's probe when the caller has it already (alarmd probes on a thread
    /// of its own); nil: probed here.
    public var streamOutcome: (@Sendable (String) -> StreamProbe.Outcome)? = nil

    public init(sounds: SoundLibrary, asDaemon: Bool) {
        self.sounds = sounds
        self.asDaemon = asDaemon
    }

    public func deviceChain(configured: String) -> [String] {
        AlarmPlayer.fallbackList(configured: configured)
    }

    public func probeDevice(_ device: String, channels: Int, rate: Int) -> CheckFacts.Device {
        let r = PCMProbe.probe(device, channels: channels, rate: rate)
        let text = r.error.map { "\($0.operation) failed: \($0.text)" } ?? ""
        switch r.outcome {
        case .opens:
            return .init(
                name: device, result: .opens(card: r.card.map { .init(index: $0, name: r.cardName ?? "card \($0)") }))
        case .busy: return .init(name: device, result: .busy(text))
        // alarmd's own access is what counts: for it, a device it may not open does not play.
        case .denied: return .init(name: device, result: asDaemon ? .fails(text) : .denied(text))
        case .fails:
            // A user who may not open the cards' control devices cannot even find a card by
            // name: alsa-lib says "No such device". That tells nothing about alarmd's access.
            if !asDaemon, let closed = cardsClosedToThisUser() {
                return .init(name: device, result: .denied("\(text); \(closed)"))
            }
            return .init(name: device, result: .fails(text))
        }
    }

    /// Why this user cannot use the sound cards at all, if so: control devices exist, and this
    /// user may open none of them (not in group audio, no seat access). Nil when there is no
    /// card, or one is open to this user.
    func cardsClosedToThisUser() -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: soundDevices) else { return nil }
        let controls = names.filter { $0.hasPrefix("controlC") }.sorted()
        guard let first = controls.first else { return nil }
        var why = EACCES
        for name in controls {
            if access(soundDevices + "/" + name, R_OK | W_OK) == 0 { return nil }
            why = errno
        }
        return "this user may not open \(soundDevices)/\(first) (\(String(cString: strerror(why))))"
    }

    public func mixer(card: CheckFacts.Device.Card, control: String?) -> CheckFacts.Mixer {
        // The volume floor's own reading (AlsaMixer): what a ring would find and raise.
        let device = "hw:\(card.index)"
        do {
            if control == nil, try AlsaMixer.levels(device: device).isEmpty {
                return .none("card '\(card.name)' has no playback volume control: nothing to check")
            }
            let level = try AlsaMixer.read(device: device, control: control)
            return .reading(control: level.control, card: card.name, percent: level.percent, muted: level.muted)
        } catch {
            if let control {
                return .unreadable(
                    "\(error) (mixer_control '\(control)'; amixer -c \(card.index) scontrols lists the controls)")
            }
            return .unreadable("\(error)")
        }
    }

    public func clock() -> CheckFacts.Clock {
        do {
            return try KernelClock.isSynchronized()
                ? .synchronized("adjtimex: STA_UNSYNC clear") : .unsynchronized("adjtimex: STA_UNSYNC set")
        } catch {
            if access(timesyncFlag, F_OK) == 0 { return .synchronized("systemd-timesyncd has synchronized it") }
            return .unknown("\(error), and systemd-timesyncd has not reported a synchronization")
        }
    }

    public func storage(_ directory: String) -> CheckFacts.Storage {
        var writable = CheckFacts.Storage.Writable.yes
        do { try FileSystemSpace.checkWritable(directory) } catch let e as SystemError {
            if !asDaemon, getuid() != 0, e.errno == EACCES {
                writable = .notChecked("you may not write it; members of its group may")
            } else {
                writable = .no(String(cString: strerror(e.errno)))
            }
        } catch {
            writable = .no("\(error)")
        }
        do {
            return .init(
                directory: directory, writable: writable, freeBytes: try FileSystemSpace.availableBytes(directory))
        } catch {
            return .init(directory: directory, writable: writable, freeBytes: nil, freeError: "\(error)")
        }
    }

    public func sound(_ spec: String?) -> (facts: CheckFacts.Sound, channels: Int, rate: Int) {
        guard let spec else {
            let tone = DefaultTone.clip()
            return (.defaultTone, tone.channels, tone.sampleRate)
        }
        // A list or `*` (issue #13): each ring picks one that plays; it will ring a sound of its
        // own as long as one plays. The device is checked with the first that plays.
        let names: [String]
        switch SoundSelection(spec) {
        case .one(let name): return sound(named: name)
        case .stream(let url):
            let tone = DefaultTone.clip()
            switch streamOutcome?(url) ?? StreamProbe.probe(url: url, socketPath: streamSocket, timeout: streamTimeout)
            {
            case .plays(let detail): return (.plays(name: url, detail: detail), tone.channels, tone.sampleRate)
            case .fails(let why): return (.streamFails(url: url, problem: why), tone.channels, tone.sampleRate)
            }
        case .list(let list): names = list
        case .any: names = sounds.names()
        }
        var playing: [(name: String, result: (facts: CheckFacts.Sound, channels: Int, rate: Int))] = []
        var broken: [String] = []
        for name in names {
            let r = sound(named: name)
            if case .plays = r.facts {
                playing.append((name, r))
            } else if case .replaced(_, let problem) = r.facts {
                broken.append(problem)
            }
            if case .any = SoundSelection(spec), !playing.isEmpty { break }
        }
        guard let first = playing.first else {
            let tone = DefaultTone.clip()
            let why = broken.first ?? "no sound in \(sounds.directories.joined(separator: ", "))"
            return (.replaced(name: spec, problem: why), tone.channels, tone.sampleRate)
        }
        var detail: String
        if case .any = SoundSelection(spec) {
            detail = "any of the \(names.count) sound(s) of the sound directories, e.g. \(first.name)"
        } else {
            detail = "\(playing.count) of \(names.count) play, one picked at random for each ring"
            if !broken.isEmpty { detail += "; passed over: " + broken.joined(separator: "; ") }
        }
        return (.plays(name: spec, detail: detail), first.result.channels, first.result.rate)
    }

    private func sound(named name: String) -> (facts: CheckFacts.Sound, channels: Int, rate: Int) {
        let inspection = sounds.inspect(name)
        switch inspection.result {
        case .success(let clip):
            var detail = [
                inspection.format.map { "\($0.container.rawValue) \($0.format)" }, Text.fixed(clip.duration, 1) + " s",
            ]
            .compactMap { $0 }.joined(separator: ", ")
            detail += ", \(clip.channels == 1 ? "mono" : "\(clip.channels) channels") \(clip.sampleRate) Hz"
            return (.plays(name: name, detail: detail), clip.channels, clip.sampleRate)
        case .failure(let problem):
            let tone = DefaultTone.clip()
            return (.replaced(name: name, problem: problem.description), tone.channels, tone.sampleRate)
        }
    }
}
