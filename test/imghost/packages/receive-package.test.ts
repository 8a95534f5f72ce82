// A package upload whose client leaves mid-body (a launcher's connection dropped, the
// site's relay abandoned) is an ordinary 400 with its temp file gone, not an error
// of ours: it used to reach the app as an unhandled ECONNRESET, logged at error level
// with its stack, so anyone could fill the log with error lines.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../src/http/errors.js';
import { silentLogger } from '../../../src/lib/log.js';
import { createTempArea } from '../../../src/services/imghost/storage/temp-files.js';
import { receivePackage } from '../../../src/services/imghost/packages/receive-package.js';
import { tempDir } from '../../helpers/servers.js';

const dir = tempDir('lw-pkg-receive-');
const temps = createTempArea(dir, silentLogger);
let server: Server;
let outcome: Promise<unknown>;

test.before(async () => {
  let received!: (req: IncomingMessage) => void;
  const request = new Promise<IncomingMessage>((resolve) => (received = resolve));
  outcome = request.then((req) => receivePackage(req, temps, 1024 * 1024).then(() => 'stored', (error: unknown) => error));
  server = createServer((req) => received(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
test.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a client that leaves mid-body gets 400 BAD_REQUEST, and no temp file stays', async () => {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('POST /api/packages HTTP/1.1\r\nHost: x\r\nContent-Type: application/zip\r\nContent-Length: 1000\r\n\r\nPK\x03\x04abc');
  setTimeout(() => socket.destroy(), 100);
  const error = await outcome;
  assert.instance(error, HttpError);
  assert.equal([(error as HttpError).status, (error as HttpError).code], [400, 'BAD_REQUEST']);
  assert.equal(readdirSync(dir), [], 'the temp file is gone');
});

test.run();
