/// How an id is written in a path or a query: a positive decimal number with no sign, no leading
/// zero and no spaces (`13`, never `+13`, `013` or ` 13`), as the OpenAPI document says, so that one
/// record has one URL.
public enum RecordID {
    public static func parse(_ text: some StringProtocol) -> Int64? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(text)
        else { return nil }
        return value
    }
}
