import Hummingbird
import Yams

extension OpenAPIDocument {
    /// The document as YAML, for tools that read only YAML: the JSON text composed as a YAML node
    /// (JSON is YAML, and composing keeps every key's order) and written block-style. Made once.
    public static let yaml: String = {
        do {
            guard let node = try Yams.compose(yaml: json) else { return "{}\n" }
            return try Yams.serialize(node: blockStyle(node), width: -1, allowUnicode: true)
        } catch {
            // The document is JSON that its own tests parse; YAML of it cannot fail to be made.
            preconditionFailure("openapi.json does not convert to YAML: \(error)")
        }
    }()

    static func yamlResponse() -> Response {
        Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: yaml)))
    }

    /// The node with every mapping and sequence in block style (composed from JSON they are flow
    /// style), and strings unquoted where they would still read as strings (`3.1.0` and `true`
    /// keep their quotes).
    private static func blockStyle(_ node: Node) -> Node {
        switch node {
        case .scalar(var scalar) where scalar.style == .doubleQuoted && Node(scalar.string).tag.rawValue == Tag.Name.str.rawValue:
            scalar.style = .any
            return .scalar(scalar)
        case .mapping(let mapping):
            return .mapping(Node.Mapping(mapping.map { (blockStyle($0.key), blockStyle($0.value)) }, mapping.tag, .block))
        case .sequence(let sequence):
            return .sequence(Node.Sequence(sequence.map(blockStyle), sequence.tag, .block))
        case .scalar, .alias:
            return node
        }
    }
}
