import type { Feature } from '../../../http/feature.js';
import { createTaskQueue } from '../../../lib/task-queue.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';
import { createTokenCheck } from '../images/upload-token.js';
import type { ObjectStorage } from '../storage/object-storage.js';
import { openPackageBucketStore } from './package-bucket-store.js';
import { openPackageStore } from './package-store.js';
import { removePackage, servePackage } from './serve-route.js';
import { packageUploadWouldAccept, uploadPackage } from './upload-route.js';
import { inspectPackage } from './inspect-route.js';

/** Inspections run at once; each inflates up to 512 MiB in memory-bounded chunks. */
const INSPECTIONS_AT_ONCE = 2;
const INSPECTIONS_WAITING = 16;

/** Plugin packages: ZIP uploads inspected and kept once per SHA-256, served with Range. */
export async function packagesFeature(deps: ImghostDeps, bucket: ObjectStorage | null): Promise<Feature<ImghostLocals>> {
  const log = deps.log.child({ feature: 'packages' });
  const store = bucket ? await openPackageBucketStore(deps.config.packagesDir, bucket, log) : await openPackageStore(deps.config.packagesDir, log);
  const upload = {
    store,
    inspections: createTaskQueue({ concurrency: INSPECTIONS_AT_ONCE, maxWaiting: INSPECTIONS_WAITING }),
    maxBytes: deps.config.packageMaxBytes,
    token: deps.config.imghostUploadToken,
  };
  return {
    routes: [
      { method: 'POST', path: '/api/packages', handler: uploadPackage(upload) },
      { method: 'POST', path: '/api/packages/inspect', handler: inspectPackage(upload) },
      { method: 'DELETE', path: '/api/packages/:sha256', handler: removePackage(store, createTokenCheck(upload.token)) },
      { method: 'GET', path: '/pkg/:sha256/:file', handler: servePackage(store) },
    ],
    checkContinue: packageUploadWouldAccept(upload),
    close: () => store.close(),
  };
}
