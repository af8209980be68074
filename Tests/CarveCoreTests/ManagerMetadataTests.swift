import CarveCore
import Foundation
import Testing

/// `ManagerMetadata` keeps its fields in a box that copies share: it must still behave
/// as a value, field by field.
struct ManagerMetadataTests {
    @Test func aChangedCopyLeavesTheOriginalAndPlainAlone() {
        var copy = ManagerMetadata.plain
        copy.name = "changed"
        copy.tags.append("D")
        #expect(copy.name == "changed" && copy.tags == ["D"])
        #expect(ManagerMetadata.plain.name == nil && ManagerMetadata.plain.tags.isEmpty)
        #expect(ManagerMetadata.plain.isPlain && !copy.isPlain)

        let before = copy
        var after = copy
        after.number = 7
        #expect(before.number == nil && after.number == 7 && before != after)
    }

    @Test func equalFieldsInTwoBoxesAreEqualAndHashAlike() {
        let one = ManagerMetadata(manager: .snapper, config: "root", number: 3, userdata: ["k": "v"])
        var other = ManagerMetadata(manager: .snapper)
        other.config = "root"
        other.number = 3
        other.userdata = ["k": "v"]
        #expect(one == other)
        #expect(Set([one, other]).count == 1)
        other.uniqueNumbers = true
        #expect(one != other)
        #expect(ManagerMetadata(manager: .plain).isPlain, "plain in a box of its own")
    }

    @Test func itIsEncodedAsItsFieldsAndReadBack() throws {
        var metadata = ManagerMetadata(manager: .timeshift, name: "2026-01-01_00-00-01", tags: ["D", "W"])
        metadata.warning = "w"
        let encoded = try JSONEncoder().encode(metadata)
        let keys = try #require(JSONSerialization.jsonObject(with: encoded) as? [String: Any]).keys
        #expect(
            Set(keys).isSuperset(of: ["manager", "name", "tags", "important", "userdata", "uniqueNumbers", "warning"]))
        #expect(try JSONDecoder().decode(ManagerMetadata.self, from: encoded) == metadata)
    }

    @Test func itIsShownAsItsFields() {
        let shown = "\(ManagerMetadata(manager: .snapper, config: "home"))"
        #expect(shown.contains("config: Optional(\"home\")"), "\(shown)")
        #expect(Mirror(reflecting: ManagerMetadata.plain).children.map(\.label).contains("uniqueNumbers"))
    }
}
