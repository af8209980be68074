@testable import CarveCLI
import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The read-only LVM thin backend on `lvs --reportformat json` output. This kernel has
/// no device-mapper, so no thin volume can be made here to record: the report below is
/// written to lvm2's report format (lvm2 2.03's `lvs -o` field names, its lv_attr
/// letters, `--units b --nosuffix` numbers as strings, lv_time in the format carve asks).
struct LVMThinBackendTests {
    static let report = #"""
          {
              "report": [
                  {
                      "lv": [
                          {"lv_name":"pool", "vg_name":"vg0", "lv_attr":"twi-aotz--", "origin":"", "pool_lv":"", "lv_time":"2026-10-01 09:00:00 +0000", "lv_size":"10737418240", "data_percent":"42.10", "lv_uuid":"Pq1nW3-aaaa-bbbb-cccc-dddd-eeee-fff001"},
                          {"lv_name":"root", "vg_name":"vg0", "lv_attr":"Vwi-aotz--", "origin":"", "pool_lv":"pool", "lv_time":"2026-10-01 09:05:00 +0000", "lv_size":"8589934592", "data_percent":"50.00", "lv_uuid":"Rt2nW3-aaaa-bbbb-cccc-dddd-eeee-fff002"},
                          {"lv_name":"root-2026-11-01", "vg_name":"vg0", "lv_attr":"Vri---tz-k", "origin":"root", "pool_lv":"pool", "lv_time":"2026-11-01 12:00:00 +0100", "lv_size":"8589934592", "data_percent":"49.00", "lv_uuid":"Sn3nW3-aaaa-bbbb-cccc-dddd-eeee-fff003"},
                          {"lv_name":"swap", "vg_name":"vg0", "lv_attr":"-wi-ao----", "origin":"", "pool_lv":"", "lv_time":"2026-10-01 09:00:00 +0000", "lv_size":"1073741824", "data_percent":"", "lv_uuid":"Sw4nW3-aaaa-bbbb-cccc-dddd-eeee-fff004"}
                      ]
                  }
              ]
          }
        """#

    static func backend(_ text: String? = report) -> LVMThinBackend {
        LVMThinBackend(report: { arguments in
            #expect(arguments.starts(with: ["lvs", "--reportformat", "json"]))
            return text
        })
    }

    @Test func aThinPoolIsAFilesystemAndItsSnapshotsAreListed() throws {
        let backend = Self.backend()
        let pools = try backend.mountedFilesystems()
        #expect(pools.map(\.mountpoint) == ["vg0/pool"])
        #expect(pools.first?.kind == .lvmThin)
        let plain = try backend.subvolumes(of: pools[0], sizes: .none)
        #expect(plain.ownerFacts != nil, "listed plain, for the owners to classify")
        var registry = SnapshotBackendRegistry.classifying(FakeSnapshotBackend())
        registry.register(listingOnly: backend, for: .lvmThin)
        let listing = try registry.subvolumes(of: pools[0], sizes: .none)
        #expect(listing.ownerFacts == nil && listing.subvolumes.allSatisfy { $0.metadata.manager == .plain })
        #expect(listing.subvolumes.map(\.path) == ["vg0/root", "vg0/root-2026-11-01"])
        let snapshot = try #require(listing.subvolumes.last)
        #expect(snapshot.isSnapshot && snapshot.readOnly && snapshot.sourcePath == "vg0/root")
        #expect(snapshot.parentUUID == "Rt2nW3-aaaa-bbbb-cccc-dddd-eeee-fff002")
        #expect(snapshot.mountedPath == "/dev/vg0/root-2026-11-01")
        #expect(snapshot.created == Date(timeIntervalSince1970: 1_793_530_800)) // 11:00 UTC
        #expect(!listing.subvolumes[0].isSnapshot)
        #expect(try backend.filesystem(containing: "vg0/pool").uuid == pools[0].uuid)
    }

    @Test func withoutLVM2ThereAreNoPools() throws {
        #expect(try Self.backend(nil).mountedFilesystems().isEmpty)
    }

    @Test(arguments: [
        ("not json", "not the report lvm2 writes"),
        (#"{"report": "x"}"#, "not the report lvm2 writes"),
        (#"{"report": [{"lv": [{"lv_name": "a"}]}]}"#, "a volume without lv_attr"),
        (
            #"{"report": [{"lv": [{"lv_name":"a","vg_name":"v","lv_attr":"Vwi","origin":"","pool_lv":"p","lv_time":"2026-10-01 09:00:00 +0000","lv_size":"1","data_percent":"","lv_uuid":"u"}]}]}"#,
            "lv_attr 'Vwi'"
        ),
        (
            #"{"report": [{"lv": [{"lv_name":"a","vg_name":"v","lv_attr":"Vwi-aotz--","origin":"","pool_lv":"p","lv_time":"yesterday","lv_size":"1","data_percent":"","lv_uuid":"u"}]}]}"#,
            "lv_time 'yesterday'"
        ),
        (
            #"{"report": [{"lv": [{"lv_name":"a","vg_name":"v","lv_attr":"Vwi-aotz--","origin":"","pool_lv":"p","lv_time":"2026-13-01 09:00:00 +0000","lv_size":"1","data_percent":"","lv_uuid":"u"}]}]}"#,
            "lv_time"
        ),
        (
            #"{"report": [{"lv": [{"lv_name":"a","vg_name":"v","lv_attr":"Vwi-aotz--","origin":"","pool_lv":"p","lv_time":"2026-10-01 09:00:00 +0000","lv_size":"99999999999999999999999","data_percent":"","lv_uuid":"u"}]}]}"#,
            "lv_size"
        ),
        (
            #"{"report": [{"lv": [{"lv_name":"a","vg_name":"v","lv_attr":"Vwi-aotz--","origin":"","pool_lv":"p","lv_time":"2026-10-01 09:00:00 +0000","lv_size":"1","data_percent":"250","lv_uuid":"u"}]}]}"#,
            "data_percent '250'"
        ),
    ])
    func malformedReportsAreOneLineErrors(text: String, reason: String) {
        do {
            _ = try Self.backend(text).mountedFilesystems()
            Issue.record("parsed \(text)")
        } catch {
            let message = (error as? any ReportableError)?.message ?? "\(error)"
            #expect(message.contains(reason) && !message.contains("\n"), "\(message)")
        }
    }

    /// Through the registry, as carve runs: listed beside btrfs; a deletion is refused, saying why.
    @Test func theRegistryListsLVMAndRefusesToDeleteThere() throws {
        let sink = CapturingSink()
        // This machine's clock, mounts and tables, as this test had them before the default became NoMachine's.
        var services = Services(
            devices: FakeDeviceSource(), snapshots: FakeSnapshotBackend(), clock: SystemClock(), output: sink,
            isRoot: true, partitionTables: FdiskPartitionTableReader(), filesystemSizer: LinuxFilesystemSizer(),
            mounts: ProcMountTable(), filesystemSpace: StatvfsSpace())
        services.backends.register(listingOnly: Self.backend(), for: .lvmThin)
        let listed = Services.$current.withValue(services) {
            CarveMain.run(["snapshots", "list", "vg0/pool", "--json"])
        }
        #expect(listed == 0, "\(sink.text.stderr)")
        #expect(sink.text.stdout.contains("\"path\": \"/dev/vg0/root-2026-11-01\""))
        let pool = try services.backends.filesystem(containing: "vg0/pool")
        #expect(throws: RuntimeError.self) {
            try services.snapshots.currentState(of: Volume(id: 2, path: "vg0/x", uuid: "u", created: Date()), on: pool)
        }
        do {
            _ = try services.snapshots.currentState(
                of: Volume(id: 2, path: "vg0/x", uuid: "u", created: Date()), on: pool)
        } catch let error as RuntimeError {
            #expect(
                error.message
                    == "snapshots on vg0/pool (lvm-thin) cannot be deleted by carve: its backend only lists them")
        }
    }
}
