// `npm run user -- add NAME [--admin]` and `npm run user -- passwd NAME`: local
// accounts, for installs without an identity provider and for the first
// administrator. The password comes from stdin: typed without echo on a terminal,
// or the first line of a pipe (`printf '%s\n' "$PW" | npm run user -- add alice`),
// never from the command line, where `ps` and shell history would show it.
// With the embedded PostgreSQL (no DATABASE_URL), it uses the one `npm start` is
// running on the same data folder, or starts it for the moment.
import { isHttpError } from './http/errors.js';
import { createLogger } from './lib/log.js';
import { createLocalAccount, setLocalPassword } from './services/site/auth/local-accounts.js';
import { MAX_PASSWORD_LENGTH, passwordProblem } from './services/site/auth/passwords.js';
import { isValidLocalUsername, MAX_USERNAME_LENGTH } from './services/site/auth/usernames.js';

const USAGE = 'usage: npm run user -- add NAME [--admin]  |  npm run user -- passwd NAME   (password on stdin)';
/** A UTF-8 code point takes at most 4 bytes; more than this before a newline is not a password. */
const MAX_LINE_BYTES = MAX_PASSWORD_LENGTH * 4 + 2;
const EXIT_USAGE = 2;
const EXIT_INTERRUPTED = 130;

interface Command {
  action: 'add' | 'passwd';
  name: string;
  admin: boolean;
}

function parseArgs(args: string[]): Command | null {
  const [action, name, ...rest] = args;
  if ((action !== 'add' && action !== 'passwd') || name === undefined || name.startsWith('-')) return null;
  const admin = rest.includes('--admin');
  if (rest.some((arg) => arg !== '--admin') || (admin && action !== 'add')) return null;
  return { action, name, admin };
}

function fail(message: string, code = 1): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

/** First line of a pipe or file, without its line ending. */
function readFirstLine(stream: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (error: Error | null, line?: string) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.pause();
      stream.destroy();
      if (error) reject(error);
      else resolve(line!);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const newline = buffered.indexOf(0x0a);
      if (newline !== -1) return finish(null, buffered.subarray(0, newline).toString('utf8').replace(/\r$/, ''));
      if (buffered.length > MAX_LINE_BYTES) finish(new Error(`the password line is longer than ${MAX_LINE_BYTES} bytes`));
    };
    const onEnd = () => finish(null, buffered.toString('utf8').replace(/\r$/, ''));
    const onError = (error: Error) => finish(error);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

/** Reads a line from the terminal without echoing it. */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve) => {
    let typed = '';
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          return resolve(typed);
        }
        if (char === '\u0003' || char === '\u0004') {
          // Ctrl-C or Ctrl-D: raw mode delivers them as characters, not signals.
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(EXIT_INTERRUPTED);
        }
        if (char === '\u007f' || char === '\b') typed = Array.from(typed).slice(0, -1).join('');
        else if (char >= ' ' && typed.length <= MAX_PASSWORD_LENGTH * 2) typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) return readFirstLine(process.stdin);
  const first = await readHidden('Password: ');
  const again = await readHidden('Password again: ');
  if (first !== again) fail('the two passwords differ');
  return first;
}

const command = parseArgs(process.argv.slice(2));
if (!command) fail(USAGE, EXIT_USAGE);
if (!isValidLocalUsername(command.name)) {
  fail(`"${command.name}" is not a valid name: 1 to ${MAX_USERNAME_LENGTH} letters, digits, "_", "." or "-"`);
}
const password = await readPassword().catch((error: unknown) =>
  fail(`could not read the password from stdin: ${error instanceof Error ? error.message : String(error)}`),
);
const problem = passwordProblem(password);
if (problem) fail(problem);

// Loaded only now: boot.js pulls in both services (sharp included), which a usage
// error or a refused password need not wait for.
const { openDatabase, readConfigOrExit } = await import('./boot.js');
const { startLifecycle } = await import('./lifecycle.js');
const config = readConfigOrExit();
// Start-up notes go to stderr as JSON lines; stdout keeps the one result line.
const log = createLogger({ component: 'user-cli' }, { level: 'warn', write: (line) => process.stderr.write(line) });
// From here a signal stops the embedded PostgreSQL this command started.
const lifecycle = startLifecycle(log, { exitCodeOnSignal: EXIT_INTERRUPTED });
const database = await lifecycle.step('database unavailable', (signal) => openDatabase(config, log, signal));
try {
  if (command.action === 'add') {
    const user = await createLocalAccount(database.sql, { username: command.name, password, admin: command.admin });
    process.stdout.write(`created ${user.admin ? 'administrator' : 'user'} ${user.username}\n`);
  } else {
    await setLocalPassword(database.sql, command.name, password);
    process.stdout.write(`password of ${command.name} changed; its sessions were ended\n`);
  }
} catch (error) {
  process.stderr.write(`error: ${isHttpError(error) ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
