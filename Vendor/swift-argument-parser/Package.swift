// swift-tools-version:6.0
// swift-argument-parser 1.8.2 without its Foundation import: see PATCHED.md.
import PackageDescription

let package = Package(
  name: "swift-argument-parser",
  products: [
    .library(name: "ArgumentParser", targets: ["ArgumentParser"]),
  ],
  targets: [
    // Upstream code as released: its deprecation warnings are upstream's to fix.
    // Release builds are optimised for size: the parser runs once per carve run,
    // and its code is a tenth of carve's binary (issue #15).
    .target(
      name: "ArgumentParser", dependencies: ["ArgumentParserToolInfo"],
      swiftSettings: [
        .unsafeFlags(["-suppress-warnings"]),
        .unsafeFlags(["-Osize"], .when(configuration: .release)),
      ]),
    .target(
      name: "ArgumentParserToolInfo",
      swiftSettings: [.unsafeFlags(["-Osize"], .when(configuration: .release))]),
  ]
)
