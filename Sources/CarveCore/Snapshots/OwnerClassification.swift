/// The one place a listing's volumes get their owners: a backend lists plain volumes
/// with the facts owners need (`VolumeListing.ownerFacts`), and the registry hands the
/// listing here before anyone reads it, whatever the filesystem. The owners asked are
/// those whose layout lives on the filesystem's kind (`SnapshotOwners.all(for:)`).
public struct OwnerClassification: Sendable {
    /// The host's side: the rooms' preparation and the files they read.
    public var host: any OwnerPreparing

    public init(host: any OwnerPreparing) { self.host = host }

    /// Classifies a plain listing in place and appends the warnings (the rooms' first);
    /// a listing without facts is already classified, or has nothing for owners, and is left as it is.
    public func classify(_ listing: inout VolumeListing) {
        guard let facts = listing.ownerFacts else { return }
        listing.ownerFacts = nil
        var settings = facts.settings
        listing.warnings += host.prepare(&settings, for: listing.filesystem)
        let context: OwnerContext
        switch facts.files {
        case .host:
            let files = host.hostFiles()
            context = OwnerContext(
                timeZone: facts.timeZone, readFile: files.read, probe: files.probe, settings: settings)
        case .only(let names):
            context = OwnerContext(
                timeZone: facts.timeZone, readFile: { _, _ in nil }, probe: { names.contains($0) }, settings: settings)
        }
        let classifier = SnapshotClassifier(
            context: context, owners: SnapshotOwners.all(for: listing.filesystem.kind))
        listing.warnings += classifier.classify(&listing.subvolumes)
    }
}
