import CarveCore

extension DeviceColumns {
    /// lsblk's columns of sysfs attributes, udev identification and the device node,
    /// with lsblk's width hints and alignment. Each is named after the `DeviceField`
    /// it shows, which tells the device source to read it.
    static let attributeColumns: [Column<DeviceRow>] = [
        number(.alignment, "alignment offset", widthHint: 6),
        number(.discardAlignment, "discard alignment offset", widthHint: 6),
        boolean(.dax, "dax-capable device"),
        bytes(.discardGranularity, "discard granularity", widthHint: 6),
        bytes(.discardMax, "discard max bytes", widthHint: 6),
        boolean(.discardZeroes, "discard zeroes data"),
        text(.group, "group name"),
        text(.hctl, "Host:Channel:Target:Lun for SCSI", widthHint: 10),
        boolean(.hotplug, "removable or hotplug device (usb, pcmcia, ...)"),
        number(.minIO, "minimum I/O size", widthHint: 6),
        text(.mode, "device node permissions", widthHint: 10),
        number(.optimalIO, "optimal I/O size", widthHint: 6),
        text(.owner, "user name"),
        text(.partFlags, "partition flags", widthHint: 36),
        number(.physicalSector, "physical sector size", widthHint: 7),
        number(.readAhead, "read-ahead of the device", widthHint: 3),
        boolean(.addRandom, "adds randomness"),
        // Upstream reads REV from udev first (ID_REVISION); lsblk 2.38 reads sysfs only.
        hardware(.revision, "device revision", rightAligned: true, widthHint: 4),
        number(.requestQueueSize, "request queue size", widthHint: 5),
        text(.scheduler, "I/O scheduler name"),
        text(.state, "state of the device", widthHint: 7),
        text(.subsystems, "de-duplicated chain of subsystems"),
        text(.transport, "device transport type", widthHint: 6),
        hardware(.vendor, "device vendor"),
        bytes(.writeSame, "write same max bytes", widthHint: 6),
        text(.wwn, "unique storage identifier", widthHint: 18),
        text(.zoned, "zone model"),
        bytes(.zoneSize, "zone size", widthHint: 9),
        bytes(.zoneWriteGranularity, "zone write granularity", widthHint: 10),
        bytes(.zoneAppend, "zone append max bytes", widthHint: 11),
        number(.zoneCount, "number of zones", widthHint: 8),
        number(.zoneOpenMax, "maximum number of open zones", widthHint: 10),
        number(.zoneActiveMax, "maximum number of active zones", widthHint: 10),
        number(.diskSeq, "disk sequence number", widthHint: 1),
    ]
}
