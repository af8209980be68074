import CarveCore

/// Asks before deleting: on a terminal a y/N question; with `--yes` no question;
/// with stdin not a terminal and no `--yes`, a refusal, so that a script never
/// deletes on an answer it did not give. True when it waited for an answer.
enum Confirmation {
    static func confirm(
        count: Int, estimate: UInt64?, yes: Bool, services: Services, deletion: DeletionServices
    ) throws
        -> Bool
    {
        if yes { return false }
        let what = "\(count) snapshot\(count == 1 ? "" : "s")"
        guard services.stdinIsTerminal else {
            throw UsageError(
                "refusing to delete \(what) without confirmation: stdin is not a terminal (pass --yes); nothing deleted"
            )
        }
        let frees = estimate.map { ", freeing at least \(ByteSize.format($0))" } ?? ""
        services.output.writeEssential("Delete \(what)\(frees)? [y/N] ")
        let answer = deletion.readAnswer()?.trimmingSpaces.lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            throw RuntimeError("not confirmed: nothing deleted")
        }
        return true
    }
}
