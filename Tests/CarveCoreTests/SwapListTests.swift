import CarveCore
import Testing

@Suite struct SwapListTests {
    @Test func devicesOnlyWithEscapesDecoded() throws {
        let text = """
            Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority
            /dev/loop3p4                            partition\t65532\t\t0\t\t-2
            /swap\\040file                          file\t\t1048572\t\t0\t\t-3
            /dev/disk\\040x                          partition\t10\t\t0\t\t-4

            """
        #expect(try SwapList.devicePaths(text) == ["/dev/loop3p4", "/dev/disk x"])
        // Swap files apart: btrfs refuses to delete a subvolume holding an active one.
        #expect(try SwapList.filePaths(text) == ["/swap file"])
    }

    @Test func onlyTheHeaderMeansNoSwap() throws {
        #expect(try SwapList.devicePaths("Filename\tType\tSize\tUsed\tPriority\n").isEmpty)
        #expect(try SwapList.devicePaths("").isEmpty)
    }

    @Test(arguments: ["Filename Type Size Used Priority\n/dev/sda2 partition 100\n", "h\nonlyone\n"])
    func shortLinesAreErrors(text: String) {
        #expect(throws: ParseError.self) { try SwapList.devicePaths(text) }
        #expect(throws: ParseError.self) { try SwapList.filePaths(text) }
    }

    @Test func swapDevicesGetTheSwapMountpointBySourcePath() {
        var devices = [BlockDevice(name: "sda2", kind: .part, number: DeviceNumber(major: 8, minor: 2), size: 1)]
        DeviceInventory.attachMountpoints(to: &devices, from: SwapList.entries(for: ["/dev/sda2"]))
        #expect(devices[0].mountpoints == ["[SWAP]"])
    }
}
