import CarveCore
import Testing

/// The filesystem rooms: one per filesystem, each blkid type in one room only, and the
/// shrink table the planner and the man page read is theirs.
@Suite struct FilesystemRoomsTests {
    @Test func eachTypeHasOneRoomAndTheTableIsTheRooms() {
        let types = FilesystemRooms.all.flatMap(\.rule.types)
        #expect(Set(types).count == types.count, "a type in two rooms: \(types)")
        #expect(ShrinkRule.table == FilesystemRooms.all.map(\.rule))
        for type in types { #expect(ShrinkRule.rule(for: type) == FilesystemRooms.room(for: type)?.rule) }
    }

    @Test func aTypeWithoutARoomCannotBeTold() {
        #expect(FilesystemRooms.room(for: "f2fs") == nil)
        #expect(ShrinkRule.rule(for: "f2fs").ability == .unknown)
        #expect(ShrinkRule.rule(for: nil).note == "no filesystem found: cannot tell")
    }

    /// A room that can shrink its filesystem and names the tool gives steps, and one
    /// that cannot gives none.
    @Test func roomsThatCannotShrinkGiveNoSteps() {
        for room in FilesystemRooms.all where room.rule.ability == .cannotShrink || room.rule.ability == .unknown {
            #expect(room.rule.tool == nil, "\(room.rule.types)")
        }
    }
}
