import CCurl
import Foundation
import HTTPTypes
import Synchronization

/// Limits and timeouts of `CurlHTTPTransport`.
public struct CurlTransportOptions: Sendable {
    /// Time allowed to connect (TCP and TLS).
    public var connectTimeout: Duration = .seconds(10)
    /// Time allowed for the whole transfer, redirects included.
    public var totalTimeout: Duration = .seconds(30)
    /// Redirects followed before giving up; a loop stops here.
    public var maxRedirects = 5
    /// A larger (decompressed) body ends the transfer with `responseTooLarge`.
    public var maxResponseBytes = 8 << 20
    /// Easy handles kept between requests: an idle handle keeps its connections open for reuse.
    public var maxIdleHandles = 8

    public init(
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
        maxRedirects: Int = 5, maxResponseBytes: Int = 8 << 20, maxIdleHandles: Int = 8
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.maxResponseBytes = maxResponseBytes
        self.maxIdleHandles = maxIdleHandles
    }
}

/// `HTTPTransport` on libcurl's easy interface.
///
/// `curl_easy_perform` blocks its thread for the whole transfer, so transfers run on threads of
/// their own (`TransferThreads`): on Swift's cooperative pool a few slow requests would starve
/// every other task, and a dispatch queue is no better (on Linux its worker threads number the
/// cores). Open connections live in the easy handles, which are pooled apart from the threads.
/// Cancelling the calling task aborts the transfer from curl's progress callback. TLS peer and host
/// verification stay on (libcurl's defaults, set explicitly).
public final class CurlHTTPTransport: HTTPTransport {
    public let options: CurlTransportOptions
    private let idleHandles = Mutex<[CurlEasyHandle]>([])
    private let threads = TransferThreads()

    /// `curl_global_init` must run once before any other libcurl call, and before threads use it.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    public init(options: CurlTransportOptions = CurlTransportOptions()) {
        _ = Self.globalInit
        self.options = options
    }

    deinit {
        for handle in idleHandles.withLock({ $0 }) { curl_easy_cleanup(handle.raw) }
    }

    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> HTTPTransportResponse {
        let transfer = CurlTransfer(maxResponseBytes: options.maxResponseBytes)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPTransportResponse, any Error>) in
                threads.run {
                    continuation.resume(with: Result { try self.perform(request, body: body, transfer: transfer) })
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// Runs one transfer to the end on the calling thread.
    private func perform(_ request: HTTPRequest, body: [UInt8]?, transfer: CurlTransfer) throws -> HTTPTransportResponse {
        if transfer.isCancelled { throw HTTPTransportError.cancelled }
        guard let url = request.url?.absoluteString else {
            throw HTTPTransportError.invalidURL("\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")")
        }
        let handle = takeHandle()
        defer { giveBack(handle) }
        let easy = handle.raw

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for field in request.headerFields {
            headerList = curl_slist_append(headerList, "\(field.name.rawName): \(field.value)")
        }
        // libcurl sends `Expect: 100-continue` for larger bodies and waits for it; servers rarely care.
        headerList = curl_slist_append(headerList, "Expect:")

        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var setup: [CURLcode] = [
            crated_curl_setopt_string(easy, CURLOPT_URL, url),
            crated_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            crated_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
            // Signals cannot be used for timeouts in a threaded program.
            crated_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            crated_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1),
            crated_curl_setopt_long(easy, CURLOPT_MAXREDIRS, options.maxRedirects),
            crated_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout)),
            crated_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(options.totalTimeout)),
            // "" offers every encoding this libcurl can decode (gzip, deflate, ...) and decodes it.
            crated_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""),
            crated_curl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1),
            crated_curl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2),
            // Refuses early when Content-Length already says the body is over the cap.
            crated_curl_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxResponseBytes)),
            crated_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList),
            crated_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer),
            crated_curl_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody),
            crated_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context),
            crated_curl_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader),
            crated_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context),
            crated_curl_setopt_long(easy, CURLOPT_NOPROGRESS, 0),
            crated_curl_setopt_xferinfo_callback(easy, curlProgress),
            crated_curl_setopt_pointer(easy, CURLOPT_XFERINFODATA, context),
        ]
        switch (request.method.rawValue, body) {
        case ("GET", nil):
            break
        case ("HEAD", nil):
            setup.append(crated_curl_setopt_long(easy, CURLOPT_NOBODY, 1))
        case (let method, let body):
            if let body {
                setup.append(crated_curl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                // COPYPOSTFIELDS copies, so the array need not outlive this call.
                if body.isEmpty {
                    setup.append(crated_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""))
                } else {
                    setup.append(body.withUnsafeBytes { bytes in
                        crated_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
                    })
                }
            }
            if method != "POST" || body == nil {
                setup.append(crated_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method))
            }
        }
        if let failed = setup.first(where: { $0 != CURLE_OK }) {
            throw HTTPTransportError.other(code: Int(failed.rawValue), message: String(cString: curl_easy_strerror(failed)))
        }

        let code = curl_easy_perform(easy)
        // The handle goes back to the pool; nothing may point at this transfer afterwards.
        _ = crated_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, nil)
        guard code == CURLE_OK else { throw transfer.error(for: code, options: options) }

        var status = 0
        _ = crated_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard (100...999).contains(status) else {
            throw HTTPTransportError.other(code: Int(CURLE_WEIRD_SERVER_REPLY.rawValue), message: "no valid HTTP status (\(status))")
        }
        var effectiveURL: UnsafeMutablePointer<CChar>?
        _ = crated_curl_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        return HTTPTransportResponse(
            head: HTTPResponse(status: .init(code: status), headerFields: transfer.headers),
            body: transfer.body,
            url: effectiveURL.map { String(cString: $0) } ?? url)
    }

    private func takeHandle() -> CurlEasyHandle {
        if let idle = idleHandles.withLock({ $0.popLast() }) {
            // Reset clears the options of the last request but keeps its open connections.
            curl_easy_reset(idle.raw)
            return idle
        }
        guard let raw = curl_easy_init() else { fatalError("curl_easy_init failed: libcurl is out of memory") }
        return CurlEasyHandle(raw: raw)
    }

    private func giveBack(_ handle: CurlEasyHandle) {
        let kept = idleHandles.withLock { idle in
            guard idle.count < options.maxIdleHandles else { return false }
            idle.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle.raw) }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

