/**
 * Our own GraphQL documents for `POST https://stockx.com/api/p/e`. Each selects exactly what the spec records need
 * (the site's own fragments lack `styleId` and the Colorway trait in search). Operation names are the site's own
 * (`Browse`, `GetMarketData`): the web client sends the full query text with those names, and HAR replays match on them.
 */

/** Search (§4.2): `browse` with the eight search-hit fields; Variant nodes carry their product. */
export const SEARCH_OPERATION = 'Browse';
export const SEARCH_DOCUMENT = `query Browse($query: String, $filtersVersion: Int, $sort: BrowseSortInput, $page: BrowsePageInput) {
  browse(query: $query, filtersVersion: $filtersVersion, sort: $sort, page: $page) {
    results {
      edges {
        objectId
        node {
          ... on Product {
            ...SearchHitFragment
          }
          ... on Variant {
            id
            product {
              ...SearchHitFragment
            }
          }
        }
      }
      pageInfo {
        limit
        page
        total
      }
    }
  }
}

fragment SearchHitFragment on Product {
  id
  urlKey
  title
  primaryTitle
  secondaryTitle
  styleId
  productCategory
  brand
  media {
    thumbUrl
    smallImageUrl
  }
  traits {
    name
    value
  }
}`;

/** Market data (§4.6 market part): product and every variant, for one country and currency. */
export const MARKET_OPERATION = 'GetMarketData';
export const MARKET_DOCUMENT = `query GetMarketData($id: String!, $currencyCode: CurrencyCode, $countryCode: String!, $marketName: String, $viewerContext: MarketViewerContext) {
  product(id: $id) {
    id
    urlKey
    market(currencyCode: $currencyCode) {
      ...MarketFieldsFragment
    }
    variants {
      id
      market(currencyCode: $currencyCode) {
        ...MarketFieldsFragment
      }
    }
  }
}

fragment MarketFieldsFragment on Market {
  state(country: $countryCode, market: $marketName) {
    lowestAsk {
      amount
    }
    highestBid {
      amount
    }
    numberOfAsks
    numberOfBids
  }
  salesInformation {
    lastSale
    salesLast72Hours
  }
  statistics(market: $marketName, viewerContext: $viewerContext) {
    lastSale {
      amount
    }
  }
}`;
