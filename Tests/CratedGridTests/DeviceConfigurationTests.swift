@testable import CratedGrid
import Foundation
import Testing

/// The grid configuration on real devices, worked out by hand from the formulas of docs/design.md ("Layout resolution"):
/// columns = clamp(floor((width - 2p + s) / (minItem + s)), bounds), itemWidth = (width - 2p - (c-1)s) / c,
/// rows = clamp(ceil(2h / (itemWidth + caption + s)), 4, 50), caption 40 on iPhone and 48 on iPad.
/// Split View widths are the iPad's with a 10-point divider; sizes as the device reports them.
@Suite struct DeviceConfigurationTests {
    struct Device: CustomTestStringConvertible, Sendable {
        var name: String
        var hsc: SizeClass
        var vsc: SizeClass
        var idiom: DeviceIdiom
        var width: Double
        var height: Double
        var environment: LayoutEnvironment
        var columns: Int
        var itemWidth: Double
        var rows: Int
        var testDescription: String { name }
    }

    static let devices: [Device] = [
        // iPhone SE: (375-32+8)/158 = 2.22 -> 2; (375-32-8)/2 = 167.5; 1334/215.5 = 6.19 -> 7.
        Device(name: "iPhone SE portrait", hsc: .compact, vsc: .regular, idiom: .phone, width: 375, height: 667,
               environment: .iPhonePortrait, columns: 2, itemWidth: 167.5, rows: 7),
        // (667-32+8)/158 = 4.07 -> 4; (635-24)/4 = 152.75; 750/200.75 = 3.74 -> 4.
        Device(name: "iPhone SE landscape", hsc: .compact, vsc: .compact, idiom: .phone, width: 667, height: 375,
               environment: .iPhoneLandscape, columns: 4, itemWidth: 152.75, rows: 4),
        // (402-24)/158 = 2.39 -> 2; (370-8)/2 = 181; 1748/229 = 7.63 -> 8.
        Device(name: "iPhone 16 Pro portrait", hsc: .compact, vsc: .regular, idiom: .phone, width: 402, height: 874,
               environment: .iPhonePortrait, columns: 2, itemWidth: 181, rows: 8),
        // (874-24)/158 = 5.38 -> 5; (842-32)/5 = 162; 804/210 = 3.83 -> 4.
        Device(name: "iPhone 16 Pro landscape", hsc: .compact, vsc: .compact, idiom: .phone, width: 874, height: 402,
               environment: .iPhoneLandscape, columns: 5, itemWidth: 162, rows: 4),
        // (440-24)/158 = 2.63 -> 2; (408-8)/2 = 200; 1912/248 = 7.71 -> 8.
        Device(name: "iPhone 16 Pro Max portrait", hsc: .compact, vsc: .regular, idiom: .phone, width: 440, height: 956,
               environment: .iPhonePortrait, columns: 2, itemWidth: 200, rows: 8),
        // regular/compact: (956-24)/158 = 5.90 -> 5; (924-32)/5 = 178.4; 880/226.4 = 3.89 -> 4.
        Device(name: "iPhone 16 Pro Max landscape", hsc: .regular, vsc: .compact, idiom: .phone, width: 956, height: 440,
               environment: .iPhoneLandscape, columns: 5, itemWidth: 178.4, rows: 4),
        // (744-60)/220 = 3.11 -> 3; (664-40)/3 = 208; 2266/276 = 8.21 -> 9.
        Device(name: "iPad mini portrait", hsc: .regular, vsc: .regular, idiom: .pad, width: 744, height: 1133,
               environment: .iPadFullscreen, columns: 3, itemWidth: 208, rows: 9),
        // (1133-60)/220 = 4.88 -> 4; (1053-60)/4 = 248.25; 1488/316.25 = 4.71 -> 5.
        Device(name: "iPad mini landscape", hsc: .regular, vsc: .regular, idiom: .pad, width: 1133, height: 744,
               environment: .iPadFullscreen, columns: 4, itemWidth: 248.25, rows: 5),
        // (820-60)/220 = 3.45 -> 3; (740-40)/3 = 233.33; 2360/301.33 = 7.83 -> 8.
        Device(name: "iPad Air 11\" portrait", hsc: .regular, vsc: .regular, idiom: .pad, width: 820, height: 1180,
               environment: .iPadFullscreen, columns: 3, itemWidth: 700.0 / 3, rows: 8),
        // (1180-60)/220 = 5.09 -> 5; (1100-80)/5 = 204; 1640/272 = 6.03 -> 7.
        Device(name: "iPad Air 11\" landscape", hsc: .regular, vsc: .regular, idiom: .pad, width: 1180, height: 820,
               environment: .iPadFullscreen, columns: 5, itemWidth: 204, rows: 7),
        // (1032-60)/220 = 4.42 -> 4; (952-60)/4 = 223; 2752/291 = 9.46 -> 10.
        Device(name: "iPad Pro 13\" portrait", hsc: .regular, vsc: .regular, idiom: .pad, width: 1032, height: 1376,
               environment: .iPadFullscreen, columns: 4, itemWidth: 223, rows: 10),
        // (1376-60)/220 = 5.98 -> 5; (1296-80)/5 = 243.2; 2064/311.2 = 6.63 -> 7.
        Device(name: "iPad Pro 13\" landscape", hsc: .regular, vsc: .regular, idiom: .pad, width: 1376, height: 1032,
               environment: .iPadFullscreen, columns: 5, itemWidth: 243.2, rows: 7),

        // Split View on the iPad Pro 13" in landscape (1376 = 375 + 10 + 991 = 683 + 10 + 683).
        // 1/3: (375-80+16)/166 = 1.87 -> clamped to 2; (295-16)/2 = 139.5; 2064/203.5 = 10.14 -> 11.
        Device(name: "iPad Pro 13\" 1/3 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 375, height: 1032,
               environment: .iPadSplitView, columns: 2, itemWidth: 139.5, rows: 11),
        // 1/2 reports a regular width on the 13": (683-60)/220 = 2.83 -> clamped to 3; (603-40)/3 = 187.67; 2064/255.67 = 8.07 -> 9.
        Device(name: "iPad Pro 13\" 1/2 Split View", hsc: .regular, vsc: .regular, idiom: .pad, width: 683, height: 1032,
               environment: .iPadFullscreen, columns: 3, itemWidth: 563.0 / 3, rows: 9),
        // 2/3: (991-60)/220 = 4.23 -> 4; (911-60)/4 = 212.75; 2064/280.75 = 7.35 -> 8.
        Device(name: "iPad Pro 13\" 2/3 Split View", hsc: .regular, vsc: .regular, idiom: .pad, width: 991, height: 1032,
               environment: .iPadFullscreen, columns: 4, itemWidth: 212.75, rows: 8),
        // Portrait (1032 = 375 + 10 + 647 = 511 + 10 + 511), all compact width.
        // 1/3: 2 columns of 139.5; 2752/203.5 = 13.52 -> 14.
        Device(name: "iPad Pro 13\" portrait 1/3 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 375, height: 1376,
               environment: .iPadSplitView, columns: 2, itemWidth: 139.5, rows: 14),
        // 1/2: (511-64)/166 = 2.69 -> 2; (431-16)/2 = 207.5; 2752/271.5 = 10.14 -> 11.
        Device(name: "iPad Pro 13\" portrait 1/2 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 511, height: 1376,
               environment: .iPadSplitView, columns: 2, itemWidth: 207.5, rows: 11),
        // 2/3: (647-64)/166 = 3.51 -> 3; (567-32)/3 = 178.33; 2752/242.33 = 11.36 -> 12.
        Device(name: "iPad Pro 13\" portrait 2/3 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 647, height: 1376,
               environment: .iPadSplitView, columns: 3, itemWidth: 535.0 / 3, rows: 12),
        // Split View on the iPad Air 11" in landscape (1180 = 320 + 10 + 850 = 585 + 10 + 585). Its 1/3 is
        // 320 points: the table's width rule takes it for Slide Over, which has the same two columns.
        // (320-80+8)/128 = 1.94 -> 2; (240-8)/2 = 116; 1640/172 = 9.53 -> 10.
        Device(name: "iPad Air 11\" 1/3 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 320, height: 820,
               environment: .iPadSlideOver, columns: 2, itemWidth: 116, rows: 10),
        // (585-64)/166 = 3.14 -> 3; (505-32)/3 = 157.67; 1640/221.67 = 7.40 -> 8.
        Device(name: "iPad Air 11\" 1/2 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 585, height: 820,
               environment: .iPadSplitView, columns: 3, itemWidth: 473.0 / 3, rows: 8),
        // Regular width: (850-60)/220 = 3.59 -> 3; (770-40)/3 = 243.33; 1640/311.33 = 5.27 -> 6.
        Device(name: "iPad Air 11\" 2/3 Split View", hsc: .regular, vsc: .regular, idiom: .pad, width: 850, height: 820,
               environment: .iPadFullscreen, columns: 3, itemWidth: 730.0 / 3, rows: 6),
        // Split View on the iPad mini in portrait: 1/2 = (744-10)/2 = 367.
        // (367-72)/166 = 1.78 -> 2; (287-16)/2 = 135.5; 2266/199.5 = 11.36 -> 12.
        Device(name: "iPad mini portrait 1/2 Split View", hsc: .compact, vsc: .regular, idiom: .pad, width: 367, height: 1133,
               environment: .iPadSplitView, columns: 2, itemWidth: 135.5, rows: 12),

        // Slide Over: 320 points wide, the screen's height. 2 columns of 116.
        // 2064/172 = 12.0 exactly -> 12 (the float formula must not round it up to 13).
        Device(name: "iPad Pro 13\" Slide Over", hsc: .compact, vsc: .regular, idiom: .pad, width: 320, height: 1032,
               environment: .iPadSlideOver, columns: 2, itemWidth: 116, rows: 12),
        // 2266/172 = 13.17 -> 14.
        Device(name: "iPad mini Slide Over", hsc: .compact, vsc: .regular, idiom: .pad, width: 320, height: 1133,
               environment: .iPadSlideOver, columns: 2, itemWidth: 116, rows: 14),
        // 1640/172 = 9.53 -> 10.
        Device(name: "iPad Air 11\" Slide Over", hsc: .compact, vsc: .regular, idiom: .pad, width: 320, height: 820,
               environment: .iPadSlideOver, columns: 2, itemWidth: 116, rows: 10),
    ]

