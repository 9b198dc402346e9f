/**
 * A local webhook receiver (node:http on 127.0.0.1) that verifies every request with the `standardwebhooks` package,
 * as a subscriber would. `answer` decides the status per request (default 204); `stop()`/`restart()` simulate
 * a receiver that is down (connection refused) and back on the same port. `startHangingReceiver` is one that
 * accepts every request and never answers (a dead backend behind a live listener).
 */
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A delivered message as the tests read it (the Standard Webhooks JSON our alerts send). */
export interface ReceivedMessage {
  [member: string]: unknown;
  type: string;
  timestamp: string;
  data: { [field: string]: unknown; params?: Record<string, unknown> };
}

export interface Received {
  id: string;
  /** The request's path and query (a fake Telegram Bot API or ntfy server checks it). */
  path: string;
  /** The message as sent (verified when a secret is set); a request without one reads as null. */
  body: ReceivedMessage;
  raw: string;
  headers: http.IncomingHttpHeaders;
  verified: boolean;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  /** Requests answered 2xx. */
  received: Received[];
  /** Every request, whatever the answer. */
  all: Received[];
  /** The verified messages' bodies, in arrival order. */
  messages(): ReceivedMessage[];
  setSecret(secret: string): void;
  answer: (req: http.IncomingMessage, n: number) => { status: number; headers?: Record<string, string> };
  stop(): Promise<void>;
  restart(): Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves with the first request (any answer) whose webhook-id is `id`, when it arrives: no polling. */
  arrival(id: string): Promise<Received>;
  /** Resolves once `count` requests were answered 2xx, signed or not (a channel's requests are unsigned). */
  answered(count: number): Promise<void>;
}

export async function startReceiver(path = '/hook', port = 0): Promise<Receiver> {
  let secret: string | undefined;
  let server: http.Server;
  const arrivals = new EventEmitter().setMaxListeners(0);
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    all: [],
    messages: () => receiver.received.filter((r) => r.verified).map((r) => r.body),
    setSecret: (s) => (secret = s),
    answer: () => ({ status: 204 }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    restart: () => listen(receiver.port),
    waitFor: async (count, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.messages().length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.messages().length} of ${count} messages`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    answered: async (count) => {
      while (receiver.received.length < count) await once(arrivals, 'request');
    },
    arrival: async (id) => {
      const seen = receiver.all.find((r) => r.id === id);
      if (seen) return seen;
      const [hit] = (await once(arrivals, id)) as [Received];
      return hit;
    },
  };
  const listen = (p: number) =>
    new Promise<void>((resolve) => {
      server = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          let verified = false;
          let body: unknown;
          try {
            body = secret ? new Webhook(secret).verify(raw, req.headers as Record<string, string>) : undefined;
            verified = secret !== undefined;
          } catch {
            body = JSON.parse(raw || 'null');
          }
          const hit = {
            id: String(req.headers['webhook-id']),
            path: req.url ?? '',
            body: body as ReceivedMessage,
            raw,
            headers: req.headers,
            verified,
            at: Date.now(),
          };
          const answer = receiver.answer(req, receiver.all.length);
          receiver.all.push(hit);
          if (answer.status >= 200 && answer.status < 300) receiver.received.push(hit);
          res.writeHead(answer.status, answer.headers).end();
          arrivals.emit(hit.id, hit);
          arrivals.emit('request', hit);
        });
      });
      server.listen(p, '127.0.0.1', () => {
        receiver.port = (server.address() as AddressInfo).port;
        receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
        resolve();
      });
    });
  await listen(port);
  return receiver;
}

export interface HangingReceiver {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** Requests received (none ever answered). */
  count(): number;
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  /** Closes the listener and cuts every held connection (the sends see a reset). */
  stop(): Promise<void>;
}

/** A receiver that reads each request and never answers: every send to it lasts until the sender's timeout. */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  let received = 0;
  const events = new EventEmitter();
  const server = http.createServer((req) => {
    req.resume();
    received++;
    events.emit('request');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    count: () => received,
    waitForRequests: async (n) => {
      while (received < n) await once(events, 'request');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
