// Calls to the service's own API with the session cookie (sent by the browser; the page never sees the key). State
// changes carry the session's CSRF token; a 401 means the session ended (sign-out, expiry, revoked key).

/** @type {string | undefined} */
let csrfToken;

/** @param {string | undefined} token */
export function setCsrfToken(token) {
  csrfToken = token;
}

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {{ param: string, message: string }[]} [errors]
   */
  constructor(status, code, message, errors) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors ?? [];
  }
}

/** Listeners told when a request comes back 401: the page shows the sign-in form again. */
/** @type {Set<(message: string) => void>} */
export const onSignedOut = new Set();

/**
 * @param {string} path
 * @param {{ method?: string, body?: unknown, query?: Record<string, string | undefined> }} [options]
 * @returns {Promise<any>}
 */
export async function api(path, options = {}) {
  const method = options.method ?? 'GET';
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (res.status === 204) return null;
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const message = body?.detail ?? body?.message ?? `${res.status} ${res.statusText}`;
    const error = new ApiError(res.status, body?.code ?? 'error', message, body?.errors);
    if (res.status === 401 && path !== '/dashboard/session') for (const listener of onSignedOut) listener(message);
    throw error;
  }
  return body;
}
