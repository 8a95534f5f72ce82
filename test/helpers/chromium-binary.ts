// Where the browser tests' Chromium is: CHROMIUM_PATH when set, else the one the
// npm package @sparticuz/chromium ships inside itself (brotli-compressed in its bin/
// folder), unpacked once per package version into the temp folder. Nothing is ever
// downloaded and no system package is needed.
//
// The package's own executablePath() unpacks into os.tmpdir() and takes "the file
// exists" for "the file is whole", so two test processes starting together (the
// runner runs two files at once) could launch a half-written binary. Here each
// process unpacks into its own fresh folder (a child process whose TMPDIR is that
// folder) and renames the finished folder into place: the rename is atomic, the
// first one wins, a loser deletes its copy and uses the winner's.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ChromiumBinary {
  executablePath: string;
  /** Extra environment for the browser process (the bundled fonts), if any. */
  env: Record<string, string>;
}

const PACKAGE = '@sparticuz/chromium';

let found: Promise<ChromiumBinary> | undefined;

/** The browser to drive; unpacks the npm-shipped one on first use (about 2 s). */
export function chromiumBinary(): Promise<ChromiumBinary> {
  found ??= locate();
  return found;
}

async function locate(): Promise<ChromiumBinary> {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH=${chosen} does not exist`);
    return { executablePath: chosen, env: {} };
  }
  const entry = import.meta.resolve(PACKAGE);
  const { version } = packageJsonAbove(fileURLToPath(entry));
  const home = join(tmpdir(), `launcher-web-chromium-${version}`);
  if (!existsSync(join(home, 'chromium'))) await unpackInto(home, entry);
  return { executablePath: join(home, 'chromium'), env: { FONTCONFIG_FILE: join(home, 'fonts.conf') } };
}

/** The package's own package.json: the nearest one above its entry (build/ or build/esm/, by release). */
function packageJsonAbove(file: string): { name: string; version: string } {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    const candidate = join(folder, 'package.json');
    if (!existsSync(candidate)) continue;
    const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version: string };
    if (manifest.name === PACKAGE) return { name: PACKAGE, version: manifest.version };
  }
  throw new Error(`${PACKAGE}: no package.json above ${file}`);
}

async function unpackInto(home: string, entry: string): Promise<void> {
  const staging = await mkdtemp(`${home}.part-`);
  try {
    // The package unpacks chromium, fonts/ and the SwiftShader libraries into tmpdir().
    await run(process.execPath, ['--input-type=module', '-e', 'await (await import(process.argv[1])).default.executablePath()', entry], {
      env: { ...process.env, TMPDIR: staging },
    });
    // Its fonts.conf names Lambda's folders; this one adds its fonts to the system's.
    await writeFile(
      join(staging, 'fonts.conf'),
      '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n' +
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n' +
        `  <dir>${join(home, 'fonts', 'fonts')}</dir>\n` +
        `  <cachedir>${join(home, 'fonts-cache')}</cachedir>\n` +
        '</fontconfig>\n',
    );
    await rename(staging, home);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    // Another process renamed its copy into place first: use that one.
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && existsSync(join(home, 'chromium'))) return;
    throw error;
  }
}
