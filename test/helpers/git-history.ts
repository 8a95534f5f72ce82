// Some tests compare with files that exist only in the repository's history (the
// pre-release migrations, folded since: scripts/folded-schema/compare.ts reads them
// with git). A copy without .git (git archive, a release tarball), a machine
// without git or a shallow clone cannot give them: there those tests are skipped,
// and the file prints why (test/run.ts shows the line).
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import type { Callback, Test } from 'uvu';
import { projectRoot } from '../../src/lib/project-root.js';

let missing: string | null | undefined;

/** Why this checkout's git history cannot be read, or null when it can. */
export function gitHistoryMissing(): string | null {
  if (missing !== undefined) return missing;
  const root = projectRoot();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  try {
    const top = git('rev-parse', '--show-toplevel');
    if (realpathSync(top) !== realpathSync(root)) missing = `${root} has no .git of its own (a copy made by git archive or from a release), only the enclosing ${top}`;
    else if (git('rev-parse', '--is-shallow-repository') === 'true') missing = `${root} is a shallow clone: its history is cut`;
    else missing = null;
  } catch (error) {
    missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'git is not installed'
      : `${root} is not a git checkout (no .git: a copy made by git archive or from a release)`;
  }
  return missing;
}

/**
 * `test` for the tests that need the history; where there is none, `test.skip`,
 * after printing once why `what` is skipped.
 */
export function needingGitHistory<T>(test: Test<T>, what: string): (name: string, handler: Callback<T>) => void {
  const reason = gitHistoryMissing();
  if (reason === null) return (name, handler) => test(name, handler);
  console.log(`skipped: ${what}: ${reason}`);
  return (name, handler) => test.skip(name, handler);
}
