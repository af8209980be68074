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
    .target(
      name: "ArgumentParser", dependencies: ["ArgumentParserToolInfo"],
      swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
    .target(name: "ArgumentParserToolInfo"),
  ]
)
