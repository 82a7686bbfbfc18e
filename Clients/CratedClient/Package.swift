// swift-tools-version: 6.2
// The Swift client of crated's API, generated at build time by Apple's swift-openapi-generator from
// the document the server serves (Sources/CratedClient/openapi.json is a symlink to the server's
// Sources/CratedAPI/Resources/openapi.json, so the two cannot drift apart).
import PackageDescription

let package = Package(
    name: "CratedClient",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "CratedClient", targets: ["CratedClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Types and Client generated from openapi.json by the generator's build plugin, with the
        // runtime's defaults, as an iOS app that adds this package gets them.
        .target(
            name: "CratedClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Runs the generated client against a live daemon (run-integration.sh starts one).
        .executableTarget(
            name: "crated-client-integration",
            dependencies: [
                "CratedClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ]
        ),
    ]
)
