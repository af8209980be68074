import CarveCore
import PropertyBased
import Testing

@Suite struct ByteSizeFormatTests {
    @Test(arguments: [
        (UInt64(0), "0B"), (512, "512B"), (1023, "1023B"), (1024, "1K"), (1536, "1.5K"),
        (1_073_741_824, "1G"), (13_207_024_435, "12.3G"), (268_435_456, "256M"),
        (1_048_575, "1024K"), (1_099_511_627_776, "1T"), (UInt64.max, "16E"),
    ])
    func formatsLikeLsblk(bytes: UInt64, expected: String) {
        #expect(ByteSize.format(bytes) == expected)
    }
}

@Suite struct ByteSizeParseTests {
    @Test(arguments: [
        ("512", UInt64(512)), ("10M", 10_485_760), ("1.5G", 1_610_612_736), ("2GiB", 2_147_483_648),
        ("10GB", 10_000_000_000), ("1k", 1024), ("0", 0), ("1.1K", 1126), (" 4 MiB ", 4_194_304),
        ("512B", 512), ("16E", 0), ("1T", 1_099_511_627_776),
    ])
    func acceptsDocumentedForms(text: String, expected: UInt64) throws {
        if text == "16E" {
            #expect(throws: UsageError.self) { try ByteSize.parse(text) }
        } else {
            #expect(try ByteSize.parse(text) == expected)
        }
    }

    @Test(arguments: [
        "", "-5G", "10XB", "G", "1..5G", "1.5.2G", "abc", "10 G B", "1.5", "99999999999999999999",
        "20000P", ".", "1,5G", "0x10", "1e3",
    ])
    func rejectsMalformedInputWithTheInputNamed(text: String) {
        #expect {
            try ByteSize.parse(text)
        } throws: { error in
            guard let error = error as? UsageError else { return false }
            return error.message.hasPrefix("invalid size '\(text)'") && !error.message.contains("\n")
        }
    }

    @Test func formattedSizesParseBackWithinTheRoundingOfOneDecimal() async {
        await propertyCheck(input: Gen.uint64(in: 0...(UInt64(1) << 62))) { bytes in
            let text = ByteSize.format(bytes)
            let parsed = try? ByteSize.parse(text)
            #expect(parsed != nil)
            if let parsed {
                // One decimal of the unit: off by at most 5% of a unit step, never more.
                let difference = parsed > bytes ? parsed - bytes : bytes - parsed
                #expect(difference <= max(bytes / 19, 0))
            }
        }
    }

    @Test func exactByteCountsRoundTrip() async {
        await propertyCheck(input: Gen.uint64(in: 0...UInt64.max)) { bytes in
            #expect((try? ByteSize.parse(String(bytes))) == bytes)
        }
    }
}
