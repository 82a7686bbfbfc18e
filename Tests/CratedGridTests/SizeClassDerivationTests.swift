@testable import CratedGrid
import Foundation
import Testing

/// A browser reports a container size but no size classes: crated derives them (horizontal regular
/// from 600 points, vertical regular from 500) and resolves as usual (docs/design.md, "Layout resolution").
@Suite struct SizeClassDerivationTests {
    struct Window: CustomTestStringConvertible, Sendable {
        var width: Double
        var height: Double
        var environment: LayoutEnvironment
        var columns: Int
        var testDescription: String { "\(Int(width))x\(Int(height))" }
    }

    static let windows: [Window] = [
        // regular, regular: (1366-80+20)/220 = 5.93 -> 5.
        Window(width: 1366, height: 1024, environment: .iPadFullscreen, columns: 5),
        // regular, compact, no idiom: a Max iPhone in landscape; (844-32+8)/158 = 5.19 -> 5.
        Window(width: 844, height: 390, environment: .iPhoneLandscape, columns: 5),
        // compact, regular, wider than 430: (507-80+16)/166 = 2.67 -> 2.
        Window(width: 507, height: 1024, environment: .iPadSplitView, columns: 2),
        // compact, regular, 430 or narrower: (390-32+8)/158 = 2.32 -> 2.
        Window(width: 390, height: 844, environment: .iPhonePortrait, columns: 2),
        // (320-32+8)/158 = 1.87 -> the lower bound 2.
        Window(width: 320, height: 1024, environment: .iPhonePortrait, columns: 2),
        // The thresholds themselves: 600 wide is regular, 500 high is regular.
        Window(width: 600, height: 500, environment: .iPadFullscreen, columns: 3),
        Window(width: 599.5, height: 500, environment: .iPadSplitView, columns: 3),
        Window(width: 600, height: 499.5, environment: .iPhoneLandscape, columns: 3),
        // compact, compact.
        Window(width: 500, height: 300, environment: .iPhoneLandscape, columns: 3),
    ]

    @Test(arguments: windows) func aWindowSizeResolvesLikeTheDeviceItLooksLike(window: Window) throws {
        let request = LayoutRequest(width: window.width, height: window.height)
        #expect(request.environment == window.environment)
        let layout = try request.resolve()
        #expect(layout.environment == window.environment)
        #expect(layout.columns == window.columns)
    }

    @Test func derivedClassesFollowTheThresholds() {
        #expect(LayoutEnvironment.derivedSizeClasses(width: 600, height: 500) == (.regular, .regular))
        #expect(LayoutEnvironment.derivedSizeClasses(width: 599.99, height: 499.99) == (.compact, .compact))
    }

    @Test func givenSizeClassesAreNeverOverridden() {
        // A real iPad in Split View at 1366 points tall still says compact width.
        #expect(LayoutRequest(horizontalSizeClass: .compact, verticalSizeClass: .regular, width: 700, height: 1024).environment == .iPadSplitView)
        #expect(LayoutRequest(horizontalSizeClass: .compact, verticalSizeClass: .compact, width: 1366, height: 1024).environment == .iPhoneLandscape)
        // One class alone is not completed from the size: the rows of the table say "missing".
        #expect(LayoutRequest(horizontalSizeClass: .regular, width: 1366, height: 1024).environment == .iPhonePortrait)
        // A named layout wins over everything.
        #expect(LayoutRequest(layout: .iPadSlideOver, width: 1366, height: 1024).environment == .iPadSlideOver)
    }

    @Test func aWidthWithoutAHeightDerivesTheHorizontalClassAndATallContainer() throws {
        // 1366 wide is regular; with no height the container is taken as tall: iPadFullscreen, 5 columns.
        let wide = LayoutRequest(width: 1366)
        #expect(wide.environment == .iPadFullscreen)
        #expect(try wide.resolve().columns == 5)
        #expect(LayoutRequest(width: 507).environment == .iPadSplitView)
        #expect(LayoutRequest(width: 390).environment == .iPhonePortrait)
        // Rows come from the table, as for any request without a height.
        #expect(try wide.resolve().rows == GridConfiguration(environment: .iPadFullscreen).rows)
    }

    @Test func aHeightAloneOrNoSizeDerivesNothing() {
        #expect(LayoutRequest(height: 1024).environment == .iPhonePortrait)
        #expect(LayoutRequest(height: 300).environment == .iPhonePortrait)
        #expect(LayoutRequest().environment == .iPhonePortrait)
    }

    /// The product design resolves derived classes "with no idiom": the container's size alone
    /// decides, so an idiom changes nothing here (it does with given classes: ResolutionTableTests).
    @Test(arguments: [DeviceIdiom.pad, .phone])
    func anIdiomPlaysNoPartWithDerivedClasses(idiom: DeviceIdiom) {
        #expect(LayoutRequest(width: 600, height: 300, idiom: idiom).environment == .iPhoneLandscape)
        #expect(LayoutRequest(width: 507, height: 1024, idiom: idiom).environment == .iPadSplitView)
        #expect(LayoutRequest(width: 500, height: 800, idiom: idiom).environment == .iPadSplitView)
        #expect(LayoutRequest(width: 300, height: 1024, idiom: idiom).environment == .iPhonePortrait)
        #expect(LayoutRequest(width: 300, idiom: idiom).environment == .iPhonePortrait)
        #expect(LayoutRequest(width: 440, idiom: idiom).environment == .iPadSplitView)
    }
}
