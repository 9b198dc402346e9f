/** A toy sixth marketplace, for tests only: everything the upstream layer needs to know about it. */
import { defineMarketplace, isJsonBody } from '../../src/marketplaces/descriptor.js';

export const toyDescriptor = defineMarketplace({
  id: 'toy',
  alias: 'toyshop',
  site: 'Toy Shop',
  hosts: ['www.toyshop.example'],
  envName: 'TOY',
  home: 'https://www.toyshop.example/',
  warmUpHosts: ['www.toyshop.example'],
  browserByDefault: false,
  // The toy's own bot wall, served with any status.
  blockMarkers: [{ name: 'Toy wall', test: /<title>Toy wall<\/title>/, decisive: true }],
  looksReal: (res, req) => (req.expect === 'json' ? isJsonBody(res) : true),
});
