import Foundation
import Hummingbird
import Logging

/// One line per request once it is answered: method, path, status and the time to the response,
/// with the request id the context's logger carries (`hb.request.id`).
///
/// Hummingbird's `LogRequestsMiddleware` logs a request as it arrives, before anyone knows how it
/// ended; a line written afterwards says what a collector reading the log wants to know.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    var level: Logger.Level = .info

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, since: start, context: context)
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start, context: context)
            throw error
        }
    }

    /// A 5xx (crated busy, a cover's host down, a fault) is a warning, so that a log kept at
    /// `warning` still shows it.
    func level(forStatus status: Int) -> Logger.Level {
        status >= 500 ? max(level, .warning) : level
    }

    private func log(_ request: Request, status: Int, since start: ContinuousClock.Instant, context: Context) {
        context.logger.log(level: level(forStatus: status), "\(request.method) \(LoggedURI.redacted(path: request.uri.path, query: request.uri.query)) \(status) \(Self.milliseconds(since: start)) ms")
    }

    /// Milliseconds with two decimals: requests here take tens of microseconds to tens of milliseconds.
    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = (ContinuousClock.now - start).components
        let hundredths = elapsed.seconds * 100_000 + elapsed.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// The URI as the access log writes it.
enum LoggedURI {
    /// Query parameters whose values are credentials: a client that sends a token in the URL must
    /// not have it written to the log.
    static let credentialParameters: Set<String> = ["access_token", "token", "api_key", "apikey", "key", "password", "secret"]

    /// The URI as logged: the values of credential parameters replaced by `REDACTED`.
    static func redacted(path: String, query: String?) -> String {
        guard let query, !query.isEmpty else { return path }
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            let name = parameter.prefix { $0 != "=" }
            let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
            return credentialParameters.contains(decoded) ? name + "=REDACTED" : String(parameter)
        }
        return path + "?" + parameters.joined(separator: "&")
    }
}
