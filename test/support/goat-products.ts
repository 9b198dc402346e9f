/**
 * A fake GOAT answering `/sneakers/{slug}` with the product-template fixture made into a product of its own: a
 * distinct template id per slug (so each lookup is its own row in history) and a name the test chooses per slug —
 * e.g. one carrying characters a database cannot hold.
 *
 * @example const goat = await startGoatProducts((slug) => `Runner ${slug}`); env MARKETLENS_RESALE_B_ORIGIN = goat.origin
 */
import { wrapAsNextDataPage } from '../../src/util/next-data.js';
import { FakeUpstream } from './fake-upstream.js';
import { readFixture } from './fixtures.js';

const TEMPLATE = JSON.parse(readFixture('resale-b/product-template.json')) as Record<string, unknown>;
const HOME = '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>';

/** The template id the fake gives `slug` (`p-17` → 3000017; any other slug → 3999999). */
export function goatIdOf(slug: string): number {
  const n = /^p-(\d+)$/.exec(slug)?.[1];
  return n === undefined ? 3_999_999 : 3_000_000 + Number(n);
}

/** The lookup path of product `p-<n>`. */
export const goatProductPath = (n: number) => `/api/v1/scraper/resale-b/product?query=p-${n}`;

export async function startGoatProducts(
  nameOf: (slug: string) => string,
  options: { keepLog?: boolean } = {},
): Promise<FakeUpstream> {
  const goat = await new FakeUpstream(options).start();
  goat.serve('/', HOME);
  goat.otherwise((req, res) => {
    const m = /^\/sneakers\/([A-Za-z0-9-]+)$/.exec(req.path);
    if (!m) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
    const slug = m[1]!;
    const productTemplate = { ...TEMPLATE, slug, id: goatIdOf(slug), name: nameOf(slug) };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      wrapAsNextDataPage({
        props: { pageProps: { productTemplate, offers: { offerData: null } }, __N_SSP: true },
        page: '/sneakers/[slug]',
        query: { slug },
        buildId: 'fixture-build',
      }),
    );
  });
  return goat;
}
