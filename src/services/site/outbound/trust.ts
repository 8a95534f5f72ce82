import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { ConfigError } from '../../../settings/env.js';

// The roots outbound TLS trusts: Node's bundled ones and the file of
// NODE_EXTRA_CA_CERTS, as Node itself trusts them. Node reads that variable once,
// at its start, into its default store, which undici uses when given no `ca`; the
// site passes the roots itself so that what its settings name is what it trusts
// (a site built in a test from settings, not from its process's environment).

/** `ca` for a TLS connection: undefined (Node's default store) when no file is named; the bundled roots and the file's certificates otherwise. */
export function trustedRootsFrom(extraCaFile: string | undefined): string[] | undefined {
  if (extraCaFile === undefined) return undefined;
  let extra: string;
  try {
    extra = readFileSync(extraCaFile, 'utf8');
  } catch (error) {
    // Node warns and goes on with its own roots; the site stops with the reason
    // instead, at start-up, rather than fail every call to the internal CA's hosts.
    throw new ConfigError('NODE_EXTRA_CA_CERTS', `cannot read ${extraCaFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!extra.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError('NODE_EXTRA_CA_CERTS', `${extraCaFile} holds no PEM certificate`);
  return [...rootCertificates, extra];
}
