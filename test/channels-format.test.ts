/**
 * The human message every phone channel reads (Telegram, ntfy, e-mail; Discord and Slack use its title): product,
 * size, marketplace, old → new with currency, change %, link, an e-mail subject — and a readable sentence, not JSON,
 * for event types the formatter does not know (such as those another feature adds).
 */
import { describe, expect, it } from 'vitest';
import { humanMessage } from '../src/alerts/chat-format.js';

const context = {
  marketplace: 'resale-b',
  operation: 'resale-b.prices',
  product_id: 'air-jordan-1-chicago',
  name: 'Air Jordan 1 Chicago',
  sku: '555088-101',
  url: 'https://www.goat.com/sneakers/air-jordan-1-chicago',
  size: '10',
  condition: null,
  kind: 'lowest_ask',
  country: 'US',
  currency: 'USD',
  observed_at: '2026-11-24T00:00:00.000Z',
};

describe('humanMessage', () => {
  it('price.changed: product, size, marketplace, old → new with currency, change %, link, subject', () => {
    const m = humanMessage({
      type: 'price.changed',
      timestamp: '2026-11-24T00:00:00.000Z',
      data: { ...context, old: 300, new: 270, change: -30, change_pct: -10 },
    });
    expect(m.title).toBe('Air Jordan 1 Chicago size 10: 300 USD → 270 USD (-10 %)');
    expect(m.lines).toEqual([
      'Air Jordan 1 Chicago (555088-101) — size 10',
      'resale-b: 300 USD → 270 USD (-10 %)',
      'https://www.goat.com/sneakers/air-jordan-1-chicago',
    ]);
    expect(m.subject).toBe('[marketlens] price.changed: Air Jordan 1 Chicago size 10: 300 USD → 270 USD (-10 %)');
    expect(m.lines.join('\n')).not.toMatch(/[{}"]/);
  });

  it('stock.changed back in stock, with and without a price', () => {
    const data = { ...context, in_stock: true, price: 199.99 };
    expect(humanMessage({ type: 'stock.changed', timestamp: '', data }).title).toBe(
      'Air Jordan 1 Chicago size 10: back in stock at 199.99 USD',
    );
    expect(
      humanMessage({ type: 'stock.changed', timestamp: '', data: { ...context, in_stock: false, price: null } }).title,
    ).toBe('Air Jordan 1 Chicago size 10: sold out');
  });

  it('event types it does not know still read as a sentence', () => {
    const type = 'price.renamed' as unknown as 'price.changed';
    const m = humanMessage({ type, timestamp: '', data: { ...context, old: 250, new: 240, previous_low: 245 } });
    expect(m.title).toBe('Air Jordan 1 Chicago size 10: 250 USD → 240 USD, previous low 245 USD');
    expect(m.subject).toContain('[marketlens] price.renamed:');
    const other = humanMessage({
      type: 'size.spread' as unknown as 'price.changed',
      timestamp: '',
      data: { sku: '555088-101', size: '10', spread_pct: 14.5, cheapest: 'resale-a', dearest: 'resale-b', legs: [1] },
    });
    expect(other.title).toBe('555088-101 size 10: spread pct 14.5, cheapest resale-a, dearest resale-b');
    expect(other.lines.join('\n')).not.toMatch(/[{}[\]"]/);
  });

  it('the product events name the marketplaces, prices with currency and the buy page', () => {
    const size = { sku: 'DD1391-100', name: 'Dunk Low Panda', country: 'US', size: '10', size_system: 'us_men' };
    const buy = {
      marketplace: 'resale-b',
      kind: 'lowest_price',
      condition: 'new_no_defects',
      amount: 98,
      currency: 'USD',
      url: 'https://www.goat.com/sneakers/dunk',
    };
    const sell = {
      marketplace: 'resale-a',
      kind: 'highest_bid',
      condition: 'new',
      amount: 121,
      currency: 'USD',
      url: null,
    };
    const spread = humanMessage({
      type: 'spread.above',
      timestamp: '',
      data: { ...size, currency: 'USD', buy, sell, spread: 23, spread_pct: 23.47 },
    });
    expect(spread.title).toBe(
      'Dunk Low Panda size 10: spread 23 USD (23.47 %): buy 98 USD on GOAT (lowest price), sell 121 USD on StockX (highest bid)',
    );
    expect(spread.link).toBe('https://www.goat.com/sneakers/dunk');
    expect(spread.subject).toMatch(/^\[marketlens\] spread\.above: Dunk Low Panda size 10/);
    const low = humanMessage({
      type: 'price.new_low',
      timestamp: '',
      data: { ...size, currency: 'USD', buy, sell: null, spread: null, spread_pct: null, previous_low: 104, days: 30 },
    });
    expect(low.title).toBe('Dunk Low Panda size 10: new 30-day low: 98 USD on GOAT (lowest price) (was 104 USD)');
    expect(low.lines).toContain('https://www.goat.com/sneakers/dunk');
  });
});
