// swift-tools-version:6.2
import PackageDescription

// ALARM_WEB=0 leaves alarm-web out of the package graph: no Hummingbird or SwiftNIO to resolve or
// compile (scripts/install --no-web on a Pi; the arm64 test build; the previous commit's package
// in the system test's upgrade scenario).
let withWeb = Context.environment["ALARM_WEB"] != "0"

// What `--version` prints: scripts/install and scripts/build-deb set ALARM_VERSION to the
// package's version; a plain `swift build` is a development build. Only CAlarmVersion's one C
// file sees it, so a new version recompiles that file alone.
let version = Context.environment["ALARM_VERSION"].flatMap { $0.isEmpty ? nil : $0 } ?? "0.1.0+dev"

let package = Package(
    name: "alarm",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "alarm", targets: ["alarm"]),
        .executable(name: "alarmd", targets: ["alarmd"]),
        .executable(name: "alarm-hooks", targets: ["alarm-hooks"]),
        .executable(name: "alarm-button", targets: ["alarm-button"]),
        // What the package `alarm` ships: alarm, alarmd, alarm-hooks and alarm-button in one binary, chosen by the
        // name it is run as. alarm-web (Hummingbird, SwiftNIO) is a binary of its own, shipped in
        // the package `alarm-web`, so that the core package carries no HTTP server.
        .executable(name: "alarm-multicall", targets: ["AlarmMultiCall"]),
        .executable(name: "alarm-bench", targets: ["AlarmBench"]),
        // The stream fetcher (issue #43): libcurl and the decoders, a binary of its own (the
        // package `alarm-stream`), so that neither alarmd nor the package `alarm` links them.
        .executable(name: "alarm-stream", targets: ["alarm-stream"]),
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
        // alarm-stream's: HTTP and the stream decoders.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMpg123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CVorbisFile", pkgConfig: "vorbisfile", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "COpusFile", pkgConfig: "opusfile", providers: [.apt(["libopusfile-dev"])]),
        .target(name: "CAlarmVersion", cSettings: [.define("ALARM_VERSION", to: "\"\(version)\"")]),

        // The pure core: expressions, zones, schedule, engine. No I/O, no clock.
        .target(name: "AlarmCore"),
        // Decoding (libsndfile), clip checks, default tone, ALSA player.
        .target(name: "AlarmAudio", dependencies: ["AlarmCore", "AlarmSystem", "CAlsa", "CSndfile"]),
        // Swift wrappers over Linux calls: timerfd, inotify, FIFO, signals, sd_notify, atomic files, locks.
        .target(name: "AlarmSystem", dependencies: ["CLinux"]),
        // What every front end shares (docs/architecture.md): configuration, the alarm store,
        // history and the event log, the system zone and holidays files, the checks, and the
        // actions the CLI and alarm-web both perform. No front end links AlarmDaemon.
        .target(
            name: "AlarmState",
            dependencies: [
                "AlarmCore", "AlarmAudio", "AlarmSystem",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The event loop that feeds AlarmCore and carries out its actions; status; ring state.
        .target(
            name: "AlarmDaemon",
            dependencies: [
                "AlarmCore", "AlarmAudio", "AlarmState", "AlarmSystem",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The settings options both executables take, declared once.
        .target(
            name: "AlarmOptions",
            dependencies: [
                "AlarmState", "AlarmSystem", "CAlarmVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // The two programs as libraries, so that both the single executables and the multi-call
        // binary can run them.
        .target(
            name: "AlarmCLI",
            dependencies: [
                "AlarmCore", "AlarmAudio", "AlarmOptions", "AlarmState", "AlarmSystem", "AlarmWebAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // `alarm licences`: the package's copyright file, written by scripts/licences.
            resources: [.embedInCode("Resources/copyright")]),
        .target(
            name: "AlarmdCommand",
            dependencies: [
                "AlarmDaemon", "AlarmOptions", "AlarmState",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The hooks runner (issue #13): a service of its own, never inside alarmd.
        .target(
            name: "AlarmHooks",
            dependencies: [
                "AlarmCore", "AlarmOptions", "AlarmState", "AlarmSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The bedside button (issue #30): reads an input device, tells alarmd through its FIFO. A
        // service of its own, never inside alarmd.
        .target(
            name: "AlarmButton",
            dependencies: [
                "AlarmCore", "AlarmOptions", "AlarmState", "AlarmSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // alarm-web's sign-in rules (token, sessions, CSRF, rate limit): pure, no HTTP server.
        .target(name: "AlarmWebAuth", dependencies: ["AlarmCore", "AlarmSystem"]),

        // alarm-stream (issue #43): fetches a stream (libcurl), resolves playlists, strips ICY
        // metadata, decodes (libmpg123, libvorbisfile, libopusfile) and hands float32 audio to
        // alarmd over a Unix socket (docs/sounds.md, the wire). Of alarm's own it links only the
        // pure core and the system wrappers; FoundationEssentials only (Foundation is 40 MB of ICU).
        .target(
            name: "AlarmStream",
            dependencies: [
                "AlarmCore", "AlarmSystem", "CCurl", "CMpg123", "CVorbisFile", "COpusFile", "CAlarmVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // Executables: wiring only.
        .executableTarget(name: "alarm", dependencies: ["AlarmCLI"]),
        .executableTarget(name: "alarmd", dependencies: ["AlarmdCommand"]),
        .executableTarget(name: "alarm-hooks", dependencies: ["AlarmHooks"]),
        .executableTarget(name: "alarm-button", dependencies: ["AlarmButton"]),
        .executableTarget(
            name: "AlarmMultiCall", dependencies: ["AlarmCLI", "AlarmdCommand", "AlarmHooks", "AlarmButton"]),
        .executableTarget(name: "AlarmBench", dependencies: ["AlarmCore", "AlarmAudio"]),
        .executableTarget(name: "alarm-stream", dependencies: ["AlarmStream"]),

        .testTarget(name: "AlarmCoreTests", dependencies: ["AlarmCore"]),
        .testTarget(name: "AlarmAudioTests", dependencies: ["AlarmAudio", "AlarmTestSupport"]),
        .testTarget(name: "AlarmSystemTests", dependencies: ["AlarmSystem", "AlarmTestSupport"]),
        .testTarget(name: "AlarmStateTests", dependencies: ["AlarmState", "AlarmTestSupport"]),
        .testTarget(
            name: "AlarmDaemonTests", dependencies: ["AlarmDaemon", "AlarmState", "AlarmHooks", "AlarmTestSupport"]),
        .testTarget(name: "WebAuthTests", dependencies: ["AlarmWebAuth"]),
        // alarm-stream: its pure parts in process, and the built binary against a real Icecast
        // fed by ffmpeg, through a client of the wire of the tests' own.
        .testTarget(
            name: "StreamTests", dependencies: ["AlarmStream", "alarm-stream", "alarm", "alarmd", "AlarmTestSupport"]),
        // Real-audio harness shared by the test targets: a PulseAudio null sink and its recorder.
        .target(name: "AlarmTestSupport", dependencies: ["CLinux"], path: "Tests/AlarmTestSupport"),
        // Runs the built binaries as processes.
        .testTarget(
            name: "EndToEndTests", dependencies: ["alarm", "alarmd", "alarm-hooks", "alarm-button", "AlarmTestSupport"]),
        // Crash safety, FIFO abuse and sound-file fuzzing against the built binaries and the decoder.
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "AlarmCore", "AlarmAudio", "AlarmSystem", "AlarmDaemon", "AlarmState", "AlarmTestSupport", "alarm",
                "alarmd",
            ]),
    ]
)

// alarm-web: a binary of its own (the package `alarm-web`), its Hummingbird and SwiftNIO, its tests.
if withWeb {
    package.products.append(.executable(name: "alarm-web", targets: ["alarm-web"]))
    // bench/web.py's yardstick (issue #31): Hummingbird alone, answering alarm-web's recorded
    // status response. Built for the bench only: scripts/install copies alarm-multicall and
    // alarm-web by name, so no package ships it.
    package.products.append(.executable(name: "alarm-web-baseline", targets: ["alarm-web-baseline"]))
    package.dependencies += [
        // Without its default traits: FullFoundation would link all of Foundation (ICU's 40 MB)
        // for URL-encoded forms, which alarm-web does not take.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        // Hummingbird's own foundations, named because alarm-web's connection guard is a
        // SwiftNIO channel handler over HTTP types.
        .package(url: "https://github.com/apple/swift-nio", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ]
    package.targets += [
        // alarm-web: the JSON API and the page, through AlarmState's actions (the CLI's), served by Hummingbird on
        // SwiftNIO's event loops. The page, its script and style and the OpenAPI document are
        // files in Resources/, embedded at build time.
        .target(
            name: "AlarmWeb",
            dependencies: [
                "AlarmCore", "AlarmOptions", "AlarmState", "AlarmSystem", "AlarmWebAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                .embedInCode("Resources/index.html"), .embedInCode("Resources/app.js"),
                .embedInCode("Resources/app.css"), .embedInCode("Resources/openapi.json"),
                // `alarm-web --licences`: the package's copyright file, written by scripts/licences.
                .embedInCode("Resources/copyright"),
            ]),
        .executableTarget(
            name: "alarm-web",
            dependencies: ["AlarmWeb", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "alarm-web-baseline",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // alarm-web's responder in process, as Hummingbird's router test framework calls it.
        .testTarget(
            name: "WebRouterTests",
            dependencies: [
                "AlarmWeb", "AlarmState", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // alarm-web over real HTTP (and the page in headless Chromium) against the built binaries.
        .testTarget(
            name: "WebTests", dependencies: ["alarm", "alarmd", "alarm-web", "AlarmTestSupport"], exclude: ["Browser"]),
    ]
}
