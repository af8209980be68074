import CarveCore
import Foundation
import PropertyBased
import Testing

/// carve's own Date, fixed-offset zones and path arithmetic, against Foundation's
/// (what they replace in the product).
@Suite struct TimeAndPathTextTests {
    @Test(arguments: [0, 3_600, -3_600, 19_800, -12_600, 45_900, 18 * 3_600, -18 * 3_600])
    func fixedOffsetsAreFoundationsOffsets(seconds: Int) throws {
        let zone = try #require(TimeZone(secondsFromGMT: seconds))
        let foundationZone = Foundation.TimeZone(secondsFromGMT: seconds)
        let theirs = try #require(foundationZone)
        #expect(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 1_793_534_401)) == seconds)
        #expect(zone.identifier == theirs.identifier)
    }

    @Test func offsetsBeyondEighteenHoursAreRefusedAsFoundationRefusesThem() {
        #expect(TimeZone(secondsFromGMT: 18 * 3_600 + 1) == nil)
        #expect(Foundation.TimeZone(secondsFromGMT: 18 * 3_600 + 1) == nil)
    }

    @Test func namedZonesFollowTheTzDatabaseAcrossDST() async {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let theirs = Foundation.TimeZone(identifier: "Europe/Berlin")!
        await propertyCheck(input: Gen.int64(in: 0...4_102_444_799)) { seconds in
            let instant = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(berlin.secondsFromGMT(for: instant) == theirs.secondsFromGMT(for: instant.foundation))
        }
    }

    @Test func dateArithmeticIsFoundations() async {
        await propertyCheck(input: Gen.int64(in: -4_102_444_799...4_102_444_799), Gen.int(in: -1_000_000...1_000_000)) {
            seconds, step in
            let ours = Date(timeIntervalSince1970: TimeInterval(seconds))
            let theirs = Foundation.Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(
                ours.addingTimeInterval(TimeInterval(step)).timeIntervalSince1970
                    == theirs.addingTimeInterval(TimeInterval(step)).timeIntervalSince1970)
            #expect(ours.addingTimeInterval(TimeInterval(step)).timeIntervalSince(ours) == TimeInterval(step))
            #expect((ours < ours.addingTimeInterval(1)) && !(ours < ours))
        }
    }

    @Test func aDateDescribesItselfInUTC() {
        #expect("\(Date(timeIntervalSince1970: 1_793_534_401))" == "2026-11-01T12:00:01Z")
        #expect(Date.distantPast.timeIntervalSince1970 < -62_000_000_000)
    }

    @Test(arguments: [
        "/a/b", "/a/b/", "/a", "/", "a/b", "", "/a/b/c.d", "./x", "../x", "/a/./b",
    ])
    func parentAndLastComponentAreNSStrings(path: String) {
        #expect(PathText.parent(of: path) == (path as NSString).deletingLastPathComponent)
        #expect(PathText.lastComponent(of: path) == (path as NSString).lastPathComponent)
    }

    /// A bare name, which this Foundation traps on (deletingLastPathComponent of "a").
    @Test func aBareNameHasNoParent() {
        #expect(PathText.parent(of: "a") == "")
        #expect(PathText.lastComponent(of: "a") == "a")
    }

    @Test func pathsThatAreNotUTF8KeepTheirBytes() {
        let name = ByteText.decode([0x2F, 0x61, 0x2F, 0xFF, 0x62])
        #expect(PathText.parent(of: name) == "/a")
        #expect(ByteText.bytes(of: PathText.lastComponent(of: name)) == [0xFF, 0x62])
    }
}
