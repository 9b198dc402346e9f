/**
 * Holds `count` client connections that never send a byte (the slow-loris / fd-exhaustion attack of issue 20),
 * opening a new one whenever the service closes one (its idle timeout), so that `count` are held throughout.
 */
import { connect, type Socket } from 'node:net';

export interface SilentReport {
  held: number;
  opened: number;
  /** Closed by the service (idle timeout or connection cap), each replaced at once. */
  closed_by_service: number;
  connect_errors: number;
}

export function holdSilentSockets(base: string, count: number): { stop(): SilentReport } {
  const { hostname, port } = new URL(base);
  const sockets = new Set<Socket>();
  const report: SilentReport = { held: count, opened: 0, closed_by_service: 0, connect_errors: 0 };
  let stopping = false;
  const open = (): void => {
    const s = connect(Number(port), hostname);
    report.opened++;
    sockets.add(s);
    s.on('error', () => {
      if (!s.readyState.startsWith('open')) report.connect_errors++;
    });
    s.on('close', () => {
      sockets.delete(s);
      if (stopping) return;
      report.closed_by_service++;
      // Re-open after a breath: a refused connection must not become a tight loop.
      setTimeout(open, 50);
    });
  };
  for (let i = 0; i < count; i++) open();
  return {
    stop() {
      stopping = true;
      for (const s of sockets) s.destroy();
      return report;
    },
  };
}
