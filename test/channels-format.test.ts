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
    const type = 'price.new_low' as unknown as 'price.changed';
    const m = humanMessage({ type, timestamp: '', data: { ...context, old: 250, new: 240, previous_low: 245 } });
    expect(m.title).toBe('Air Jordan 1 Chicago size 10: 250 USD → 240 USD, previous low 245 USD');
    expect(m.subject).toContain('[marketlens] price.new_low:');
    const spread = humanMessage({
      type: 'spread.above',
      timestamp: '',
      data: { sku: '555088-101', size: '10', spread_pct: 14.5, cheapest: 'resale-a', dearest: 'resale-b', legs: [1] },
    });
    expect(spread.title).toBe('555088-101 size 10: spread pct 14.5, cheapest resale-a, dearest resale-b');
    expect(spread.lines.join('\n')).not.toMatch(/[{}[\]"]/);
  });
});
