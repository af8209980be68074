// swift-tools-version: 6.1
import PackageDescription

/// One system-library target per C library; only CarveLinux imports them.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// Release builds make the package (issue #15: at most 10 MB installed): linked
/// by the toolchain's lld with relative relocations packed (DT_RELR, glibc 2.36:
/// 27,000 R_X86_64_RELATIVE entries were 740 KB and start-up work), identical functions folded where no address is taken, and no
/// dynamic symbol table (the static Swift runtime's link arguments export every
/// public symbol, and nothing loads carve as a library).
let smallReleaseLink: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--icf=safe",
            // No unwind tables and no search index over them (1.4 MB): see the script.
            "-Xlinker", "--no-eh-frame-hdr",
            "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/Sources/carve/no-unwind-tables.ld",
            "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/carve/exports.map",
            // The C++ runtime the Swift runtime needs, linked in: see link/libstdc++.so.
            "-L", "\(Context.packageDirectory)/Sources/carve/link",
        ], .when(configuration: .release))
]

/// carve's own modules are compiled for size: the package stays under its 10 MB, and
/// what -O would gain is not in their loops (measured: Scripts/bench.d/exact, list).
let compactRelease: [SwiftSetting] = [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let package = Package(
    name: "carve",
    products: [
        .executable(name: "carve", targets: ["carve"])
    ],
    dependencies: [
        // 1.8.2 without its Foundation import, so the binary links no Foundation (Vendor/…/PATCHED.md).
        .package(path: "Vendor/swift-argument-parser"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        systemLibrary("CBlkid", pkgConfig: "blkid", apt: "libblkid-dev"),
        systemLibrary("CUdev", pkgConfig: "libudev", apt: "libudev-dev"),
        systemLibrary("CBtrfsUtil", pkgConfig: "libbtrfsutil", apt: "libbtrfsutil-dev"),
        systemLibrary("CFdisk", pkgConfig: "fdisk", apt: "libfdisk-dev"),
        .target(name: "CarveCore", swiftSettings: compactRelease),
        .target(
            name: "CarveLinux",
            dependencies: ["CarveCore", "CBlkid", "CUdev", "CBtrfsUtil", "CFdisk"],
            swiftSettings: compactRelease
        ),
        .target(
            name: "CarveCLI",
            dependencies: [
                "CarveCore", "CarveLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: compactRelease
        ),
        .executableTarget(
            name: "carve", dependencies: ["CarveCLI", "CarveCore"],
            exclude: ["exports.map", "no-unwind-tables.ld", "link"], linkerSettings: smallReleaseLink
        ),
        // Prints what the man pages are generated from (Scripts/man); not installed.
        .executableTarget(name: "carve-manual-data", dependencies: ["CarveCLI"]),
        // Shared by the test targets only: loop images, udevd, running reference tools.
        .target(name: "CarveTestSupport", dependencies: ["CarveCore", "CarveLinux"]),
        .testTarget(
            name: "CarveCoreTests",
            dependencies: [
                "CarveCore", "CarveTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "CarveCLITests", dependencies: ["CarveCLI", "CarveCore", "CarveTestSupport"]),
        .testTarget(
            name: "CarveLinuxTests",
            dependencies: [
                "CarveLinux", "CarveCLI", "CarveCore", "CarveTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
