@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import GRDB
import Testing

/// The search builder keeps the albums waiting to be indexed packed in one buffer per batch.
@Suite struct PackedAlbumsTests {
    @Test func albumsComeBackAsTheyWentIn() {
        var generator = SeededGenerator(seed: 13)
        let texts = ["", "x", "Déjà Vu", "坂本龍一 & Björk", String(repeating: "long ", count: 300), "\"quoted\"\n", "😀"]
        let albums = (0..<500).map { n in
            SearchIndexBuilder.Album(
                id: Int64(n) * 7_919 - 3, title: texts.randomElement(using: &generator)!, artists: texts.randomElement(using: &generator)!,
                labels: texts.randomElement(using: &generator)!, catalogNumbers: texts.randomElement(using: &generator)!)
        }
        let packed = SearchIndexBuilder.PackedAlbums(albums)
        var unpacked: [SearchIndexBuilder.Album] = []
        packed.forEach { id, columns in
            let strings = columns.map { String(decoding: $0, as: UTF8.self) }
            unpacked.append(SearchIndexBuilder.Album(id: id, title: strings[0], artists: strings[1], labels: strings[2], catalogNumbers: strings[3]))
        }
        #expect(packed.count == albums.count)
        #expect(unpacked.map(\.id) == albums.map(\.id))
        #expect(unpacked.map(\.title) == albums.map(\.title))
        #expect(unpacked.map(\.artists) == albums.map(\.artists))
        #expect(unpacked.map(\.labels) == albums.map(\.labels))
        #expect(unpacked.map(\.catalogNumbers) == albums.map(\.catalogNumbers))
    }
}
