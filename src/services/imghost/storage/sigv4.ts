import { createHash, createHmac } from 'node:crypto';

// AWS Signature Version 4 (header form), written here rather than taken from an SDK:
// the image host signs four kinds of request to one bucket, and @aws-sdk/client-s3
// would bring megabytes of code and start-up time for that. Checked against AWS's
// published test suite (test/fixtures/sigv4), step by step: canonical request,
// string to sign, signature.

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SignInput {
  method: string;
  /** The path as sent, already percent-encoded (S3 keys are encoded once, never twice). */
  path: string;
  /** Query pairs, decoded; the signer encodes and sorts them. */
  query?: [string, string][];
  /** Every header to sign, host and x-amz-date included; names in any case. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body, or "UNSIGNED-PAYLOAD". */
  payloadHash: string;
  region: string;
  service: string;
  /** "20150830T123600Z" */
  amzDate: string;
  credentials: Credentials;
}

export interface Signed {
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** RFC 3986 unreserved characters stay; everything else is %XX of its UTF-8 bytes, upper case. */
export function uriEncode(text: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/')) out += char;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** "20150830T123600Z" for a Date. */
export function amzDateOf(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

function canonicalQuery(query: [string, string][]): string {
  const pairs = query.map(([name, value]) => [uriEncode(name), uriEncode(value)] as const);
  // Sorted by encoded name, then by value (the suite's get-vanilla-query-order-value).
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function canonicalHeaders(headers: Record<string, string>): { text: string; signed: string } {
  const entries = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim().replace(/ +/g, ' ')] as const);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    text: entries.map(([name, value]) => `${name}:${value}\n`).join(''),
    signed: entries.map(([name]) => name).join(';'),
  };
}

/** The signing key for a day, region and service: derived once per day in practice (signingKeys below). */
export function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
}

export function sign(input: SignInput, key?: Buffer): Signed {
  const headers = canonicalHeaders(input.headers);
  const canonicalRequest = [
    input.method,
    input.path,
    canonicalQuery(input.query ?? []),
    headers.text,
    headers.signed,
    input.payloadHash,
  ].join('\n');
  const day = input.amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', input.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const derived = key ?? signingKey(input.credentials.secretAccessKey, day, input.region, input.service);
  const signature = createHmac('sha256', derived).update(stringToSign).digest('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${headers.signed}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signature, authorization };
}

/** Signing keys remembered per day: four HMACs saved on every request. */
export function signingKeys(credentials: Credentials, region: string, service: string) {
  let day = '';
  let key: Buffer = Buffer.alloc(0);
  return (amzDate: string): Buffer => {
    if (amzDate.slice(0, 8) !== day) {
      day = amzDate.slice(0, 8);
      key = signingKey(credentials.secretAccessKey, day, region, service);
    }
    return key;
  };
}
