/** The fake GOAT in a process of its own (load test): no request log, so its memory stays flat. */
import { FakeUpstream } from '../../test/support/fake-upstream.js';
import { serveMessages } from './child.js';
import { startGoatFake } from './goat-fake.js';

const fake = await startGoatFake(new FakeUpstream({ keepLog: false }));
serveMessages({
  stop: async () => {
    await fake.stop();
    setImmediate(() => process.exit(0));
    return {};
  },
});
process.send!({ type: 'ready', origin: fake.origin });