/// Threads for blocking transfers: every job starts at once on a thread of its own, an idle one
/// when there is one, else a new one. A thread left idle for a while ends, so a burst of slow
/// requests does not leave threads behind.
private final class TransferThreads: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var waitingThreads = 0
    private static let idleLifetime: TimeInterval = 30

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // Each queued job needs a waiting thread of its own; the ones woken have not taken theirs yet.
        let needsThread = jobs.count > waitingThreads
        if !needsThread { condition.signal() }
        condition.unlock()
        if needsThread {
            let thread = Thread { [self] in work() }
            thread.name = "crated-curl"
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                waitingThreads += 1
                let signalled = condition.wait(until: Date().addingTimeInterval(Self.idleLifetime))
                waitingThreads -= 1
                if !signalled && jobs.isEmpty {
                    condition.unlock()
                    return
                }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
    }
}

/// A `CURL *` easy handle. Used by one transfer at a time: it moves between the idle pool and
/// the thread running a transfer, never shared.
private struct CurlEasyHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// The state of one transfer that libcurl's callbacks fill in. Only the transfer's thread touches
/// the buffers; `cancel()` may come from any thread, through an atomic.
private final class CurlTransfer: @unchecked Sendable {
    let maxResponseBytes: Int
    var body: [UInt8] = []
    var headers = HTTPFields()
    /// The most header fields a response keeps; the rest are dropped.
    static let maxHeaderFields = 1000
    var exceededLimit = false
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let cancelled = Atomic<Bool>(false)

    init(maxResponseBytes: Int) {
        self.maxResponseBytes = maxResponseBytes
        errorBuffer.initialize(to: 0)
    }

    deinit { errorBuffer.deallocate() }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One raw header line, CRLF included. A status line starts the headers of a new response
    /// (after a redirect or a `100 Continue`), so the earlier response's fields are dropped.
    /// Parsed as bytes: it runs for every header of every response, and Foundation's trimming
    /// (through NSString on Linux) cost more than libcurl's own work on a small response.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = Self.trimmingBlanks(bytes[...])
        if line.starts(with: "HTTP/".utf8) {
            headers = HTTPFields()
            return
        }
        // HTTPFields traps past 65,535 fields; no real answer has a thousand.
        guard headers.count < Self.maxHeaderFields else { return }
        // A field whose name is not a valid token is dropped; invalid bytes in a value become spaces.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
              let name = HTTPField.Name(String(decoding: Self.trimmingBlanks(line[..<colon]), as: UTF8.self))
        else { return }
        let value = String(decoding: Self.trimmingBlanks(line[(colon + 1)...]), as: UTF8.self)
        headers.append(HTTPField(name: name, value: value))
        if name == .contentLength, let length = Int(value), length <= maxResponseBytes {
            body.reserveCapacity(length)
        }
    }

    /// Without leading and trailing spaces, tabs, CR and LF: the blanks of an HTTP header line.
    private static func trimmingBlanks(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    func error(for code: CURLcode, options: CurlTransportOptions) -> HTTPTransportError {
        let detail = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        case CURLE_WRITE_ERROR where exceededLimit, CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: maxResponseBytes)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .couldNotConnect(detail)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING:
            return .connectionLost(detail)
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects(limit: options.maxRedirects)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL(detail)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tls(detail)
        default:
            return .other(code: Int(code.rawValue), message: detail)
        }
    }
}

// libcurl's callbacks are C function pointers: they capture nothing and find their transfer
// through the user-data pointer set next to them. Returning less than the bytes given (write) or
// non-zero (progress) makes libcurl abort the transfer.

private let curlWriteBody: curl_write_callback = { data, size, count, userData in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData!).takeUnretainedValue()
    let length = size * count
    guard let data else { return length }
    return transfer.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlWriteHeader: curl_write_callback = { data, size, count, userData in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData!).takeUnretainedValue()
    let length = size * count
    if let data { transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) }
    return length
}

private let curlProgress: curl_xferinfo_callback = { userData, _, _, _, _ in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData!).takeUnretainedValue()
    return transfer.isCancelled ? 1 : 0
}
