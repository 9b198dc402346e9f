/**
 * compose.yaml against the Compose Specification's JSON schema (vendored: test/fixtures/compose-spec), and wired to
 * what the image and the service expect: the data volume where the image keeps its data, real MARKETLENS_* names,
 * the `full` profile's services behind the URLs its header tells people to set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';
import { envOf, readDockerfile, stage } from './support/dockerfile.js';
import { REPO_ROOT } from './support/repo-root.js';

const text = readFileSync(join(REPO_ROOT, 'compose.yaml'), 'utf8');
const compose = parse(text) as {
  services: Record<string, { environment?: Record<string, string>; volumes?: string[]; profiles?: string[] }>;
};
/** The schema without its draft-04 `id` keywords (Ajv refuses them; nothing refers to them): every other word kept. */
function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutDraft4Ids(v)]),
  );
}

/** It names draft 2019-09 as `http://…/schema#`; Ajv registers that meta-schema under its https id (same document). */
const schema = {
  ...(withoutDraft4Ids(
    JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/compose-spec/compose-spec.json'), 'utf8')),
  ) as object),
  $schema: 'https://json-schema.org/draft/2019-09/schema',
};
/** The schema's own formats, as Compose reads them (Go durations, port specs, subnets). */
const COMPOSE_FORMATS = {
  duration: /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/,
  ports: /^((\[?[\w.:]+\]?:)?(\d+(-\d+)?:)?)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^[\d.:a-f]+\/\d{1,3}$/i,
};
const validate = new Ajv2019({ allErrors: true, allowUnionTypes: true, formats: COMPOSE_FORMATS }).compile(schema);

describe('compose.yaml', () => {
  it('is valid against the Compose Specification schema', () => {
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('the schema rejects what Compose rejects (the check is not vacuous)', () => {
    expect(validate({ services: { marketlens: { image: 'x', restart_policy: 'always' } } })).toBe(false);
    expect(validate({ services: { marketlens: { ports: 'not-a-list' } } })).toBe(false);
    expect(validate({ services: { marketlens: { ports: ['8080:eighty'] } } })).toBe(false);
    expect(validate({ services: { marketlens: { stop_grace_period: 'forty seconds' } } })).toBe(false);
  });

  it('mounts the data volume where the image keeps its data, with real MARKETLENS_* names', () => {
    const service = compose.services.marketlens!;
    const dataDir = envOf(stage(readDockerfile(), 'runtime')).MARKETLENS_DATA_DIR;
    expect(service.volumes).toContain(`marketlens-data:${dataDir}`);
    for (const name of Object.keys(service.environment ?? {})) expect(CONFIG_VARIABLES).toContain(name);
    expect(service.environment?.MARKETLENS_DATABASE_URL).toBe('${MARKETLENS_DATABASE_URL:-}');
    expect(service.environment?.MARKETLENS_REDIS_URL).toBe('${MARKETLENS_REDIS_URL:-}');
  });

  it('the full profile adds PostgreSQL and Redis, reachable at the URLs the header gives', () => {
    expect(compose.services.marketlens!.profiles).toBeUndefined();
    const postgres = compose.services.postgres!;
    expect(postgres.profiles).toEqual(['full']);
    expect(compose.services.redis!.profiles).toEqual(['full']);
    const header = Object.fromEntries(
      [...text.matchAll(/^# {3}(MARKETLENS_\w+)=(\S+)$/gm)].map(([, k, v]) => [k!, v!]),
    );
    expect(/^# {3}COMPOSE_PROFILES=full$/m.test(text)).toBe(true);
    // Valid values for the service, naming the services and the credentials above.
    const config = loadConfig(header);
    const db = new URL(config.databaseUrl!);
    expect(db.hostname).toBe('postgres');
    expect(db.username).toBe(postgres.environment?.POSTGRES_USER);
    expect(db.password).toBe(postgres.environment?.POSTGRES_PASSWORD);
    expect(db.pathname).toBe(`/${postgres.environment?.POSTGRES_DB}`);
    expect(new URL(config.redisUrl!).hostname).toBe('redis');
  });
});
