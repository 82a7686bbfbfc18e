import CoreMetrics
import CratedCore
import Prometheus

/// The daemon's metrics: the instruments everything records into and the Prometheus registry that
/// `GET /metrics` reads them from.
///
/// Each `AppMetrics` has a registry of its own, passed through `AppServices`, rather than the
/// `MetricsSystem` global: the global can be bootstrapped only once per process, while each test
/// server needs instruments it can read back alone. `crated serve` also bootstraps the global with
/// this factory, so that anything recording through it (a library's metrics) lands in the same
/// registry.
public struct AppMetrics: Sendable {
    /// Nil when `metrics.enabled` is off: no route, and instruments that record nothing.
    public let registry: PrometheusCollectorRegistry?
    public let factory: PrometheusMetricsFactory?
    public let instruments: CratedMetrics
    /// The bearer token `/metrics` takes; empty: any valid API token.
    public let token: String

    public static let disabled = AppMetrics(registry: nil, factory: nil, instruments: .disabled, token: "")

    /// A fresh registry, or `disabled` when the configuration turns metrics off.
    public init(configuration: CratedConfiguration) {
        guard configuration.metricsEnabled else {
            self = .disabled
            return
        }
        self.init(token: configuration.metricsToken)
    }

    /// Metrics on, in a registry of their own.
    public init(token: String = "") {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests here take tens of microseconds to tens of milliseconds, reads less: the default
        // buckets start at 5 ms and would put nearly everything in the first.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
            .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        self.init(registry: registry, factory: factory, instruments: CratedMetrics(factory: factory), token: token)
    }

    private init(registry: PrometheusCollectorRegistry?, factory: PrometheusMetricsFactory?, instruments: CratedMetrics, token: String) {
        self.registry = registry
        self.factory = factory
        self.instruments = instruments
        self.token = token
    }

    public var isEnabled: Bool { registry != nil }
}
