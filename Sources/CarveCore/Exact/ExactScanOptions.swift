/// How a command wants exact scans run: whether the cache of read-only trees is used
/// (`--no-cache`, `CARVE_CACHE=off`) and whether the scan's own figures are worth a
/// note (`--verbose`). The CLI sets them around a command, as `ExtentScanObserver`.
public struct ExactScanOptions: Sendable, Hashable {
    public var useCache: Bool
    public var verbose: Bool
    public init(useCache: Bool = true, verbose: Bool = false) { self.useCache = useCache; self.verbose = verbose }

    @TaskLocal public static var current = ExactScanOptions()

    /// A scan this long is worth a note without `--verbose`: the user waited for it.
    public static let noteworthySeconds = 1.0

    /// Whether the scan summary of `exact` is printed.
    public func showsSummary(of exact: ExactSizes) -> Bool {
        verbose || exact.scan.seconds > Self.noteworthySeconds
    }
}
