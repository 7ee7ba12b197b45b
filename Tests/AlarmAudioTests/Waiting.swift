import AlarmTestSupport
import Foundation

/// A private PulseAudio null sink that this process's alsa-lib `pulse` PCM plays to while `body`
/// runs (the export is process-wide, hence undone before the sink goes; suites that use it are
/// `.serialized`).
func withExportedSink<T>(_ name: String, _ body: (PulseNullSink) throws -> T) throws -> T {
    let sink = try PulseNullSink(sinkName: name)
    defer { sink.shutdown() }
    sink.exportToThisProcess()
    defer { sink.unexportFromThisProcess() }
    return try body(sink)
}
