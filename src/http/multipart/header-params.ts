// Parses header values of the shape `value *( OWS ";" OWS name "=" ( token / quoted-string ) )`
// (RFC 9110 §5.6.6), as used by Content-Type and Content-Disposition. Returns null on
// anything malformed so that each caller can answer with its own 400 message.

export interface HeaderValue {
  /** The part before the first ';', trimmed, as sent (callers compare case-insensitively). */
  value: string;
  /** Parameter names lower-cased; keyed by client input, hence a Map. */
  params: Map<string, string>;
}

// RFC 9110 §5.6.2 tchar.
const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;
const OWS = /[ \t]/;

/**
 * Unquoted values are a token in the RFCs, but senders put characters like '/', ':'
 * and '=' in unquoted boundaries (all legal boundary characters, RFC 2046 §5.1.1).
 * We take anything up to the next separator; what a value may contain is the
 * caller's business (boundaryFrom checks its alphabet).
 */
const UNQUOTED_END = /[;\s"]/;

export function parseHeaderValue(input: string): HeaderValue | null {
  const semicolon = input.indexOf(';');
  const value = (semicolon === -1 ? input : input.slice(0, semicolon)).replace(/^[ \t]+|[ \t]+$/g, '');
  if (value === '') return null;
  const params = new Map<string, string>();
  if (semicolon === -1) return { value, params };

  const end = input.length;
  let i = semicolon;
  while (i < end) {
    // At a ';' (or trailing whitespace after a parameter).
    while (i < end && OWS.test(input[i]!)) i++;
    if (i === end) break;
    if (input[i] !== ';') return null;
    i++;
    while (i < end && OWS.test(input[i]!)) i++;
    // A trailing or doubled ';' carries no parameter; tolerate it, real clients send it.
    if (i === end || input[i] === ';') continue;

    const nameStart = i;
    while (i < end && TOKEN_CHAR.test(input[i]!)) i++;
    if (i === nameStart) return null;
    const name = input.slice(nameStart, i).toLowerCase();
    while (i < end && OWS.test(input[i]!)) i++;
    if (input[i] !== '=') return null;
    i++;
    while (i < end && OWS.test(input[i]!)) i++;

    let paramValue: string;
    if (input[i] === '"') {
      // quoted-string with quoted-pair (RFC 9110 §5.6.4): a backslash takes the next
      // character literally, so `\"` is a quote and `\\` a backslash.
      i++;
      let text = '';
      let runStart = i;
      for (;;) {
        if (i >= end) return null; // unterminated
        const c = input[i];
        if (c === '"') break;
        if (c === '\\') {
          if (i + 1 >= end) return null;
          text += input.slice(runStart, i) + input[i + 1];
          i += 2;
          runStart = i;
          continue;
        }
        i++;
      }
      paramValue = text + input.slice(runStart, i);
      i++; // closing quote
    } else {
      const valueStart = i;
      while (i < end && !UNQUOTED_END.test(input[i]!)) i++;
      if (i === valueStart) return null;
      paramValue = input.slice(valueStart, i);
    }
    // A repeated parameter means two parsers could disagree on which one counts
    // (think filename checks in a proxy); refuse instead of picking one.
    if (params.has(name)) return null;
    params.set(name, paramValue);
  }
  return { value, params };
}
