/** The key store of a process: imports legacy JSON files once, then loads (and, for servers, follows) the keys. */
import type { Logger } from '../platform/logger.js';
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import { KeyStore } from './key-store.js';
import { importLegacyFiles } from './legacy-import.js';

export async function openKeys(
  store: Store,
  config: Pick<Config, 'dataDir' | 'apiKeys'>,
  log?: Logger,
  watch = true,
): Promise<KeyStore> {
  await importLegacyFiles(store.db, config.dataDir, log);
  return KeyStore.open({ store, envKeys: config.apiKeys, log, watch });
}
