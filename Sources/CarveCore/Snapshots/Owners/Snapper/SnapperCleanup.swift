/// snapper's cleanup algorithms, as its info.xml names them: what `--cleanup` selects.
public enum SnapperCleanup: String, CaseIterable, Sendable {
    case number, timeline
    case emptyPrePost = "empty-pre-post"

    /// "number, timeline, empty-pre-post".
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
