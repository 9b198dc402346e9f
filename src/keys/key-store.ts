/**
 * API keys, stored only as SHA-256 hashes in the database (`api_keys`; keys are 256-bit random, so a fast hash is
 * enough; a slow KDF would only slow every request). Every instance holds all hashes in memory and verifies with no
 * database round trip: the presented key's hash finds its entry by hash (O(1) whatever the number of keys; the
 * timing of that lookup can only tell about SHA-256 digests, never about a key), then is compared in constant time. Each write
 * bumps `store_versions.keys` in its transaction; every instance polls that one row (POLL_MS) and reloads on change,
 * so a key revoked by any process or host is refused everywhere within a second. Keys from MARKETLENS_API_KEYS are
 * hashed at start-up and never written.
 */
import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { Logger } from '../platform/logger.js';
import { rateSpec } from '../config.js';
import type { ApiKeyTable, Database, Store } from '../store/index.js';

export interface StoredKey {
  id: string;
  name: string;
  /** hex SHA-256 of the key */
  hash: string;
  /** first characters of the key, so an operator can recognise it in `keys list` */
  prefix: string;
  created_at: string;
  revoked_at?: string;
  /** per-key rate, e.g. `600/min`; overrides MARKETLENS_RATE_LIMIT */
  rate_limit?: string;
  daily_quota?: number;
  monthly_quota?: number;
  /** `env` keys come from configuration and cannot be revoked here */
  source: 'stored' | 'env';
}

export type KeyCheck = { ok: true; key: StoredKey } | { ok: false; reason: 'invalid' | 'disabled' };

/** What `keys create` may set; validated here so no caller can store a limit the server cannot apply. */
export const keyOptionsSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200).default('default'),
  rate_limit: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || rateSpec.safeParse(v).success,
      'expected e.g. 600/min, 10/s, 1000/h, or 0 (unlimited)',
    ),
  daily_quota: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(1e9).optional(),
  monthly_quota: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(1e10).optional(),
});
export type KeyOptions = z.input<typeof keyOptionsSchema>;

export class InvalidKeyOptions extends Error {
  override name = 'InvalidKeyOptions';
}

const KEY_PREFIX = 'ml_';
/** Revocations must reach every instance within 1 s: a poll of one indexed row, four times a second. */
export const POLL_MS = 250;
const POLL_ERROR_LOG_EVERY_MS = 30_000;

export function hashKey(key: string): Buffer {
  return Buffer.from(hash('sha256', key, 'hex'), 'hex');
}

/** A new random key: `ml_` + 43 base64url characters (256 bits). */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export interface KeyStoreOptions {
  store: Pick<Store, 'db'>;
  envKeys?: string[];
  log?: Logger;
  /** Poll for changes by other processes (servers); the CLI reads once. Default true. */
  watch?: boolean;
  pollMs?: number;
}

export class KeyStore {
  private readonly db: Kysely<Database>;
  private readonly envKeys: StoredKey[];
  private storedKeys: StoredKey[] = [];
  /** Every key by the hex SHA-256 of its text (a later entry with the same hash wins, as env keys come first). */
  private hashes = new Map<string, { key: StoredKey; hash: Buffer }>();
  private byId = new Map<string, StoredKey>();
  private loadedVersion = -1;
  private timer?: NodeJS.Timeout;
  private polling = false;
  private lastPollError = 0;

  private constructor(private readonly o: KeyStoreOptions) {
    this.db = o.store.db;
    this.envKeys = (o.envKeys ?? []).map((k) => {
      const hash = hashKey(k).toString('hex');
      return {
        id: `env-${hash.slice(0, 8)}`,
        name: 'MARKETLENS_API_KEYS',
        hash,
        prefix: k.slice(0, 6),
        created_at: '',
        source: 'env' as const,
      };
    });
  }

  /** Loads every key; with `watch` (default) keeps following changes made by other processes. */
  static async open(o: KeyStoreOptions): Promise<KeyStore> {
    const ks = new KeyStore(o);
    await ks.refresh();
    if (o.watch ?? true) {
      ks.timer = setInterval(() => void ks.poll(), o.pollMs ?? POLL_MS);
      ks.timer.unref();
    }
    return ks;
  }

  /** Checks a presented key, in memory: found by its hash, confirmed by a constant-time compare. */
  verify(presented: string): KeyCheck {
    const digest = hash('sha256', presented, 'hex');
    const entry = this.hashes.get(digest);
    const found = entry && timingSafeEqual(Buffer.from(digest, 'hex'), entry.hash) ? entry.key : undefined;
    if (!found) return { ok: false, reason: 'invalid' };
    if (found.revoked_at) return { ok: false, reason: 'disabled' };
    return { ok: true, key: found };
  }

