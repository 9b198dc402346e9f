/** The fake GOAT the throughput and load figures use: a home page (the warm-up) and buy_bar_data. */
import type { FakeUpstream } from '../../test/support/fake-upstream.js';
import { captureOr } from './payloads.js';

/** Which payload the fake serves: the real capture when ../shared is there, else the repo fixture. */
export const goatPayload = () =>
  captureOr('goat/dewuapiparser_goat_1341930_buy_bar_data.json', 'resale-b/buy-bar-data.json');

export async function startGoatFake(fake: FakeUpstream): Promise<FakeUpstream> {
  await fake.start();
  const buyBar = goatPayload();
  fake.serve('/', '<html><head><title>GOAT</title></head><body></body></html>');
  fake.serve('/web-api/v1/product_variants/buy_bar_data', buyBar.value, { type: 'application/json' });
  return fake;
}
