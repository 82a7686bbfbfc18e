/// What the server agrees to decode. Checked against the size of the data and the dimensions in
/// the image's header before any pixel is decoded.
public struct ImageLimits: Sendable, Hashable {
    public var maxSourceBytes: Int
    /// Width x height.
    public var maxPixels: Int
    /// The longest side.
    public var maxDimension: Int

    public init(maxSourceBytes: Int = 20_000_000, maxPixels: Int = 40_000_000, maxDimension: Int = 12_000) {
        self.maxSourceBytes = maxSourceBytes
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
    }
}
