import ArgumentParser

// A root command with subcommands, the one run declaring a third of `carve devices`'
// options (flags, options, an option group, the device paths) and printing one line:
// what any Swift command line built on ArgumentParser pays before its first device.

struct Floor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup-floor", subcommands: [Devices.self, Other.self])
}

struct Listing: ParsableArguments {
    @Flag(name: [.customShort("J"), .long]) var json = false
    @Flag(name: [.short, .long]) var list = false
    @Flag(name: [.short, .long]) var bytes = false
    @Option(name: [.short, .long]) var output: String?
}

struct Devices: ParsableCommand {
    @Argument var devices: [String] = []
    @OptionGroup var listing: Listing
    @Option var sysroot: String?
    @Option var dump: String?
    @Flag var verbose = false

    func run() { print(devices.count, listing.json, listing.output ?? "") }
}

struct Other: ParsableCommand {
    @Option var count = 0
    func run() {}
}

Floor.main()