    @Test(arguments: devices)
    func configuration(of device: Device) throws {
        let layout = try LayoutRequest(
            query: ["hsc": device.hsc.rawValue, "vsc": device.vsc.rawValue, "idiom": device.idiom.rawValue,
                    "width": "\(device.width)", "height": "\(device.height)"]).resolve()
        let configuration = GridConfiguration(environment: device.environment)
        #expect(layout.environment == device.environment)
        #expect(layout.columns == device.columns)
        #expect(abs(layout.itemWidth - device.itemWidth) < 1e-9, "itemWidth \(layout.itemWidth)")
        #expect(layout.rows == device.rows)
        #expect(layout.pageSize == device.rows * device.columns)
        #expect(layout.spacing == configuration.spacing)
        #expect(layout.padding == configuration.padding)
    }

    /// The table itself, and what a request without a size gets.
    @Test func configurationTable() throws {
        let expected: [(LayoutEnvironment, columns: Int, spacing: Double, padding: Double, minimum: Double, bounds: ClosedRange<Int>, rows: Int)] = [
            (.iPhonePortrait, 2, 8, 16, 150, 2...3, 8),
            (.iPhoneLandscape, 3, 8, 16, 150, 3...6, 4),
            (.iPadSplitView, 3, 16, 40, 150, 2...4, 8),
            (.iPadSlideOver, 2, 8, 40, 120, 2...2, 8),
            (.iPadFullscreen, 5, 20, 40, 200, 3...8, 6),
        ]
        for row in expected {
            let configuration = GridConfiguration(environment: row.0)
            #expect(configuration.columns == row.columns)
            #expect(configuration.spacing == row.spacing)
            #expect(configuration.padding == row.padding)
            #expect(configuration.minimumItemWidth == row.minimum)
            #expect(configuration.columnBounds == row.bounds)
            #expect(configuration.rows == row.rows)
            #expect(configuration.captionHeight == (row.0.isIPad ? 48 : 40))

            let layout = try LayoutRequest(layout: row.0).resolve()
            #expect(layout.columns == row.columns)
            #expect(layout.rows == row.rows)
            #expect(layout.pageSize == row.columns * row.rows)
            #expect(layout.itemWidth == row.minimum)
        }
    }

