// libFuzzer target over the sound decoder and its clip checks (issue #6, "Sound files"), built by
// reliability/fuzz-decoder with `swiftc -sanitize=fuzzer` from the AlarmCore and AlarmAudio
// sources. Every input (decoded, and cut as `alarm sounds cut` would) must end in a decision: a non-empty clip of finite samples within the
// limits, or a problem with a message. A crash, a hang (-timeout) or a failed check is a finding.
import AlarmAudio
import Foundation

let path = (ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? "/tmp") + "/fuzz-input-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else {
        fatalError("cannot write \(path)")
    }
    let inspection = SoundDecoder.inspect(path: path, name: "fuzz.wav")
    switch inspection.result {
    case .success(let clip):
        precondition(clip.frameCount > 0, "a playable clip without frames")
        precondition((1...ClipLimits.maxChannels).contains(clip.channels), "\(clip.channels) channels")
        precondition((ClipLimits.minSampleRate...ClipLimits.maxSampleRate).contains(clip.sampleRate), "\(clip.sampleRate) Hz")
        precondition(clip.duration <= ClipLimits.maxDuration, "\(clip.duration) s")
        precondition(!clip.samples.contains { !$0.isFinite }, "non-finite samples")
    case .failure(let problem):
        precondition(problem.description.contains("fuzz.wav"), "a reason that does not name the sound: \(problem)")
    }
    // `alarm sounds cut` reads the same bytes another way (issue #24): a stretch from inside the
    // file, then its FLAC encoding; it must end in a clip or a refusal.
    do {
        let clip = try SoundCutter.cut(path: path, name: "fuzz.wav", from: 0.01, length: 0.5)
        // The stretch is rounded to the nearest frame (SoundCutter.window): at an odd rate such as
        // 8,001 Hz, 0.5 s is 4,000.5 frames and the cut has 4,001, half a frame over.
        let longest = 0.5 + 0.5 / Double(clip.sampleRate) + 1e-9
        precondition(clip.frameCount > 0 && clip.duration <= longest, "a cut of \(clip.duration) s")
        precondition(!clip.samples.contains { !$0.isFinite || abs($0) > 1 }, "cut samples out of range")
        _ = try SoundCutter.encode(clip, as: .flac)
    } catch {
        precondition(!error.description.isEmpty)
    }
    return 0
}
