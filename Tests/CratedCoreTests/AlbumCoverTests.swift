@testable import CratedCore
import CratedTestSupport
import GRDB
import Testing

/// The one cover rule: which image, and which of its sizes a screen gets.
@Suite struct AlbumCoverTests {
    static func variant(_ uri: String, _ uri150: String, width: Int?, pixels: Double) -> AlbumCover.Variant? {
        AlbumCover(uri: uri, uri150: uri150, width: width, height: width)?.variant(atLeast: pixels)
    }

    @Test func theNarrowestVariantLargeEnoughElseTheWidest() {
        // Nothing is large enough: the largest there is.
        #expect(Self.variant("full", "thumb", width: 600, pixels: 1200) == .init(url: "full", width: 600, height: 600))
        #expect(Self.variant("full", "thumb", width: 120, pixels: 400) == .init(url: "thumb", width: 150, height: 150))
        #expect(Self.variant("full", "thumb", width: 600, pixels: 150) == .init(url: "thumb", width: 150, height: 150))
        // A tie goes to the thumbnail.
        #expect(Self.variant("full", "thumb", width: 150, pixels: 100) == .init(url: "thumb", width: 150, height: 150))
        // A full image of unknown width counts as the larger one.
        #expect(Self.variant("full", "", width: nil, pixels: 100) == .init(url: "full", width: nil, height: nil))
        #expect(Self.variant("full", "thumb", width: nil, pixels: 400) == .init(url: "full", width: nil, height: nil))
    }

    /// Without a token the Discogs API sends empty URLs: such an image is no cover.
    @Test func anImageWithoutAURLIsNoCover() {
        #expect(AlbumCover(uri: "", uri150: "", width: 600, height: 600) == nil)
    }

    @Test func theCoverIsThePrimaryImageElseTheFirstWithAURL() throws {
        let temporary = try TemporaryDatabase()
        try temporary.database.writer.write { db in
            let artist = try db.insertArtist("Artist")
            let album = try db.insertAlbum(title: "Album", artistId: artist)
            #expect(try AlbumCover.of(albumId: album, db) == nil)
            try db.insertImage(albumId: album, position: 0, kind: "secondary", uri: "https://img/back.jpg", uri150: "https://img/back-150.jpg", width: 500)
            #expect(try AlbumCover.of(albumId: album, db)?.uri == "https://img/back.jpg")
            // A primary image comes first wherever it stands, but only with a URL.
            try db.insertImage(albumId: album, position: 2, kind: "primary", uri: "", uri150: "", width: 600)
            #expect(try AlbumCover.of(albumId: album, db)?.uri == "https://img/back.jpg")
            try db.insertImage(albumId: album, position: 1, kind: "primary", uri: "https://img/front.jpg", uri150: "", width: 600)
            let cover = try #require(try AlbumCover.of(albumId: album, db))
            #expect(cover == AlbumCover(uri: "https://img/front.jpg", uri150: "", width: 600, height: 600))
            // The list columns read the same cover.
            let row = try #require(try Row.fetchOne(db, sql: "SELECT \(AlbumCover.columns(album: "a.id")) FROM album a WHERE a.id = ?", arguments: [album]))
            #expect(AlbumCover(coverColumnsOf: row) == cover)
        }
    }
}
