import CarveCore
import Testing

/// A dump's DIR/dev/NAME read as upstream lsblk reads it with --sysroot.
@Suite struct UdevPropertyFileTests {
    func parse(_ text: String) -> DeviceProperties { UdevPropertyFile.parse(Array(text.utf8)) }

    @Test func theKeysLsblkReadsFeedTheirFields() {
        let found = parse(
            """
            DEVNAME=/dev/sdc1
            ID_FS_TYPE=bcachefs
            ID_FS_UUID_ENC=84684e5c-1a29
            ID_FS_LABEL_ENC=my\\x20data
            ID_PART_ENTRY_NAME=EFI\\x20System
            ID_MODEL=scsi_debug
            ID_MODEL_ENC=scsi_debug\\x20\\x20
            ID_REVISION=0191
            ID_WWN=0x3333
            ID_PART_ENTRY_SCHEME=dos
            ID_PART_ENTRY_NUMBER=1
            OWNER=root
            GROUP=disk
            MODE=brw-rw----

            """)
        #expect(found.fsType == "bcachefs")
        #expect(found.uuid == "84684e5c-1a29")
        #expect(found.label == "my data")
        #expect(found.partLabel == "EFI System")
        #expect(found.model == "scsi_debug")
        #expect(found[.revision] == "0191")
        #expect(found[.wwn] == "0x3333")
        #expect(found.ptType == "dos")
        #expect(found.partNumber == 1)
        #expect(found[.owner] == "root" && found[.group] == "disk" && found[.mode] == "brw-rw----")
    }

    @Test func theFirstLineOfAFieldWinsAndEmptyValuesAreSkipped() {
        let found = parse("ID_SERIAL=long_serial\nID_SERIAL_SHORT=short\nID_FS_TYPE=\nID_FS_TYPE=ext4\n")
        #expect(found.serial == "long_serial")
        #expect(found.fsType == "ext4")
        // The table type comes before the entry's scheme when both are there, whichever line is first.
        #expect(parse("ID_PART_ENTRY_SCHEME=gpt\nID_PART_TABLE_TYPE=dos\n").ptType == "gpt")
    }

    @Test func junkIsSkippedAndAValueEndsAtItsFirstNul() {
        var bytes: [UInt8] = [0xff, 0xfe, 0x00, 0x0a, 0x3d, 0x0a]
        bytes += Array("noequals\n=value\nID_FS_TYPE=ext\u{0}4\nID_FS_LABEL_ENC=\\xf\n".utf8)
        let found = UdevPropertyFile.parse(bytes)
        #expect(found.fsType == "ext")
        #expect(found.label == "\\xf")
        #expect(found.values.count == 2)
        #expect(UdevPropertyFile.parse([UInt8]()).values.isEmpty)
    }
}

extension UdevPropertyFileTests {
    @Test func whatADumpWritesReadsBackAsTheSameProperties() {
        var properties = DeviceProperties(
            fsType: "ext4", uuid: "89cd", label: "my \"data\"\n$x", partUUID: "dec9", partType: "0fc6",
            partLabel: "EFI System", partNumber: 1, ptType: "gpt", ptUUID: "7bd5", model: "QEMU HARDDISK",
            serial: "QM0001")
        properties[.revision] = "2.5+"
        properties[.owner] = "root"
        properties[.mode] = "brw-rw----"
        let bytes = UdevPropertyFile.render(properties, path: "/dev/sda1", isPartition: true)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("ID_FS_LABEL_ENC=my\\x20\\x22data\\x22\\x0a\\x24x\n"))
        #expect(text.contains("ID_PART_TABLE_TYPE=gpt\nID_PART_ENTRY_SCHEME=gpt\n"))
        #expect(UdevPropertyFile.parse(bytes) == properties)
    }
}
