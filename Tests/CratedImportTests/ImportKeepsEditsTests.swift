@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// What the user edits in crated (a rating, a condition, a note, a custom field) stays through later
/// imports of Discogs exports; a field they left as Discogs gave it follows the export.
@Suite struct ImportKeepsEditsTests {
    // MARK: The merge alone

    let everything = GivenCopyFields(rating: true, mediaCondition: true, sleeveCondition: true, notes: true, customField: { _ in true })

    @Test func aFieldLeftAsDiscogsGaveItFollowsDiscogs() {
        let base = CopyFieldValues(rating: 3, notes: "from Discogs")
        let merge = base.merged(with: CopyFieldValues(rating: 4, notes: "changed on Discogs"), base: base, given: everything)
        #expect(merge.fields == CopyFieldValues(rating: 4, notes: "changed on Discogs"))
        #expect(merge.discogs == merge.fields && merge.editsKept == 0)
    }

    @Test func anEditIsKeptAndCountedOnlyWhenDiscogsSaysYetAnotherThing() {
        let base = CopyFieldValues(rating: 3, mediaCondition: "Good (G)", notes: "from Discogs")
        let mine = CopyFieldValues(rating: 5, mediaCondition: "Good (G)", notes: "mine")
        // Discogs as before: kept, nothing to count.
        var merge = mine.merged(with: base, base: base, given: everything)
        #expect(merge.fields == mine && merge.discogs == base && merge.editsKept == 0)
        // Discogs changed the rating as the user did, the notes otherwise, and the condition the user left.
        let theirs = CopyFieldValues(rating: 5, mediaCondition: "Poor (P)", notes: "theirs")
        merge = mine.merged(with: theirs, base: base, given: everything)
        #expect(merge.fields == CopyFieldValues(rating: 5, mediaCondition: "Poor (P)", notes: "mine"))
        #expect(merge.discogs == theirs && merge.editsKept == 1)
    }

    @Test func aFieldDiscogsDoesNotGiveIsLeftAsItIs() {
        let base = CopyFieldValues(rating: 3, notes: "from Discogs")
        let mine = CopyFieldValues(rating: 3, notes: "mine")
        let ratingOnly = GivenCopyFields(rating: true, mediaCondition: false, sleeveCondition: false, notes: false, customField: { _ in false })
        let merge = mine.merged(with: CopyFieldValues(rating: 1), base: base, given: ratingOnly)
        #expect(merge.fields == CopyFieldValues(rating: 1, notes: "mine"))
        #expect(merge.discogs == CopyFieldValues(rating: 1, notes: "from Discogs") && merge.editsKept == 0)
    }

    @Test func customFieldsAreMergedOneByOneWhateverTheCaseOfTheirNames() {
        let base = CopyFieldValues(customFields: ["Price": "£12", "Shop": "Rough Trade", "Gone": "x"])
        // The user changed the price, added a field and left the shop; Discogs spells the names in
        // lower case, changed the shop and the price, and dropped `Gone`.
        let mine = CopyFieldValues(customFields: ["Price": "£10", "Shop": "Rough Trade", "Gone": "x", "Mood": "rainy"])
        let theirs = CopyFieldValues(customFields: ["price": "£15", "shop": "Bandcamp"])
        let merge = mine.merged(with: theirs, base: base, given: everything)
        #expect(merge.fields.customFields == ["Price": "£10", "shop": "Bandcamp", "Mood": "rainy"])
        #expect(merge.discogs.customFields == ["price": "£15", "shop": "Bandcamp"])
        #expect(merge.editsKept == 1)
        // An export with a column for the shop alone says nothing of the price.
        let shopOnly = GivenCopyFields(rating: false, mediaCondition: false, sleeveCondition: false, notes: false, customField: { $0 == "shop" })
        let partial = mine.merged(with: theirs, base: base, given: shopOnly)
        #expect(partial.fields.customFields == ["Price": "£10", "shop": "Bandcamp", "Gone": "x", "Mood": "rainy"])
        #expect(partial.editsKept == 0)
    }

    @Test func theStoredBaseIsNullWhileTheFieldsAreDiscogsOwn() throws {
        let fields = CopyFieldValues(rating: 4, mediaCondition: "Mint (M)", customFields: ["Price": "£12"])
        #expect(DiscogsCopyFields.text(discogs: fields, fields: fields) == nil)
        let text = try #require(DiscogsCopyFields.text(discogs: fields, fields: CopyFieldValues(rating: 5)))
        #expect(DiscogsCopyFields.decoded(text) == fields)
        #expect(DiscogsCopyFields.decoded("not json") == nil)
    }

    // MARK: Through imports

