// The tests' stand-in for the internet (helpers: https-files.ts, connect-proxy.ts,
// tls-fixtures.ts): a file on https://files.test:PORT is reached through the CONNECT
// proxy with the committed test CA, the proxy records the tunnel, refuses names it
// cannot resolve, and the certificate is refused by a client that does not trust
// the test CA.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProxyAgent, request } from 'undici';
import { startConnectProxy, type ConnectProxy } from '../../helpers/connect-proxy.js';
import { startFileServer, type FileServer } from '../../helpers/https-files.js';
import { testCa } from '../../helpers/tls-fixtures.js';

let files: FileServer;
let proxy: ConnectProxy;

test.before(async () => {
  files = await startFileServer();
  proxy = await startConnectProxy();
  files.files.set('/hello.zip', { kind: 'bytes', body: Buffer.from('hello') });
});
test.after(async () => {
  await files.close();
  await proxy.close();
});

test('a file on files.test is fetched through the proxy with the test CA', async () => {
  const agent = new ProxyAgent({ uri: proxy.url, requestTls: { ca: testCa() } });
  try {
    const answer = await request(`${files.origin}/hello.zip`, { dispatcher: agent });
    assert.is(answer.statusCode, 200);
    assert.is(await answer.body.text(), 'hello');
    assert.equal(proxy.connects.map((entry) => entry.target), [`files.test:${files.port}`]);
    assert.is(files.requests.at(-1)?.headers.host, `files.test:${files.port}`);
  } finally {
    await agent.close();
  }
});

test('the proxy refuses a name it cannot resolve, and the certificate needs the test CA', async () => {
  const cases = [
    { what: 'unknown name', url: `https://nowhere.test:${files.port}/hello.zip`, ca: true },
    { what: 'test CA not trusted', url: `${files.origin}/hello.zip`, ca: false },
  ];
  for (const { what, url, ca } of cases) {
    const agent = new ProxyAgent({ uri: proxy.url, ...(ca ? { requestTls: { ca: testCa() } } : {}) });
    try {
      const failure = await request(url, { dispatcher: agent }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failure instanceof Error, what);
    } finally {
      await agent.close();
    }
  }
});

test.run();
