/** Prometheus metrics: requests by route and status with latency, upstream fetches by marketplace, tier, outcome. */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { UpstreamEvent, UpstreamObserver } from '../upstream/observer.js';

export class Metrics implements UpstreamObserver {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'marketlens_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: 'marketlens_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
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

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'marketlens_' });
  }

  onUpstream(e: UpstreamEvent): void {
    this.upstreamRequests.inc({ marketplace: e.marketplace, tier: e.tier, outcome: e.outcome });
    this.upstreamDuration.observe({ marketplace: e.marketplace, tier: e.tier }, e.seconds);
  }
}
