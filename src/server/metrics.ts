/** Prometheus metrics: requests by route and status with latency, upstream fetches by marketplace, tier, outcome. */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { UpstreamEvent, UpstreamObserver } from '../upstream/observer.js';
import { SeriesCounter, SeriesHistogram, type CounterSeries, type HistogramSeries } from './series-metrics.js';

const REQUEST_LABELS = ['route', 'method', 'status'] as const;

export class Metrics implements UpstreamObserver {
  readonly registry = new Registry();
  readonly requests = new SeriesCounter(
    'marketlens_http_requests_total',
    'HTTP requests by route, method and status',
    REQUEST_LABELS,
    this.registry,
  );
  readonly requestDuration = new SeriesHistogram(
    'marketlens_http_request_duration_seconds',
    'HTTP request latency by route and status',
    REQUEST_LABELS,
    [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    this.registry,
  );
  readonly upstreamRequests = new Counter({
    name: 'marketlens_upstream_requests_total',
    help: 'Upstream requests by marketplace, fetch tier and outcome',
    labelNames: ['marketplace', 'tier', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly upstreamDuration = new Histogram({
    name: 'marketlens_upstream_request_duration_seconds',
    help: 'Upstream request latency by marketplace and tier',
    labelNames: ['marketplace', 'tier'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });

  /** One observer per (method, route); each resolves its series once per status: per request only the counts move. */
  private readonly observers = new Map<string, (status: number, seconds: number) => void>();

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'marketlens_' });
  }

  /** One answered request: `marketlens_http_requests_total` and `marketlens_http_request_duration_seconds`. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requestObserver(route, method)(status, seconds);
  }

  /**
   * The observer of one route and method, for a caller that knows both up front (a route's own hook, the cached-hit
   * path): per request it only finds the series by status number, with no label string to build and hash (issue 21).
   */
  requestObserver(route: string, method: string): (status: number, seconds: number) => void {
    const id = `${method} ${route}`;
    let observe = this.observers.get(id);
    if (observe) return observe;
    const byStatus = new Map<number, { count: CounterSeries; latency: HistogramSeries }>();
    observe = (status, seconds) => {
      let series = byStatus.get(status);
      if (!series) {
        // The series objects dedupe by labels themselves (series-metrics.ts).
        const labels = { route, method, status: String(status) };
        series = { count: this.requests.series(labels), latency: this.requestDuration.series(labels) };
        byStatus.set(status, series);
      }
      series.count.inc();
      series.latency.observe(seconds);
    };
    this.observers.set(id, observe);
    return observe;
  }

  onUpstream(e: UpstreamEvent): void {
    this.upstreamRequests.inc({ marketplace: e.marketplace, tier: e.tier, outcome: e.outcome });
    this.upstreamDuration.observe({ marketplace: e.marketplace, tier: e.tier }, e.seconds);
  }
}
