@testable import CratedGrid
import Foundation
import Testing

/// Every bad layout parameter is refused as a 400 that names it.
@Suite struct LayoutParameterTests {
    static let badQueries: [(query: [String: String], parameter: String)] = [
        (["layout": "iPadPortrait"], "layout"),
        (["layout": ""], "layout"),
        (["width": "0"], "width"),
        (["width": "-375"], "width"),
        (["width": "NaN"], "width"),
        (["width": "nan"], "width"),
        (["width": "inf"], "width"),
        (["width": "-infinity"], "width"),
        (["width": "1e308"], "width"),
        (["width": "1e309"], "width"),
        (["width": "wide"], "width"),
        (["width": "0x10"], "width"),
        (["width": "0x1p8"], "width"),
        (["height": "0X200"], "height"),
        (["width": ""], "width"),
        (["layout": "iPadFullscreen", "width": "100"], "width"),
        (["height": "0"], "height"),
        (["height": "-1"], "height"),
        (["height": "NaN"], "height"),
        (["height": "1e308"], "height"),
        (["limit": "0"], "limit"),
        (["limit": "-5"], "limit"),
        (["limit": "501"], "limit"),
        (["limit": "100000"], "limit"),
        (["limit": "12.5"], "limit"),
        (["scale": "7"], "scale"),
        (["scale": "0"], "scale"),
        (["scale": "0.5"], "scale"),
        (["scale": "NaN"], "scale"),
        (["hsc": "medium"], "hsc"),
        (["vsc": "tall"], "vsc"),
        (["idiom": "watch"], "idiom"),
    ]

    @Test(arguments: badQueries.indices)
    func refusedNamingTheParameter(index: Int) {
        let (query, parameter) = Self.badQueries[index]
        do {
            let layout = try LayoutRequest(query: query).resolve()
            Issue.record("\(query) was accepted: \(layout)")
        } catch let error as GridError {
            #expect(error.parameter == parameter, "\(query): \(error)")
            #expect(error.kind == .badParameter)
            #expect(error.code == "bad_parameter")
            #expect(error.httpStatus == 400)
            #expect(!error.message.isEmpty)
        } catch {
            Issue.record("\(query): unexpected \(error)")
        }
    }

    @Test func goodValuesAtTheEdgesAreAccepted() throws {
        // 3 columns at that width: 500 is 166 whole rows.
        #expect(try LayoutRequest(query: ["width": "10000", "height": "0.5", "scale": "3", "limit": "500"]).resolve().pageSize == 498)
        #expect(try LayoutRequest(query: ["scale": "1", "limit": "1", "hsc": "Regular", "vsc": "REGULAR"]).resolve().environment == .iPadFullscreen)
        // Decimal in any of the forms a client's number formatting writes.
        for width in ["390", "390.0", "+390", "3.9e2", "3.9E+2", " 390 "] {
            #expect(try LayoutRequest(query: ["width": width]).width == 390, "\(width)")
        }
    }
}
