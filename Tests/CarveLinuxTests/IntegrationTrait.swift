import CarveTestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs where integration tests can (root, loop devices and `tools`); elsewhere the
    /// test is skipped with a comment naming what is missing, which `Scripts/test`
    /// prints, and under `CI=true` fails the run on.
    static func integration(needing tools: String...) -> Self {
        let reason = Integration.skipReason(needing: tools)
        return .enabled(if: reason == nil, Comment(rawValue: reason ?? ""))
    }
}
