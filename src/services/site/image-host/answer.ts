import { isObject } from '../../../lib/json-object.js';
import type { RawAnswer } from './connection.js';
import { statusFailure, upstreamFailed } from './failures.js';

// The one check of the image host's answers. The image host is another process
// (another machine, maybe another version): what it answers is checked like any
// other input before anything made from it reaches a user, a store page or a
// launcher. Its status first, then JSON, then the call's shape.

/** Thrown by a shape reader when the answer is not what an image host sends; the message says what was wrong. */
export class AnswerShapeError extends Error {
  override name = 'AnswerShapeError';
}

export type CheckedAnswer<T> =
  | { kind: 'accepted'; value: T }
  /** The image host refused what was sent (400 not acceptable, 413 too large), with its reason when it gave one. */
  | { kind: 'refused'; status: 400 | 413; said: string | undefined };

/**
 * `answer` to the call `what` ("an image upload"): accepted when its status is
 * `expected` and `read` finds its shape, refused for a 400 or 413; anything else
 * is the image host failing, thrown as a 502 UPSTREAM_FAILED (failures.ts).
 */
export function checkAnswer<T>(answer: RawAnswer, expected: number, read: (json: unknown) => T, what: string): CheckedAnswer<T> {
  const { status, text } = answer;
  if (status === 400 || status === 413) return { kind: 'refused', status, said: failureMessageOf(text) };
  if (status !== expected) throw upstreamFailed(statusFailure(status));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw upstreamFailed('The image host answered something that is not JSON');
  }
  try {
    return { kind: 'accepted', value: read(json) };
  } catch (error) {
    if (error instanceof AnswerShapeError) throw upstreamFailed(`The image host gave an unexpected answer to ${what}: ${error.message}`);
    throw error;
  }
}

/** `{success: true, data: {...}}`: the `data` every image host answer carries. */
export function successData(answer: unknown): Record<string, unknown> {
  if (!isObject(answer) || answer.success !== true) throw new AnswerShapeError('answer is not {success: true, ...}');
  if (!isObject(answer.data)) throw new AnswerShapeError('answer has no data object');
  return answer.data;
}

/** The `message` of an image host's failure answer, made fit to quote to a user. */
export function failureMessageOf(text: string): string | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(answer) || typeof answer.message !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const message = answer.message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
  return message === '' ? undefined : message;
}
