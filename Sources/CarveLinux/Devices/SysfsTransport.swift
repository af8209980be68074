import CarveCore

/// lsblk's TRAN: how a device is attached, told from its SCSI host's class (spi, fc,
/// sas, iscsi), its SCSI device's attributes and path (sbp, usb), the SCSI host's
/// driver (sata, ata), else from its kernel name (nvme, virtio, mmc).
enum SysfsTransport {
    static func transport(of attributes: SysfsPropertySource.Attributes) -> String? {
        let name = attributes.device.name
        if let hctl = SysfsPropertySource.hctl(attributes), let host = hctl.split(separator: ":").first {
            let root = attributes.host
            func hostIs(_ type: String) -> Bool { Files.isDirectory(root.path("/sys/class/\(type)_host/host\(host)")) }
            func hostAttribute(_ type: String, _ name: String) -> String? {
                Files.text(root.path("/sys/class/\(type)_host/host\(host)/\(name)"))
            }
            let device = root.path("/sys/bus/scsi/devices/\(hctl)")
            if hostIs("spi") { return "spi" }
            if hostIs("fc") {
                guard let symbolic = hostAttribute("fc", "symbolic_name") else { return nil }
                return symbolic.containsText(" over ") ? "fcoe" : "fc"
            }
            if hostIs("sas") || Files.exists(device + "/sas_device") { return "sas" }
            if Files.exists(device + "/ieee1394_id") { return "sbp" }
            if hostIs("iscsi") { return "iscsi" }
            if Files.exists(device), Files.linkTarget(device)?.containsText("usb") == true { return "usb" }
            if hostIs("scsi") {
                guard let driver = hostAttribute("scsi", "proc_name") else { return nil }
                if driver.hasPrefix("ahci") || driver.hasPrefix("sata") { return "sata" }
                return driver.containsText("ata") ? "ata" : nil
            }
        }
        if name.hasPrefix("nvme") { return "nvme" }
        if name.hasPrefix("vd") { return "virtio" }
        if name.hasPrefix("mmcblk") { return "mmc" }
        return nil
    }
}
