import Foundation

extension String {
    /// A name as one word of a shell command line, for the commands crated's messages suggest: as it
    /// is when it holds only characters no shell treats specially, else in single quotes (a leading
    /// `=` too, which zsh expands).
    public var shellWord: String {
        let plain = !isEmpty && !hasPrefix("=") && unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "@%+=:,./_-".unicodeScalars.contains(scalar))
        }
        return plain ? self : "'" + replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

extension String {
    /// A name as crated compares names people type (users, crates): after Unicode normalisation and
    /// case folding, so `Äb` and `äb`, `Café` composed and decomposed, `Straße` and `STRASSE` are one.
    package var nameFolded: String {
        decomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive], locale: nil).decomposedStringWithCanonicalMapping
    }
}
