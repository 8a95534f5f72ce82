// The image host as operators run it: a child process of its entrypoint on a random
// port, with its own DATA_DIR. The test build of src/imghost.ts is the same
// entrypoint as dist/imghost.js, compiled from the same sources by both test commands
// (`npm test` and `npm run test:only`), so it is never stale.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ImghostProcess {
  url: string;
  /** The image host's process id, as it logs it. */
  pid: number;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything it wrote so far, for failure messages. */
  output(): string;
}

const ENTRYPOINT = fileURLToPath(new URL('../../src/imghost.js', import.meta.url));
const START_TIMEOUT_MS = 20_000;

/** `nodeArgs`: options for node before the entrypoint (`--import` a tracer, say). */
export function startImghostProcess(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ImghostProcess> {
  const child = spawn(process.execPath, [...nodeArgs, ENTRYPOINT], {
    env: { ...process.env, HOST: '127.0.0.1', IMGHOST_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr!.on('data', (chunk) => (log += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('image host did not start: ' + log)), START_TIMEOUT_MS);
    child.on('exit', () => reject(new Error('image host exited at start: ' + log)));
    child.stdout!.on('data', (chunk) => {
      log += chunk;
      const match = /"pid":(\d+).*"msg":"image host listening".*?"url":"([^"]+)"/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[2]!, pid: Number(match[1]), child, exited, output: () => log });
      }
    });
  });
}
