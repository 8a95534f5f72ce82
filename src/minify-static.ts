// The second step of `npm run build` (and of `npm ci`, through `prepare`): the
// minified copy of every script and stylesheet under static/, which the site
// serves (src/http/minify.ts). Prints what it wrote; a syntax error esbuild
// cannot read stops the build, naming the file.
import { join } from 'node:path';
import { writeMinifiedCopies } from './http/minify.js';
import { projectRoot } from './lib/project-root.js';

const made = writeMinifiedCopies(join(projectRoot(), 'static'));
const number = (n: number) => n.toLocaleString('en');
process.stdout.write(`minified ${made.files} scripts and stylesheets into dist/minified: ${number(made.sourceBytes)} -> ${number(made.minifiedBytes)} bytes\n`);
