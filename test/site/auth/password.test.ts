// Local accounts: `npm run user` (the real CLI, spawned), POST /apps/auth/password,
// the same answer for wrong names and wrong passwords, and the failure limits.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../src/lib/project-root.js';
import { createLocalAccount, setLocalPassword } from '../../../src/services/site/auth/local-accounts.js';
import { MAX_FAILURES_PER_ADDRESS } from '../../../src/services/site/auth/password-login.js';
import { me, setCookie, setCookieLine, startAuthOnly, testSessionCookie } from '../../helpers/fake-idp.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';

const CLI = fileURLToPath(new URL('../../../src/user-cli.js', import.meta.url));
const CLI_TIMEOUT_MS = 20_000;
// Low limits for the limit tests: every attempt costs an argon2 verify, and the
// mechanism is the same whatever the numbers.
const FAILURES_PER_NAME_AND_ADDRESS = 3;
const FAILURES_PER_ADDRESS = 5;
const FAILURES_PER_NAME = 8;
// Behind a trusted proxy, so a test can come from several addresses; without the
// header an attempt comes from 127.0.0.1.
const startLimited = () =>
  startAuthOnly(
    { TRUST_PROXY: 'true' },
    {
      loginLimits: {
        failuresPerNameAndAddress: FAILURES_PER_NAME_AND_ADDRESS,
        failuresPerAddress: FAILURES_PER_ADDRESS,
        failuresPerName: FAILURES_PER_NAME,
      },
    },
  );
const from = (address: string) => ({ 'x-forwarded-for': address });
let site: TestServer;

