import CarveCore
@testable import CarveLinux
import Testing

/// An owner's room is found through the one registry: snapper and timeshift keep
/// metadata and markers on disk; machines' room only finds machinectl's image
/// directories before a listing; the other engines and btrbk need none.
@Suite struct OwnerRoomsTests {
    @Test func onlyTheOwnersThatKeepFilesOrReadTheHostHaveARoom() {
        let rooms = SnapshotOwners.all.filter { OwnerRooms.room($0.manager) != nil }.map(\.manager)
        #expect(rooms == [.machines, .snapper, .timeshift])
        #expect(OwnerRooms.room(.plain) == nil)
    }
}