    @Test func widthsBeyondTheBoundsAreClamped() throws {
        // 6 columns of 150 would fit in 1100 points, but iPhone portrait allows 3.
        #expect(try LayoutRequest(layout: .iPhonePortrait, width: 1100).resolve().columns == 3)
        // (3000-60)/220 = 13.4 -> 8 columns at most on a full-screen iPad.
        #expect(try LayoutRequest(layout: .iPadFullscreen, width: 3000).resolve().columns == 8)
        // Heights: 4 rows at least, 50 at most.
        #expect(try LayoutRequest(layout: .iPhonePortrait, width: 375, height: 50).resolve().rows == 4)
        #expect(try LayoutRequest(layout: .iPhonePortrait, width: 375, height: 9000).resolve().rows == 50)
    }

    @Test func anExplicitLimitIsRoundedUpToWholeRowsAndCappedAt500() throws {
        // 2 columns: 15 -> 8 rows of 2.
        let phone = try LayoutRequest(layout: .iPhonePortrait, width: 375, height: 667, limit: 15).resolve()
        #expect(phone.rows == 8)
        #expect(phone.pageSize == 16)
        // 5 columns: 1 -> one row of 5; 20 -> 4 rows.
        #expect(try LayoutRequest(layout: .iPadFullscreen, limit: 1).resolve().pageSize == 5)
        #expect(try LayoutRequest(layout: .iPadFullscreen, limit: 20).resolve().pageSize == 20)
        // 3 columns: 500 would round up to 501, so 166 whole rows of 3.
        let split = try LayoutRequest(layout: .iPadSplitView, limit: 500).resolve()
        #expect(split.columns == 3)
        #expect(split.pageSize == 498)
        // 8 columns: 62 rows.
        #expect(try LayoutRequest(layout: .iPadFullscreen, width: 3000, limit: 500).resolve().pageSize == 496)
        #expect(try LayoutRequest(layout: .iPhonePortrait, limit: 500).resolve().pageSize == 500)
    }

