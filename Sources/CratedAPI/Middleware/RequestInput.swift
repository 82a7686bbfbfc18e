import CratedCore
import CratedGrid
import Foundation
import Hummingbird
import NIOCore

/// Reading parameters and bodies strictly: a wrong value is a 400 that names it, never a 500.
extension AppRequestContext {
    /// A positive integer id from the path.
    func id(_ name: String) throws -> Int64 {
        let text = parameters.get(name) ?? ""
        guard let value = RecordID.parse(text) else {
            throw APIError.badParameter(name, "\(name) must be a positive integer id")
        }
        return value
    }

    func text(_ name: String) throws -> String {
        guard let value = parameters.get(name)?.removingPercentEncoding ?? parameters.get(name), !value.isEmpty else {
            throw APIError.badParameter(name, "\(name) is missing")
        }
        return value
    }
}

extension Request {
    /// A query parameter as it came: nil when absent, empty when given without a value. Given
    /// twice, its last value, as the grids read their parameters (`queryDictionary`).
    func rawQuery(_ name: String) -> String? {
        formQueryParameters.last(where: { $0.key == name })?.value
    }

    /// An optional text parameter (a query, a cursor); present but empty counts as absent.
    func query(_ name: String) -> String? {
        guard let value = rawQuery(name), !value.isEmpty else { return nil }
        return value
    }

    /// The query as a dictionary; a parameter given twice keeps its last value.
    func queryDictionary() -> [String: String] {
        var dictionary: [String: String] = [:]
        for (key, value) in formQueryParameters { dictionary[key] = value }
        return dictionary
    }

    /// The query's parameters decoded as a form encodes them: `+` is a space, as browsers'
    /// `URLSearchParams` and most HTTP libraries write one (`style=Deep+House`), and `%XX` a byte
    /// (`%2B` a plus). Hummingbird's own decoding leaves `+` as it is.
    var formQueryParameters: [(key: String, value: String)] {
        guard let query = uri.query, !query.isEmpty else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (Self.formDecoded(parts[0]), parts.count > 1 ? Self.formDecoded(parts[1]) : "")
        }
    }

    /// `text` with `+` a space and `%XX` decoded; with a malformed escape, the text as it came.
    static func formDecoded(_ text: Substring) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The client's display scale for artwork sizes, a number from 1 to 3 (default 2), as the grids
    /// take it: an app passes its screen's `displayScale` as it is, whole or not.
    func scale() throws -> Double {
        // Empty is no number: a 400, as on the grids.
        guard let text = rawQuery("scale") else { return 2 }
        guard let value = LayoutRequest.decimal(text), LayoutRequest.scaleRange.contains(value) else {
            throw APIError.badParameter("scale", "scale must be a number from 1 to 3")
        }
        return value
    }

    /// Whether the client is a phone or an iPad (`idiom=phone|pad`, default phone): pages draw covers
    /// larger on an iPad.
    func idiom() throws -> DeviceIdiom {
        guard let text = rawQuery("idiom") else { return .phone }
        guard let idiom = DeviceIdiom(rawValue: text.lowercased()) else {
            throw APIError.badParameter("idiom", "idiom must be phone or pad")
        }
        return idiom
    }

    func queryInt(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = rawQuery(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badParameter(name, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// Decodes a JSON object body, refusing fields the type does not know (a typo must not be
    /// silently ignored) and naming the field whose value has the wrong type.
    /// With `emptyIs`, an empty body stands for that value (commands whose body is optional).
    mutating func decodeStrict<Body: StrictBody>(_ type: Body.Type, context: AppRequestContext, emptyIs empty: Body? = nil) async throws -> Body {
        // A body announced too large is refused before any of it is waited for.
        if let announced = headers[.contentLength].flatMap({ Int($0) }), announced > context.maxUploadSize {
            throw APIError.bodyTooLarge
        }
        let buffer: ByteBuffer
        do {
            buffer = try await collectBody(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
        let data = Data(buffer: buffer)
        if let empty, data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return empty }
        guard let object = try? JSONSerialization.jsonObject(with: data), let dictionary = object as? [String: Any] else {
            throw APIError.badBody("the body must be a JSON object")
        }
        if let unknown = dictionary.keys.sorted().first(where: { !Body.fields.contains($0) }) {
            throw APIError.badBody("unknown field '\(unknown)'; this body takes \(Body.fields.sorted().joined(separator: ", "))", field: unknown)
        }
        // The parser keeps one of the two values without a word: which was meant is not known.
        if let twice = firstDuplicateKey(inJSON: data) {
            throw APIError.badBody("\(twice) is given twice; give it once", field: twice.split(separator: ".").first.map(String.init))
        }
        do {
            return try JSONDecoder().decode(Body.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) {
            let field = context.codingPath.first?.stringValue
            throw APIError.badBody("\(field ?? "a field") has the wrong type: \(context.debugDescription)", field: field)
        } catch let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.first?.stringValue
            throw APIError.badBody("\(field ?? "a field") must not be null", field: field)
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError.badBody("\(key.stringValue) is required", field: key.stringValue)
        } catch let DecodingError.dataCorrupted(context) {
            // Foundation reports a number no integer can hold (4.5, 1e300) as invalid JSON with no
            // path; the body parsed above, so such a number is the fault, and its field is named.
            if context.codingPath.isEmpty, let (field, number) = Self.numberNoIntegerHolds(in: dictionary) {
                throw APIError.badBody("\(field) must be a whole number of at most 19 digits, not \(number)", field: field)
            }
            let field = context.codingPath.first?.stringValue
            throw APIError.badBody("\(field ?? "the body") is not valid: \(context.debugDescription)", field: field)
        }
    }

    /// The first field, by name, whose value is or holds (in an array) a number that is not an
    /// integer within Int64.
    static func numberNoIntegerHolds(in dictionary: [String: Any]) -> (field: String, number: String)? {
        func inexact(_ value: Any) -> String? {
            switch value {
            case let array as [Any]: return array.lazy.compactMap(inexact).first
            case is Bool: return nil
            case let number as NSNumber:
                let text = "\(number)"
                return Int64(text) == nil && Int64(exactly: number.doubleValue) == nil ? text : nil
            default: return nil
            }
        }
        for field in dictionary.keys.sorted() {
            if let number = inexact(dictionary[field]!) { return (field, number) }
        }
        return nil
    }
}

/// A request body type that lists the JSON fields it accepts.
protocol StrictBody: Decodable {
    static var fields: Set<String> { get }
}
