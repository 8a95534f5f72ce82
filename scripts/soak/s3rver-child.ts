// The soak's bucket: s3rver (an S3-protocol server from npm, files in a folder) as
// its own process, `node s3rver-child.js PORT FOLDER BUCKET`, so that the soak can
// stop the bucket by killing it and bring it back on the same port and folder.
// s3rver's default credentials are S3RVER / S3RVER.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/project-root.js';

interface S3rverInstance {
  run(): Promise<unknown>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const [port, directory, bucket] = process.argv.slice(2);
if (!port || !directory || !bucket) {
  process.stderr.write('usage: node s3rver-child.js PORT FOLDER BUCKET\n');
  process.exit(2);
}
// Resolved at run time: s3rver is a devDependency the soak can do without (disk backend).
const S3rver = createRequire(join(projectRoot(), 'package.json'))('s3rver') as S3rverClass;
const server = new S3rver({ port: Number(port), address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
await server.run();
process.stdout.write(`s3rver listening on ${port}, bucket ${bucket} in ${directory}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
