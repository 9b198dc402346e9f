/** A plain HTTP GET for tests that talk to a real `marketlens serve` process over loopback. */
import { request as httpRequest, type Agent } from 'node:http';

export interface Answer {
  status: number;
  body: string;
}

/**
 * One GET, by default on its own connection (no pool): each call is a separate in-flight request, and a cluster
 * primary hands each new connection to the next worker. With a keep-alive agent, as a load balancer or SDK sends it.
 */
export function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  agent: Agent | false = false,
): Promise<Answer> {
  return new Promise((resolveAnswer, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('request timed out')));
    req.end();
  });
}