test.before(async () => {
  site = await startTestSite();
});
// The login limits live in PostgreSQL and every attempt of this file comes from
// 127.0.0.1: each test starts with fresh counters (the login ones only: files
// running beside this one count other limits in the same table).
test.before.each(async () => {
  await testSql()`delete from rate_limits where limiter like 'login:%'`;
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

function runCli(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: projectRoot(),
      env: { ...process.env, DATABASE_URL: process.env.TEST_DB_URL, LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

async function passwordLogin(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + '/apps/auth/password', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

test('CLI add creates a local account that can log in with the session cookie', async () => {
  const result = await runCli(['add', 'dora'], 'dora-password-1\n');
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, 'created user dora\n');
  const response = await passwordLogin(site.url, { username: 'dora', password: 'dora-password-1' });
  assert.is(response.status, 200);
  assert.equal(await json(response), { success: true, user: { username: 'dora', avatar: '', admin: false } });
  const line = setCookieLine(response, 'sid') ?? '';
  assert.match(line, /^sid=[A-Za-z0-9_-]{43}; Max-Age=2592000; /);
  assert.match(line, /; Path=\/; HttpOnly; SameSite=Lax$/);
  assert.equal((await me(site.url, setCookie(response, 'sid'))).user, { username: 'dora', avatar: '', admin: false });
});

test('CLI add --admin makes an administrator, whatever ADMIN_USERS says', async () => {
  const result = await runCli(['add', 'erin', '--admin'], 'erin-password-1\r\nignored second line\n');
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, 'created administrator erin\n');
  const response = await passwordLogin(site.url, { username: 'ERIN', password: 'erin-password-1' });
  assert.is(response.status, 200);
  assert.is(((await json(response)).user as { admin: boolean }).admin, true);
});

const cliErrors: Array<{ what: string; args: string[]; stdin: string; code: number }> = [
  { what: 'name taken (case-insensitively)', args: ['add', 'DORA'], stdin: 'another-password\n', code: 1 },
  { what: 'invalid name', args: ['add', 'bad name!'], stdin: 'another-password\n', code: 1 },
  { what: 'password too short', args: ['add', 'frank'], stdin: 'short\n', code: 1 },
  { what: 'passwd of an unknown user', args: ['passwd', 'nobody'], stdin: 'another-password\n', code: 1 },
  { what: 'unknown command', args: ['remove', 'dora'], stdin: '', code: 2 },
  { what: '--admin on passwd', args: ['passwd', 'dora', '--admin'], stdin: '', code: 2 },
];

for (const c of cliErrors) {
  test(`CLI refuses: ${c.what} (exit ${c.code}, one clear line)`, async () => {
    const result = await runCli(c.args, c.stdin);
    assert.is(result.code, c.code);
    assert.is(result.stdout, '');
    const lines = result.stderr.trim().split('\n');
    assert.is(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^error: /);
  });
}

test('CLI passwd changes the password and ends the sessions of the account', async () => {
  const before = await passwordLogin(site.url, { username: 'dora', password: 'dora-password-1' });
  const oldCookie = setCookie(before, 'sid')!;
  const result = await runCli(['passwd', 'dora'], 'dora-password-2\n');
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /^password of dora changed/);
  assert.is((await me(site.url, oldCookie)).loggedIn, false);
  assert.is((await passwordLogin(site.url, { username: 'dora', password: 'dora-password-1' })).status, 401);
  assert.is((await passwordLogin(site.url, { username: 'dora', password: 'dora-password-2' })).status, 200);
});

test('module: createLocalAccount and setLocalPassword, with coded errors', async () => {
  const user = await createLocalAccount(testSql(), { username: 'gwen', password: 'gwen-password-1' });
  assert.is(user.username, 'gwen');
  assert.is(user.admin, false);
  const errors: Array<[() => Promise<unknown>, string]> = [
    [() => createLocalAccount(testSql(), { username: 'Gwen', password: 'gwen-password-1' }), 'CONFLICT'],
    [() => createLocalAccount(testSql(), { username: '', password: 'gwen-password-1' }), 'VALIDATION_FAILED'],
    [() => createLocalAccount(testSql(), { username: 'x'.repeat(65), password: 'gwen-password-1' }), 'VALIDATION_FAILED'],
    [() => createLocalAccount(testSql(), { username: 'hank', password: 'p'.repeat(1025) }), 'VALIDATION_FAILED'],
    [() => setLocalPassword(testSql(), 'nobody', 'some-password'), 'NOT_FOUND'],
  ];
  for (const [attempt, code] of errors) {
    const error = (await attempt().then(() => null, (e: unknown) => e)) as { code?: string } | null;
    assert.is(error?.code, code);
  }
  assert.is((await passwordLogin(site.url, { username: 'gwen', password: 'gwen-password-1' })).status, 200);
});

test('wrong password, unknown name and provider-only user give the same 401 INVALID_CREDENTIALS', async () => {
  await testSessionCookie(testSql(), 'provider-only');
  const answers = await Promise.all([
    passwordLogin(site.url, { username: 'gwen', password: 'wrong-password' }),
    passwordLogin(site.url, { username: 'no-such-user', password: 'wrong-password' }),
    passwordLogin(site.url, { username: 'provider-only', password: 'wrong-password' }),
    passwordLogin(site.url, { username: 'not a valid local name', password: 'wrong-password' }),
  ]);
  const bodies = await Promise.all(answers.map(json));
  for (const [i, response] of answers.entries()) {
    assert.is(response.status, 401);
    assert.is(bodies[i]!.code, 'INVALID_CREDENTIALS');
    assert.is(bodies[i]!.error, bodies[0]!.error, 'the same message for every case');
    assert.is(setCookie(response, 'sid'), undefined);
  }
});

test('regression: an unknown name is verified against the dummy hash (costs like a wrong password)', async () => {
  const time = async (username: string) => {
    const started = process.hrtime.bigint();
    await passwordLogin(site.url, { username, password: 'wrong-password' });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const wrong: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 3; i++) {
    wrong.push(await time('gwen'));
    unknown.push(await time(`ghost-${i}`));
  }
  // Without the dummy hash an unknown name answers in ~1 ms against tens of ms.
  assert.ok(median(unknown) > median(wrong) / 3, `unknown ${median(unknown)} ms vs wrong ${median(wrong)} ms`);
});

const badRequests: Array<{ what: string; body: string; contentType?: string; status: number; code: string; field?: string }> = [
  { what: 'no JSON content type', body: '{"username":"a","password":"b"}', contentType: 'text/plain', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { what: 'form content type', body: 'username=a&password=b', contentType: 'application/x-www-form-urlencoded', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { what: 'malformed JSON', body: '{"username":', status: 400, code: 'BAD_REQUEST' },
  { what: 'a JSON array', body: '["a","b"]', status: 400, code: 'BAD_REQUEST' },
  { what: 'missing username', body: '{"password":"some-password"}', status: 400, code: 'VALIDATION_FAILED', field: 'username' },
  { what: 'numeric username', body: '{"username":12,"password":"some-password"}', status: 400, code: 'VALIDATION_FAILED', field: 'username' },
  { what: 'missing password', body: '{"username":"gwen"}', status: 400, code: 'VALIDATION_FAILED', field: 'password' },
  { what: 'over-long password', body: JSON.stringify({ username: 'gwen', password: 'p'.repeat(1025) }), status: 400, code: 'VALIDATION_FAILED', field: 'password' },
  { what: 'over-long username', body: JSON.stringify({ username: 'u'.repeat(65), password: 'some-password' }), status: 400, code: 'VALIDATION_FAILED', field: 'username' },
];

for (const c of badRequests) {
  test(`password login refuses ${c.what} with ${c.status} ${c.code}`, async () => {
    const response = await fetch(site.url + '/apps/auth/password', {
      method: 'POST',
      headers: { 'content-type': c.contentType ?? 'application/json' },
      body: c.body,
    });
    assert.is(response.status, c.status);
    const body = await json(response);
    assert.is(body.success, false);
    assert.is(body.code, c.code);
    if (c.field) assert.is(body.field, c.field);
  });
}

test('failures per name and address are limited: 429 RATE_LIMITED with Retry-After, even for the right password', async () => {
  const limited = await startLimited();
  try {
    await createLocalAccount(testSql(), { username: 'ivan', password: 'ivan-password-1' });
    for (let i = 0; i < FAILURES_PER_NAME_AND_ADDRESS; i++) {
      assert.is((await passwordLogin(limited.url, { username: 'ivan', password: `wrong-${i}` })).status, 401);
    }
    const refused = await passwordLogin(limited.url, { username: 'IVAN', password: 'ivan-password-1' });
    assert.is(refused.status, 429);
    assert.is((await json(refused)).code, 'RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
    // Another name from the same address is still served.
    assert.is((await passwordLogin(limited.url, { username: 'gwen', password: 'gwen-password-1' })).status, 200);
  } finally {
    await limited.close();
  }
});

test('a successful login resets the failures counted for the name from that address', async () => {
  const limited = await startLimited();
  try {
    await createLocalAccount(testSql(), { username: 'judy', password: 'judy-password-1' });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < FAILURES_PER_NAME_AND_ADDRESS - 1; i++) {
        assert.is((await passwordLogin(limited.url, { username: 'judy', password: 'wrong' })).status, 401);
      }
      assert.is((await passwordLogin(limited.url, { username: 'judy', password: 'judy-password-1' })).status, 200);
    }
  } finally {
    await limited.close();
  }
});

test('failures per client address are limited across names', async () => {
  const limited = await startLimited();
  try {
    const attempts = Array.from({ length: FAILURES_PER_ADDRESS }, (_, i) =>
      passwordLogin(limited.url, { username: `spray-${i}`, password: 'wrong-password' }),
    );
    for (const response of await Promise.all(attempts)) assert.is(response.status, 401);
    const refused = await passwordLogin(limited.url, { username: 'spray-last', password: 'wrong-password' });
    assert.is(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  } finally {
    await limited.close();
  }
});

test('regression: login limits are shared by two site processes on one database', async () => {
  const [one, two] = await Promise.all([startLimited(), startLimited()]);
  try {
    for (let i = 0; i < FAILURES_PER_NAME_AND_ADDRESS; i++) {
      const through = i % 2 === 0 ? one : two;
      assert.is((await passwordLogin(through.url, { username: 'shared-name', password: `wrong-${i}` })).status, 401);
    }
    for (const through of [one, two]) {
      assert.is((await passwordLogin(through.url, { username: 'shared-name', password: 'wrong' })).status, 429);
    }
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

test('regression: concurrent failures through two processes never exceed the address limit', async () => {
  const [one, two] = await Promise.all([startLimited(), startLimited()]);
  try {
    const attempts = Array.from({ length: 4 * FAILURES_PER_ADDRESS }, (_, i) =>
      passwordLogin((i % 2 === 0 ? one : two).url, { username: `burst-${i}`, password: 'wrong-password' }),
    );
    const statuses = (await Promise.all(attempts)).map((response) => response.status);
    assert.is(statuses.filter((status) => status === 401).length, FAILURES_PER_ADDRESS);
    assert.is(statuses.filter((status) => status === 429).length, 3 * FAILURES_PER_ADDRESS);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

test('regression: failures from one address do not lock the account for other addresses', async () => {
  const limited = await startLimited();
  try {
    await createLocalAccount(testSql(), { username: 'lena', password: 'lena-password-1' });
    for (let i = 0; i < FAILURES_PER_NAME_AND_ADDRESS; i++) {
      assert.is((await passwordLogin(limited.url, { username: 'lena', password: 'wrong' }, from('203.0.113.66'))).status, 401);
    }
    assert.is((await passwordLogin(limited.url, { username: 'lena', password: 'lena-password-1' }, from('203.0.113.66'))).status, 429);
    const owner = await passwordLogin(limited.url, { username: 'LENA', password: 'lena-password-1' }, from('198.51.100.20'));
    assert.is(owner.status, 200, 'the owner, elsewhere, still logs in');
  } finally {
    await limited.close();
  }
});

test('failures against one name from many addresses reach a much higher limit', async () => {
  const limited = await startLimited();
  try {
    await createLocalAccount(testSql(), { username: 'mona', password: 'mona-password-1' });
    for (let i = 0; i < FAILURES_PER_NAME; i++) {
      assert.is((await passwordLogin(limited.url, { username: 'mona', password: 'wrong' }, from(`198.51.100.${i + 1}`))).status, 401);
    }
    const refused = await passwordLogin(limited.url, { username: 'mona', password: 'mona-password-1' }, from('198.51.100.200'));
    assert.is(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  } finally {
    await limited.close();
  }
});

const spoofedAddressCases = [
  { what: 'a client-written left-most X-Forwarded-For entry', forwardedFor: (i: number) => `10.1.${i}.7, 203.0.113.9` },
  { what: 'a new IPv6 address of the same /64 each time', forwardedFor: (i: number) => `2001:db8:77:1::${(i + 1).toString(16)}` },
];
for (const c of spoofedAddressCases) {
  test(`regression: TRUST_PROXY: 35 wrong logins with ${c.what} reach the 429`, async () => {
    const proxied = await startTestSite({ TRUST_PROXY: 'true' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 35; i++) {
        const response = await passwordLogin(proxied.url, { username: `spoof-${i}`, password: 'wrong-password' }, { 'x-forwarded-for': c.forwardedFor(i) });
        statuses.push(response.status);
      }
      assert.equal(statuses.slice(0, MAX_FAILURES_PER_ADDRESS), Array(MAX_FAILURES_PER_ADDRESS).fill(401));
      assert.equal(statuses.slice(MAX_FAILURES_PER_ADDRESS), Array(35 - MAX_FAILURES_PER_ADDRESS).fill(429));
    } finally {
      await proxied.close();
    }
  });
}

test('ADMIN_USERS applies to local accounts at each login', async () => {
  await createLocalAccount(testSql(), { username: 'kate', password: 'kate-password-1' });
  const listed = await startTestSite({ ADMIN_USERS: 'Kate' });
  try {
    const response = await passwordLogin(listed.url, { username: 'kate', password: 'kate-password-1' });
    assert.is(((await json(response)).user as { admin: boolean }).admin, true);
  } finally {
    await listed.close();
  }
  const response = await passwordLogin(site.url, { username: 'kate', password: 'kate-password-1' });
  assert.is(((await json(response)).user as { admin: boolean }).admin, false);
});

test.run();