    @Test func aPageFillsThePartialRowItStartsIn() throws {
        let layout = try LayoutRequest(layout: .iPadFullscreen).resolve()  // 5 x 6
        #expect(layout.pageSize(startingAt: 0) == 30)
        #expect(layout.pageSize(startingAt: 32) == 28)
        #expect(layout.pageSize(startingAt: 34) == 26)
        #expect(layout.rowStart(of: 34) == 30)
    }

    @Test func theLayoutJSONHasExactlyTheSevenKeys() throws {
        let layout = try LayoutRequest(layout: .iPhonePortrait, width: 375, height: 667).resolve()
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(layout)) as! [String: Any]
        #expect(Set(json.keys) == ["environment", "columns", "spacing", "padding", "itemWidth", "rows", "pageSize"])
        #expect(json["environment"] as? String == "iPhonePortrait")
        #expect(json["itemWidth"] as? Double == 167.5)
        #expect(json["pageSize"] as? Int == 14)
        #expect(try JSONDecoder().decode(GridLayout.self, from: JSONEncoder().encode(layout)) == layout)
    }

    @Test func artworkScaleDefaultsToTheDevicesScale() throws {
        #expect(LayoutRequest(layout: .iPhonePortrait).artworkScale == 3)
        #expect(LayoutRequest(layout: .iPadFullscreen).artworkScale == 2)
        #expect(try LayoutRequest(query: ["layout": "iPadFullscreen", "scale": "1"]).artworkScale == 1)
    }
}
