import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../src/boot.js';
import { ConfigError } from '../../src/settings/env.js';
import { parseDotenv } from '../../src/lib/dotenv.js';

test('defaults follow the configuration table', () => {
  const config = loadSettings({});
  assert.is(config.host, '127.0.0.1');
  assert.is(config.sitePort, 3000);
  assert.is(config.imghostPort, 3001);
  assert.is(config.publicUrl, 'http://localhost:3000');
  assert.is(config.imageHostUrl, 'http://127.0.0.1:3001');
  assert.is(config.imageHostPublicUrl, 'http://127.0.0.1:3001');
  assert.is(config.imghostMaxBytes, 8388608);
  assert.is(config.installScheme, 'bloret');
  assert.is(config.trustProxy, 0);
  assert.is(config.secureCookies, false);
  assert.is(config.oauth, undefined);
  assert.ok(config.dataDir.endsWith('/data'));
  assert.ok(config.imagesDir.endsWith('/data/images'));
  assert.ok(config.launcherConfig.endsWith('/config/launcher.json'));
});

test('PORT is the fallback of both ports', () => {
  const config = loadSettings({ PORT: '8080' });
  assert.is(config.sitePort, 8080);
  assert.is(config.imghostPort, 8080);
  assert.is(loadSettings({ PORT: '8080', SITE_PORT: '9000' }).sitePort, 9000);
});

test('https PUBLIC_URL makes cookies Secure; trailing slash dropped', () => {
  const config = loadSettings({ PUBLIC_URL: 'https://store.example/', ADMIN_USERS: ' alice, bob ,,' });
  assert.is(config.publicUrl, 'https://store.example');
  assert.is(config.secureCookies, true);
  assert.equal([...config.adminUsers], ['alice', 'bob']);
});

test('OAuth settings come all together', () => {
  const oauth = loadSettings({
    OAUTH_AUTHORIZE_URL: 'https://idp.example/authorize',
    OAUTH_TOKEN_URL: 'https://idp.example/token',
    OAUTH_USERINFO_URL: 'https://idp.example/userinfo',
    OAUTH_CLIENT_ID: 'client',
  }).oauth;
  assert.is(oauth?.scope, 'openid profile');
  assert.throws(() => loadSettings({ OAUTH_AUTHORIZE_URL: 'https://idp.example/authorize' }), (e: unknown) => e instanceof ConfigError && e.variable === 'OAUTH_TOKEN_URL');
});

const trustProxyCases = [
  { what: 'false', value: 'false', hops: 0 },
  { what: 'no', value: 'no', hops: 0 },
  { what: 'zero', value: '0', hops: 0 },
  { what: 'true is one proxy', value: 'true', hops: 1 },
  { what: 'TRUE', value: 'TRUE', hops: 1 },
  { what: 'one', value: '1', hops: 1 },
  { what: 'a chain of two', value: '2', hops: 2 },
  { what: 'the most', value: '10', hops: 10 },
];
for (const c of trustProxyCases) {
  test(`TRUST_PROXY=${c.value} (${c.what}) trusts ${c.hops} proxies`, () => {
    assert.is(loadSettings({ TRUST_PROXY: c.value }).trustProxy, c.hops);
  });
}

