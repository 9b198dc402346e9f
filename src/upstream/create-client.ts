import type { Config } from '../config.js';
import type { HttpClient } from './http-client.js';
import type { UpstreamObserver } from './observer.js';
import { PlainHttpClient } from './plain-client.js';

/** The HttpClient the configuration asks for; the one place the service and the CLI get theirs. */
export function createHttpClient(config: Config, observer?: UpstreamObserver): HttpClient {
  return new PlainHttpClient(config, observer);
}
