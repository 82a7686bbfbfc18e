import Foundation

/// Checks a JSON value against a schema of the OpenAPI document, for tests that hold the document
/// and the server's answers together. It knows the keywords the document uses to say what the
/// server takes and sends: `$ref` (to `#/components/...`), `type` (one or a list), `enum`,
/// `pattern`, `minLength`/`maxLength`, `minimum`/`maximum`, `properties`, `required`,
/// `additionalProperties: false`, `items`, `minItems`/`maxItems`, `uniqueItems`, `oneOf`, and
/// `contentMediaType: application/json` with `contentSchema`. `format` and descriptions are ignored.
struct SchemaCheck {
    let document: [String: Any]

    /// Why `value` does not fit `schema` (empty when it does), each with the path to the value.
    func problems(_ value: Any, _ schema: [String: Any], at path: String = "$") -> [String] {
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) else { return ["\(path): unresolvable \(ref)"] }
            return problems(value, target, at: path)
        }
        var found: [String] = []
        if let branches = schema["oneOf"] as? [[String: Any]] {
            let fitting = branches.filter { problems(value, $0, at: path).isEmpty }.count
            if fitting != 1 { found.append("\(path): fits \(fitting) of oneOf's \(branches.count) branches, not exactly one") }
        }
        if let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map({ [$0] }), !types.contains(where: { Self.isOfType(value, $0) }) {
            return found + ["\(path): \(Self.describe(value)) is not of type \(types)"]
        }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { Self.equal($0, value) }) {
            found.append("\(path): \(Self.describe(value)) is not one of \(allowed)")
        }
        if let text = value as? String {
            // JSON Schema counts code points.
            let length = text.unicodeScalars.count
            if let minimum = schema["minLength"] as? Int, length < minimum { found.append("\(path): shorter than \(minimum)") }
            if let maximum = schema["maxLength"] as? Int, length > maximum { found.append("\(path): longer than \(maximum)") }
            if let pattern = schema["pattern"] as? String, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): '\(text)' does not match \(pattern)")
            }
            if schema["contentMediaType"] as? String == "application/json", let content = schema["contentSchema"] as? [String: Any] {
                if let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) {
                    found += problems(parsed, content, at: path + "(json)")
                } else {
                    found.append("\(path): not JSON")
                }
            }
        }
        if let number = Self.number(value) {
            if let minimum = schema["minimum"].flatMap(Self.number), number < minimum { found.append("\(path): \(number) is below \(minimum)") }
            if let maximum = schema["maximum"].flatMap(Self.number), number > maximum { found.append("\(path): \(number) is above \(maximum)") }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                found.append("\(path): lacks required \(name)")
            }
            for (name, child) in object {
                if let property = properties[name] {
                    found += problems(child, property, at: path + "." + name)
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(path): has \(name), which is not allowed")
                }
            }
        }
        if let array = value as? [Any] {
            if let minimum = schema["minItems"] as? Int, array.count < minimum { found.append("\(path): fewer than \(minimum) items") }
            if let maximum = schema["maxItems"] as? Int, array.count > maximum { found.append("\(path): more than \(maximum) items") }
            if schema["uniqueItems"] as? Bool == true {
                for (index, item) in array.enumerated() where array[..<index].contains(where: { Self.equal($0, item) }) {
                    found.append("\(path)[\(index)]: repeats an earlier item")
                }
            }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() { found += problems(item, items, at: "\(path)[\(index)]") }
            }
        }
        return found
    }

    func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any? = document
        for part in ref.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
        return node as? [String: Any]
    }

    /// JSONSerialization gives numbers and booleans as NSNumber: a boolean is the one of C type
    /// `char` (its numbers are `int`, `long long` or `double`, never `char`).
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    static func number(_ value: Any) -> Double? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        return number.doubleValue
    }

    static func isOfType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "null": value is NSNull
        case "boolean": isBoolean(value)
        case "integer": number(value).map { $0 == $0.rounded() } ?? false
        case "number": number(value) != nil
        case "string": value is String
        case "array": value is [Any]
        case "object": value is [String: Any]
        default: false
        }
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        (a as? NSObject)?.isEqual(b as? NSObject) ?? false
    }

    static func describe(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) else { return "\(value)" }
        return String(decoding: data.prefix(120), as: UTF8.self)
    }
}
