/// Why a grid request was refused. The API answers `{"error": {"code": code, "message": message,
/// "field": parameter}}` with `httpStatus`: 400 for a bad parameter, 404 for a crate, artist or album
/// that is missing or belongs to someone else.
public struct GridError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case badParameter = "bad_parameter"
        case notFound = "not_found"
    }

    public var kind: Kind
    /// The query parameter at fault, as the client wrote it: `width`, `cursor`, `around`...
    public var parameter: String
    public var message: String

    public init(_ kind: Kind, parameter: String, message: String) {
        self.kind = kind
        self.parameter = parameter
        self.message = message
    }

    public static func badParameter(_ parameter: String, _ message: String) -> GridError {
        GridError(.badParameter, parameter: parameter, message: message)
    }

    public static func notFound(_ parameter: String, _ message: String) -> GridError {
        GridError(.notFound, parameter: parameter, message: message)
    }

    public var code: String { kind.rawValue }

    public var httpStatus: Int {
        switch kind {
        case .badParameter: 400
        case .notFound: 404
        }
    }

    public var description: String { "\(parameter): \(message)" }

    /// The message as the API answers it, naming the parameter as its other messages do: a
    /// predicate (`must be a year from 1 to 9999, not 0`) is led by the parameter (`yearFrom must
    /// be ...`), so that a client showing the message alone says what was wrong; a message that
    /// names its own subject (`402 points is too narrow for ...`) stays as it is.
    public var sentence: String {
        Self.predicateStarts.contains { message.hasPrefix($0) } ? "\(parameter) \(message)" : message
    }

    private static let predicateStarts = ["must ", "is ", "cannot ", "belongs "]
}
