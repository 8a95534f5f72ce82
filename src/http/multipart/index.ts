// Streaming multipart/form-data (RFC 7578) parser: our own, because the body is
// client input on the hottest upload path and every limit must be ours.
//
//   for await (const part of parseMultipart(req, req.headers['content-type'], limits)) {
//     if (part.kind === 'field') fields[part.name] = part.value;
//     else await pipeline(part.stream, createWriteStream(path));
//   }
//
// Contract:
// - Parts arrive in body order. A field is buffered (up to `fieldBytes`); a file is
//   streamed through `part.stream` with backpressure: while the stream's buffer
//   (64 KiB) is full the parser stops reading the source.
// - File content is pumped independently of the loop, so awaiting the whole stream
//   inside the loop body is fine, and so is starting a pipe and moving on.
// - Asking for the next part while nothing reads the current file stream (no 'data'
//   or 'readable' listener, not flowing) drains it: the rest of that file is
//   discarded. The next part is yielded only once the file's content is complete.
//   Destroying the stream likewise discards the rest of that file.
// - Errors are HttpErrors: 400 BAD_REQUEST for a malformed or truncated body (an
//   early end is "Unexpected end of form"), 413 PAYLOAD_TOO_LARGE for any limit, 415
//   when Content-Type is not multipart/form-data. A failure during a file destroys
//   its stream with the same error and rejects the generator. If the stream has no
//   'error' listener then, a no-op one is added so the process does not crash;
//   the generator still rejects.
// - Bodies must use CRLF line endings; LF-only bodies are refused with 400 (see
//   scanner.ts for why).
// - Zero copy: file content is handed on as views into the source's chunks. As with
//   any Node stream, a chunk belongs to us once yielded; the source must not reuse it.
// - When the generator ends (close delimiter, error, or break/return) it stops
//   reading: the epilogue or unread rest stays in the source, which is left paused.
//   The caller owns the request: resume() it to discard the rest (e.g. after
//   answering 413) or destroy() it. Breaking out mid-file destroys that file stream.
// - Answering early (413 while the client still sends): write the answer, then
//   req.resume() and destroy the socket only after a grace period. Sending
//   `Connection: close` makes Node close the socket as soon as the answer is
//   written, with the client's bytes unread; the kernel then resets the connection
//   and the client can lose the 413 (scripts/bench-multipart.ts shows the pattern).
// - Bounds besides MultipartLimits: a preamble over 16 KiB (400) and more than 64
//   bytes of transport padding after a boundary (400). Fields expose no content
//   type (RFC 7578's default for them is text/plain); values are decoded as UTF-8.

export { boundaryFrom } from './boundary.js';
export { declaresMoreThan, isMultipartForm } from './form-type.js';
export { DEFAULT_MULTIPART_LIMITS, IMAGE_FORM_LIMITS, maxFormBytes, type MultipartLimits } from './limits.js';
export { parseMultipart } from './parse.js';
export type { FieldPart, FilePart, Part } from './types.js';
