import Foundation

/// Fetches the covers of the albums a pass synced. The daemon's is CratedArtwork's `ArtworkService`;
/// a sync without one fetches none.
public protocol CoverFetching: Sendable {
    /// Covers of `userId`'s albums (everyone's with nil) not fetched yet, or fetched longer than
    /// `staleAfter` ago (checked again with a conditional request). Stops starting fetches once
    /// `shouldStop` says so.
    func fetchCovers(userId: Int64?, staleAfter: TimeInterval, shouldStop: @escaping @Sendable () -> Bool) async -> CoverFetchSummary
}

/// What a pass did with covers.
public struct CoverFetchSummary: Codable, Sendable, Equatable {
    public var fetched = 0
    /// Checked again and unchanged (304).
    public var unchanged = 0
    public var failed = 0
    /// Left for a later pass (a stop was requested).
    public var skipped = 0
    /// The first failures, for the summary.
    public var failures: [CoverFetchFailure] = []
    /// Why no cover was fetched at all, when the database failed.
    public var error: String?

    public init() {}
}

public struct CoverFetchFailure: Codable, Sendable, Equatable {
    public var url: String
    public var error: String

    public init(url: String, error: String) {
        self.url = url
        self.error = error
    }
}
