/** Bodies real bot managers answer with (own values, real structure) and a buy_bar_data answer, for fetch-layer tests. */

export const buyBar = [
  {
    sizeOption: { presentation: '10', value: 10 },
    shoeCondition: 'new_no_defects',
    boxCondition: 'good_condition',
    lowestPriceCents: { currency: 'USD', amount: 21000, amountUsdCents: 21000 },
    instantShipLowestPriceCents: { currency: 'USD' },
    lastSoldPriceCents: { currency: 'USD', amount: 19900, amountUsdCents: 19900 },
    stockStatus: 'multiple_in_stock',
  },
];

export const CLOUDFLARE_CHALLENGE =
  '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body>' +
  '<div id="challenge-form"></div><script>window._cf_chl_opt={cvId:"3"};</script></body></html>';
export const PERIMETERX_BLOCK = {
  appId: 'PX16uD0kOF',
  jsClientSrc: '/16uD0kOF/init.js',
  firstPartyEnabled: true,
  vid: '',
  uuid: 'e1f0c2d4-0000-4000-8000-000000000000',
  hostUrl: '/16uD0kOF/xhr',
  blockScript: '/16uD0kOF/captcha/captcha.js?a=c&u=e1f0c2d4&v=&m=0',
};
export const AKAMAI_DENIAL =
  '<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \n' +
  'You don\'t have permission to access "http&#58;&#47;&#47;www&#46;goat&#46;com&#47;" on this server.<P>\n' +
  'Reference&#32;&#35;18&#46;5e2d3b17&#46;1700000000&#46;1a2b3c4d\n<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net</BODY></HTML>';

let nextId = 1000;
/** A fresh product id per lookup, so no cache layer can answer instead of the fetch layer. */
export const pricesUrl = () => `/api/v1/scraper/resale-b/prices?query=${nextId++}`;
