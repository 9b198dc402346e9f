/** The price history's counter, for the core's recorder. */
import { Counter, type Registry } from 'prom-client';

export /** `marketlens_history_results_total{result}`: written, failed, dropped (one registry may serve several apps in tests). */
function historyCounter(registry: Registry): Counter<'result'> {
  const name = 'marketlens_history_results_total';
  const existing = registry.getSingleMetric(name) as Counter<'result'> | undefined;
  return (
    existing ??
    new Counter({
      name,
      help: 'Live results the price history wrote, had refused by the database, or dropped (queue full while the database was unavailable)',
      labelNames: ['result'] as const,
      registers: [registry],
    })
  );
}
