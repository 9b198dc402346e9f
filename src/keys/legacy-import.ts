/**
 * One-time import of the JSON files earlier versions kept in the data directory: `keys.json` (key hashes and
 * limits) and `usage.json` (today's and this month's counts). Each file is imported once — its content hash is
 * recorded in `legacy_imports` in the same transaction, so two processes starting at once import it once — and
 * left in place as a backup, named in the log. A file that cannot be read or parsed stops start-up with a message
 * naming it, before anything is imported.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Logger } from '../platform/logger.js';
import { dayWindow, monthWindow } from '../limits/calendar.js';
import { StoreError, type Database } from '../store/index.js';

const isoDate = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'expected an ISO date');

const legacyKeys = z.object({
  keys: z.array(
    z.object({
      id: z.string().min(1),
      name: z.string(),
      hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a hex SHA-256'),
      prefix: z.string(),
      created_at: isoDate,
      revoked_at: isoDate.optional(),
      rate_limit: z.string().optional(),
      daily_quota: z.number().int().min(0).optional(),
      monthly_quota: z.number().int().min(0).optional(),
    }),
  ),
});

const legacyUsage = z.object({
  keys: z.record(
    z.string(),
    z.object({ day: z.string(), daily: z.number().int().min(0), month: z.string(), monthly: z.number().int().min(0) }),
  ),
});

/** Imports `keys.json` and `usage.json` from `dataDir` when present and not imported yet. */
export async function importLegacyFiles(db: Kysely<Database>, dataDir: string, log?: Logger): Promise<void> {
  const keysFile = resolve(join(dataDir, 'keys.json'));
  const usageFile = resolve(join(dataDir, 'usage.json'));
  const keysText = readIfPresent(keysFile);
  const usageText = readIfPresent(usageFile);
  if (keysText !== undefined) {
    const parsed = parseFile(keysFile, keysText, legacyKeys);
    const imported = await importOnce(db, keysFile, keysText, async (trx) => {
      const now = Date.now();
      const rows = parsed.keys.map((k) => ({
        id: k.id,
        name: k.name,
        hash: k.hash,
        prefix: k.prefix,
        created_at: Date.parse(k.created_at),
        updated_at: now,
        revoked_at: k.revoked_at === undefined ? null : Date.parse(k.revoked_at),
        rate_limit: k.rate_limit ?? null,
        daily_quota: k.daily_quota ?? null,
        monthly_quota: k.monthly_quota ?? null,
      }));
      if (rows.length > 0)
        await trx
          .insertInto('api_keys')
          .values(rows)
          .onConflict((oc) => oc.doNothing())
          .execute();
      await trx
        .updateTable('store_versions')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('name', '=', 'keys')
        .execute();
      return rows.length;
    });
    if (imported !== undefined)
      log?.info(
        { file: keysFile, keys: imported },
        `imported ${imported} API keys from ${keysFile}; the file is kept as a backup and no longer read`,
      );
  }
  if (usageText !== undefined) {
    const parsed = parseFile(usageFile, usageText, legacyUsage);
    const imported = await importOnce(db, usageFile, usageText, async (trx) => {
      const now = Date.now();
      const day = dayWindow(now).id;
      const month = monthWindow(now).id;
      const rows = Object.entries(parsed.keys).flatMap(([key_id, e]) => [
        ...(e.day === day && e.daily > 0 ? [{ key_id, period: day, count: e.daily, updated_at: now }] : []),
        ...(e.month === month && e.monthly > 0 ? [{ key_id, period: month, count: e.monthly, updated_at: now }] : []),
      ]);
      if (rows.length > 0) {
        await trx
          .insertInto('usage_counts')
          .values(rows)
          .onConflict((oc) =>
            oc
              .columns(['key_id', 'period'])
              .doUpdateSet((eb) => ({ count: eb('usage_counts.count', '+', eb.ref('excluded.count')) })),
          )
          .execute();
      }
      return rows.length;
    });
    if (imported !== undefined)
      log?.info(
        { file: usageFile },
        `imported usage counts from ${usageFile}; the file is kept as a backup and no longer read`,
      );
  }
}

function readIfPresent(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new StoreError(`Cannot read ${file} to import it into the database: ${(e as Error).message}`);
  }
}

function parseFile<T>(file: string, text: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new StoreError(
      `${file} is not valid JSON (${(e as Error).message}); repair it or move it away — nothing was imported from it`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new StoreError(
      `${file} has an unexpected content at ${i.path.join('.') || 'the top level'}: ${i.message}; repair it or move it away — nothing was imported from it`,
    );
  }
  return parsed.data;
}

/** Runs `work` in a transaction unless this exact content was imported before; undefined when it was. */
async function importOnce(
  db: Kysely<Database>,
  file: string,
  text: string,
  work: (trx: Kysely<Database>) => Promise<number>,
): Promise<number | undefined> {
  const id = createHash('sha256').update(text).digest('hex');
  return db.transaction().execute(async (trx) => {
    const marked = await trx
      .insertInto('legacy_imports')
      .values({ id, file, imported_at: Date.now() })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(marked.numInsertedOrUpdatedRows ?? 0) === 0) return undefined;
    return work(trx);
  });
}
