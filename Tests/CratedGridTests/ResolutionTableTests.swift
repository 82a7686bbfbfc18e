@testable import CratedGrid
import Foundation
import Testing

/// The resolution table of docs/design.md, one row (and its edges) at a time.
@Suite struct ResolutionTableTests {
    func resolve(_ hsc: SizeClass?, _ vsc: SizeClass?, width: Double? = nil, idiom: DeviceIdiom? = nil) -> LayoutEnvironment {
        LayoutEnvironment(horizontalSizeClass: hsc, verticalSizeClass: vsc, width: width, idiom: idiom)
    }

    @Test func compactCompactIsIPhoneLandscape() {
        #expect(resolve(.compact, .compact) == .iPhoneLandscape)
        #expect(resolve(.compact, .compact, width: 874, idiom: .phone) == .iPhoneLandscape)
        #expect(resolve(.compact, .compact, width: 1000, idiom: .pad) == .iPhoneLandscape)
    }

    @Test func compactRegularOnAnIPadIsSlideOverUpTo320PointsElseSplitView() {
        #expect(resolve(.compact, .regular, width: 320, idiom: .pad) == .iPadSlideOver)
        #expect(resolve(.compact, .regular, width: 250, idiom: .pad) == .iPadSlideOver)
        #expect(resolve(.compact, .regular, width: 320.5, idiom: .pad) == .iPadSplitView)
        #expect(resolve(.compact, .regular, width: 375, idiom: .pad) == .iPadSplitView)
        #expect(resolve(.compact, .regular, width: 694, idiom: .pad) == .iPadSplitView)
        #expect(resolve(.compact, .regular, idiom: .pad) == .iPadSplitView)
    }

    @Test func compactRegularWithoutIdiomIsSplitViewAbove430PointsElseIPhonePortrait() {
        #expect(resolve(.compact, .regular, width: 430) == .iPhonePortrait)
        #expect(resolve(.compact, .regular, width: 375) == .iPhonePortrait)
        #expect(resolve(.compact, .regular, width: 430.5) == .iPadSplitView)
        #expect(resolve(.compact, .regular, width: 507) == .iPadSplitView)
        #expect(resolve(.compact, .regular) == .iPhonePortrait)
    }

    @Test func compactRegularOnAPhoneIsAlwaysIPhonePortrait() {
        // The iPhone 16 Pro Max is 440 points wide: the width rule alone takes it for an iPad.
        #expect(resolve(.compact, .regular, width: 440, idiom: .phone) == .iPhonePortrait)
        #expect(resolve(.compact, .regular, width: 440) == .iPadSplitView)
    }

    @Test func regularCompactIsIPhoneLandscapeUnlessTheIdiomIsPad() {
        #expect(resolve(.regular, .compact, width: 956) == .iPhoneLandscape)
        #expect(resolve(.regular, .compact, width: 956, idiom: .phone) == .iPhoneLandscape)
        #expect(resolve(.regular, .compact, width: 956, idiom: .pad) == .iPadSplitView)
    }

    @Test func regularRegularIsIPadFullscreen() {
        #expect(resolve(.regular, .regular) == .iPadFullscreen)
        #expect(resolve(.regular, .regular, width: 1376, idiom: .pad) == .iPadFullscreen)
        #expect(resolve(.regular, .regular, width: 683, idiom: .pad) == .iPadFullscreen)
    }

    @Test func missingSignalsAreIPhonePortrait() throws {
        #expect(resolve(nil, nil) == .iPhonePortrait)
        #expect(resolve(.regular, nil, width: 1376, idiom: .pad) == .iPhonePortrait)
        #expect(resolve(nil, .regular, width: 1376) == .iPhonePortrait)
        #expect(try LayoutRequest(query: [:]).resolve().environment == .iPhonePortrait)
    }

    @Test func aNamedLayoutWinsOverTheSignals() throws {
        let request = try LayoutRequest(query: ["layout": "iPadSlideOver", "hsc": "regular", "vsc": "regular"])
        #expect(request.environment == .iPadSlideOver)
        #expect(try LayoutRequest(query: ["layout": "ipadfullscreen"]).environment == .iPadFullscreen)
    }
}
