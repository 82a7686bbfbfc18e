// swift-tools-version: 6.2
import PackageDescription

let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
let coreMetrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")

let package = Package(
    name: "crated",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "crated", targets: ["crated"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // bcrypt for web sign-in passwords (HummingbirdBcrypt only: no auth framework).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // GET /metrics: instruments through swift-metrics, exposed in Prometheus's text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The OpenAPI document's YAML form (GET /v1/openapi.yaml).
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // JSON output and the few small JSON readers the API and storage share: the streaming
        // encoder, the hand-written writers (`JSONWritable`), flat readers, base64url.
        .target(name: "CratedJSON"),
        // Schema and migrations, records, AppDatabase and its repositories, configuration, and the
        // Discogs text rules that import and sync share.
        .target(
            name: "CratedCore",
            dependencies: [
                "CratedJSON", grdb, logging, coreMetrics,
                // SQLite's C API, for the hot reads that go by column index (StatementColumns).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Web sign-in passwords are stored as bcrypt hashes (SessionRepository).
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ],
            plugins: ["EmbedResources"]
        ),
        // The Discogs CSV import: reader, export header, importer, bulk writer (see its README).
        .target(
            name: "CratedImport",
            dependencies: ["CratedCore", "CratedJSON", grdb, .product(name: "GRDBSQLite", package: "GRDB.swift")],
            exclude: ["README.md"]
        ),
        // sqlite3_config, which is variadic, for Swift (see SQLiteProcess).
        .target(name: "CSQLiteConfig", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Grid pagination sized to the client's resolved layout environment.
        .target(name: "CratedGrid", dependencies: ["CratedCore", "CratedJSON", grdb]),
        // The mini-player's playback state and play history.
        .target(name: "CratedPlayback", dependencies: ["CratedCore", "CratedJSON", grdb, logging]),
        // libcurl, with a header of inline wrappers for its variadic calls.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Metadata sync from the Discogs API over an HTTPTransport (libcurl in production).
        .target(name: "CratedSync", dependencies: ["CratedCore", "CCurl", grdb, logging, serviceLifecycle, httpTypes]),
        // libvips, with inline wrappers for its variadic calls (shim.h).
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // Variants of JPEG covers made without leaving YCbCr: libjpeg-turbo's scaled decoding,
        // libswscale's filters, and libjpeg's or libwebp's encoder, in less time than libvips takes.
        .target(
            name: "CJPEGResize",
            linkerSettings: [
                .linkedLibrary("turbojpeg"), .linkedLibrary("jpeg"),
                .linkedLibrary("swscale"), .linkedLibrary("avutil"), .linkedLibrary("webp"),
            ]
        ),
        // Covers crated keeps itself: fetched from image hosts, stored by content hash within a disk
        // budget, resized with libvips into variants at the widths the layouts draw.
        .target(
            name: "CratedArtwork",
            dependencies: [
                "CratedCore", "CratedSync", "CVips", "CJPEGResize", grdb, logging, serviceLifecycle, httpTypes,
                .product(name: "Crypto", package: "swift-crypto"),
                // NIOThreadPool: resizing runs off Swift's cooperative threads.
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The HTTP/JSON API on Hummingbird: routes, controllers, buildApplication.
        .target(
            name: "CratedAPI",
            dependencies: [
                "CratedCore", "CratedJSON", "CratedGrid", "CratedPlayback", "CratedSync", "CratedArtwork", hummingbird, logging, serviceLifecycle, coreMetrics, prometheus,
                .product(name: "Yams", package: "Yams"),
                // gzip for JSON answers (zlib underneath).
                .product(name: "CompressNIO", package: "compress-nio"),
                // The transport's own errors (a client gone mid-request), told apart from the app's.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Resources"],
            plugins: ["EmbedResources"]
        ),
        // The thin command-line front end.
        .executableTarget(
            name: "crated",
            dependencies: [
                "CratedCore", "CratedImport", "CratedSync", "CratedArtwork", "CratedAPI", logging, coreMetrics,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Tests/Benchmarks/bench-sync.sh's measure of the bare transport; not part of the product.
        .executableTarget(name: "crated-transport-bench", dependencies: ["CratedSync", httpTypes], path: "Tests/Benchmarks/TransportBench"),
        // Tests/Benchmarks/bench-artwork.sh's libvips timings and cover images; not part of the product.
        .executableTarget(name: "crated-artwork-bench", dependencies: ["CratedArtwork", "CVips"], path: "Tests/Benchmarks/ArtworkBench"),
        // Compiles Migrations/*.sql and Config/crated.json into the binary, so an installed
        // `crated` never has to find resource folders next to itself (Bundle.module on Linux).
        .executableTarget(name: "embed-resources", path: "Sources/EmbedResourcesTool"),
        .plugin(
            name: "EmbedResources",
            capability: .buildTool(),
            dependencies: ["embed-resources"],
            path: "Sources/EmbedResourcesPlugin"
        ),
        // Helpers every test target shares: temporary folders and databases, fixtures, processes.
        .target(name: "CratedTestSupport", dependencies: ["CratedCore", "CratedImport", "CratedSync", "CratedArtwork", "CVips", grdb, hummingbird, logging], path: "Tests/CratedTestSupport"),
        .testTarget(name: "CratedJSONTests", dependencies: ["CratedJSON", "CratedTestSupport"]),
        .testTarget(name: "CratedCoreTests", dependencies: ["CratedCore", "CratedTestSupport", grdb]),
        .testTarget(name: "CratedImportTests", dependencies: ["CratedImport", "CratedCore", "CratedTestSupport", grdb]),
        // The tests that run the `crated` binary; depending on it builds it with the tests.
        .testTarget(name: "CratedCLITests", dependencies: ["crated", "CratedCore", "CratedImport", "CratedSync", "CratedTestSupport", grdb]),
        .testTarget(name: "CratedGridTests", dependencies: ["CratedTestSupport", "CratedGrid", "CratedCore", "CratedImport", "CratedJSON", grdb]),
        .testTarget(name: "CratedPlaybackTests", dependencies: ["CratedTestSupport", "CratedPlayback", "CratedCore", grdb]),
        .testTarget(name: "CratedSyncTests", dependencies: ["CratedTestSupport", "CratedSync", "CratedCore", "CratedImport", grdb, logging, serviceLifecycle, hummingbird, httpTypes]),
        // Image fixtures of our own making are read from the source tree (#filePath), not a bundle.
        .testTarget(name: "CratedArtworkTests", dependencies: ["CratedTestSupport", "CratedArtwork", "CVips", "CJPEGResize", "CratedCore", "CratedSync", grdb, httpTypes],
                    exclude: ["Fixtures"]),
        .testTarget(name: "CratedAPITests", dependencies: ["CratedTestSupport", "CratedAPI", "CratedArtwork", "CratedCore", "CratedImport", "CratedJSON", "CratedPlayback", "CratedSync", grdb, hummingbird, hummingbirdTesting, coreMetrics, prometheus,
                                                      .product(name: "Yams", package: "Yams"), .product(name: "CompressNIO", package: "compress-nio")]),
    ]
)
