/**
 * Request bodies on GET. The spec's finder (4.1) takes its query as a JSON body on GET, so GET is body-capable; but
 * real clients (Retailed's TypeScript plugin) send `Content-Type: application/json` on every GET with no body. Such
 * a request is a request without a body on every route (CONTRACT §8); a real body on a route that takes none is
 * rejected as unknown input (400 naming `body`), and malformed JSON is a 400 with the parser's own reason.
 * Everything happens in the content-type parsers, which run only for requests that carry a content type: the common
 * GET without one pays nothing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type MarketlensError, invalidParam } from '../errors.js';

export function registerBodyHandling(app: FastifyInstance): void {
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });

  // Fastify's own parser (prototype-poisoning checks included) for real bodies; its errors hide the reason, so a
  // failure is parsed again only to name it.
  const strict = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    // Content-Length 0, or no length and no chunks: no body at all. An unknown route's body is not read (404).
    if (text.length === 0 || unknownRoute(req)) return done(null, undefined);
    const refused = refuseBody(req);
    if (refused) return done(refused, undefined);
    strict(req, text, (err: Error | null, value?: unknown) => {
      if (err) return done(invalidParam('body', `is not valid JSON (${jsonFailure(text)})`), undefined);
      done(null, value);
    });
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.length === 0 || unknownRoute(req)) return done(null, undefined);
    const refused = refuseBody(req);
    // A text body on the finder then fails its body schema (an object), naming `body`.
    done(refused ?? null, refused ? undefined : text);
  });
}

function unknownRoute(req: FastifyRequest): boolean {
  return req.routeOptions.url === undefined;
}

/** A body on a route whose schema declares none is unknown input, never silently ignored. */
function refuseBody(req: FastifyRequest): MarketlensError | undefined {
  if (req.routeOptions.schema?.body) return undefined;
  return invalidParam('body', 'this route takes no request body; send parameters in the query string');
}

/** Why a body failed: the JSON syntax error, or the prototype-poisoning key Fastify refused. */
function jsonFailure(text: string): string {
  try {
    JSON.parse(text);
    return 'a __proto__ or constructor.prototype key is not allowed';
  } catch (e) {
    return (e as Error).message;
  }
}
