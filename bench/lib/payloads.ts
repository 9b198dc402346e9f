/**
 * What the benchmarks feed the service: the real captures in ../shared/upstream-samples when they exist (read in
 * place, never copied), else the repo fixtures (test/fixtures). One module so every figure uses the same bytes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { wrapAsNextDataPage } from '../../src/util/next-data.js';
import { REPO_ROOT as ROOT } from '../../test/support/repo-root.js';

const SHARED = resolve(ROOT, '../shared/upstream-samples');
/** The real captures are beside the checkout (not in a fresh clone: the bench then uses the fixtures only). */
export const sharedAvailable = existsSync(SHARED);

/** A real capture, e.g. capture('goat/x.json'); undefined without ../shared. */
export function capture(rel: string): string | undefined {
  const file = join(SHARED, rel);
  return sharedAvailable && existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** A repo fixture, e.g. fixture('resale-b/buy-bar-data.json'). */
export function fixture(rel: string): string {
  return readFileSync(join(ROOT, 'test/fixtures', rel), 'utf8');
}

/** A payload with where it came from, for the tables. */
export interface Sourced<T = string> {
  source: string;
  value: T;
}

/** The capture when present, else the fixture; `source` says which. */
export function captureOr(captureRel: string, fixtureRel: string): Sourced {
  const c = capture(captureRel);
  return c !== undefined
    ? { source: `capture ${captureRel}`, value: c }
    : { source: `fixture ${fixtureRel}`, value: fixture(fixtureRel) };
}

/** GOAT's product page (Next.js pages router) around a product template, as test/resale-b.test.ts builds it. */
export function goatProductPage(template: Record<string, unknown>, section = 'sneakers'): string {
  return wrapAsNextDataPage({
    props: { pageProps: { productTemplate: template, offers: { offerData: null } }, __N_SSP: true },
    page: `/${section}/[slug]`,
    query: { slug: template.slug },
    buildId: 'bench-build',
  });
}

const C24 = 'chrono24/search-2026_rolex-submariner_excerpt-';
const A = `${C24}A_head-metaData-jsonld.html`;
const B = `${C24}B_offset130000-178000_quickfilters-count-sorter-cards1-3.html`;
const C = `${C24}C_offset604000-636000_cards59-60-pagination-pagesize.html`;
const CARD = '<div class="js-listing-item-container';

/**
 * A full-sized (665 KB) Chrono24 2026 results page built from the three capture excerpts the way the watchmarket
 * owner built it: A's head (without its JSON-LD), B up to its first card, B's first card 60 times (a full page), then
 * C from its next-page box on (pagination, page size). Menu markup pads the body to the real page's 665 KB.
 * Without ../shared the fixture page's cards are used the same way. The `n`th card gets its own listing id.
 * @example largeWatchPage().value.length // ≥ 665_000
 */
export function largeWatchPage(targetBytes = 665_000): Sourced {
  const a = capture(A);
  const b = capture(B);
  const c = capture(C);
  let head: string;
  let before: string;
  let card: string;
  let tail: string;
  let source: string;
  if (a && b && c) {
    const i1 = b.indexOf(CARD);
    const i2 = b.indexOf(CARD, i1 + 10);
    head = a.replace(/<script type="application\/ld\+json">[\s\S]*$/, '') + '</head>';
    before = b.slice(0, i1);
    card = b.slice(i1, i2);
    tail = c.slice(c.indexOf('<div class="next-item-container">'));
    source = 'synthetic from captures chrono24 excerpts A+B+C';
  } else {
    const page = fixture('watchmarket/search-2026-page1.html');
    const i1 = page.indexOf(CARD);
    const i2 = page.indexOf(CARD, i1 + 10);
    head = page.slice(0, page.indexOf('</head>')) + '</head>';
    before = page.slice(page.indexOf('<body>') + '<body>'.length, i1);
    card = page.slice(i1, i2);
    tail = page.slice(page.indexOf('<div class="next-item-container">'));
    source = 'synthetic from fixture watchmarket/search-2026-page1.html';
  }
  const id = /--id(\d+)\.htm/.exec(card)?.[1];
  const cards = Array.from({ length: 60 }, (_, n) => (id ? card.replaceAll(id, String(90_000_000 + n)) : card)).join(
    '',
  );
  const filler = '<li class="mega-menu-item"><a href="/rolex/index.htm" class="link">Rolex</a></li>\n';
  const body = `<body>${before}${cards}${tail}`;
  let menu = '';
  while (head.length + menu.length + body.length < targetBytes) menu += filler;
  return { source, value: head + body.replace('<body>', `<body><ul>${menu}</ul>`) };
}
