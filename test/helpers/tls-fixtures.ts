// The tests' certificate authority and the server certificate it signs, made once
// by test/fixtures/tls/make-certs.sh (valid until 2126) and committed, so no test
// needs openssl. The certificate names files.test, other.test, receiver.test,
// idp.test, proxy.test and 127.0.0.1; the test proxy (connect-proxy.ts) takes
// those names to 127.0.0.1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/project-root.js';

const dir = () => join(projectRoot(), 'test', 'fixtures', 'tls');

/** The path of the CA certificate, as NODE_EXTRA_CA_CERTS would name it. */
export const testCaPath = (): string => join(dir(), 'ca.pem');
export const testCa = (): string => readFileSync(testCaPath(), 'utf8');
export const testServerCert = (): { key: string; cert: string } => ({
  key: readFileSync(join(dir(), 'server-key.pem'), 'utf8'),
  cert: readFileSync(join(dir(), 'server.pem'), 'utf8'),
});
