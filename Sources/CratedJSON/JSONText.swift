/// Compact JSON text for the JSON columns the database stores (a format's descriptions, a copy's
/// custom fields), with the escapes every response uses, built without an encoder per row.
public enum JSONText {
    /// A JSON array of strings.
    public static func array(_ values: [String]) -> String {
        if values.isEmpty { return "[]" }
        var output = JSONOutput(capacity: values.reduce(2) { $0 + $1.utf8.count + 3 })
        output.bytes.append(UInt8(ascii: "["))
        for index in values.indices {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            output.appendString(values[index])
        }
        output.bytes.append(UInt8(ascii: "]"))
        return output.bytes.string
    }

    /// A JSON object of string values, keys sorted: the same fields always give the same text, which
    /// a re-import compares with what it stored.
    public static func object(_ pairs: [(name: String, value: String)]) -> String {
        if pairs.isEmpty { return "{}" }
        var output = JSONOutput(capacity: pairs.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        output.bytes.append(UInt8(ascii: "{"))
        for (index, pair) in pairs.sorted(by: { $0.name < $1.name }).enumerated() {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            output.appendString(pair.name)
            output.bytes.append(UInt8(ascii: ":"))
            output.appendString(pair.value)
        }
        output.bytes.append(UInt8(ascii: "}"))
        return output.bytes.string
    }
}
