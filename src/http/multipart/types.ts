import type { Readable } from 'node:stream';

/** A part without a filename: its value is decoded as UTF-8 (RFC 7578 §5.1.2). */
export interface FieldPart {
  kind: 'field';
  name: string;
  value: string;
}

/**
 * A part with `filename` or `filename*`. `stream` carries the content with
 * backpressure; see parseMultipart for when it must be read.
 */
export interface FilePart {
  kind: 'file';
  name: string;
  /** The last path segment of what the client sent; may be '' (an empty file input). */
  filename: string;
  /** The part's Content-Type, or application/octet-stream (RFC 7578 §4.4). */
  contentType: string;
  stream: Readable;
}

export type Part = FieldPart | FilePart;
