/**
 * HAR 1.2 record and replay.
 *
 * Record: every lookup's upstream exchanges (the answers the operation received, after redirects) go to one `.har`
 * file per lookup. A lookup is recognised by its deadline signal, which the whole lookup shares.
 *
 * Replay: an HttpClient that answers from a HAR file instead of the network — ours, or one saved from the
 * browser's devtools. Match by method + URL (host, path, and query parameters in any order); GraphQL POSTs are told
 * apart by the `operationName` in their JSON body. A request without a match fails, naming the URL.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MarketlensError } from '../errors.js';
import { MARKETPLACE_DESCRIPTORS } from '../marketplaces/catalog.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import { judgeAnswer } from './block-detection.js';
import type { HttpClient, RequestContext, UpstreamRequest, UpstreamResponse } from './http-client.js';
import { VERSION } from '../version.js';

interface HarNameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; encoding?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  /** Custom field (HAR allows `_`-prefixed ones): the final URL when the request was redirected. */
  _finalUrl?: string;
}

export interface Har {
  log: { version: string; creator: { name: string; version: string }; entries: HarEntry[] };
}

const SECRET_HEADERS = /^(authorization|proxy-authorization|x-api-key|apikey)$/i;
/** Query parameters that carry credentials (the official Best Buy API's `apiKey`): never written to a HAR. */
const SECRET_PARAMS = /^(api_?key|access_?token|token|key)$/i;
const REDACTED = '[redacted]';

/** The URL with credential parameters blanked, as it may be written to disk. */
function redactUrl(url: URL): URL {
  const out = new URL(url.href);
  for (const name of [...out.searchParams.keys()]) if (SECRET_PARAMS.test(name)) out.searchParams.set(name, REDACTED);
  return out;
}

/** Writes one HAR per lookup into `dir`; `files` lists what was written, in order. */
export class HarRecorder {
  readonly files: string[] = [];
  private readonly lookups = new WeakMap<AbortSignal, { file: string; har: Har }>();
  private seq = 0;

  constructor(private readonly dir: string) {}

  /**
   * Adds one exchange to the lookup's HAR (and rewrites the file, so a crash keeps what was fetched).
   * @example recorder.record(signal, 'resale-b', req, res, startedAt, 120)
   */
  record(
    signal: AbortSignal,
    marketplace: string,
    req: UpstreamRequest,
    res: UpstreamResponse,
    started: Date,
    ms: number,
  ): void {
    let lookup = this.lookups.get(signal);
    if (!lookup) {
      mkdirSync(this.dir, { recursive: true });
      const stamp = started.toISOString().replace(/[:.]/g, '-');
      const file = join(this.dir, `${stamp}-${marketplace}-${req.label ?? 'lookup'}-${process.pid}-${++this.seq}.har`);
      lookup = { file, har: emptyHar() };
      this.lookups.set(signal, lookup);
      this.files.push(file);
    }
    lookup.har.log.entries.push(toEntry(req, res, started, ms));
    writeFileSync(lookup.file, `${JSON.stringify(lookup.har, null, 2)}\n`);
  }
}

export function emptyHar(): Har {
  return { log: { version: '1.2', creator: { name: 'marketlens', version: VERSION }, entries: [] } };
}

function toEntry(req: UpstreamRequest, res: UpstreamResponse, started: Date, ms: number): HarEntry {
  const url = redactUrl(new URL(req.url));
  const headers = Object.entries(req.headers ?? {})
    .filter(([k]) => !SECRET_HEADERS.test(k))
    .map(([name, value]) => ({ name, value }));
  const mimeType = res.headers['content-type'] ?? (req.expect === 'json' ? 'application/json' : 'text/html');
  return {
    startedDateTime: started.toISOString(),
    time: Math.round(ms),
    request: {
      method: req.method ?? 'GET',
      url: url.href,
      httpVersion: 'HTTP/2',
      cookies: [],
      headers,
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(req.body !== undefined
        ? { postData: { mimeType: req.headers?.['content-type'] ?? 'application/json', text: req.body } }
        : {}),
      headersSize: -1,
      bodySize: req.body === undefined ? 0 : Buffer.byteLength(req.body),
    },
    response: {
      status: res.status,
      statusText: '',
      httpVersion: 'HTTP/2',
      cookies: [],
      headers: Object.entries(res.headers).map(([name, value]) => ({ name, value })),
      content: { size: Buffer.byteLength(res.body), mimeType, text: res.body },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: Math.round(ms), receive: 0 },
    ...(req.label ? { comment: req.label } : {}),
    ...(res.url !== url.href ? { _finalUrl: res.url } : {}),
  };
}

