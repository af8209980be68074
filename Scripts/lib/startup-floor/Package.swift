// swift-tools-version: 6.1
import PackageDescription

/// The start-up floor of `Scripts/bench.d/devices`: a program built and linked as carve is
/// (static Swift runtime, lld, packed relocations, the C++ runtime linked in), whose
/// only work is to parse a command line with the ArgumentParser carve uses.
let package = Package(
    name: "startup-floor",
    dependencies: [.package(path: "../../../Vendor/swift-argument-parser")],
    targets: [
        .executableTarget(
            name: "startup-floor",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: [.unsafeFlags(["-Osize"], .when(configuration: .release))],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-L", "\(Context.packageDirectory)/../../../Sources/carve/link",
                    ], .when(configuration: .release))
            ]
        )
    ]
)
