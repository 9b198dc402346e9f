/**
 * API keys, stored only as SHA-256 hashes in `<data dir>/keys.json` (keys are 256-bit random, so a fast hash is
 * enough; a slow KDF would only slow every request). Verification hashes the presented key and compares it with
 * every stored hash in constant time. Keys from MARKETLENS_API_KEYS are hashed at start-up and never written.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  source: 'file' | 'env';
}

export type KeyCheck = { ok: true; key: StoredKey } | { ok: false; reason: 'invalid' | 'disabled' };

const KEY_PREFIX = 'ml_';

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A new random key: `ml_` + 43 base64url characters (256 bits). */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export class KeyStore {
  private readonly file: string;
  private fileKeys: StoredKey[] = [];
  private readonly envKeys: StoredKey[];
  private hashes: { key: StoredKey; hash: Buffer }[] = [];
  private loadedMtime = 0;
  private lastReloadCheck = 0;

  constructor(
    private readonly dataDir: string,
    envKeys: string[] = [],
  ) {
    this.file = join(dataDir, 'keys.json');
    this.envKeys = envKeys.map((k) => {
      const hash = hashKey(k).toString('hex');
      return { id: `env-${hash.slice(0, 8)}`, name: 'MARKETLENS_API_KEYS', hash, prefix: k.slice(0, 6), created_at: '', source: 'env' as const };
    });
    this.load();
  }

  /** Checks a presented key. Constant time in the key's content: every stored hash is compared, no early exit. */
  verify(presented: string): KeyCheck {
    const found = this.match(presented) ?? this.reloadAndMatch(presented);
    if (!found) return { ok: false, reason: 'invalid' };
    if (found.revoked_at) return { ok: false, reason: 'disabled' };
    return { ok: true, key: found };
  }

  /** Creates a key, stores its hash, and returns the key itself: the only time it is ever visible. */
  create(name = 'default', limits: Pick<StoredKey, 'rate_limit' | 'daily_quota' | 'monthly_quota'> = {}): { key: string; record: StoredKey } {
    this.load();
    const key = generateKey();
    const record: StoredKey = {
      id: randomUUID(),
      name,
      hash: hashKey(key).toString('hex'),
      prefix: key.slice(0, 8),
      created_at: new Date().toISOString(),
      source: 'file',
      ...limits,
    };
    this.fileKeys.push(record);
    this.save();
    return { key, record };
  }

  /** Revokes by id or by the visible prefix; returns the revoked record or undefined when none matched. */
  revoke(idOrPrefix: string): StoredKey | undefined {
    this.load();
    const matches = this.fileKeys.filter((k) => k.id === idOrPrefix || k.prefix === idOrPrefix);
    if (matches.length !== 1) return undefined;
    const k = matches[0]!;
    k.revoked_at ??= new Date().toISOString();
    this.save();
    return k;
  }

  list(): StoredKey[] {
    this.load();
    return [...this.envKeys, ...this.fileKeys];
  }

  /** True when at least one usable key exists (configured or stored). */
  hasUsableKey(): boolean {
    return this.list().some((k) => !k.revoked_at);
  }

  private match(presented: string): StoredKey | undefined {
    const h = hashKey(presented);
    let found: StoredKey | undefined;
    for (const entry of this.hashes) {
      if (timingSafeEqual(h, entry.hash)) found = entry.key;
    }
    return found;
  }

  /** A key created by `marketlens keys create` while the server runs becomes valid without a restart. */
  private reloadAndMatch(presented: string): StoredKey | undefined {
    const now = Date.now();
    if (now - this.lastReloadCheck < 1000) return undefined;
    this.lastReloadCheck = now;
    if (!this.load()) return undefined;
    return this.match(presented);
  }

  /** (Re)reads the key file when it changed; returns true when it did. */
  private load(): boolean {
    let mtime = 0;
    if (existsSync(this.file)) mtime = statSync(this.file).mtimeMs;
    if (mtime === this.loadedMtime && this.hashes.length > 0) return false;
    this.loadedMtime = mtime;
    this.fileKeys = mtime === 0 ? [] : (JSON.parse(readFileSync(this.file, 'utf8')).keys as StoredKey[]);
    this.hashes = [...this.envKeys, ...this.fileKeys].map((key) => ({ key, hash: Buffer.from(key.hash, 'hex') }));
    return true;
  }

  private save(): void {
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ keys: this.fileKeys }, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
    this.loadedMtime = 0;
    this.load();
  }
}
