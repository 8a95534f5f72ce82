// How a handler answers: the whole API, one import (`http/answer/index.js`).
//
// - An answer made for this request, its body known before its head (send.ts):
//   sendJson, sendOk, sendText, sendBody, redirect, sendNoContent.
// - An answer made once and sent many times (prepared.ts): prepareJson or
//   prepareAnswer when its content changes, then sendPrepared on every request:
//   ETag and 304, Vary, the coding the client prefers (each compressed copy made
//   once); packAnswer and servedStale for the copies a cache keeps and serves
//   stale while its origin is away.
// - An answer whose body is read as it is sent (streamed.ts): sendStreamed.
//
// Each writes its head whole, in one writeHead that also carries X-Request-Id and
// the service's answer headers (head.ts, which the server core uses, not handlers).

export { sendBody, sendJson, sendJsonBytes, sendNoContent, sendOk, sendText, redirect, JSON_COMPRESS_MIN_BYTES, type ExtraHeaders } from './send.js';
export {
  JSON_TYPE, packAnswer, prepareAnswer, prepareJson, sendPrepared, servedStale, unpackAnswer,
  type PackedAnswer, type PrepareOptions, type PreparedAnswer,
} from './prepared.js';
export { sendStreamed, type StreamedBody } from './streamed.js';
export { answeredNotModified, strongEtag } from './etag.js';
export { compressBest, compressFast, preferredCoding, type Coding } from './coding.js';
export type { HeaderList } from './head.js';
