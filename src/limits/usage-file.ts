/**
 * In-process mode keeps usage counts in memory; this file (`<data dir>/usage.json`) carries them across restarts
 * and lets `marketlens keys list` (another process) show them. Written at most every FLUSH_INTERVAL_MS while
 * requests arrive, and on shutdown. With Redis the counts live in Redis and this file is not used.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dayWindow, monthWindow } from './calendar.js';

const FLUSH_INTERVAL_MS = 5000;

export interface UsageFileEntry {
  day: string;
  daily: number;
  month: string;
  monthly: number;
}

export interface UsageFileContent {
  updated_at: string;
  keys: Record<string, UsageFileEntry>;
}

export function usageFilePath(dataDir: string): string {
  return join(dataDir, 'usage.json');
}

/** Counts for the current day and month from the file (zero for a past window or a missing/corrupt file). */
export function readUsageFile(dataDir: string, now = Date.now()): Map<string, { daily: number; monthly: number }> {
  const out = new Map<string, { daily: number; monthly: number }>();
  const file = usageFilePath(dataDir);
  if (!existsSync(file)) return out;
  let content: UsageFileContent;
  try {
    content = JSON.parse(readFileSync(file, 'utf8')) as UsageFileContent;
  } catch {
    return out;
  }
  const day = dayWindow(now).id;
  const month = monthWindow(now).id;
  for (const [id, e] of Object.entries(content.keys ?? {})) {
    out.set(id, { daily: e.day === day ? e.daily : 0, monthly: e.month === month ? e.monthly : 0 });
  }
  return out;
}

/** Writes counts atomically (temp file + rename), keeping entries of keys not in `counts`. */
export function writeUsageFile(dataDir: string, counts: Map<string, { daily: number; monthly: number }>, now = Date.now()): void {
  const file = usageFilePath(dataDir);
  let keys: Record<string, UsageFileEntry> = {};
  if (existsSync(file)) {
    try {
      keys = (JSON.parse(readFileSync(file, 'utf8')) as UsageFileContent).keys ?? {};
    } catch {
      keys = {};
    }
  }
  const day = dayWindow(now).id;
  const month = monthWindow(now).id;
  for (const [id, c] of counts) keys[id] = { day, daily: c.daily, month, monthly: c.monthly };
  const content: UsageFileContent = { updated_at: new Date(now).toISOString(), keys };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(content, null, 2), { mode: 0o600 });
  renameSync(tmp, file);
}

/** Schedules writes after requests: one pending write at a time, at most every FLUSH_INTERVAL_MS. */
export class UsageFlusher {
  private timer?: NodeJS.Timeout;

  constructor(private readonly flush: () => Promise<void>) {}

  touch(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
