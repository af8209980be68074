import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// A real loop device detached in the middle of a listing, at a fixed point (a
/// hook in front of the real source), so the race is hit every run instead of by chance.
@Suite(.serialized, .integration())
struct DeviceVanishingIntegrationTests {
    func inventory(
        attributes: any DeviceAttributeSource = SysfsTree(),
        probe: any DevicePropertySource = BlkidPropertySource()
    ) -> DeviceInventory {
        DeviceInventory(
            enumerator: SysfsBlockEnumerator(), attributes: attributes, propertySources: [probe],
            mounts: ProcMountTable())
    }

    @Test func detachedBetweenListingAndProbingIsListedWithoutContent() throws {
        let disk = try LoopDisk(size: "128M")
        defer { disk.cleanup() }
        try Shell.check(["mkfs.btrfs", "-q", "-f", disk.device])
        let name = String(disk.device.dropFirst("/dev/".count))
        let attached = try inventory().collect(restrictedTo: [name])
        #expect(
            attached.devices.first { $0.name == name }?.properties.fsType == "btrfs",
            "the control: probed while attached")
        let detaching = InterposedPropertySource(BlkidPropertySource()) { device in
            if device.name == name { try? disk.detach() }
        }
        let result = try inventory(probe: detaching).collect(restrictedTo: [name])
        let gone = try #require(result.devices.first { $0.name == name })
        #expect(gone.properties.fsType == nil && gone.properties.uuid == nil, "nothing read from a detached device")
        #expect(result.fieldsNeedingRoot().isEmpty)
        #expect(try Shell.run(["losetup", disk.device]).status != 0, "the device really was detached mid-run")
    }

    @Test func detachedBetweenListingAndSysfsIsLeftOut() throws {
        let disk = try LoopDisk(size: "128M")
        defer { disk.cleanup() }
        try Shell.check(["mkfs.btrfs", "-q", "-f", disk.device])
        let name = String(disk.device.dropFirst("/dev/".count))
        let attributes = FaultyAttributes(SysfsTree())
        attributes.before = { asked in if asked == name { try? disk.detach() } }
        let result = try inventory(attributes: attributes).collect()
        #expect(attributes.asked.contains(name), "udev listed the device while it was attached")
        #expect(
            !result.devices.contains { $0.name == name }, "a loop device without its file is hidden, as lsblk hides it")
        #expect(!result.devices.isEmpty)
    }
}
