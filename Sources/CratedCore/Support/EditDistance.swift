/// Levenshtein distance: insertions, deletions and substitutions of elements (bytes, characters). For telling a slip of
/// the keyboard (a misspelt setting or user name) from another name.
func editDistance<Element: Equatable>(_ a: [Element], _ b: [Element]) -> Int {
    var previous = Array(0...b.count)
    for (i, byteA) in a.enumerated() {
        var current = [i + 1] + Array(repeating: 0, count: b.count)
        for (j, byteB) in b.enumerated() {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (byteA == byteB ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
