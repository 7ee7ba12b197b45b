import AlarmSystem
import Testing

@Suite("ControlCommand and ControlLineReader")
struct ControlCommandTests {
    @Test(
        "the four commands parse, verbs case-insensitively, with optional arguments",
        arguments: [
            ("snooze", ControlCommand.snooze(duration: nil)),
            ("snooze 5s", .snooze(duration: "5s")),
            ("  SNOOZE\t1h30m  ", .snooze(duration: "1h30m")),
            ("stop", .stop),
            ("stop\r", .stop),
            ("ring", .ring(sound: nil)),
            ("ring birds.caf", .ring(sound: "birds.caf")),
            ("ring  morning birds.wav ", .ring(sound: "morning birds.wav")),
            ("reload", .reload),
        ])
    func parses(line: String, expected: ControlCommand) {
        #expect(ControlCommand(line: Array(line.utf8)) == expected)
    }

    @Test(
        "anything else is invalid with a reason",
        arguments: [
            ("snooze 5 m", "at most one duration"),
            ("stop now", "takes no arguments"),
            ("reload x", "takes no arguments"),
            ("dance", "unknown command 'dance'"),
            ("stop\u{7}", "control characters"),
        ])
    func invalid(line: String, reasonContains: String) {
        guard case .invalid(let reason)? = ControlCommand(line: Array(line.utf8)) else {
            Issue.record("\(line) parsed as a command")
            return
        }
        #expect(reason.contains(reasonContains), "\(reason)")
    }

    @Test("NUL bytes and invalid UTF-8 are flagged as binary; blank lines are no command")
    func binary() {
        #expect(
            ControlCommand(line: [0x73, 0x74, 0x00, 0x70]) == .invalid(reason: "line contains NUL bytes (binary data?)")
        )
        #expect(ControlCommand(line: [0x73, 0xff, 0xfe]) == .invalid(reason: "line is not valid UTF-8 (binary data?)"))
        #expect(ControlCommand(line: Array("   ".utf8)) == nil)
        #expect(ControlCommand(line: []) == nil)
    }

    @Test("commands print back to the line that parses to them")
    func roundTrip() {
        for command in [
            ControlCommand.snooze(duration: nil), .snooze(duration: "9m"), .stop,
            .ring(sound: nil), .ring(sound: "a b.wav"), .reload,
        ] {
            #expect(ControlCommand(parsing: command.line!) == command)
        }
        #expect(ControlCommand.invalid(reason: "x").line == nil)
    }

    @Test("lines split across reads are joined; several lines in one read all arrive")
    func splitting() {
        var reader = ControlLineReader()
        #expect(reader.consume(Array("sn".utf8)).isEmpty)
        #expect(reader.consume(Array("ooze 5s\nstop\nre".utf8)) == [.snooze(duration: "5s"), .stop])
        #expect(reader.bufferedByteCount == 2)
        #expect(reader.consume(Array("load\n\n".utf8)) == [.reload])
        #expect(reader.bufferedByteCount == 0)
    }

    @Test("a line of exactly 512 bytes is read; 513 bytes is discarded whole and reported once")
    func lengthLimit() {
        var reader = ControlLineReader()
        let sound = String(repeating: "s", count: 512 - "ring ".count)
        #expect(reader.consume(Array("ring \(sound)\n".utf8)) == [.ring(sound: sound)])
        let long = Array("ring \(sound)x\nstop\n".utf8)
        let got = reader.consume(long)
        #expect(got.count == 2)
        #expect(got.first == .invalid(reason: "line longer than 512 bytes discarded (513 bytes)"))
        #expect(got.last == .stop)
    }

    @Test("a 1 MiB line fed in pieces keeps at most 512 bytes buffered and is reported once")
    func boundedMemory() {
        var reader = ControlLineReader()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
        var results: [ControlCommand] = []
        for _ in 0..<256 {
            results += reader.consume(chunk)
            #expect(reader.bufferedByteCount <= 512)
        }
        results += reader.consume(Array("\nstop\n".utf8))
        #expect(results == [.invalid(reason: "line longer than 512 bytes discarded (1048576 bytes)"), .stop])
    }
}
