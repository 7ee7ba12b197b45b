import Foundation

// `alarm-bench`: prints figures, asserts nothing (these machines are shared and noisy).
// Build it in release: swift build -c release --product alarm-bench && .build/release/alarm-bench
print("alarm-bench: figures from this machine (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
ScheduleBench.run()
// `alarm-bench --schedule`: the schedule figures only.
if !CommandLine.arguments.contains("--schedule") { AudioBench.run() }
