/// A name as one word of a shell command line, for the commands crated's messages suggest: as it
/// is when it holds only characters no shell treats specially, else in single quotes.
extension String {
    public var shellWord: String {
        let plain = !isEmpty && unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "@%+=:,./_-".unicodeScalars.contains(scalar))
        }
        return plain ? self : "'" + replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
