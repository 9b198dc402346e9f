/**
 * `marketlens_alert_observations_dropped_total`: observations the alert engine dropped (its backlog was full while
 * the database was unavailable, or it still held them at shutdown). Read from the engine at scrape time.
 */
import { Counter, type Registry } from 'prom-client';
import type { AlertEngine } from './engine.js';

export function registerAlertMetrics(registry: Registry, engine: Pick<AlertEngine, 'dropped'>): void {
  const name = 'marketlens_alert_observations_dropped_total';
  if (registry.getSingleMetric(name)) return; // one registry may serve several apps in tests
  let reported = 0;
  new Counter({
    name,
    help: 'Observations the alert engine dropped: its backlog was full while the database was unavailable',
    registers: [registry],
    collect() {
      this.inc(engine.dropped - reported);
      reported = engine.dropped;
    },
  });
}
