import CratedCore
import Foundation

/// Turns Discogs API data into crated's catalogue values: display names, sides, durations, dates.
enum ReleaseMapping {
    static func metadata(_ release: DiscogsRelease) -> ReleaseMetadata {
        let released = normalizedReleased(release.released)
        let albumArtists = artists(release.artists ?? [])
        return ReleaseMetadata(
            title: release.title.trimmed(),
            artists: albumArtists,
            year: knownYear(release.year) ?? released.flatMap { Int($0.prefix(4)) },
            released: released,
            country: nonEmpty(release.country),
            masterId: release.masterId.flatMap { $0 > 0 ? $0 : nil },
            genres: distinctNames(release.genres),
            styles: distinctNames(release.styles),
            labels: labels(release.labels ?? []),
            formats: formats(release.formats ?? []),
            images: images(release.images ?? []),
            tracks: tracks(release.tracklist ?? [], albumCredit: ReleaseMetadata.creditLine(albumArtists)),
            credits: credits(release.extraartists),
            imagesWithheld: (release.images ?? []).contains { nonEmpty($0.uri) == nil })
    }

    /// A collection listing's `basic_information`: no tracks or images, enough for an album row.
    static func metadata(_ basic: DiscogsCollectionPage.BasicInformation) -> ReleaseMetadata {
        ReleaseMetadata(
            title: (basic.title ?? "").trimmed(),
            artists: artists(basic.artists ?? []),
            year: knownYear(basic.year),
            released: knownYear(basic.year).map(String.init),
            country: nil,
            masterId: basic.masterId.flatMap { $0 > 0 ? $0 : nil },
            genres: distinctNames(basic.genres),
            styles: distinctNames(basic.styles),
            labels: labels(basic.labels ?? []),
            formats: formats(basic.formats ?? []),
            images: [],
            tracks: [])
    }

    // MARK: Artists

    static func artists(_ credits: [DiscogsArtistCredit]) -> [ReleaseMetadata.Artist] {
        credits.enumerated().map { index, credit in
            let discogsName = credit.name.trimmed()
            let name = displayName(discogsName)
            let variation = (credit.anv ?? "").trimmed()
            let isLast = index == credits.count - 1
            return ReleaseMetadata.Artist(
                discogsId: credit.id.flatMap { $0 > 0 ? $0 : nil },
                discogsName: discogsName,
                name: name,
                creditedName: variation.isEmpty ? name : displayName(variation),
                joinPhrase: isLast ? "" : joinPhrase(credit.join ?? ""))
        }
    }

    /// Credits beyond the artists, in Discogs' order; one without a name or a role says nothing and
    /// is left out. Which tracks a credit covers is said only of the release's: a track's credits
    /// cover that track.
    static func credits(_ extraArtists: [DiscogsExtraArtist]?, onTrack: Bool = false) -> [ReleaseMetadata.Credit] {
        (extraArtists ?? []).compactMap { credit in
            let discogsName = (credit.name ?? "").trimmed()
            let role = (credit.role ?? "").trimmed()
            guard !discogsName.isEmpty, !role.isEmpty else { return nil }
            let name = displayName(discogsName)
            let variation = displayName((credit.anv ?? "").trimmed())
            return ReleaseMetadata.Credit(
                discogsId: credit.id.flatMap { $0 > 0 ? $0 : nil },
                discogsName: discogsName,
                name: name,
                creditedName: variation.isEmpty || variation == name ? nil : variation,
                role: role,
                tracks: onTrack ? nil : nonEmpty(credit.tracks))
        }
    }

    /// `Casey (2)` -> `Casey`; `Persuader, The` (Discogs' older convention) -> `The Persuader`.
    static func displayName(_ discogsName: String) -> String {
        let name = DiscogsText.displayName(discogsName)
        if name.hasSuffix(", The"), name.count > 5 { return "The " + name.dropLast(5) }
        return name
    }

    /// Discogs gives the bare joiner (`&`, `,`, `Feat.`); the credit line needs its spacing.
    static func joinPhrase(_ join: String) -> String {
        let trimmed = join.trimmed()
        switch trimmed {
        case "": return " "
        case ",", ";": return trimmed + " "
        default: return " \(trimmed) "
        }
    }

    // MARK: Labels, formats, images

    static func labels(_ labels: [DiscogsLabel]) -> [ReleaseMetadata.Label] {
        labels.compactMap { label in
            let name = DiscogsText.displayName(label.name.trimmed())
            guard !name.isEmpty else { return nil }
            let number = (label.catno ?? "").trimmed()
            return ReleaseMetadata.Label(
                name: name,
                catalogNumber: number.isEmpty || number.lowercased() == "none" ? nil : number,
                discogsId: label.id)
        }
    }

    static func formats(_ formats: [DiscogsFormat]) -> [ReleaseMetadata.Format] {
        formats.compactMap { format in
            let name = format.name.trimmed()
            guard !name.isEmpty else { return nil }
            return ReleaseMetadata.Format(
                name: name,
                quantity: max(1, format.qty?.value ?? 1),
                descriptions: (format.descriptions ?? []).map { $0.trimmed() }.filter { !$0.isEmpty },
                text: nonEmpty(format.text))
        }
    }

    /// Images without a URL (unauthenticated responses blank them) cannot be shown, so are left out.
    static func images(_ images: [DiscogsImage]) -> [ReleaseMetadata.Image] {
        images.compactMap { image in
            guard let uri = nonEmpty(image.uri) else { return nil }
            return ReleaseMetadata.Image(
                kind: image.type == "primary" ? .primary : .secondary,
                uri: uri,
                uri150: nonEmpty(image.uri150) ?? uri,
                width: image.width.flatMap { $0 > 0 ? $0 : nil },
                height: image.height.flatMap { $0 > 0 ? $0 : nil })
        }
    }

