@testable import CratedSync
import CratedTestSupport
import CratedCore
import Foundation
import GRDB
import Testing

/// Collection sync: folders to crates, instances to copies, matched to copies imported from CSV.
@Suite struct CollectionSyncTests {
    private func writeCSV(_ h: SyncHarness, _ rows: [String]) throws -> String {
        let url = h.directory.appending(path: "collection-\(UUID().uuidString).csv")
        let header = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Collection Media Condition,Collection Sleeve Condition,Collection Notes"
        try FileManager.default.createDirectory(at: h.directory, withIntermediateDirectories: true)
        try ([header] + rows).joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test(.needsSharedFixtures)
    func csvThenAPINeverDuplicates() async throws {
        try await SyncHarness.run { h in
            // Two of the three instances of joalla's example collection, exported as CSV: one with the
            // API's wall-clock time, one with the UTC instant (2009-08-20T00:00:00-07:00).
            let csv = try writeCSV(h, [
                "!K7073LP,Kruder & Dorfmeister,The K&D Sessions™,!K7 Records,\"5xLP, Comp\",,2015,6794957,Uncategorized,2015-04-14 03:23:29,,,",
                "X1,Suburbass / MRMNK,10_Traktion 02,Label,\"12\"\"\",,2009,457553,Collection folder 2,2009-08-20 07:00:00,Very Good Plus (VG+),Generic,bought in Leeds",
            ])
            try h.importCSV(csv)
            let user = try #require(try h.database.user(named: "collector"))
            let csvCopies = try h.database.copies(ofUser: user.id!)
            h.fake.serve("/users/example/collection/folders", json: try Paths.sharedDiscogs("joalla-discogs_client_users_example_collection_folders.json"))
            h.fake.serve("/users/example/collection/folders/0/releases",
                         json: try Paths.sharedDiscogs("joalla-discogs_client_users_example_collection_folders_0_releases_page1.json"))

            let snapshot = try await h.client().collection(user: "example")
            let summary = try await h.database.applyCollection(snapshot, userId: user.id!, at: h.clock.date)

            #expect(summary.instances == 3)
            #expect(summary.copiesMatched == 2 && summary.copiesAdded == 1 && summary.copiesRemoved == 0)
            #expect(summary.albumsAdded == 1)
            #expect(summary.cratesLinked == 1 && summary.cratesAdded == 0)
            let copies = try h.database.copies(ofUser: user.id!)
            #expect(copies.count == 3)
            #expect(Set(copies.compactMap(\.discogsInstanceId)) == [101, 102, 103])
            // The imported copies are the same rows, now carrying their instance ids.
            #expect(Set(csvCopies.map(\.id)).isSubset(of: Set(copies.map(\.id))))
            #expect(copies.first { $0.discogsInstanceId == 101 }?.dateAdded == "2015-04-14T03:23:29Z")
            #expect(copies.first { $0.discogsInstanceId == 103 }?.dateAdded == "2009-08-20T00:00:00Z")
            // The listing has no notes (Discogs shows them to the owner alone): the import's stay.
            let leeds = try #require(copies.first { $0.discogsInstanceId == 102 })
            #expect(leeds.mediaCondition == "Very Good Plus (VG+)" && leeds.sleeveCondition == "Generic" && leeds.notes == "bought in Leeds")

            // Folder 0 ("All") and folder 1 (uncategorised) are not crates; folder 2 took over the
            // crate the import made from its name, and the copy Discogs keeps in folder 1 left it.
            let crates = try h.database.crates(ofUser: user.id!)
            #expect(crates.map(\.crate.name) == ["Collection folder 2"])
            #expect(crates.first?.crate.discogsFolderId == 2)
            #expect(crates.first?.itemIds == [])

            // The album new to the catalogue comes from the listing: credit with its join phrases and
            // the name variation printed on the release (`Dr. Know (4)` credited as `Dr.No`).
            let control = try #require(try h.database.album(discogsReleaseId: 656052))
            #expect(control.title == "Control / Command & Conquer")
            #expect(control.artistCredit == "Orion Featuring Royal / Theory & Dr.No")
            #expect(control.year == 2006 && control.discogsMasterId == 442393)
            let artists = try h.database.artists(ofAlbum: control.id!)
            #expect(artists.map(\.artist.discogsName) == ["Orion (2)", "Royal (4)", "Theory (3)", "Dr. Know (4)"])
            #expect(try h.syncState(release: 656052) == nil, "release sync fills it in later")

            // Again through a pass: nothing new. And the CSV imported again adds nothing either.
            for id: Int64 in [6794957, 457553, 656052] { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            let pass = try await h.runner().runPass(SyncPassOptions(collectionUser: "example"))
            #expect(pass.collection?.copiesUnchanged == 3)
            #expect(pass.collection?.copiesAdded == 0)
            #expect(pass.synced == 3)
            let reimport = try h.importCSV(csv)
            #expect(reimport.copiesAdded == 0)
            #expect(try h.database.copies(ofUser: user.id!).count == 3)
        }
    }

    /// Discogs lists a collection's notes to its owner alone. A listing without them says nothing
    /// of a copy's conditions and notes, and an imported copy keeps its own; a listing with them
    /// (the owner's, here with none set) is Discogs' word, and clears them.
    @Test func aListingWithoutNotesKeepsTheCopysOwn() async throws {
        try await SyncHarness.run { h in
            let csv = try writeCSV(h, ["X1,Band,Record,Label,LP,,2001,21,Uncategorized,2021-05-02 10:00:00,Near Mint (NM or M-),Generic,bought in Leeds"])
            try h.importCSV(csv)
            let user = try #require(try h.database.user(named: "collector"))
            h.fake.serve("/users/dj/collection/folders", json: #"{"folders": [{"id": 0, "name": "All", "count": 1}]}"#)
            h.fake.serve("/users/dj/collection/fields", json: """
                {"fields": [{"id": 1, "name": "Media Condition"}, {"id": 2, "name": "Sleeve Condition"}, {"id": 3, "name": "Notes"}]}
                """)
            func listing(notes: String?) -> String {
                """
                {"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [
                  {"id": 21, "instance_id": 1, "folder_id": 1, "rating": 3, "date_added": "2021-05-02T10:00:00+02:00",
                   \(notes.map { #""notes": \#($0),"# } ?? "")
                   "basic_information": {"id": 21, "title": "Record", "year": 2001,
                     "artists": [{"id": 5, "name": "Band", "anv": "", "join": ""}], "formats": [{"name": "Vinyl", "qty": "1"}]}}]}
                """
            }
            let path = "/users/dj/collection/folders/0/releases?page=1&per_page=100"

            h.fake.serve(path, json: listing(notes: nil))
            let withoutNotes = try await h.runner().runPass(SyncPassOptions(collectionUser: "dj"))
            #expect(withoutNotes.collection?.copiesMatched == 1)
            var copy = try #require(try h.database.copies(ofUser: user.id!).first)
            #expect(copy.discogsInstanceId == 1 && copy.rating == 3)
            #expect(copy.mediaCondition == "Near Mint (NM or M-)" && copy.sleeveCondition == "Generic" && copy.notes == "bought in Leeds")

            h.fake.serve(path, json: listing(notes: "[]"))
            let withNotes = try await h.runner().runPass(SyncPassOptions(collectionUser: "dj"))
            #expect(withNotes.collection?.copiesUpdated == 1)
            copy = try #require(try h.database.copies(ofUser: user.id!).first)
            #expect(copy.mediaCondition == nil && copy.sleeveCondition == nil && copy.notes == nil)
        }
    }

    /// A folder whose name differs only in case from a crate of the user's is that crate, as the API
    /// compares names: linked, not made again beside it.
    @Test func aFolderNamedAsACrateButForCaseIsThatCrate() async throws {
        try await SyncHarness.run { h in
            let csv = try writeCSV(h, ["X1,Band,Record,Label,LP,,2001,21,Uncategorized,2021-05-02 10:00:00,,,"])
            try h.importCSV(csv)
            let user = try #require(try h.database.user(named: "collector"))
            let own = try await h.database.createCrate(userId: user.id!, name: "soul")
            h.fake.serve("/users/dj/collection/folders", json: #"{"folders": [{"id": 0, "name": "All", "count": 1}, {"id": 4, "name": "Soul", "count": 1}]}"#)
            h.fake.serve("/users/dj/collection/fields", json: #"{"fields": []}"#)
            h.fake.serve("/users/dj/collection/folders/0/releases?page=1&per_page=100", json: """
                {"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [\(Self.listedItem(1, release: 21, folder: 4))]}
                """)
            let pass = try await h.runner().runPass(SyncPassOptions(collectionUser: "dj"))
            #expect(pass.collection?.cratesLinked == 1 && pass.collection?.cratesAdded == 0)
            let crates = try h.database.crates(userId: user.id!)
            #expect(crates.map(\.crate.id) == [own.id])
            #expect(crates.first?.crate.discogsFolderId == 4 && crates.first?.copies == 1)
        }
    }

    /// A copy moved to another folder on Discogs moves crates and counts as updated, as a CSV
    /// import counts it; the pass after, with nothing moved, counts it unchanged.
    @Test func aCopyMovedToAnotherFolderCountsAsUpdated() async throws {
        try await SyncHarness.run { h in
            h.fake.serve("/users/dj/collection/folders", json: """
                {"folders": [{"id": 0, "name": "All", "count": 1}, {"id": 3, "name": "Jazz", "count": 1}, {"id": 4, "name": "Soul", "count": 0}]}
                """)
            h.fake.serve("/users/dj/collection/fields", json: #"{"fields": []}"#)
            let path = "/users/dj/collection/folders/0/releases?page=1&per_page=100"
            func listing(folder: Int) -> String {
                #"{"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [\#(Self.listedItem(1, release: 21, folder: folder))]}"#
            }
            h.fake.serve(path, json: listing(folder: 3))
            let first = try await h.runner().runPass(SyncPassOptions(collectionUser: "dj"))
            #expect(first.collection?.copiesAdded == 1)

            h.fake.serve(path, json: listing(folder: 4))
            let moved = try #require(try await h.runner().runPass(SyncPassOptions(collectionUser: "dj")).collection)
            #expect((moved.copiesUpdated, moved.copiesUnchanged) == (1, 0))
            let user = try #require(try h.database.user(named: "collector"))
            let crates = try h.database.crates(ofUser: user.id!)
            #expect(crates.map { "\($0.crate.name) \($0.itemIds.count)" } == ["Jazz 0", "Soul 1"])

            let again = try #require(try await h.runner().runPass(SyncPassOptions(collectionUser: "dj")).collection)
            #expect((again.copiesUpdated, again.copiesUnchanged) == (0, 1))
        }
    }
    /// One instance as the collection listing gives it, with its notes fields.
    private static func listedItem(_ instance: Int, release: Int, folder: Int, rating: Int = 0, notes: String = "[]") -> String {
        """
        {"id": \(release), "instance_id": \(instance), "folder_id": \(folder), "rating": \(rating),
         "date_added": "2021-05-0\(instance % 9 + 1)T10:00:00+02:00", "notes": \(notes),
         "basic_information": {"id": \(release), "title": "Record \(release)", "year": 0, "master_id": 0,
           "artists": [{"id": \(release + 50), "name": "Band \(release) (3)", "anv": "", "join": ""}],
           "formats": [{"name": "Vinyl", "qty": "2", "descriptions": ["LP"]}]}}
        """
    }

    @Test func pagesFieldsFoldersAndRemovals() async throws {
        try await SyncHarness.run { h in
            h.fake.serve("/users/dj%20k/collection/folders", json: """
                {"folders": [{"id": 0, "name": "All", "count": 3}, {"id": 1, "name": "Uncategorized", "count": 1},
                             {"id": 7, "name": "Jazz", "count": 1}, {"id": 8, "name": "Dub", "count": 1}]}
                """)
            h.fake.serve("/users/dj%20k/collection/fields", json: """
                {"fields": [{"id": 1, "name": "Media Condition"}, {"id": 2, "name": "Sleeve Condition"},
                            {"id": 3, "name": "Notes"}, {"id": 4, "name": "Purchased At"}]}
                """)
            let notes = #"[{"field_id": 1, "value": "Mint (M)"}, {"field_id": 3, "value": "signed"}, {"field_id": 4, "value": "Rough Trade"}]"#
            h.fake.serve("/users/dj%20k/collection/folders/0/releases?page=1&per_page=100",
                         json: #"{"pagination": {"page": 1, "pages": 2, "items": 3}, "releases": [\#(Self.listedItem(1, release: 11, folder: 7, rating: 4, notes: notes)), \#(Self.listedItem(2, release: 12, folder: 8))]}"#)
            h.fake.serve("/users/dj%20k/collection/folders/0/releases?page=2&per_page=100",
                         json: #"{"pagination": {"page": 2, "pages": 2, "items": 3}, "releases": [\#(Self.listedItem(3, release: 13, folder: 1))]}"#)
            let runner = try h.runner()

            let first = try await runner.runPass(SyncPassOptions(userName: "dj", collectionUser: "dj k", limit: 1))

            #expect(first.collection?.copiesAdded == 3 && first.collection?.cratesAdded == 2)
            let user = try #require(try h.database.user(named: "dj"))
            let copies = try h.database.copies(ofUser: user.id!)
            let signed = try #require(copies.first { $0.discogsInstanceId == 1 })
            #expect(signed.rating == 4 && signed.mediaCondition == "Mint (M)" && signed.notes == "signed")
            #expect(signed.customFields == #"{"Purchased At":"Rough Trade"}"#)
            #expect(signed.dateAdded == "2021-05-02T10:00:00Z")
            #expect(copies.first { $0.discogsInstanceId == 2 }?.rating == nil)
            var crates = try h.database.crates(ofUser: user.id!)
            #expect(crates.map(\.crate.name) == ["Dub", "Jazz"])
            #expect(crates.map(\.itemIds.count) == [1, 1])
            let album = try #require(try h.database.album(discogsReleaseId: 11))
            #expect(album.artistCredit == "Band 11" && album.year == nil && album.formatSummary == "2xVinyl, LP")

            // On Discogs: instance 2 moves to Jazz, instance 3 is sold, folder Dub is deleted.
            h.fake.serve("/users/dj%20k/collection/folders", json: """
                {"folders": [{"id": 0, "name": "All", "count": 2}, {"id": 7, "name": "Jazz", "count": 2}]}
                """)
            h.fake.serve("/users/dj%20k/collection/folders/0/releases?page=1&per_page=100",
                         json: #"{"pagination": {"page": 1, "pages": 1, "items": 2}, "releases": [\#(Self.listedItem(1, release: 11, folder: 7, rating: 4, notes: notes)), \#(Self.listedItem(2, release: 12, folder: 7))]}"#)

            let second = try await runner.runPass(SyncPassOptions(userName: "dj", collectionUser: "dj k", limit: 1))

            #expect(second.collection?.copiesRemoved == 1 && second.collection?.copiesUpdated == 1 && second.collection?.copiesUnchanged == 1)
            #expect(try h.database.copies(ofUser: user.id!).compactMap(\.discogsInstanceId).sorted() == [1, 2])
            crates = try h.database.crates(ofUser: user.id!)
            #expect(crates.map(\.crate.name) == ["Dub", "Jazz"], "a deleted folder leaves an ordinary crate")
            #expect(crates.map(\.crate.discogsFolderId) == [nil, 7])
            #expect(crates.map(\.crate.isFolder) == [false, true])
            #expect(crates.map(\.itemIds.count) == [0, 2])

            // Another account's listing (no instance in common) adds its copies and removes none.
            h.fake.serve("/users/dj%20k/collection/folders/0/releases?page=1&per_page=100",
                         json: #"{"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [\#(Self.listedItem(9, release: 19, folder: 1))]}"#)
            let third = try await runner.runPass(SyncPassOptions(userName: "dj", collectionUser: "dj k", limit: 1))
            #expect(third.collection?.copiesAdded == 1 && third.collection?.copiesRemoved == 0)
            #expect(try h.database.copies(ofUser: user.id!).count == 3)
        }
    }

    /// Discogs lists a collection a page at a time, and a copy added or removed there between two
    /// pages shifts the others across them: one comes twice or not at all, and the count moves. A
    /// listing read so removes nothing, since the copy it left out may be on a page read before; the
    /// next pass that reads it whole removes what is gone.
    @Test func aListingThatChangesWhileItIsReadRemovesNothing() async throws {
        try await SyncHarness.run { h in
            h.fake.serve("/users/dj/collection/folders", json: #"{"folders": [{"id": 0, "name": "All", "count": 4}]}"#)
            func serve(page: Int, pages: Int, items: Int, _ instances: [Int]) {
                let listed = instances.map { Self.listedItem($0, release: 10 + $0, folder: 1) }.joined(separator: ", ")
                h.fake.serve("/users/dj/collection/folders/0/releases?page=\(page)&per_page=100",
                             json: #"{"pagination": {"page": \#(page), "pages": \#(pages), "items": \#(items)}, "releases": [\#(listed)]}"#)
            }
            let runner = try h.runner()
            func pass() async throws -> CollectionSyncSummary {
                try #require(try await runner.runPass(SyncPassOptions(userName: "dj", collectionUser: "dj", limit: 1)).collection)
            }
            func instances() throws -> [Int64] {
                let user = try #require(try h.database.user(named: "dj"))
                return try h.database.copies(ofUser: user.id!).compactMap(\.discogsInstanceId).sorted()
            }

            serve(page: 1, pages: 2, items: 4, [1, 2])
            serve(page: 2, pages: 2, items: 4, [3, 4])
            #expect(try await pass().copiesAdded == 4)

            // Instance 1 sold between the two pages: 3 moved onto page 1, already read.
            serve(page: 2, pages: 2, items: 3, [4])
            let shifted = try await pass()
            #expect((shifted.copiesRemoved, shifted.removalsDeferred) == (0, 1))
            #expect(try instances() == [1, 2, 3, 4])

            serve(page: 1, pages: 2, items: 3, [2, 3])
            let whole = try await pass()
            #expect((whole.copiesRemoved, whole.removalsDeferred) == (1, 0))
            #expect(try instances() == [2, 3, 4])

            // A copy added on top between the pages: 3 comes twice, and once is counted.
            serve(page: 2, pages: 2, items: 4, [3, 4])
            let repeated = try await pass()
            #expect((repeated.instances, repeated.copiesUnchanged, repeated.copiesRemoved) == (3, 3, 0))
            #expect(try instances() == [2, 3, 4])
        }
    }

    /// go-discogs' real listing: items without `folder_id`, dates at -08:00, `master_url` null, a
    /// format with free text. Served for every page asked for, as a host that ignored `page` would,
    /// it repeats its two instances on each of the 48 pages it counts: two copies, and the listing is
    /// not taken as whole.
    @Test(.needsSharedFixtures)
    func goDiscogsRealListing() async throws {
        try await SyncHarness.run { h in
            h.fake.serve("/users/test_user/collection/folders", json: try Paths.sharedDiscogs("go-discogs_collection_folders.json"))
            h.fake.serve("/users/test_user/collection/folders/0/releases", json: try Paths.sharedDiscogs("go-discogs_collection_folder0_releases.json"))
            let snapshot = try await h.client().collection(user: "test_user")
            #expect(snapshot.instances.map(\.instanceId) == [431009995, 146424864])
            #expect(!snapshot.isWhole)
            #expect(h.fake.requests(to: "/users/test_user/collection/folders/0/releases").count == 48)

            let user = try await h.database.writer.write { db in try db.insertUser("collector") }
            let summary = try await h.database.applyCollection(snapshot, userId: user, at: h.clock.date)
            #expect((summary.instances, summary.copiesAdded, summary.albumsAdded, summary.cratesAdded) == (2, 2, 2, 0))
            let copies = try h.database.copies(ofUser: user)
            // Dates as the CSV export writes them, the wall-clock time of the account.
            #expect(Set(copies.map(\.dateAdded)) == ["2020-01-19T14:19:11Z", "2015-11-08T14:42:02Z"])
            let zonk = try #require(try h.database.album(discogsReleaseId: 12934893))
            #expect(zonk.title == "Zonk" && zonk.artistCredit == "Zoo Lake" && zonk.year == 2018 && zonk.discogsMasterId == nil)
            #expect(zonk.formatSummary == "Vinyl, LP, Album")
            let format = try await h.database.reader.read { db in
                try Row.fetchOne(db, sql: "SELECT name, text FROM album_format WHERE album_id = ?", arguments: [zonk.id!])
            }
            #expect(format?["name"] == "Vinyl" && format?["text"] == "Purple")
            #expect(try h.database.album(discogsReleaseId: 4825435)?.discogsMasterId == 17200)
        }
    }

    /// A crate a CSV import made from a folder that Discogs no longer has (renamed or deleted since
    /// the export) stands for that folder until a sync: the copy leaves it for its folder's crate, and
    /// the crate stays as an ordinary one. The user's own crate keeps the copy.
    @Test func aCSVFolderCrateThatDiscogsNoLongerHasBecomesOrdinary() async throws {
        try await SyncHarness.run { h in
            try h.importCSV(try writeCSV(h, [#"C1,Band 11 (3),Record 11,Label,"2xLP",,0,11,Old Jazz,2021-05-02 08:00:00,,,"#]))
            let user = try #require(try h.database.user(named: "collector"))
            let copy = try #require(try h.database.copies(ofUser: user.id!).first)
            let keepers = try await h.database.createCrate(userId: user.id!, name: "Keepers")
            _ = try await h.database.addToCrate(id: keepers.id!, userId: user.id!, copyIds: [copy.id!])
            h.fake.serve("/users/dj/collection/folders", json: """
                {"folders": [{"id": 0, "name": "All", "count": 1}, {"id": 7, "name": "Jazz", "count": 1}]}
                """)
            h.fake.serve("/users/dj/collection/folders/0/releases", json: """
                {"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [{"id": 11, "instance_id": 1, "folder_id": 7,
                 "rating": 0, "date_added": "2021-05-02T10:00:00+02:00", "basic_information": {"id": 11, "title": "Record 11",
                 "year": 0, "master_id": 0, "artists": [{"id": 61, "name": "Band 11 (3)", "anv": "", "join": ""}], "formats": []}}]}
                """)

            let summary = try await h.database.applyCollection(try await h.client().collection(user: "dj"), userId: user.id!, at: h.clock.date)

            #expect(summary.copiesMatched == 1 && summary.cratesAdded == 1)
            let crates = try h.database.crates(ofUser: user.id!)
            #expect(crates.map(\.crate.name) == ["Jazz", "Keepers", "Old Jazz"])
            #expect(crates.map(\.itemIds) == [[copy.id!], [copy.id!], []])
            #expect(crates.map(\.crate.isFolder) == [true, false, false])
        }
    }

    /// A rating or note changed in the app stays through every later pass; a field the user left as
    /// Discogs gave it follows Discogs.
    @Test func editsMadeInCratedSurviveCollectionSync() async throws {
        try await SyncHarness.run { h in
            h.fake.serve("/users/dj/collection/folders", json: #"{"folders": [{"id": 0, "name": "All", "count": 1}]}"#)
            h.fake.serve("/users/dj/collection/fields", json: #"{"fields": [{"id": 1, "name": "Media Condition"}, {"id": 3, "name": "Notes"}]}"#)
            func serveListing(rating: Int, media: String, notes: String) {
                h.fake.serve("/users/dj/collection/folders/0/releases?page=1&per_page=100", json: """
                    {"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [
                      {"id": 21, "instance_id": 1, "folder_id": 1, "rating": \(rating), "date_added": "2021-05-02T10:00:00+02:00",
                       "notes": [{"field_id": 1, "value": "\(media)"}, {"field_id": 3, "value": "\(notes)"}],
                       "basic_information": {"id": 21, "title": "Record", "year": 2001,
                         "artists": [{"id": 5, "name": "Band", "anv": "", "join": ""}], "formats": [{"name": "Vinyl", "qty": "1"}]}}]}
                    """)
            }
            func pass() async throws -> CollectionSyncSummary { try #require(try await h.runner().runPass(SyncPassOptions(collectionUser: "dj")).collection) }
            let user = try await h.database.resolveUser(named: "collector", defaultName: "collector", createIfMissing: true)
            func copy() throws -> CollectionItem { try #require(try h.database.copies(ofUser: user.id!).first) }

            serveListing(rating: 3, media: "Very Good (VG)", notes: "from Discogs")
            #expect(try await pass().copiesAdded == 1)
            _ = try await h.database.updateCopy(id: copy().id!, userId: user.id!, changes: CopyChanges(rating: .some(5), notes: .some("played at the party")))

            // The listing as it was: the edits stay, and nothing is counted as kept over Discogs.
            var summary = try await pass()
            #expect(summary.copiesUnchanged == 1 && summary.editsKept == 0)
            #expect(try copy().rating == 5 && copy().notes == "played at the party" && copy().mediaCondition == "Very Good (VG)")

            // Discogs changes the rating too, and the condition the user left alone: the condition
            // follows Discogs, the rating stays the user's and is counted once.
            serveListing(rating: 2, media: "Good (G)", notes: "from Discogs")
            summary = try await pass()
            #expect(summary.copiesUpdated == 1 && summary.editsKept == 1)
            #expect(try copy().rating == 5 && copy().mediaCondition == "Good (G)" && copy().notes == "played at the party")
            summary = try await pass()
            #expect(summary.copiesUnchanged == 1 && summary.editsKept == 0)

            // A listing without notes (another user's token) says nothing of them: the edited note
            // stays, and so does what Discogs last gave, for the next listing with notes.
            h.fake.serve("/users/dj/collection/folders/0/releases?page=1&per_page=100", json: """
                {"pagination": {"page": 1, "pages": 1, "items": 1}, "releases": [
                  {"id": 21, "instance_id": 1, "folder_id": 1, "rating": 2, "date_added": "2021-05-02T10:00:00+02:00",
                   "basic_information": {"id": 21, "title": "Record", "year": 2001,
                     "artists": [{"id": 5, "name": "Band", "anv": "", "join": ""}], "formats": [{"name": "Vinyl", "qty": "1"}]}}]}
                """)
            summary = try await pass()
            #expect(summary.copiesUnchanged == 1 && summary.editsKept == 0)
            #expect(try copy().rating == 5 && copy().notes == "played at the party" && copy().mediaCondition == "Good (G)")
            #expect(try copy().discogsFields.flatMap(DiscogsCopyFields.decoded)?.notes == "from Discogs")

            // Set back to Discogs' values in the app, the fields follow Discogs again.
            _ = try await h.database.updateCopy(id: copy().id!, userId: user.id!, changes: CopyChanges(rating: .some(2), notes: .some("from Discogs")))
            #expect(try copy().discogsFields == nil)
            serveListing(rating: 4, media: "Good (G)", notes: "sold the sleeve")
            summary = try await pass()
            #expect(summary.copiesUpdated == 1 && summary.editsKept == 0)
            #expect(try copy().rating == 4 && copy().notes == "sold the sleeve")
        }
    }

    @Test func anUnknownDiscogsUserIsReportedAndReleaseSyncGoesOn() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([31])
            h.fake.serveRelease(31, json: syntheticRelease(id: 31))

            let report = try await h.runner().runPass(SyncPassOptions(collectionUser: "nobody"))

            // The collection's failure is its user's (and the operator's); the pass itself went on.
            #expect(report.seen(byUser: nil).error == "collection of Discogs user 'nobody': not found")
            #expect(report.error == nil && report.synced == 1)
        }
    }

    @Test func apiDatesAreMatchedInBothForms() throws {
        let dates = try #require(CollectionMapping.dateAdded("2020-01-19T14:19:11-08:00"))
        #expect(dates.wallClock == "2020-01-19T14:19:11Z")
        #expect(dates.utc == "2020-01-19T22:19:11Z")
        #expect(CollectionMapping.dateAdded("2020-01-19T14:19:11Z")?.utc == "2020-01-19T14:19:11Z")
        #expect(CollectionMapping.dateAdded("2020-01-19T00:30:00+05:30")?.utc == "2020-01-18T19:00:00Z")
        #expect(CollectionMapping.dateAdded("yesterday") == nil)
    }
}
