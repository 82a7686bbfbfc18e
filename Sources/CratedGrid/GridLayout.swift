import CratedCore
import Foundation

/// The resolved layout of a grid: what `GET /v1/layout` answers and the `layout` object of every grid
/// page. Its JSON keys are exactly `environment`, `columns`, `spacing`, `padding`, `itemWidth`, `rows`,
/// `pageSize`.
public struct GridLayout: Codable, Sendable, Hashable {
    public var environment: LayoutEnvironment
    public var columns: Int
    public var spacing: Double
    public var padding: Double
    /// Points; items are square.
    public var itemWidth: Double
    public var rows: Int
    /// `rows * columns`: the size of a page that starts at the beginning of a row.
    public var pageSize: Int

    /// The most items a page may hold, whatever `limit` asks.
    public static let maximumPageSize = 500

    /// The formulas of docs/design.md, "Layout resolution". With a width: `columns = clamp(floor((width - 2*padding + spacing) /
    /// (minItem + spacing)), bounds)` and `itemWidth = (width - 2*padding - (columns-1)*spacing) / columns`;
    /// without one, the table's columns at the smallest item width. With a height: `rows =
    /// clamp(ceil(2 * height / (itemWidth + caption + spacing)), 4, 50)` (two screens of rows); without one,
    /// the table's rows. A `limit` replaces the rows: rounded up to whole rows, at most 500 items.
    /// The inputs are expected valid; `LayoutRequest.resolve()` checks them.
    public init(environment: LayoutEnvironment, width: Double? = nil, height: Double? = nil, limit: Int? = nil) {
        let configuration = GridConfiguration(environment: environment)
        let spacing = configuration.spacing
        let padding = configuration.padding
        let columns: Int
        let itemWidth: Double
        if let width {
            let fitting = Self.floor((width - 2 * padding + spacing) / (configuration.minimumItemWidth + spacing))
            columns = min(max(fitting, configuration.columnBounds.lowerBound), configuration.columnBounds.upperBound)
            itemWidth = (width - 2 * padding - Double(columns - 1) * spacing) / Double(columns)
        } else {
            columns = configuration.columns
            itemWidth = configuration.minimumItemWidth
        }
        var rows: Int
        if let height {
            let rowPitch = itemWidth + configuration.captionHeight + spacing
            rows = min(max(Self.ceil(2 * height / rowPitch), 4), 50)
        } else {
            rows = configuration.rows
        }
        if let limit {
            rows = min((limit + columns - 1) / columns, Self.maximumPageSize / columns)
        }
        self.environment = environment
        self.columns = columns
        self.spacing = spacing
        self.padding = padding
        self.itemWidth = itemWidth
        self.rows = rows
        self.pageSize = rows * columns
    }

    /// How many items a page starting at absolute `position` holds: the rest of the row it starts in,
    /// then whole rows, so that it ends on a row boundary of the whole grid. A client that changed its
    /// column count mid-scroll gets its partial row filled first.
    public func pageSize(startingAt position: Int) -> Int {
        pageSize - position % columns
    }

    /// Where the row holding `position` starts.
    public func rowStart(of position: Int) -> Int {
        position - position % columns
    }

    // Formula results that are whole numbers in exact arithmetic may land a hair off in binary floating
    // point (a third of a width); a billionth of a point never decides a column or a row.
    private static func floor(_ value: Double) -> Int { Int((value + 1e-9).rounded(.down)) }
    private static func ceil(_ value: Double) -> Int { Int((value - 1e-9).rounded(.up)) }
}

/// What a client sends to describe its layout: a named environment (`layout=`), or the raw signals
/// (`hsc`, `vsc`, `idiom`) that crated resolves, plus the container size, the screen scale and an
/// optional explicit page size (`limit`).
public struct LayoutRequest: Sendable, Equatable {
    public var layout: LayoutEnvironment?
    public var horizontalSizeClass: SizeClass?
    public var verticalSizeClass: SizeClass?
    /// Container width in points.
    public var width: Double?
    /// Container height in points.
    public var height: Double?
    public var idiom: DeviceIdiom?
    /// Screen scale, 1 to 3.
    public var scale: Double?
    /// Items per page, 1 to 500, rounded up to whole rows.
    public var limit: Int?

    /// Container sizes beyond this many points are not a screen (6K displays are 3008 points wide).
    public static let maximumPoints = 10_000.0
    public static let scaleRange = 1.0...3.0

