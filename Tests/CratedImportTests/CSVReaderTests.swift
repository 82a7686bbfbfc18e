@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import Testing

@Suite struct CSVReaderTests {
    func records(_ text: String, chunkSize: Int = 256 * 1024, maximumRecordBytes: Int = 1024 * 1024) throws -> [CSVRecord] {
        try records(bytes: Data(text.utf8), chunkSize: chunkSize, maximumRecordBytes: maximumRecordBytes)
    }

    func records(bytes: Data, chunkSize: Int = 256 * 1024, maximumRecordBytes: Int = 1024 * 1024) throws -> [CSVRecord] {
        let directory = try TemporaryDirectory()
        let path = try directory.write("file.csv", bytes: bytes)
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let reader = try CSVReader(handle: handle, chunkSize: chunkSize, maximumRecordBytes: maximumRecordBytes)
        var all: [CSVRecord] = []
        while let record = try reader.next() { all.append(record) }
        return all
    }

    @Test func quotedFieldsWithCommasDoubledQuotesAndLineBreaks() throws {
        let text = "a,b,c\n\"x, y\",\"12\"\"\",\"line one\nline two\"\nlast,,\n"
        let result = try records(text)
        #expect(result.map(\.fields) == [["a", "b", "c"], ["x, y", "12\"", "line one\nline two"], ["last", "", ""]])
        #expect(result.map(\.line) == [1, 2, 4])
    }

    @Test func crlfAndLFGiveTheSameRecords() throws {
        let lf = try records("h1,h2\nv1,\"q\nr\"\nv3,v4")
        let crlf = try records("h1,h2\r\nv1,\"q\nr\"\r\nv3,v4\r\n")
        #expect(lf.map(\.fields) == crlf.map(\.fields))
        #expect(lf.map(\.line) == crlf.map(\.line))
    }

    @Test func blankLinesAreSkipped() throws {
        #expect(try records("a\n\n\nb\n\n").map(\.fields) == [["a"], ["b"]])
    }

    /// A chunk of 16 bytes makes every record and quote straddle a refill.
    @Test func tinyChunksGiveTheSameRecordsAsOneBigRead() throws {
        let text = "Catalog#,Artist,Title\n\"A, 1\",\"Earth, Wind & Fire\",\"12\"\"\"\n\"multi\nline\nnote\",x,\"\"\"\"\r\nlong value that is much longer than sixteen bytes,y,z\n"
        #expect(try records(text, chunkSize: 16) == (try records(text)))
    }

    @Test func unterminatedQuoteNamesTheLineWhereItOpens() throws {
        #expect(throws: CSVError.unterminatedQuote(line: 3)) {
            try records("a,b\nc,d\ne,\"never closed\nmore\nand more\n")
        }
    }

    /// A record longer than the limit is an error naming its line, read no further: memory stays
    /// bounded however long a field (or a quote never closed) runs. One just under it is read.
    @Test func aRecordPastTheLimitIsRefused() throws {
        let long = String(repeating: "x", count: 5000)
        #expect(throws: CSVError.recordTooLong(line: 2, limit: 4096)) {
            try records("a,b\nc,\"\(long)\"\nd,e\n", chunkSize: 1024, maximumRecordBytes: 4096)
        }
        #expect(throws: CSVError.recordTooLong(line: 3, limit: 4096)) {
            try records("a,b\nc,d\ne,\"never closed\n\(long)\n", chunkSize: 1024, maximumRecordBytes: 4096)
        }
        let under = String(repeating: "y", count: 3000)
        #expect(try records("a,b\nc,\"\(under)\"\nd,e\n", chunkSize: 1024, maximumRecordBytes: 4096).map(\.fields) == [["a", "b"], ["c", under], ["d", "e"]])
    }

    @Test func invalidUTF8IsReportedPerField() throws {
        var bytes = Data("a,b\nok,".utf8)
        bytes.append(contentsOf: [0x66, 0xFF, 0x6F])
        bytes.append(contentsOf: Array("\n".utf8))
        let result = try records(bytes: bytes)
        #expect(result[1].invalidUTF8Fields == [1])
        #expect(result[1].fields[0] == "ok")
        #expect(result[0].invalidUTF8Fields.isEmpty)
    }
}
