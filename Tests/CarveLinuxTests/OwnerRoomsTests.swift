import CarveCore
@testable import CarveLinux
import Testing

/// An owner's room is found through the one registry: snapper and timeshift keep
/// metadata and markers on disk; engines and btrbk keep nothing carve removes.
@Suite struct OwnerRoomsTests {
    @Test func onlyTheOwnersThatKeepFilesHaveARoom() {
        let rooms = SnapshotOwners.all.filter { OwnerRooms.room($0.manager) != nil }.map(\.manager)
        #expect(rooms == [.snapper, .timeshift])
        #expect(OwnerRooms.room(.plain) == nil)
    }
}
