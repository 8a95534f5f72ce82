// Preloaded into a child process (`node --import <this file>`) to record, in order,
// the file system calls that make a write durable, as JSON lines appended
// synchronously to $FS_TRACE:
//   {"call":"sync","path":…}             a FileHandle's fsync/fdatasync has completed
//   {"call":"rename","from":…,"to":…}    a rename starts
//   {"call":"renamed","from":…,"to":…}   that rename has completed
// It observes Node's own calls (FileHandle.sync is fsync(2), datasync fdatasync(2)),
// so it needs no strace nor any other system package.
import { appendFileSync, promises } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';

export type FsCall = { call: 'sync'; path: string } | { call: 'rename' | 'renamed'; from: string; to: string };

const out = process.env.FS_TRACE;
if (!out) throw new Error('fs-trace: set FS_TRACE to the file to write');
const record = (entry: FsCall) => appendFileSync(out, JSON.stringify(entry) + '\n');

const paths = new WeakMap<object, string>();
const open = promises.open;
promises.open = async function tracedOpen(...args: Parameters<typeof open>) {
  const handle = await open(...args);
  paths.set(handle, String(args[0]));
  return handle;
};

// FileHandle is not exported: its prototype comes from a handle.
const probe = await open(tmpdir(), 'r');
const FileHandle = Object.getPrototypeOf(probe) as { sync(): Promise<void>; datasync(): Promise<void> };
await probe.close();
for (const method of ['sync', 'datasync'] as const) {
  const original = FileHandle[method];
  FileHandle[method] = async function traced(this: object) {
    await original.call(this);
    record({ call: 'sync', path: paths.get(this) ?? '?' });
  };
}

const rename = promises.rename;
promises.rename = async function tracedRename(from, to) {
  record({ call: 'rename', from: String(from), to: String(to) });
  await rename(from, to);
  record({ call: 'renamed', from: String(from), to: String(to) });
};

// Makes `import { open, rename } from 'node:fs/promises'` see the traced functions.
syncBuiltinESMExports();
