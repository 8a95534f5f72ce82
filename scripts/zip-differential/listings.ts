// How each reader lists an archive: Python's zipfile (what the Bloret launcher
// extracts with), Info-ZIP unzip, and libarchive's bsdtar reading the file and
// reading a pipe (a streaming reader, which walks the local headers). Each runs
// with a UTF-8 locale, so that names come out as they would be written to disk.
import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';

/** One entry as a reader sees it; `size` is null where the reader's listing gives none. */
export interface Listed {
  name: string;
  size: number | null;
}

export interface Lister {
  /** The command as a person would type it. */
  label: string;
  /** The program that must be installed. */
  program: string;
  list(path: string): Promise<Listed[]>;
}

const TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 64 * 1024 * 1024;
const env = { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', PYTHONIOENCODING: 'utf-8' };

/** A listing that failed: the reader refused the archive, or could not be run. */
export class ListingFailed extends Error {}

function run(program: string, args: string[], stdinPath?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(program, args, { env, timeout: TIMEOUT_MS, maxBuffer: MAX_OUTPUT, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new ListingFailed(`${error.code === 'ENOENT' ? 'not installed' : `exit ${error.code ?? error.signal}`}: ${saying(stderr || error.message)}`));
      else resolve(stdout);
    });
    if (stdinPath === undefined) child.stdin?.end();
    else createReadStream(stdinPath).on('error', reject).pipe(child.stdin!).on('error', () => {});
  });
}

const firstLine = (text: string) => text.trim().split('\n')[0]!.slice(0, 200);
/** What a failing reader said: its first line, or a Python traceback's last (the exception). */
const saying = (text: string) => (text.startsWith('Traceback') ? text.trim().split('\n').at(-1)!.slice(0, 200) : firstLine(text));
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

// testzip() reads every entry and checks its CRC: data Python cannot read is a difference too.
const PYTHON_LISTING = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit(f"testzip: {bad!r} is damaged")
    print(json.dumps([[info.filename, info.file_size] for info in z.infolist()]))
`;

/** `unzip -l`'s entry lines: length, date, time, three spaces, the name (which may start with spaces). */
const UNZIP_LINE = /^ *(\d+) {2}\S+ \S+ {3}(.*)$/s;

export function parseUnzipList(output: string): Listed[] {
  const all = output.split('\n');
  const rulers = all.flatMap((line, i) => (/^-{9} /.test(line) ? [i] : []));
  if (rulers.length < 2) throw new ListingFailed(`unexpected unzip -l output: ${firstLine(output)}`);
  return all.slice(rulers[0]! + 1, rulers[1]).map((line) => {
    const match = UNZIP_LINE.exec(line);
    if (!match) throw new ListingFailed(`unexpected unzip -l line: ${line}`);
    return { name: match[2]!, size: Number(match[1]) };
  });
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '\\': 0x5c };

/**
 * A name as bsdtar printed it, back to the name: it shows each byte of a character
 * it deems unprintable as \ooo (U+2028 as \342\200\250), some controls as \n and
 * the like, and a backslash as \\.
 */
export function unescapeBsdtar(line: string): string {
  const bytes: Buffer[] = [];
  for (let at = 0; at < line.length; ) {
    const octal = /^\\([0-7]{3})/.exec(line.slice(at, at + 4));
    const escaped = line[at] === '\\' ? C_ESCAPES[line[at + 1] ?? ''] : undefined;
    if (octal) {
      bytes.push(Buffer.from([parseInt(octal[1]!, 8)]));
      at += 4;
    } else if (escaped !== undefined) {
      bytes.push(Buffer.from([escaped]));
      at += 2;
    } else {
      const c = String.fromCodePoint(line.codePointAt(at)!);
      bytes.push(Buffer.from(c, 'utf8'));
      at += c.length;
    }
  }
  return Buffer.concat(bytes).toString('utf8');
}

const bsdtarNames = (output: string) => lines(output).map((line) => ({ name: unescapeBsdtar(line), size: null }));

export const LISTERS: Lister[] = [
  {
    label: 'python3 zipfile (infolist, testzip)',
    program: 'python3',
    list: async (path) => (JSON.parse(await run('python3', ['-c', PYTHON_LISTING, path])) as Array<[string, number]>).map(([name, size]) => ({ name, size })),
  },
  { label: 'unzip -Z1', program: 'unzip', list: async (path) => lines(await run('unzip', ['-Z1', path])).map((name) => ({ name, size: null })) },
  { label: 'unzip -l', program: 'unzip', list: async (path) => parseUnzipList(await run('unzip', ['-l', path])) },
  { label: 'bsdtar -tf', program: 'bsdtar', list: async (path) => bsdtarNames(await run('bsdtar', ['-tf', path])) },
  { label: 'cat | bsdtar -tf -', program: 'bsdtar', list: async (path) => bsdtarNames(await run('bsdtar', ['-tf', '-'], path)) },
];

const VERSION_ARGS: Record<string, string[]> = { python3: ['--version'], unzip: ['-v'], bsdtar: ['--version'] };

/** The program's version line, or null when it is not installed. */
export async function installedVersion(program: string): Promise<string | null> {
  try {
    return firstLine(await run(program, VERSION_ARGS[program] ?? ['--version']));
  } catch (error) {
    if (error instanceof ListingFailed && error.message.startsWith('not installed')) return null;
    return 'version unknown';
  }
}
