/**
 * MARKETLENS_TRUST_PROXY: off by default, X-Forwarded-* are ignored (a direct client could claim any address);
 * set, the client address (access log, on Fastify's path and the cached-hit path alike), scheme and host (OpenAPI
 * `servers`) come from them. Raw requests over a socket, so the headers are exactly what a proxy would send.
 */
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { TEST_KEY, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { buyBar } from './support/upstream-fixtures.js';

const PRICES = '/api/v1/scraper/resale-b/prices?query=1341930';
const FORWARDED = {
  'x-forwarded-for': '198.51.100.23, 203.0.113.7',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'api.example.com',
};

interface Service {
  app: FastifyInstance;
  port: number;
  /** The access lines written so far, by request id. */
  accessLine: (reqId: string) => Record<string, unknown> | undefined;
}

/** One raw HTTP/1.1 request with these headers; resolves with the body once the server closes. */
function raw(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => (data += String(chunk)));
    socket.on('end', () => resolve(data.slice(data.indexOf('\r\n\r\n') + 4)));
    socket.on('error', reject);
    const lines = Object.entries({ host: `127.0.0.1:${port}`, connection: 'close', ...headers }).map(
      ([k, v]) => `${k}: ${v}`,
    );
    socket.write(`GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  });
}

describe('MARKETLENS_TRUST_PROXY', () => {
  const goat = new FakeUpstream();
  const services: Service[] = [];

  async function start(trust: string | undefined): Promise<Service> {
    const lines: Record<string, unknown>[] = [];
    const logStream = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    const app = await testApp(
      {
        MARKETLENS_RESALE_B_ORIGIN: goat.origin,
        MARKETLENS_LOG_LEVEL: 'info',
        ...(trust === undefined ? {} : { MARKETLENS_TRUST_PROXY: trust }),
      },
      { logStream },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const service = {
      app,
      port: (app.server.address() as AddressInfo).port,
      accessLine: (reqId: string) => lines.find((l) => l.reqId === reqId && l.msg === 'request completed'),
    };
    services.push(service);
    return service;
  }

  /** The client address each path logs for a forwarded request: Fastify's (a miss), then the hit path's. */
  async function loggedClients(s: Service, forwarded: Record<string, string>) {
    const before = s.app.marketlens.hitPath!.served;
    const headers = (id: string) => ({ 'x-api-key': TEST_KEY, 'x-request-id': id, ...forwarded });
    await raw(s.port, PRICES, headers(`miss-${s.port}`));
    await raw(s.port, PRICES, headers(`hit-${s.port}`));
    expect(s.app.marketlens.hitPath!.served - before, 'the second request is a cached hit').toBe(1);
    return [s.accessLine(`miss-${s.port}`)?.remoteAddress, s.accessLine(`hit-${s.port}`)?.remoteAddress];
  }

  const serversUrl = async (s: Service, headers: Record<string, string>) =>
    (JSON.parse(await raw(s.port, '/openapi.json', headers)) as { servers: { url: string }[] }).servers[0]!.url;

  beforeAll(async () => {
    await goat.start();
    goat.serve('/web-api/v1/product_variants/buy_bar_data', buyBar);
  });
  afterAll(async () => {
    for (const s of services) await s.app.close();
    await goat.stop();
  });

  it('off by default: X-Forwarded-* are ignored, the socket peer is the client', async () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    const s = await start(undefined);
    expect(await loggedClients(s, FORWARDED)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(await serversUrl(s, FORWARDED)).toBe(`http://127.0.0.1:${s.port}`);
  });

  it('true: the client, scheme and host come from the forwarded headers', async () => {
    const s = await start('true');
    expect(await loggedClients(s, FORWARDED)).toEqual(['198.51.100.23', '198.51.100.23']);
    expect(await serversUrl(s, FORWARDED)).toBe('https://api.example.com');
    // Without forwarded headers (a request straight to the port) nothing changes.
    expect(await serversUrl(s, {})).toBe(`http://127.0.0.1:${s.port}`);
  });

  it('a hop count trusts that many proxies, nearest first', async () => {
    const s = await start('2');
    // Hop 0 is the socket peer (127.0.0.1), hop 1 is 203.0.113.7: the client is the next one back.
    expect(await loggedClients(s, FORWARDED)).toEqual(['198.51.100.23', '198.51.100.23']);
    const one = await start('1');
    expect(await loggedClients(one, FORWARDED)).toEqual(['203.0.113.7', '203.0.113.7']);
  });

  it('an address list trusts only those proxies', async () => {
    const trusted = await start('127.0.0.1/32, 203.0.113.0/24');
    expect(await loggedClients(trusted, FORWARDED)).toEqual(['198.51.100.23', '198.51.100.23']);
    expect(await serversUrl(trusted, FORWARDED)).toBe('https://api.example.com');
    // The peer (127.0.0.1) is not in the list: its forwarded headers are not believed.
    const other = await start('10.0.0.0/8');
    expect(await loggedClients(other, FORWARDED)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(await serversUrl(other, FORWARDED)).toBe(`http://127.0.0.1:${other.port}`);
  });

  it('accepts true/false, hop counts, addresses, CIDRs and range names; refuses anything else, naming it', () => {
    expect(loadConfig({ MARKETLENS_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ MARKETLENS_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ MARKETLENS_TRUST_PROXY: '3' }).trustProxy).toBe(3);
    expect(loadConfig({ MARKETLENS_TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8, ::1' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '::1',
    ]);
    for (const bad of ['banana', '10.0.0.0/33', '10.0.0.1/8/2', '300.1.1.1', 'fd00::/129']) {
      expect(() => loadConfig({ MARKETLENS_TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ MARKETLENS_TRUST_PROXY: bad }), bad).toThrow(/MARKETLENS_TRUST_PROXY/);
    }
  });
});