    func copy(_ database: AppDatabase, _ id: Int64) throws -> CollectionItem {
        try database.reader.read { db in try #require(try CollectionItem.fetchOne(db, key: id)) }
    }

    @Test(.needsSharedFixtures)
    func aRealExportImportedAgainKeepsWhatTheAppChanged() async throws {
        let export = try #require(Paths.sharedFixture("gustw-vinyl-collection_collection.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let first = try importer.importFile(at: export)
        let (userId, copyId) = try await database.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user")!, try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM collection_item")!)
        }
        let before = try copy(database, copyId)
        _ = try await database.updateCopy(id: copyId, userId: userId, changes: CopyChanges(
            rating: .some(5), mediaCondition: .some("Very Good Plus (VG+)"), notes: .some("first pressing, checked the matrix")))

        let again = try importer.importFile(at: export)
        #expect(again.copiesUpdated == 0 && again.copiesUnchanged == first.copiesAdded && again.editsKept == 0)
        let after = try copy(database, copyId)
        #expect(after.rating == 5 && after.mediaCondition == "Very Good Plus (VG+)" && after.notes == "first pressing, checked the matrix")
        #expect(after.sleeveCondition == before.sleeveCondition)
        // What Discogs gave is kept beside them, for the next import to compare with.
        #expect(after.discogsFields.flatMap(DiscogsCopyFields.decoded) == before.fieldValues)
    }

    @Test func aLaterExportChangesOnlyWhatTheUserLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        func importRow(rating: String, sleeve: String, notes: String, purchasedAt: String, dryRun: Bool = false) throws -> ImportSummary {
            let file = try directory.write("export.csv", exportHeader + "\n"
                + exportRow(rating: rating, media: "Mint (M)", sleeve: sleeve, notes: notes, purchasedAt: purchasedAt) + "\n")
            return try importer.importFile(at: file, options: ImportOptions(dryRun: dryRun))
        }
        _ = try importRow(rating: "3", sleeve: "Generic", notes: "from Discogs", purchasedAt: "Rough Trade")
        let (userId, copyId) = try await database.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user")!, try Int64.fetchOne(db, sql: "SELECT id FROM collection_item")!)
        }
        _ = try await database.updateCopy(id: copyId, userId: userId, changes: CopyChanges(
            rating: .some(5), customFields: ["Purchased At": "Rough Trade", "Signed": "yes"]))

        // On Discogs since: the rating (which the user changed too), the sleeve and the notes (which
        // they did not). A dry run says so and writes nothing.
        let dryRun = try importRow(rating: "2", sleeve: "Near Mint (NM or M-)", notes: "cleaned", purchasedAt: "Rough Trade", dryRun: true)
        #expect(dryRun.copiesUpdated == 1 && dryRun.editsKept == 1)
        #expect(try copy(database, copyId).sleeveCondition == "Generic")
        let summary = try importRow(rating: "2", sleeve: "Near Mint (NM or M-)", notes: "cleaned", purchasedAt: "Rough Trade")
        #expect(summary.copiesUpdated == 1 && summary.editsKept == 1)
        var stored = try copy(database, copyId)
        #expect(stored.rating == 5 && stored.sleeveCondition == "Near Mint (NM or M-)" && stored.notes == "cleaned")
        #expect(stored.customFieldValues == ["Purchased At": "Rough Trade", "Signed": "yes"])
        // Counted once: the next import of the same export has nothing new to say.
        let same = try importRow(rating: "2", sleeve: "Near Mint (NM or M-)", notes: "cleaned", purchasedAt: "Rough Trade")
        #expect(same.copiesUnchanged == 1 && same.editsKept == 0)

        // Set back to Discogs' rating, the copy follows Discogs again, and keeps nothing beside.
        _ = try await database.updateCopy(id: copyId, userId: userId, changes: CopyChanges(rating: .some(2), customFields: ["Purchased At": "Rough Trade"]))
        #expect(try copy(database, copyId).discogsFields == nil)
        _ = try importRow(rating: "1", sleeve: "Near Mint (NM or M-)", notes: "cleaned", purchasedAt: "Bandcamp")
        stored = try copy(database, copyId)
        #expect(stored.rating == 1 && stored.customFieldValues == ["Purchased At": "Bandcamp"] && stored.discogsFields == nil)
    }

    /// A spreadsheet writes the date back without seconds: the row still finds the edited copy
    /// within its minute, and the edit stays.
    @Test func anEditedCopyFoundWithinItsMinuteKeepsTheEdit() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: directory.write("export.csv", exportHeader + "\n" + exportRow(rating: "3", dateAdded: "2020-01-01 10:00:05") + "\n"))
        let (userId, copyId) = try await database.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user")!, try Int64.fetchOne(db, sql: "SELECT id FROM collection_item")!)
        }
        _ = try await database.updateCopy(id: copyId, userId: userId, changes: CopyChanges(rating: .some(5)))
        let resaved = try importer.importFile(at: directory.write("resaved.csv", exportHeader + "\n" + exportRow(rating: "2", dateAdded: "2020-01-01 10:00") + "\n"))
        #expect(resaved.copiesAdded == 0 && resaved.editsKept == 1)
        #expect(try copy(database, copyId).rating == 5)
    }

    /// An empty value set through the API is no field, as an export's empty cell is none: the copy
    /// then has nothing Discogs did not give, and keeps nothing beside.
    @Test func anEmptyCustomFieldIsNoField() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: directory.write("export.csv", exportHeader + "\n" + exportRow(purchasedAt: "") + "\n"))
        let (userId, copyId) = try await database.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user")!, try Int64.fetchOne(db, sql: "SELECT id FROM collection_item")!)
        }
        let edited = try await database.updateCopy(id: copyId, userId: userId, changes: CopyChanges(customFields: ["Purchased At": ""]))
        #expect(edited.copy.customFieldValues.isEmpty && edited.copy.discogsFields == nil)
    }

    @Test func anEditThatClearsAFieldIsKeptToo() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let file = try directory.write("export.csv", exportHeader + "\n" + exportRow(rating: "4", notes: "scratched") + "\n")
        _ = try importer.importFile(at: file)
        let (userId, copyId) = try await database.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user")!, try Int64.fetchOne(db, sql: "SELECT id FROM collection_item")!)
        }
        _ = try await database.updateCopy(id: copyId, userId: userId, changes: CopyChanges(rating: .some(nil), notes: .some(nil)))
        #expect(try importer.importFile(at: file).copiesUnchanged == 1)
        let stored = try copy(database, copyId)
        #expect(stored.rating == nil && stored.notes == nil)
    }
}
