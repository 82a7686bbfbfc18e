import Foundation

/// The first key given twice in one object of a JSON text, by its dotted path (`server.port`), or
/// nil. JSON parsers keep one of the two without a word: a setting edited in one place could be
/// overridden by a forgotten copy further down, a request's field take the value not meant. The
/// text must already have parsed: this only walks its strings and brackets.
public func firstDuplicateKey(inJSON data: Data) -> String? {
    /// One open object or array: the keys the object has had, and the key whose value is being read.
    struct Container {
        var isObject: Bool
        var keys: Set<String> = []
        var currentKey: String?
    }
    var stack: [Container] = []
    let bytes = [UInt8](data)
    var index = 0
    while index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "\""):
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            let literal = Data(bytes[start...min(index, bytes.count - 1)])
            var next = index + 1
            while next < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[next]) { next += 1 }
            // A string followed by a colon, inside an object, is a key.
            if next < bytes.count, bytes[next] == UInt8(ascii: ":"), stack.last?.isObject == true,
               let key = (try? JSONSerialization.jsonObject(with: literal, options: .fragmentsAllowed)) as? String {
                let path = (stack.dropLast().compactMap(\.currentKey) + [key]).joined(separator: ".")
                guard stack[stack.count - 1].keys.insert(key).inserted else { return path }
                stack[stack.count - 1].currentKey = key
            }
        case UInt8(ascii: "{"): stack.append(Container(isObject: true))
        case UInt8(ascii: "["): stack.append(Container(isObject: false))
        case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }
        default: break
        }
        index += 1
    }
    return nil
}