    /// A decimal number, with an exponent or not; not the hexadecimal (`0x10`) or the words (`inf`,
    /// `nan`) that `Double` also reads, which no client's number formatting writes.
    public static func decimal(_ raw: String) -> Double? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0) }) else { return nil }
        return Double(text)
    }

    public init(
        layout: LayoutEnvironment? = nil, horizontalSizeClass: SizeClass? = nil, verticalSizeClass: SizeClass? = nil,
        width: Double? = nil, height: Double? = nil, idiom: DeviceIdiom? = nil, scale: Double? = nil, limit: Int? = nil
    ) {
        self.layout = layout
        self.horizontalSizeClass = horizontalSizeClass
        self.verticalSizeClass = verticalSizeClass
        self.width = width
        self.height = height
        self.idiom = idiom
        self.scale = scale
        self.limit = limit
    }

    /// Reads `layout`, `hsc`, `vsc`, `width`, `height`, `idiom`, `scale` and `limit` from query
    /// parameters; other keys are ignored. Throws `GridError.badParameter` naming the first parameter
    /// that is not of its type; ranges are checked by `resolve()`.
    public init(query: [String: String]) throws {
        let parameters = QueryParameters(query)
        self.init(
            layout: try parameters.value("layout") { LayoutEnvironment(name: $0) } expected: {
                "must be one of \(LayoutEnvironment.allCases.map(\.rawValue).joined(separator: ", "))"
            },
            horizontalSizeClass: try parameters.value("hsc") { SizeClass(rawValue: $0.lowercased()) } expected: { "must be compact or regular" },
            verticalSizeClass: try parameters.value("vsc") { SizeClass(rawValue: $0.lowercased()) } expected: { "must be compact or regular" },
            width: try parameters.number("width"),
            height: try parameters.number("height"),
            idiom: try parameters.value("idiom") { DeviceIdiom(rawValue: $0.lowercased()) } expected: { "must be phone or pad" },
            scale: try parameters.number("scale"),
            limit: try parameters.integer("limit")
        )
    }

    /// The named environment, else the one the raw signals resolve to.
    public var environment: LayoutEnvironment {
        layout ?? LayoutEnvironment(horizontalSizeClass: horizontalSizeClass, verticalSizeClass: verticalSizeClass, width: width, height: height, idiom: idiom)
    }

    /// The scale artwork is chosen for: the client's, else 3 on an iPhone and 2 on an iPad (what current
    /// devices have).
    public var artworkScale: Double {
        scale ?? (environment.isIPad ? 2 : 3)
    }

    /// Checks every value and computes the layout. Throws `GridError.badParameter` naming the parameter.
    public func resolve() throws -> GridLayout {
        let environment = self.environment
        let configuration = GridConfiguration(environment: environment)
        if let width {
            try Self.checkPoints(width, parameter: "width")
            // The narrowest width that leaves every column at least one point.
            let columns = Double(configuration.columnBounds.lowerBound)
            let narrowest = 2 * configuration.padding + (columns - 1) * configuration.spacing + columns
            guard width >= narrowest else {
                throw GridError.badParameter("width", "\(Self.format(width)) points is too narrow for \(environment.rawValue), which needs at least \(Self.format(narrowest))")
            }
        }
        if let height { try Self.checkPoints(height, parameter: "height") }
        if let scale {
            guard scale.isFinite, Self.scaleRange.contains(scale) else {
                throw GridError.badParameter("scale", "must be a screen scale from 1 to 3, not \(Self.format(scale))")
            }
        }
        if let limit {
            guard (1...GridLayout.maximumPageSize).contains(limit) else {
                throw GridError.badParameter("limit", "must be from 1 to \(GridLayout.maximumPageSize) items, not \(limit)")
            }
        }
        return GridLayout(environment: environment, width: width, height: height, limit: limit)
    }

    private static func checkPoints(_ value: Double, parameter: String) throws {
        guard value.isFinite else {
            throw GridError.badParameter(parameter, "must be a finite number of points, not \(format(value))")
        }
        guard value > 0, value <= maximumPoints else {
            throw GridError.badParameter(parameter, "must be more than 0 and at most \(format(maximumPoints)) points, not \(format(value))")
        }
    }

    static func format(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Typed access to query parameters, each failure a `GridError.badParameter` naming the parameter.
/// A missing parameter is nil; an empty one is a mistake and refused like any other bad value.
struct QueryParameters {
    let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    func text(_ name: String) -> String? {
        values[name]
    }

    func value<T>(_ name: String, _ parse: (String) -> T?, expected: () -> String) throws -> T? {
        guard let raw = values[name] else { return nil }
        guard let value = parse(raw) else {
            throw GridError.badParameter(name, "\(expected()), not '\(raw.prefix(40))'")
        }
        return value
    }

    func number(_ name: String) throws -> Double? {
        try value(name, LayoutRequest.decimal, expected: { "must be a number" })
    }

    func integer(_ name: String) throws -> Int? {
        try value(name, { Int($0.trimmingCharacters(in: .whitespaces)) }, expected: { "must be a whole number" })
    }

    func identifier(_ name: String) throws -> Int64? {
        try value(name, RecordID.parse, expected: { "must be a positive id" })
    }

    func flag(_ name: String) throws -> Bool? {
        try value(name, { raw in
            switch raw.lowercased() {
            case "1", "true", "yes": true
            case "0", "false", "no": false
            default: nil
            }
        }, expected: { "must be true or false" })
    }
}