/** Method + host + path + sorted query: the identity a replayed request is matched by. */
export function requestKey(method: string, url: string): string {
  const u = new URL(url);
  // Credentials are redacted in recordings, so they take no part in matching.
  const query = [...u.searchParams]
    .filter(([name]) => !SECRET_PARAMS.test(name))
    .sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  return `${method.toUpperCase()} ${u.host.toLowerCase()}${u.pathname} ${new URLSearchParams(query).toString()}`;
}

function operationNameOf(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { operationName?: unknown } | { operationName?: unknown }[];
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    return typeof first?.operationName === 'string' ? first.operationName : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Loads a HAR file and checks its shape (a clear message beats a TypeError later).
 * @example loadHar('lookup.har').log.entries.length
 */
function loadHar(path: string): Har {
  let har: Har;
  try {
    har = JSON.parse(readFileSync(path, 'utf8')) as Har;
  } catch (e) {
    throw new MarketlensError('internal', `cannot read HAR file ${path}: ${(e as Error).message}`);
  }
  if (!Array.isArray(har?.log?.entries))
    throw new MarketlensError('internal', `${path} is not a HAR file (no log.entries)`);
  return har;
}

/** Answers upstream requests from a HAR instead of the network (`--replay FILE.har`, MARKETLENS_REPLAY). */
export class HarReplayClient implements HttpClient {
  private readonly entries: HarEntry[];
  /** How many times each entry was used: repeated identical requests take successive entries. */
  private readonly used = new Map<HarEntry, number>();

  private readonly descriptors: Map<string, MarketplaceDescriptor>;

  /** `marketplaces`: whose descriptors judge replayed answers, as the live client does (the built-in ones by default). */
  constructor(har: Har | string, marketplaces: readonly MarketplaceDescriptor[] = MARKETPLACE_DESCRIPTORS) {
    this.entries = (typeof har === 'string' ? loadHar(har) : har).log.entries;
    this.descriptors = new Map(marketplaces.map((d) => [d.id, d]));
  }

  async request(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse> {
    ctx.signal.throwIfAborted();
    const method = req.method ?? 'GET';
    let url = req.url;
    // Devtools HARs hold each redirect hop as its own entry; follow them as the live client would.
    for (let hop = 0; hop <= 5; hop++) {
      const entry = this.find(method, url, req.operationName ?? operationNameOf(req.body));
      if (!entry) {
        const op = req.operationName ?? operationNameOf(req.body);
        throw new MarketlensError(
          'upstream_error',
          `the replayed HAR has no answer for ${method} ${url}${op ? ` (operationName ${op})` : ''}`,
        );
      }
      const res = entry.response;
      const headers = Object.fromEntries(res.headers.map((h) => [h.name.toLowerCase(), h.value]));
      const location = res.redirectURL || headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).href;
        continue;
      }
      const text = res.content.text ?? '';
      const body = res.content.encoding === 'base64' ? Buffer.from(text, 'base64').toString('utf8') : text;
      const answer = { status: res.status, url: entry._finalUrl ?? url, headers, body };
      // Same verdicts as the live client, so a replayed block or 5xx fails the way it did live.
      const block = judgeAnswer(answer, req, this.descriptors.get(ctx.marketplace));
      if (block)
        throw new MarketlensError('upstream_blocked', `${ctx.marketplace} answered with a ${block.reason} (replayed)`, {
          upstreamStatus: answer.status,
        });
      if (answer.status >= 500)
        throw new MarketlensError('upstream_error', `${ctx.marketplace} answered HTTP ${answer.status} (replayed)`, {
          upstreamStatus: answer.status,
        });
      return answer;
    }
    throw new MarketlensError('upstream_error', `${ctx.marketplace} redirected more than 5 times (replayed)`);
  }

  private find(method: string, url: string, operationName: string | undefined): HarEntry | undefined {
    const key = requestKey(method, url);
    const candidates = this.entries.filter((e) => {
      if (requestKey(e.request.method, e.request.url) !== key) return false;
      if (operationName === undefined) return true;
      return operationNameOf(e.request.postData?.text) === operationName;
    });
    if (candidates.length === 0) return undefined;
    const fresh = candidates.find((e) => !this.used.has(e));
    const entry = fresh ?? candidates[candidates.length - 1]!;
    this.used.set(entry, (this.used.get(entry) ?? 0) + 1);
    return entry;
  }
}
