/**
 * `marketlens webhooks add|list|remove|test`: the operator's view of every subscription, on the same database as the
 * server. Subscriptions added here belong to `--key <key id>` (from `marketlens keys list`), else to the operator
 * (`operator`: visible to no API key, only here).
 */
import { SILENT_LOGGER } from '../platform/logger.js';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { openStore } from '../store/index.js';
import { channelEndpoints } from './channels/endpoints.js';
import { AlertEngine } from './engine.js';
import { EVENT_TYPES, filterSchema, normaliseFilter, type EventType } from './events.js';
import type { AlertTables } from './schema.js';
import { resolveTarget } from './channels/target.js';

export const WEBHOOKS_USAGE = `Usage:
  marketlens webhooks add <url | tgram://… | ntfy://… | mailto://…> --events price.changed,stock.changed [--filter '{"sizes":["10"]}'] [--description D] [--key KEY_ID]
  marketlens webhooks list
  marketlens webhooks remove <id>
  marketlens webhooks test <id>            send a signed webhook.test now and print the outcome
Events: ${EVENT_TYPES.join(', ')}`;

const OPERATOR = 'operator';
const TEST_WAIT_MS = 15_000;

export async function webhooksCommand(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const flag = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i === -1 ? undefined : rest[i + 1];
  };
  const positional = rest.filter((w, i) => !w.startsWith('--') && !(i > 0 && rest[i - 1]!.startsWith('--')));
  if (!['add', 'list', 'remove', 'test'].includes(sub ?? '') || (sub !== 'list' && !positional[0])) {
    console.error(WEBHOOKS_USAGE);
    return 2;
  }
  const store = await openStore(config, undefined, { poolSize: 1 });
  const alerts = new AlertEngine({
    db: store.db as unknown as Kysely<AlertTables>,
    policy: config.webhooks,
    channels: channelEndpoints(config.channels),
    log: { ...SILENT_LOGGER, error: (o, m) => console.error(m, o) },
  });
  try {
    if (sub === 'list') {
      const rows = (await alerts.subscriptions.list(null)).map((s) => ({
        id: s.id,
        owner: s.keyId,
        url: s.url,
        events: s.events,
        filter: s.filter,
        description: s.description,
        status: s.enabled ? 'enabled' : `disabled (${s.disabledReason ?? 'no reason'})`,
        created_at: new Date(s.createdAt).toISOString(),
      }));
      console.log(JSON.stringify(rows, null, 2));
      return 0;
    }
    if (sub === 'add') {
      // A webhook URL, or an Apprise-style channel URL (tgram://, ntfy://, mailto://: docs/channels.md).
      const target = await resolveTarget({ url: positional[0]! }, config.webhooks);
      const events = (flag('events') ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
      if (events.length === 0 || unknown.length > 0) {
        console.error(
          `--events must list event types (${EVENT_TYPES.join(', ')})${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
        );
        return 2;
      }
      let filterJson: unknown;
      try {
        filterJson = JSON.parse(flag('filter') ?? '{}');
      } catch {
        console.error('--filter must be a JSON object');
        return 2;
      }
      const filter = filterSchema.safeParse(filterJson);
      if (!filter.success) {
        console.error(
          `--filter: ${filter.error.issues.map((i) => `${i.path.join('.') || 'filter'}: ${i.message}`).join('; ')}`,
        );
        return 2;
      }
      const created = await alerts.subscriptions.create(flag('key') ?? OPERATOR, {
        ...target,
        events: events as EventType[],
        filter: normaliseFilter(filter.data),
        description: flag('description') ?? null,
      });
      console.log(
        JSON.stringify(
          { id: created.id, owner: created.keyId, url: created.url, events: created.events, secret: created.secret },
          null,
          2,
        ),
      );
      console.error('Store the secret now: receivers verify signatures with it, and it is not shown again.');
      return 0;
    }
    const found = await alerts.subscriptions.get(null, positional[0]!);
    if (!found) {
      console.error(`No webhook ${positional[0]} (see \`marketlens webhooks list\`).`);
      return 1;
    }
    if (sub === 'remove') {
      await alerts.subscriptions.remove(null, found.id);
      console.log(JSON.stringify({ id: found.id, removed: true }));
      return 0;
    }
    // test: queue it and deliver it from this process (the server, if running, may be the one that wins the claim).
    await alerts.sendTest(found);
    alerts.start();
    const deadline = Date.now() + TEST_WAIT_MS;
    for (;;) {
      const [latest] = await alerts.queue.list(found.id, 1);
      const done =
        latest && latest.event_type === 'webhook.test' && latest.attempts > 0 && latest.status !== 'inflight';
      if (done || Date.now() > deadline) {
        console.log(JSON.stringify(latest ?? null, null, 2));
        return latest?.status === 'delivered' ? 0 : 1;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await alerts.close();
    await store.close();
  }
}
