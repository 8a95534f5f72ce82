// The relay of an upload body (image-host/relay.ts): a relay its caller abandons
// (the client left, or its form was refused) settles as the client's doing, never
// as the image host failing: an abort used to surface as the 502 "The image host
// could not be reached" that the call's own abort caused, logged as an error each
// time a user closed the page mid-upload.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../src/http/errors.js';
import { upstreamFailed } from '../../../src/services/site/image-host/failures.js';
import { startRelay } from '../../../src/services/site/image-host/relay.js';

/** A client part that gives one chunk, then waits for more that never come. */
function stalledPart(): AsyncIterator<Buffer> {
  let given = false;
  return { next: () => (given ? new Promise(() => {}) : ((given = true), Promise.resolve({ done: false, value: Buffer.from('PK') }))) };
}

/** A client part that is whole after one chunk. */
function wholePart(): AsyncIterator<Buffer> {
  let given = false;
  return { next: () => Promise.resolve(given ? { done: true, value: undefined } : ((given = true), { done: false, value: Buffer.from('PK') })) };
}

/** What the image host client does: read the body until the signal aborts, then fail as a transport failure (client.ts's reached). */
function send(chunks: AsyncIterable<Buffer>, signal: AbortSignal): Promise<string> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(upstreamFailed('The image host could not be reached')));
    void (async () => {
      try {
        for await (const chunk of chunks) void chunk;
      } catch {
        // the relay's own abandonment
      }
    })();
  });
}

const settled = (promise: Promise<unknown>) => promise.then(() => 'resolved' as const, (error: unknown) => error);

for (const row of [
  { what: 'before the part was whole (contentSent pending)', part: stalledPart, release: false },
  { what: 'after release, waiting for the answer', part: wholePart, release: true },
]) {
  test(`an abandoned relay settles as a 400, not the image host's 502 (${row.what})`, async () => {
    const relay = startRelay({ part: row.part(), writeBytes: 0 }, send);
    if (row.release) {
      await relay.contentSent;
      relay.release();
    }
    await new Promise((resolve) => setImmediate(resolve));
    relay.abort();
    const answer = await settled(relay.answer);
    assert.instance(answer, HttpError, String(answer));
    assert.is((answer as HttpError).status, 400, (answer as Error).message);
    if (!row.release) {
      const sent = await settled(relay.contentSent);
      assert.instance(sent, HttpError);
      assert.is((sent as HttpError).status, 400, (sent as Error).message);
    }
  });
}

test('an image host that fails by itself is still its 502', async () => {
  const relay = startRelay({ part: wholePart(), writeBytes: 0 }, () => Promise.reject(upstreamFailed('The image host closed the connection')));
  const answer = await settled(relay.answer);
  assert.is((answer as HttpError).status, 502);
});

test.run();
