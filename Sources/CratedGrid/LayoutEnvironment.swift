/// The five layout environments the client tells apart (docs/design.md, "Layout resolution").
public enum LayoutEnvironment: String, Codable, Sendable, CaseIterable {
    case iPhonePortrait
    case iPhoneLandscape
    case iPadFullscreen
    case iPadSplitView
    case iPadSlideOver

    public var isIPad: Bool {
        switch self {
        case .iPhonePortrait, .iPhoneLandscape: false
        case .iPadFullscreen, .iPadSplitView, .iPadSlideOver: true
        }
    }

    /// The environment a `layout=` value names; case does not matter (`ipadsplitview` is accepted).
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }

    /// Resolves the client's raw signals with the client's own rules and two corrections (docs/design.md, "Layout resolution"):
    /// Slide Over is told from Split View by width on an iPad, and a (regular, compact) pair is a Plus or
    /// Max iPhone in landscape unless the idiom says iPad.
    ///
    /// | hsc, vsc         | result |
    /// |------------------|--------|
    /// | compact, compact | iPhoneLandscape |
    /// | compact, regular | pad: width <= 320 iPadSlideOver, else iPadSplitView; phone: iPhonePortrait; no idiom: width > 430 iPadSplitView, else iPhonePortrait |
    /// | regular, compact | iPhoneLandscape; pad: iPadSplitView |
    /// | regular, regular | iPadFullscreen |
    /// | either missing   | iPhonePortrait (see `init(...height:...)` for what a container's width derives) |
    public init(horizontalSizeClass: SizeClass?, verticalSizeClass: SizeClass?, width: Double?, idiom: DeviceIdiom?) {
        switch (horizontalSizeClass, verticalSizeClass) {
        case (.compact, .compact):
            self = .iPhoneLandscape
        case (.compact, .regular):
            switch idiom {
            case .pad:
                // Without a width Slide Over cannot be told apart; Split View is the common case.
                self = (width ?? .infinity) <= 320 ? .iPadSlideOver : .iPadSplitView
            case .phone:
                // A phone is never in multitasking, however wide (the Pro Max is 440 points).
                self = .iPhonePortrait
            case nil:
                // The widest iPhone in portrait was 430 points when the client's rule was written.
                self = (width ?? 0) > 430 ? .iPadSplitView : .iPhonePortrait
            }
        case (.regular, .compact):
            // iPads never report a compact height: this is a Plus or Max iPhone in landscape.
            self = idiom == .pad ? .iPadSplitView : .iPhoneLandscape
        case (.regular, .regular):
            self = .iPadFullscreen
        default:
            self = .iPhonePortrait
        }
    }
}

extension LayoutEnvironment {
    /// Resolves like `init(horizontalSizeClass:verticalSizeClass:width:idiom:)`, first deriving the
    /// size classes from the container when the request gives neither but gives a width: a browser
    /// or a free-form window reports no size classes. Horizontal is regular from 600 points,
    /// vertical from 500, so 1366x1024 is iPadFullscreen, 844x390 iPhoneLandscape, 507x1024
    /// iPadSplitView and 390x844 iPhonePortrait. A width without a height derives the vertical class
    /// as regular: a column sized by width alone is not one squeezed into a landscape phone. Derived
    /// classes are resolved without the idiom, as the product design's rule has it: the container's
    /// size alone decides. One class given without the other is not completed: the client said what
    /// it knows.
    public init(horizontalSizeClass: SizeClass?, verticalSizeClass: SizeClass?, width: Double?, height: Double?, idiom: DeviceIdiom?) {
        if horizontalSizeClass == nil, verticalSizeClass == nil, let width {
            let (horizontal, vertical) = Self.derivedSizeClasses(width: width, height: height ?? .infinity)
            self.init(horizontalSizeClass: horizontal, verticalSizeClass: vertical, width: width, idiom: nil)
        } else {
            self.init(horizontalSizeClass: horizontalSizeClass, verticalSizeClass: verticalSizeClass, width: width, idiom: idiom)
        }
    }

    /// The size classes a container of this size would have: regular from 600 points wide, 500 high.
    public static func derivedSizeClasses(width: Double, height: Double) -> (horizontal: SizeClass, vertical: SizeClass) {
        (width >= 600 ? .regular : .compact, height >= 500 ? .regular : .compact)
    }
}

/// A SwiftUI `UserInterfaceSizeClass`, as the client sends it (`hsc=`, `vsc=`).
public enum SizeClass: String, Codable, Sendable, CaseIterable {
    case compact, regular
}

/// `UIUserInterfaceIdiom`, when the client sends it (`idiom=`).
public enum DeviceIdiom: String, Codable, Sendable, CaseIterable {
    case phone, pad
}

/// The grid configuration table of docs/design.md, "Layout resolution": what the client lays out in each environment.
public struct GridConfiguration: Sendable, Equatable {
    /// Columns when the request gives no width.
    public var columns: Int
    public var spacing: Double
    /// Horizontal padding on each side.
    public var padding: Double
    /// The smallest item width the column formula allows.
    public var minimumItemWidth: Double
    /// Columns allowed when the request gives a width.
    public var columnBounds: ClosedRange<Int>
    /// Rows per page when the request gives no height.
    public var rows: Int
    /// The caption under each square item (title and artist), in the rows formula.
    public var captionHeight: Double

    public init(environment: LayoutEnvironment) {
        let caption: Double = environment.isIPad ? 48 : 40
        switch environment {
        case .iPhonePortrait:
            self.init(columns: 2, spacing: 8, padding: 16, minimumItemWidth: 150, columnBounds: 2...3, rows: 8, captionHeight: caption)
        case .iPhoneLandscape:
            self.init(columns: 3, spacing: 8, padding: 16, minimumItemWidth: 150, columnBounds: 3...6, rows: 4, captionHeight: caption)
        case .iPadSplitView:
            self.init(columns: 3, spacing: 16, padding: 40, minimumItemWidth: 150, columnBounds: 2...4, rows: 8, captionHeight: caption)
        case .iPadSlideOver:
            self.init(columns: 2, spacing: 8, padding: 40, minimumItemWidth: 120, columnBounds: 2...2, rows: 8, captionHeight: caption)
        case .iPadFullscreen:
            self.init(columns: 5, spacing: 20, padding: 40, minimumItemWidth: 200, columnBounds: 3...8, rows: 6, captionHeight: caption)
        }
    }

    init(columns: Int, spacing: Double, padding: Double, minimumItemWidth: Double, columnBounds: ClosedRange<Int>, rows: Int, captionHeight: Double) {
        self.columns = columns
        self.spacing = spacing
        self.padding = padding
        self.minimumItemWidth = minimumItemWidth
        self.columnBounds = columnBounds
        self.rows = rows
        self.captionHeight = captionHeight
    }
}
