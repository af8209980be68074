import CarveCore

// Bare Date, TimeZone and TimeInterval are carve's in the tests (they import
// Foundation too); Foundation's are spelt out where a test needs them.
typealias Date = CarveCore.Date
typealias TimeZone = CarveCore.TimeZone
typealias TimeInterval = CarveCore.TimeInterval