const bad = [
  { what: 'port not a number', env: { SITE_PORT: 'abc' }, variable: 'SITE_PORT' },
  { what: 'port too large', env: { IMGHOST_PORT: '70000' }, variable: 'IMGHOST_PORT' },
  { what: 'PORT garbage', env: { PORT: '-1' }, variable: 'PORT' },
  { what: 'database URL scheme', env: { DATABASE_URL: 'mysql://x' }, variable: 'DATABASE_URL' },
  { what: 'database URL unparsable', env: { DATABASE_URL: 'not a url' }, variable: 'DATABASE_URL' },
  { what: 'public URL scheme', env: { PUBLIC_URL: 'ftp://x' }, variable: 'PUBLIC_URL' },
  { what: 'image host URL with credentials', env: { IMAGE_HOST_URL: 'http://u:p@x' }, variable: 'IMAGE_HOST_URL' },
  { what: 'max bytes zero', env: { IMGHOST_MAX_BYTES: '0' }, variable: 'IMGHOST_MAX_BYTES' },
  { what: 'max bytes text', env: { IMGHOST_MAX_BYTES: '8MB' }, variable: 'IMGHOST_MAX_BYTES' },
  { what: 'min free bytes text', env: { IMGHOST_MIN_FREE_BYTES: '1GB' }, variable: 'IMGHOST_MIN_FREE_BYTES' },
  { what: 'min free bytes negative', env: { IMGHOST_MIN_FREE_BYTES: '-1' }, variable: 'IMGHOST_MIN_FREE_BYTES' },
  { what: 'trust proxy', env: { TRUST_PROXY: 'maybe' }, variable: 'TRUST_PROXY' },
  { what: 'trust proxy hops beyond the bound', env: { TRUST_PROXY: '11' }, variable: 'TRUST_PROXY' },
  { what: 'trust proxy negative', env: { TRUST_PROXY: '-1' }, variable: 'TRUST_PROXY' },
  { what: 'install scheme', env: { INSTALL_SCHEME: 'bad scheme' }, variable: 'INSTALL_SCHEME' },
  { what: 'host', env: { HOST: 'a b' }, variable: 'HOST' },
  { what: 'token with spaces', env: { IMGHOST_UPLOAD_TOKEN: 'a b' }, variable: 'IMGHOST_UPLOAD_TOKEN' },
  { what: 'LOG_LEVEL=bogus is not silently info', env: { LOG_LEVEL: 'bogus' }, variable: 'LOG_LEVEL' },
  { what: 'log level with a typo', env: { LOG_LEVEL: 'warning' }, variable: 'LOG_LEVEL' },
  { what: 'stale seconds not a number', env: { STALE_IF_ERROR_SECONDS: '10m' }, variable: 'STALE_IF_ERROR_SECONDS' },
  { what: 'stale seconds negative', env: { STALE_IF_ERROR_SECONDS: '-1' }, variable: 'STALE_IF_ERROR_SECONDS' },
  { what: 'stale seconds beyond a day', env: { STALE_IF_ERROR_SECONDS: '86401' }, variable: 'STALE_IF_ERROR_SECONDS' },
  { what: 'webhook port not a number', env: { WEBHOOK_ALLOWED_PORTS: 'ssh' }, variable: 'WEBHOOK_ALLOWED_PORTS' },
  { what: 'webhook port zero', env: { WEBHOOK_ALLOWED_PORTS: '0' }, variable: 'WEBHOOK_ALLOWED_PORTS' },
  { what: 'webhook port too large', env: { WEBHOOK_ALLOWED_PORTS: '9443,70000' }, variable: 'WEBHOOK_ALLOWED_PORTS' },
  { what: 'webhook port range', env: { WEBHOOK_ALLOWED_PORTS: '9000-9100' }, variable: 'WEBHOOK_ALLOWED_PORTS' },
  { what: 'webhook ports with an empty entry', env: { WEBHOOK_ALLOWED_PORTS: '9443,,10443' }, variable: 'WEBHOOK_ALLOWED_PORTS' },
  { what: 'a download host with a scheme', env: { DOWNLOAD_HOSTS: 'https://store.bloret.com' }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'a download host with a port', env: { DOWNLOAD_HOSTS: 'store.bloret.com:443' }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'a download host with a path', env: { DOWNLOAD_HOSTS: 'store.bloret.com/pkg' }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'download hosts separated by spaces', env: { DOWNLOAD_HOSTS: 'github.com gitee.com' }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'a download host not in its xn-- form', env: { DOWNLOAD_HOSTS: 'bücher.example' }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'a wildcard download host', env: { DOWNLOAD_HOSTS: '*.bloret.com' }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'more than 64 download hosts', env: { DOWNLOAD_HOSTS: Array.from({ length: 65 }, (_, i) => `h${i}.example`).join(',') }, variable: 'DOWNLOAD_HOSTS' },
  { what: 'an image host whose public address is not in DOWNLOAD_HOSTS', env: { DOWNLOAD_HOSTS: 'store.bloret.com', IMAGE_HOST_PUBLIC_URL: 'https://img.example.org' }, variable: 'IMAGE_HOST_PUBLIC_URL' },
  { what: 'an image host on a parent of the only download host', env: { DOWNLOAD_HOSTS: 'store.bloret.com', IMAGE_HOST_PUBLIC_URL: 'https://bloret.com/files' }, variable: 'IMAGE_HOST_PUBLIC_URL' },
  { what: 'DOWNLOAD_HOSTS set and the image host at its default address', env: { DOWNLOAD_HOSTS: 'store.bloret.com' }, variable: 'IMAGE_HOST_PUBLIC_URL' },
];
for (const c of bad) {
  test(`invalid: ${c.what} names ${c.variable}`, () => {
    assert.throws(() => loadSettings(c.env), (e: unknown) => e instanceof ConfigError && e.variable === c.variable);
  });
}

const downloadHosts = [
  { what: 'unset: none (any https host)', env: {}, hosts: [] },
  { what: 'blank: none', env: { DOWNLOAD_HOSTS: ' , ' }, hosts: [] },
  { what: 'lower-cased, trimmed, blanks, repeats and a leading dot dropped', env: { DOWNLOAD_HOSTS: ' Store.Bloret.com, .github.com ,,store.bloret.com', IMAGE_HOST_PUBLIC_URL: 'https://store.bloret.com/files' }, hosts: ['store.bloret.com', 'github.com'] },
  { what: 'the image host on a subdomain of a listed host', env: { DOWNLOAD_HOSTS: 'bloret.com', IMAGE_HOST_PUBLIC_URL: 'https://cdn.store.bloret.com' }, hosts: ['bloret.com'] },
  { what: 'an address as a host', env: { DOWNLOAD_HOSTS: '127.0.0.1' }, hosts: ['127.0.0.1'] },
];
for (const c of downloadHosts) {
  test(`DOWNLOAD_HOSTS ${c.what}`, () => {
    assert.equal(loadSettings(c.env).downloadHosts, c.hosts);
  });
}

