import CFdisk
import CarveCore
import Glibc

/// PARTTYPENAME: a partition's type code named as libfdisk names it ("Linux
/// filesystem", "EFI System", "Linux swap / Solaris"), the table lsblk uses. Asked
/// after the sources that know the type code and the table type.
public struct PartitionTypeNameSource: DevicePropertySource {
    public let name = "libfdisk type names"
    public let fields: Set<DeviceField> = [.partTypeName]

    public init() {}

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        guard let code = device.properties.partType, let table = device.properties.ptType,
            let name = PartitionTypeNames.shared.name(code: code, table: table)
        else { return nil }
        return DeviceProperties([.partTypeName: name])
    }
}

/// libfdisk's labels, made once: a context with no device assigned only reads its tables.
final class PartitionTypeNames: @unchecked Sendable {
    static let shared = PartitionTypeNames()
    private let context: OpaquePointer?
    private let lock = Lock()

    private init() { context = fdisk_new_context() }

    deinit { if let context { fdisk_unref_context(context) } }

    /// The name of `code` (a GPT type UUID, or "0x83" for DOS) in a table of type `table`.
    func name(code: String, table: String) -> String? {
        guard let context else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let type: OpaquePointer?
        if table == "gpt" {
            guard let label = fdisk_get_label(context, "gpt") else { return nil }
            type = ByteText.withCString(code.uppercased()) { fdisk_label_get_parttype_from_string(label, $0) }
        } else {
            guard code.hasPrefix("0x"), let number = UInt32(code.dropFirst(2), radix: 16),
                let label = fdisk_get_label(context, "dos")
            else { return nil }
            type = fdisk_label_get_parttype_from_code(label, number)
        }
        guard let type, let name = fdisk_parttype_get_name(type) else { return nil }
        let text = ByteText.decode(cString: name)
        return text.isEmpty ? nil : text
    }
}
