// `npm run zip-differential [-- FILE.zip | FOLDER ...]`: checks that the readers a
// package meets after the image host list each archive the package inspector
// accepts as the inspector does (issue 30): python3's zipfile (which the Bloret
// launcher extracts with), Info-ZIP unzip, and bsdtar on the file and on a pipe.
// The archives are the inspector's corpus (test/helpers/zip-corpus.ts, accepted and
// refused alike: only what the inspector accepts is listed), plus the ZIP files
// given and every *.zip in the folders given. A reader that is not installed is
// skipped and said so; the unit tests need none of them. Run by hand: it prints each
// difference and the counts, and exits 1 on any difference or inspector error, 2
// when no reader is installed or an argument cannot be read.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectZip, ZipRefused } from '../src/services/imghost/packages/zip-inspect.js';
import { acceptedArchives, refusedArchives } from '../test/helpers/zip-corpus.js';
import { listingDifference } from './zip-differential/compare.js';
import { installedVersion, Lister, ListingFailed, LISTERS } from './zip-differential/listings.js';

interface Archive {
  /** The corpus case's `what`, or the file's path. */
  label: string;
  path: string;
}

function corpusArchives(dir: string): Archive[] {
  return [...acceptedArchives, ...refusedArchives].map(({ what, zip }, i) => {
    const path = join(dir, `corpus-${String(i).padStart(3, '0')}.zip`);
    writeFileSync(path, zip);
    return { label: what, path };
  });
}

function givenArchives(args: string[]): Archive[] {
  return args.flatMap((arg) => {
    try {
      if (!statSync(arg).isDirectory()) return [{ label: arg, path: arg }];
      return readdirSync(arg).filter((name) => /\.zip$/i.test(name)).sort().map((name) => ({ label: join(arg, name), path: join(arg, name) }));
    } catch (error) {
      process.stderr.write(`zip-differential: cannot read ${arg}: ${(error as Error).message}\n`);
      process.exit(2);
    }
  });
}

async function installedListers(): Promise<Lister[]> {
  const programs = [...new Set(LISTERS.map((lister) => lister.program))];
  const versions = new Map<string, string | null>();
  for (const program of programs) {
    const version = await installedVersion(program);
    versions.set(program, version);
    console.log(`${program}: ${version ?? 'not installed, skipped'}`);
  }
  return LISTERS.filter((lister) => versions.get(lister.program) !== null);
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'zip-differential-'));
  try {
    const listers = await installedListers();
    if (listers.length === 0) {
      console.log('zip-differential: none of python3, unzip, bsdtar is installed: nothing to compare');
      return 2;
    }
    const archives = [...corpusArchives(dir), ...givenArchives(process.argv.slice(2))];
    let accepted = 0;
    let refused = 0;
    let compared = 0;
    let differing = 0;
    let inspectorErrors = 0;
    for (const archive of archives) {
      let inspection;
      try {
        inspection = await inspectZip(archive.path);
      } catch (error) {
        if (error instanceof ZipRefused) {
          refused++;
          continue;
        }
        inspectorErrors++;
        console.log(`INSPECTOR ERROR ${archive.label}: ${String(error)}`);
        continue;
      }
      accepted++;
      const differences: string[] = [];
      for (const lister of listers) {
        compared++;
        let difference: string | null;
        try {
          difference = listingDifference(inspection, await lister.list(archive.path));
        } catch (error) {
          if (!(error instanceof ListingFailed) && !(error instanceof SyntaxError)) throw error;
          difference = `failed (${error.message})`;
        }
        if (difference !== null) differences.push(`  ${lister.label}: ${difference}`);
      }
      if (differences.length > 0) {
        differing++;
        console.log(`DIFFERS ${archive.label}\n${differences.join('\n')}`);
      }
    }
    console.log(
      `zip-differential: ${archives.length} archives, ${accepted} accepted and ${refused} refused by the inspector; ` +
        `${compared} listings of the accepted ones by ${listers.length} readers (${listers.map((l) => l.label).join(', ')}); ` +
        `${differing} archives listed otherwise, ${inspectorErrors} inspector errors`,
    );
    return differing > 0 || inspectorErrors > 0 ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