    // MARK: Tracks

    static func tracks(_ tracklist: [DiscogsTrack], albumCredit: String) -> [ReleaseMetadata.Track] {
        tracklist.map { track(from: $0, in: .tracklist, albumCredit: albumCredit) }
    }

    /// A track's own credit line; nil when Discogs gives none or it says what the album's says
    /// (some releases repeat the album's artists on every track).
    static func trackCredit(_ credits: [DiscogsArtistCredit]?, albumCredit: String) -> (line: String, artists: [ReleaseMetadata.Artist])? {
        // An artist without a name would be an artist row without one.
        let artists = artists((credits ?? []).filter { !$0.name.trimmed().isEmpty })
        let credit = ReleaseMetadata.creditLine(artists)
        return credit.isEmpty || credit == albumCredit ? nil : (credit, artists)
    }

    /// Where a track sits: in the tracklist itself, or among the sub-tracks of an index track.
    private enum Placement {
        case tracklist
        case indexTrack(side: String?)
    }

    private static func track(from track: DiscogsTrack, in placement: Placement, albumCredit: String) -> ReleaseMetadata.Track {
        let position = (track.position ?? "").trimmed()
        let title = (track.title ?? "").trimmed()
        let subTracks = track.subTracks ?? []
        var parentSide: String?
        var isSubTrack = false
        if case .indexTrack(let side) = placement {
            parentSide = side
            isSubTrack = true
        }
        let kind: CratedCore.Track.Kind
        switch track.type {
        case "heading": kind = .heading
        case "index": kind = .index
        case "track": kind = isSubTrack ? .subtrack : .track
        default:
            // Older responses have no `type_`: a heading has no position, an index has sub-tracks.
            if isSubTrack { kind = .subtrack }
            else if !subTracks.isEmpty { kind = .index }
            else if position.isEmpty && (track.duration ?? "").isEmpty { kind = .heading }
            else { kind = .track }
        }
        if kind == .heading {
            return ReleaseMetadata.Track(position: position, side: nil, title: title, durationMs: nil, kind: .heading)
        }
        var side = self.side(of: position) ?? parentSide
        if side == nil && kind == .index {
            // An index track's position is often empty: it is on the side of its sub-tracks.
            side = subTracks.lazy.compactMap { self.side(of: ($0.position ?? "").trimmed()) }.first
        }
        let credit = trackCredit(track.artists, albumCredit: albumCredit)
        return ReleaseMetadata.Track(
            position: position,
            side: side,
            title: title,
            durationMs: durationMs(track.duration ?? ""),
            kind: kind,
            subTracks: kind == .index ? subTracks.map { self.track(from: $0, in: .indexTrack(side: side), albumCredit: albumCredit) } : [],
            artistCredit: credit?.line,
            artists: credit?.artists ?? [],
            credits: credits(track.extraartists, onTrack: true))
    }

    /// The record side that a vinyl position names: `A1` -> A, `B` -> B, `C2a` -> C, `AA1` -> AA
    /// (a double-A side). Numeric positions (`3`, `1-2`) and words (`CD1`, `Video`) name no side.
    static func side(of position: String) -> String? {
        let letters = position.prefix { $0.isASCII && $0.isLetter }
        guard !letters.isEmpty else { return nil }
        let rest = position.dropFirst(letters.count)
        guard rest.isEmpty || rest.first!.isNumber || rest.first == "." || rest.first == "-" else { return nil }
        let upper = letters.uppercased()
        if upper.count == 1 { return upper }
        if upper.count == 2, upper.first == upper.last { return upper }
        return nil
    }

    /// `m:ss` or `h:mm:ss` in milliseconds; nil when empty, not a duration, or `0:00`: Discogs
    /// shows a track of no length so, and the album page and the player must both call it unknown.
    static func durationMs(_ text: String) -> Int? {
        let parts = text.trimmed().split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count, numbers.allSatisfy({ $0 >= 0 }) else { return nil }
        // Every part after the first is base 60.
        guard numbers.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        let seconds = numbers.reduce(0) { $0 * 60 + $1 }
        return seconds > 0 ? seconds * 1000 : nil
    }

    // MARK: Dates and small values

    /// `released` as crated keeps it: `1999-03-00` -> `1999-03`, `1999-00-00` -> `1999`, `0` -> nil.
    static func normalizedReleased(_ text: String?) -> String? {
        guard let text = nonEmpty(text) else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
              parts[0].count == 4, let year = Int(parts[0]), year > 0 else { return nil }
        var kept = [String(parts[0])]
        if parts.count > 1 {
            guard parts[1].count == 2, let month = Int(parts[1]), (0...12).contains(month) else { return kept[0] }
            if month > 0 {
                kept.append(String(parts[1]))
                if parts.count > 2, parts[2].count == 2, let day = Int(parts[2]), (1...31).contains(day) {
                    kept.append(String(parts[2]))
                }
            }
        }
        return kept.joined(separator: "-")
    }

    static func knownYear(_ year: Int?) -> Int? {
        guard let year, year > 0 else { return nil }
        return year
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmed(.whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    static func distinctNames(_ names: [String]?) -> [String] {
        var seen = Set<String>()
        return (names ?? []).map { $0.trimmed() }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
