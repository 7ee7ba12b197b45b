import AlarmAudio
import Foundation
import Testing

/// Issue #11, the pure half of the volume floor: when to raise, to what, and what it says.
@Suite("MixerLevel: the floor decision and its messages")
struct MixerLevelTests {
    /// snd-dummy's Master: -50…100, two channels, a switch each.
    func dummy(_ volumes: [Int], _ switches: [Bool] = [true, true]) -> MixerLevel {
        MixerLevel(device: "hw:CARD=Dummy", control: "Master", min: -50, max: 100, volumes: volumes, switches: switches)
    }

    @Test("percentages round as amixer's do; a one-value range is 100 %")
    func percentages() {
        let l = dummy([-42, 25])
        #expect(l.percent(of: -50) == 0)
        #expect(l.percent(of: -42) == 5)  // 8/150 = 5.3 %
        #expect(l.percent(of: 25) == 50)
        #expect(l.percent(of: 100) == 100)
        #expect(l.percent == 5)  // the quietest channel
        #expect(MixerLevel(device: "d", control: "c", min: 3, max: 3, volumes: [3], switches: []).percent == 100)
    }

    @Test(
        "the floor's raw value is never under the floor, for any range",
        arguments: [(0, 42), (0, 255), (-50, 100), (0, 65536), (-10239, 400)])
    func floorRaw(range: (Int, Int)) {
        let l = MixerLevel(device: "d", control: "c", min: range.0, max: range.1, volumes: [range.0], switches: [])
        for floor in 1...100 {
            let raw = l.raw(atLeast: floor)
            #expect(
                Double(raw - range.0) * 100 / Double(range.1 - range.0) >= Double(floor), "floor \(floor) in \(range)")
            #expect(raw - 1 < range.0 || Double(raw - 1 - range.0) * 100 / Double(range.1 - range.0) < Double(floor))
        }
    }

    @Test("muted and at 5 %: unmuted and raised to 50 %, with the history's message")
    func mutedAndLow() throws {
        let before = dummy([-42, -42], [false, false])
        let after = try #require(before.raised(toFloor: 50))
        #expect(after.volumes == [25, 25])
        #expect(after.switches == [true, true])
        #expect(!after.muted && after.percent == 50)
        #expect(MixerLevel.describeRaise(from: before, to: after) == "mixer 'Master' raised from 5 %, muted, to 50 %")
        #expect(MixerLevel.describeRestore(before) == "mixer 'Master' put back to 5 %, muted")
    }

    @Test("the issue's example: 12 %, muted, to 50 %")
    func issueExample() throws {
        let before = MixerLevel(
            device: "hw:CARD=Headphones", control: "Master", min: 0, max: 100, volumes: [12], switches: [false])
        let after = try #require(before.raised(toFloor: 50))
        #expect(MixerLevel.describeRaise(from: before, to: after) == "mixer 'Master' raised from 12 %, muted, to 50 %")
    }

    @Test("low but not muted; muted but loud; a control without a switch; an index")
    func variants() throws {
        let low = dummy([-50, 40])
        let raisedLow = try #require(low.raised(toFloor: 50))
        #expect(raisedLow.volumes == [25, 40], "a channel above the floor keeps its volume")
        #expect(MixerLevel.describeRaise(from: low, to: raisedLow) == "mixer 'Master' raised from 0 % to 50 %")

        let mutedLoud = dummy([70, 70], [true, false])
        let unmuted = try #require(mutedLoud.raised(toFloor: 50))
        #expect(unmuted.volumes == [70, 70] && unmuted.switches == [true, true])
        #expect(MixerLevel.describeRaise(from: mutedLoud, to: unmuted) == "mixer 'Master' unmuted at 80 %")

        let pcm = MixerLevel(
            device: "hw:CARD=Headphones", control: "PCM", index: 1, min: -10239, max: 400, volumes: [-10239],
            switches: [])
        let raisedPCM = try #require(pcm.raised(toFloor: 60))
        #expect(raisedPCM.switches.isEmpty)
        #expect(raisedPCM.percent >= 60)
        #expect(MixerLevel.describeRaise(from: pcm, to: raisedPCM).hasPrefix("mixer 'PCM',1 raised from 0 % to 6"))
    }

    @Test("nothing to do: at the floor and on, above it, or the floor off (0)")
    func nothingToDo() {
        #expect(dummy([25, 25]).raised(toFloor: 50) == nil)
        #expect(dummy([100, 90]).raised(toFloor: 50) == nil)
        #expect(dummy([-50, -50], [false, false]).raised(toFloor: 0) == nil)
    }

    @Test("mixer.json's form: keys, and a round trip")
    func codable() throws {
        let l = dummy([-42, -40], [false, true])
        let data = try JSONEncoder().encode(l)
        let keys = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys.sorted()
        #expect(keys == ["control", "device", "index", "max", "min", "switches", "volumes"])
        #expect(try JSONDecoder().decode(MixerLevel.self, from: data) == l)
    }

    @Test(
        "the card a PCM name names",
        arguments: [
            ("plughw:CARD=Headphones,DEV=0", "Headphones"), ("plughw:CARD=Headphones", "Headphones"), ("hw:1,0", "1"),
            ("hw:Loopback,1,0", "Loopback"), ("plughw:Loopback,1,0", "Loopback"), ("sysdefault:CARD=Device", "Device"),
            ("front:CARD=PCH,DEV=0", "PCH"), ("dmix:CARD=\"Dummy\",DEV=0", "Dummy"),
            ("hdmi:CARD=vc4hdmi0,DEV=0", "vc4hdmi0"),
            ("surround51:CARD=PCH,DEV=0", "PCH"), ("hw:DEV=0,CARD=2", "2"),
        ])
    func cardInName(name: String, card: String) {
        #expect(AlsaDevices.cardName(inPCMName: name) == card)
    }

    @Test("names without a card", arguments: ["default", "null", "pulse", "rec", "plug:dmix", "file:/tmp/x.wav", "hw"])
    func noCardInName(name: String) {
        #expect(AlsaDevices.cardName(inPCMName: name) == nil)
    }

    @Test("the mixer of a PCM: its card by id, the card its name names, a ctl of its own name, or none")
    func controlDevice() {
        #expect(AlsaDevices.controlDevice(forPCM: "plughw:CARD=Headphones,DEV=0", card: nil) == "hw:CARD=Headphones")
        #expect(AlsaDevices.controlDevice(forPCM: "hw:1,0", card: nil) == "hw:CARD=1")
        // alsa.conf defines ctl.default; Debian's libasound2-plugins ctl.pulse.
        #expect(AlsaDevices.controlDevice(forPCM: "default", card: nil) == "default")
        #expect(AlsaDevices.controlDevice(forPCM: "pulse", card: nil) == "pulse")
        #expect(AlsaDevices.controlDevice(forPCM: "null", card: nil) == nil)
        #expect(AlsaDevices.controlDevice(forPCM: "nosuchpcm", card: nil) == nil)
    }
}
