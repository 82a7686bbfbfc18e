/// A track the needle can play: tracklist rows of kind `track` or `subtrack` (headings and index
/// rows only label other rows).
struct PlayableTrack: Equatable, Sendable {
    let id: Int64
    let position: String
    let title: String
    let side: String?
    /// Nil when unknown: such a track never ends by itself.
    let durationMs: Int64?
    /// The track's own artists as shown; nil when they are the album's.
    let artistCredit: String?

    init(id: Int64, position: String, title: String, side: String?, durationMs: Int64?, artistCredit: String? = nil) {
        self.id = id
        self.position = position
        self.title = title
        self.side = side
        self.artistCredit = artistCredit
        // A zero or negative length is a data error, not a track that ends as soon as it starts.
        self.durationMs = durationMs.flatMap { $0 > 0 ? $0 : nil }
    }

    /// How long a play must last to count for history: half the track or 4 minutes, whichever
    /// comes first (just 4 minutes when the length is unknown).
    var countsAfterMs: Int64 {
        let fourMinutes: Int64 = 4 * 60 * 1000
        guard let durationMs else { return fourMinutes }
        return min(durationMs / 2, fourMinutes)
    }
}

/// The playable part of an album, side by side. Tracks whose position names no side (a CD's `3`)
/// form one side named nil.
struct Tracklist: Equatable, Sendable {
    struct Side: Equatable, Sendable {
        let name: String?
        let tracks: [PlayableTrack]
    }

    /// A track's place: index of its side, index of the track on that side.
    struct Location: Equatable, Sendable {
        let side: Int
        let track: Int
    }

    let albumId: Int64
    let sides: [Side]

    /// `tracks` in album order; sides keep the order in which they first appear.
    init(albumId: Int64, tracks: [PlayableTrack]) {
        self.albumId = albumId
        var sideNames: [String?] = []
        var tracksBySide: [String?: [PlayableTrack]] = [:]
        for track in tracks {
            if tracksBySide[track.side] == nil { sideNames.append(track.side) }
            tracksBySide[track.side, default: []].append(track)
        }
        sides = sideNames.map { Side(name: $0, tracks: tracksBySide[$0, default: []]) }
    }

    var isPlayable: Bool { !sides.isEmpty }

    var firstLocation: Location? { isPlayable ? Location(side: 0, track: 0) : nil }

    subscript(location: Location) -> PlayableTrack { sides[location.side].tracks[location.track] }

    /// Finds the track by id, or by its printed position when a sync has replaced the track rows.
    func locate(trackId: Int64, position: String) -> Location? {
        locate { $0.id == trackId } ?? locate { $0.position == position }
    }

    func locate(trackId: Int64) -> Location? { locate { $0.id == trackId } }

    func firstLocation(ofSide name: String) -> Location? {
        let wanted = name.uppercased()
        guard let side = sides.firstIndex(where: { $0.name?.uppercased() == wanted }) else { return nil }
        return Location(side: side, track: 0)
    }

    /// The next track on the same side; nil on the side's last track (the record must be flipped).
    func location(after location: Location) -> Location? {
        location.track + 1 < sides[location.side].tracks.count
            ? Location(side: location.side, track: location.track + 1) : nil
    }

    /// The previous track on the same side; nil on the side's first track.
    func location(before location: Location) -> Location? {
        location.track > 0 ? Location(side: location.side, track: location.track - 1) : nil
    }

    /// The first track of the next side; nil on the last side.
    func firstLocationOfSide(after location: Location) -> Location? {
        location.side + 1 < sides.count ? Location(side: location.side + 1, track: 0) : nil
    }

    private func locate(where matches: (PlayableTrack) -> Bool) -> Location? {
        for (sideIndex, side) in sides.enumerated() {
            if let trackIndex = side.tracks.firstIndex(where: matches) {
                return Location(side: sideIndex, track: trackIndex)
            }
        }
        return nil
    }
}
