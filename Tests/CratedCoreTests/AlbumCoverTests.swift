@testable import CratedCore
import CratedTestSupport
import GRDB
import Testing

/// The one cover rule: which image, and which of its sizes a screen gets.
@Suite struct AlbumCoverTests {
    static func artwork(uri: String = "full", uri150: String = "thumb", width: Int?, height: Int? = nil,
                        fetched: (width: Int, height: Int)? = nil, pixels: Double) -> ArtworkReference? {
        AlbumCover(uri: uri, uri150: uri150, width: width, height: height ?? width,
                   source: ArtworkSource(key: "k", width: fetched?.width, height: fetched?.height, color: fetched == nil ? nil : "#102030"))?
            .artwork(pixels: pixels)
    }

    @Test func theSharedWidthAtLeastTheDrawnPixels() {
        #expect(Self.artwork(width: 600, pixels: 150) == ArtworkReference(url: "/v1/artwork/k/192", width: 192, height: 192, color: nil))
        #expect(Self.artwork(width: 600, pixels: 192) == ArtworkReference(url: "/v1/artwork/k/192", width: 192, height: 192, color: nil))
        #expect(Self.artwork(width: 600, pixels: 193.5) == ArtworkReference(url: "/v1/artwork/k/256", width: 256, height: 256, color: nil))
        // Height by the original's aspect.
        #expect(Self.artwork(width: 600, height: 300, pixels: 300) == ArtworkReference(url: "/v1/artwork/k/320", width: 320, height: 160, color: nil))
        // Unknown size: assumed square. Beyond the widest width: the widest.
        #expect(Self.artwork(width: nil, pixels: 90) == ArtworkReference(url: "/v1/artwork/k/96", width: 96, height: 96, color: nil))
        #expect(Self.artwork(width: nil, pixels: 5000) == ArtworkReference(url: "/v1/artwork/k/1440", width: 1440, height: 1440, color: nil))
    }

    @Test func neverWiderThanTheOriginalAndOneURLForEveryWiderRequest() {
        // A 600 pixel original: 700 and 1200 pixels both get the 640 width, made 600 wide.
        let wide = ArtworkReference(url: "/v1/artwork/k/640", width: 600, height: 600, color: nil)
        #expect(Self.artwork(width: 600, pixels: 700) == wide)
        #expect(Self.artwork(width: 600, pixels: 1200) == wide)
        // Only a thumbnail: Discogs' thumbnails are 150 pixels.
        #expect(Self.artwork(uri: "", width: nil, pixels: 400) == ArtworkReference(url: "/v1/artwork/k/192", width: 150, height: 150, color: nil))
    }

    @Test func theFetchedImagesSizeAndColourWinOverWhatDiscogsSaid() {
        #expect(Self.artwork(width: 600, fetched: (500, 250), pixels: 256)
                == ArtworkReference(url: "/v1/artwork/k/256", width: 256, height: 128, color: "#102030"))
        // Without a copy of its own (never, once migrated) a cover has no artwork.
        #expect(AlbumCover(uri: "full", uri150: "", width: 600, height: 600)?.artwork(pixels: 100) == nil)
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
            // Each image with a URL has a copy of its own, named by a random 32-digit key.
            let key = try #require(cover.source?.key)
            #expect(key.count == 32 && key.allSatisfy(\.isHexDigit))
            #expect(cover == AlbumCover(uri: "https://img/front.jpg", uri150: "", width: 600, height: 600, source: ArtworkSource(key: key)))
            // The list columns read the same cover, and no cover for an album without an image.
            let bare = try db.insertAlbum(title: "Bare", artistId: try db.insertArtist("Nobody"))
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(AlbumCover.columns) FROM album a \(AlbumCover.joins(album: "a.id")) WHERE a.id IN (?, ?) ORDER BY a.id
                """, arguments: [album, bare])
            #expect(rows.map { AlbumCover(coverColumnsOf: $0) } == [cover, nil])
        }
    }
}