test('DOWNLOAD_HOSTS: an image host elsewhere is refused in one line naming IMAGE_HOST_PUBLIC_URL, its host and the list', () => {
  assert.throws(
    () => loadSettings({ DOWNLOAD_HOSTS: 'store.bloret.com,github.com', IMAGE_HOST_PUBLIC_URL: 'https://img.example.org/x' }),
    (e: unknown) => e instanceof ConfigError && !e.message.includes('\n') && /^IMAGE_HOST_PUBLIC_URL: .*img\.example\.org.*DOWNLOAD_HOSTS \(store\.bloret\.com, github\.com\)/.test(e.message),
  );
});

const staleSeconds = [
  { what: 'unset is ten minutes', env: {}, seconds: 600 },
  { what: 'zero serves nothing stale', env: { STALE_IF_ERROR_SECONDS: '0' }, seconds: 0 },
  { what: 'a day at most', env: { STALE_IF_ERROR_SECONDS: '86400' }, seconds: 86_400 },
];
for (const c of staleSeconds) {
  test(`STALE_IF_ERROR_SECONDS ${c.what}`, () => {
    assert.is(loadSettings(c.env).staleIfErrorSeconds, c.seconds);
  });
}

const webhookPorts = [
  { what: 'unset: 443 and 8443', value: undefined, ports: [443, 8443] },
  { what: 'blank', value: '  ', ports: [443, 8443] },
  { what: 'one more', value: '9443', ports: [443, 8443, 9443] },
  { what: 'a list, spaces, repeats and the defaults', value: ' 10443, 9443 ,443,9443', ports: [443, 8443, 9443, 10443] },
];
for (const c of webhookPorts) {
  test(`WEBHOOK_ALLOWED_PORTS ${c.what}`, () => {
    assert.equal(loadSettings({ WEBHOOK_ALLOWED_PORTS: c.value }).webhookPorts, c.ports);
  });
}

const minFree = [
  { what: 'unset: room for 8 uploads of the default size', env: {}, bytes: 8 * 8388608 },
  { what: 'unset: follows IMGHOST_MAX_BYTES', env: { IMGHOST_MAX_BYTES: '1000' }, bytes: 8000 },
  { what: 'set', env: { IMGHOST_MIN_FREE_BYTES: '123456' }, bytes: 123456 },
  { what: 'zero turns the check off', env: { IMGHOST_MIN_FREE_BYTES: '0' }, bytes: 0 },
];
for (const c of minFree) {
  test(`IMGHOST_MIN_FREE_BYTES ${c.what}`, () => {
    assert.is(loadSettings(c.env).imghostMinFreeBytes, c.bytes);
  });
}

const logLevels = [
  { what: 'unset', value: undefined, level: 'info' },
  { what: 'debug', value: 'debug', level: 'debug' },
  { what: 'any case', value: 'WARN', level: 'warn' },
  { what: 'error', value: 'error', level: 'error' },
];
for (const c of logLevels) {
  test(`LOG_LEVEL ${c.what} gives ${c.level}`, () => {
    assert.is(loadSettings({ LOG_LEVEL: c.value }).logLevel, c.level);
  });
}

test('dotenv: comments, quotes, export, inline comments', () => {
  const values = parseDotenv('# c\nA=1\nexport B="two words"\nC=\'x#y\'\nD=3 # note\nbad line\n');
  assert.equal(Object.fromEntries(values), { A: '1', B: 'two words', C: 'x#y', D: '3' });
});

const entrypointCases = [
  { what: 'site, bad port', entrypoint: 'site.js', env: { SITE_PORT: 'nope' }, variable: 'SITE_PORT' },
  { what: 'image host, LOG_LEVEL=bogus', entrypoint: 'imghost.js', env: { LOG_LEVEL: 'bogus' }, variable: 'LOG_LEVEL' },
];
for (const c of entrypointCases) {
  test(`entrypoint: a bad variable stops start-up with one line naming it, no stack trace (${c.what})`, () => {
    const script = fileURLToPath(new URL(`../../src/${c.entrypoint}`, import.meta.url));
    const result = spawnSync(process.execPath, [script], { env: { ...process.env, ...c.env }, encoding: 'utf8', timeout: 20_000 });
    assert.is(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.is(lines.length, 1, result.stderr);
    assert.match(lines[0]!, new RegExp(`^configuration error: ${c.variable}: `));
    assert.not.match(result.stderr, /at .*\.js:\d+/);
    assert.is(result.stdout, '', 'nothing started, nothing logged');
  });
}

test.run();