  /**
   * Checks a key by its id, in memory (a dashboard session names its key by id): the same answer `verify` gives for
   * that key's text, so a revoked key is refused here as soon as it is refused there.
   */
  verifyId(id: string): KeyCheck {
    const found = this.byId.get(id);
    if (!found) return { ok: false, reason: 'invalid' };
    if (found.revoked_at) return { ok: false, reason: 'disabled' };
    return { ok: true, key: found };
  }

  /**
   * Creates a key and returns the key itself: the only time it is ever visible. Committed before it returns, so a
   * printed key is a stored key. Throws InvalidKeyOptions (nothing stored) for a bad name, rate or quota.
   */
  async create(
    name: string | undefined,
    limits: Omit<KeyOptions, 'name'> = {},
  ): Promise<{ key: string; record: StoredKey }> {
    const parsed = keyOptionsSchema.safeParse({ name, ...limits });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field =
        { name: '--name', rate_limit: '--rate', daily_quota: '--daily', monthly_quota: '--monthly' }[
          String(issue.path[0])
        ] ?? String(issue.path[0]);
      throw new InvalidKeyOptions(`${field}: ${issue.message}`);
    }
    const o = parsed.data;
    const key = generateKey();
    const now = Date.now();
    const row: Selectable<ApiKeyTable> = {
      id: randomUUID(),
      name: o.name,
      hash: hashKey(key).toString('hex'),
      prefix: key.slice(0, 8),
      created_at: now,
      updated_at: now,
      revoked_at: null,
      rate_limit: o.rate_limit ?? null,
      daily_quota: o.daily_quota ?? null,
      monthly_quota: o.monthly_quota ?? null,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('api_keys').values(row).execute();
      await bumpKeysVersion(trx);
    });
    await this.refresh();
    return { key, record: toStoredKey(row) };
  }

  /** Revokes by id or by the visible prefix; returns the revoked record, or undefined unless exactly one matched. */
  async revoke(idOrPrefix: string): Promise<StoredKey | undefined> {
    const now = Date.now();
    const revoked = await this.db.transaction().execute(async (trx) => {
      const matches = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
        .execute();
      if (matches.length !== 1) return undefined;
      const row = matches[0]!;
      if (row.revoked_at !== null) return row;
      await trx.updateTable('api_keys').set({ revoked_at: now, updated_at: now }).where('id', '=', row.id).execute();
      await bumpKeysVersion(trx);
      return { ...row, revoked_at: now, updated_at: now };
    });
    await this.refresh();
    return revoked && toStoredKey(revoked);
  }

  /** Configured and stored keys, as last loaded. */
  list(): StoredKey[] {
    return [...this.envKeys, ...this.storedKeys];
  }

  /** True when at least one usable key exists (configured or stored). */
  hasUsableKey(): boolean {
    return this.list().some((k) => !k.revoked_at);
  }

  /** Reloads the keys when another process changed them; true when it did. */
  async refresh(): Promise<boolean> {
    const v = await this.db
      .selectFrom('store_versions')
      .select('version')
      .where('name', '=', 'keys')
      .executeTakeFirst();
    const version = v?.version ?? 0;
    if (version === this.loadedVersion) return false;
    // Read after the version: any later change bumps it again and is picked up by the next poll.
    const rows = await this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
    this.storedKeys = rows.map(toStoredKey);
    this.hashes = new Map(
      [...this.envKeys, ...this.storedKeys].map((key) => [
        key.hash.toLowerCase(),
        { key, hash: Buffer.from(key.hash, 'hex') },
      ]),
    );
    this.byId = new Map([...this.envKeys, ...this.storedKeys].map((key) => [key.id, key]));
    this.loadedVersion = version;
    return true;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await this.refresh();
    } catch (e) {
      // Keep serving with the keys last loaded; say so, but not four times a second.
      const now = Date.now();
      if (now - this.lastPollError > POLL_ERROR_LOG_EVERY_MS) {
        this.lastPollError = now;
        this.o.log?.error(
          { err: { message: (e as Error).message } },
          'cannot read API keys from the database; using the keys last loaded',
        );
      }
    } finally {
      this.polling = false;
    }
  }
}

async function bumpKeysVersion(trx: Kysely<Database>): Promise<void> {
  await trx
    .updateTable('store_versions')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('name', '=', 'keys')
    .execute();
}

function toStoredKey(r: Selectable<ApiKeyTable>): StoredKey {
  return {
    id: r.id,
    name: r.name,
    hash: r.hash,
    prefix: r.prefix,
    created_at: new Date(r.created_at).toISOString(),
    ...(r.revoked_at !== null ? { revoked_at: new Date(r.revoked_at).toISOString() } : {}),
    ...(r.rate_limit !== null ? { rate_limit: r.rate_limit } : {}),
    ...(r.daily_quota !== null ? { daily_quota: r.daily_quota } : {}),
    ...(r.monthly_quota !== null ? { monthly_quota: r.monthly_quota } : {}),
    source: 'stored',
  };
}
