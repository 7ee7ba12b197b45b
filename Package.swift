// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "alarm",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "alarm", targets: ["alarm"]),
        .executable(name: "alarmd", targets: ["alarmd"]),
        .executable(name: "alarm-hooks", targets: ["alarm-hooks"]),
        .executable(name: "alarm-web", targets: ["alarm-web"]),
        // What the package ships: alarm, alarmd, alarm-hooks and alarm-web in one binary, chosen by
        // the name it is run as.
        .executable(name: "alarm-multicall", targets: ["AlarmMultiCall"]),
        .executable(name: "alarm-bench", targets: ["AlarmBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // C at the edges: one modulemap + one header each.
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CLinux"),

        // The pure core: expressions, zones, schedule, engine. No I/O, no clock.
        .target(name: "AlarmCore"),
        // Decoding (libsndfile), clip checks, default tone, ALSA player.
        .target(name: "AlarmAudio", dependencies: ["AlarmCore", "AlarmSystem", "CAlsa", "CSndfile"]),
        // Swift wrappers over Linux calls: timerfd, inotify, FIFO, signals, sd_notify, atomic files, locks.
        .target(name: "AlarmSystem", dependencies: ["CLinux"]),
        // The event loop that feeds AlarmCore and carries out its actions; store; status; history.
        .target(
            name: "AlarmDaemon",
            dependencies: [
                "AlarmCore", "AlarmAudio", "AlarmSystem",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The settings options both executables take, declared once.
        .target(
            name: "AlarmOptions",
            dependencies: ["AlarmDaemon", "AlarmSystem", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // The two programs as libraries, so that both the single executables and the multi-call
        // binary can run them.
        .target(
            name: "AlarmCLI",
            dependencies: [
                "AlarmCore", "AlarmAudio", "AlarmDaemon", "AlarmOptions", "AlarmSystem", "AlarmWebAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .target(
            name: "AlarmdCommand",
            dependencies: [
                "AlarmDaemon", "AlarmOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // The hooks runner (issue #13): a service of its own, never inside alarmd.
        .target(
            name: "AlarmHooks",
            dependencies: [
                "AlarmCore", "AlarmDaemon", "AlarmOptions", "AlarmSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // alarm-web's sign-in rules (token, sessions, CSRF, rate limit): pure, no HTTP server.
        .target(name: "AlarmWebAuth", dependencies: ["AlarmCore", "AlarmSystem"]),
        // alarm-web (issue #14): the JSON API and the page, through the CLI's code, on a small
        // HTTP/1.1 server of its own (Hummingbird cost 11 MB of the binary: see README).
        .target(
            name: "AlarmWeb",
            dependencies: [
                "AlarmCLI", "AlarmCore", "AlarmDaemon", "AlarmOptions", "AlarmSystem", "AlarmWebAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // Executables: wiring only.
        .executableTarget(name: "alarm", dependencies: ["AlarmCLI"]),
        .executableTarget(name: "alarmd", dependencies: ["AlarmdCommand"]),
        .executableTarget(name: "alarm-hooks", dependencies: ["AlarmHooks"]),
        .executableTarget(name: "alarm-web", dependencies: ["AlarmWeb"]),
        .executableTarget(name: "AlarmMultiCall", dependencies: ["AlarmCLI", "AlarmdCommand", "AlarmHooks", "AlarmWeb"]),
        .executableTarget(name: "AlarmBench", dependencies: ["AlarmCore", "AlarmAudio", "AlarmDaemon"]),

        .testTarget(name: "AlarmCoreTests", dependencies: ["AlarmCore"]),
        .testTarget(name: "AlarmAudioTests", dependencies: ["AlarmAudio", "AlarmTestSupport"]),
        .testTarget(name: "AlarmSystemTests", dependencies: ["AlarmSystem", "AlarmTestSupport"]),
        .testTarget(name: "AlarmDaemonTests", dependencies: ["AlarmDaemon", "AlarmHooks"]),
        .testTarget(name: "WebAuthTests", dependencies: ["AlarmWebAuth"]),
        .testTarget(name: "WebUnitTests", dependencies: ["AlarmWeb"]),
        // alarm-web over real HTTP (and the page in headless Chromium) against the built binaries.
        .testTarget(name: "WebTests", dependencies: ["alarm", "alarmd", "alarm-web", "AlarmTestSupport"], exclude: ["Browser"]),
        // Real-audio harness shared by the test targets: a PulseAudio null sink and its recorder.
        .target(name: "AlarmTestSupport", path: "Tests/AlarmTestSupport"),
        // Runs the built binaries as processes.
        .testTarget(name: "EndToEndTests", dependencies: ["alarm", "alarmd", "alarm-hooks", "AlarmTestSupport"]),
        // Crash safety, FIFO abuse and sound-file fuzzing against the built binaries and the decoder.
        .testTarget(name: "ReliabilityTests", dependencies: ["AlarmCore", "AlarmAudio", "AlarmSystem", "AlarmDaemon", "AlarmTestSupport", "alarm", "alarmd"]),
    ]
)
