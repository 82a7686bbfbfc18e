// The bare transport's throughput, for bench-sync.sh: GETs through CurlHTTPTransport with nothing
// around it (no rate limiter, no JSON, no database), so that sync's rate has a ceiling to compare with.
//
// Usage: crated-transport-bench URL_TEMPLATE COUNT CONCURRENCY
//   URL_TEMPLATE holds `{id}`, replaced by 1...COUNT. Prints `requests/s: N`.
import CratedSync
import Foundation
import HTTPTypes

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1].contains("{id}"), let count = Int(arguments[2]), count > 0,
      let concurrency = Int(arguments[3]), concurrency > 0 else {
    FileHandle.standardError.write(Data("usage: crated-transport-bench URL_TEMPLATE COUNT CONCURRENCY\n".utf8))
    exit(64)
}
let template = arguments[1]
let transport = CurlHTTPTransport()
let start = ContinuousClock.now
let failures = try await withThrowingTaskGroup(of: Int.self) { group in
    var next = 1
    var failures = 0
    func request(_ id: Int) async -> Int {
        let url = template.replacingOccurrences(of: "{id}", with: String(id))
        let response = try? await transport.send(HTTPRequest(method: .get, url: URL(string: url)!, headerFields: [.userAgent: "crated-transport-bench"]))
        return response?.status == 200 ? 0 : 1
    }
    while next <= min(concurrency, count) {
        let id = next
        group.addTask { await request(id) }
        next += 1
    }
    while let failed = try await group.next() {
        failures += failed
        if next <= count {
            let id = next
            group.addTask { await request(id) }
            next += 1
        }
    }
    return failures
}
let elapsed = (ContinuousClock.now - start)
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("requests: \(count)")
print("failed: \(failures)")
print("seconds: \(String(format: "%.3f", seconds))")
print("requests/s: \(String(format: "%.1f", Double(count) / seconds))")
exit(failures == 0 ? 0 : 1)
