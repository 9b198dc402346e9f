import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesCounter, SeriesHistogram } from './series-metrics.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];
const OBSERVED: Array<[Record<string, string>, number]> = [
  [{ route: '/a', status: '200' }, 0.0004],
  [{ route: '/a', status: '200' }, 0.01],
  [{ route: '/a', status: '200' }, 0.5],
  [{ route: '/b', status: '404' }, 3],
  [{ route: '/a', status: '200' }, 0.001],
];

describe('series metrics', () => {
  it('expose exactly what prom-client Counter and Histogram expose for the same observations', async () => {
    const reference = new Registry();
    const refCounter = new Counter({
      name: 'c_total',
      help: 'h',
      labelNames: ['route', 'status'],
      registers: [reference],
    });
    const refHistogram = new Histogram({
      name: 'd_seconds',
      help: 'h',
      labelNames: ['route', 'status'],
      buckets: BOUNDS,
      registers: [reference],
    });
    const ours = new Registry();
    const counter = new SeriesCounter('c_total', 'h', ['route', 'status'], ours);
    const histogram = new SeriesHistogram('d_seconds', 'h', ['route', 'status'], BOUNDS, ours);
    for (const [labels, v] of OBSERVED) {
      refCounter.inc(labels);
      refHistogram.observe(labels, v);
      counter.series(labels).inc();
      histogram.series(labels).observe(v);
    }
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.metrics()).toContain('d_seconds_bucket{le="0.001",route="/a",status="200"} 2');
  });

  it('a series is resolved once: the same object for the same labels, whatever their order', () => {
    const counter = new SeriesCounter('x_total', 'h', ['a', 'b'], new Registry());
    expect(counter.series({ a: '1', b: '2' })).toBe(counter.series({ b: '2', a: '1' }));
    expect(counter.series({ a: '1', b: '3' })).not.toBe(counter.series({ a: '1', b: '2' }));
  });
});
