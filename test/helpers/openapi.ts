// A small validator over the subset of JSON Schema that our OpenAPI documents use
// (src/services/site/openapi, src/services/imghost/openapi), and the lookups the OpenAPI tests need:
// the operation a request hits, and the schema of the answer it got. A keyword
// outside the subset is an error, so the documents cannot quietly outgrow it.

export type Json = any;

/** Keywords the validator checks. */
const CHECKED = new Set([
  '$ref', 'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items',
  'allOf', 'anyOf', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'format',
]);
/** Keywords that only annotate. */
const ANNOTATIONS = new Set(['description', 'default', 'title', 'contentMediaType']);
export const SCHEMA_KEYWORDS = new Set([...CHECKED, ...ANNOTATIONS]);

const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function resolve(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $ref is supported: ${ref}`);
  let node = doc;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`$ref ${ref} resolves to nothing`);
  }
  return node;
}

/** The problems of `value` against `schema` (empty when it conforms), each with its JSON path. */
export function validate(doc: Json, schema: Json, value: unknown, at = '$'): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${at}: no value allowed`];
  const problems: string[] = [];
  for (const keyword of Object.keys(schema)) {
    if (!SCHEMA_KEYWORDS.has(keyword)) problems.push(`${at}: schema keyword "${keyword}" is outside the validated subset`);
  }
  if (schema.$ref) problems.push(...validate(doc, resolve(doc, schema.$ref), value, at));
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const fits = types.some((type) => type === actual || (type === 'number' && actual === 'integer'));
    if (!fits) return [...problems, `${at}: ${actual} is not ${types.join(' or ')}`];
  }
  if (schema.enum && !schema.enum.some((option: unknown) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) problems.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  for (const part of schema.allOf ?? []) problems.push(...validate(doc, part, value, at));
  if (schema.anyOf && !schema.anyOf.some((part: Json) => validate(doc, part, value, at).length === 0)) {
    problems.push(`${at}: matches none of anyOf (${schema.anyOf.map((part: Json) => validate(doc, part, value, at)[0]).join('; ')})`);
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) problems.push(`${at}: missing required "${name}"`);
    const properties = schema.properties ?? {};
    for (const [name, field] of Object.entries(object)) {
      if (name in properties) problems.push(...validate(doc, properties[name], field, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}: unexpected property "${name}"`);
      else if (typeof schema.additionalProperties === 'object') problems.push(...validate(doc, schema.additionalProperties, field, `${at}.${name}`));
    }
  }
  if (actual === 'array') {
    const array = value as unknown[];
    if (schema.minItems !== undefined && array.length < schema.minItems) problems.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && array.length > schema.maxItems) problems.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items) array.forEach((item, index) => problems.push(...validate(doc, schema.items, item, `${at}[${index}]`)));
  }
  if (actual === 'string') {
    const string = value as string;
    const length = [...string].length;
    if (schema.minLength !== undefined && length < schema.minLength) problems.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) problems.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(string)) problems.push(`${at}: ${JSON.stringify(string)} does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && !ISO_DATE_TIME.test(string)) problems.push(`${at}: ${JSON.stringify(string)} is not a date-time`);
  }
  if (actual === 'integer' || actual === 'number') {
    const number = value as number;
    if (schema.minimum !== undefined && number < schema.minimum) problems.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && number > schema.maximum) problems.push(`${at}: above ${schema.maximum}`);
  }
  return problems;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface Operation {
  template: string;
  method: string;
  operation: Json;
  /** `METHOD pattern` of the router route it documents. */
  route: string;
}

/** Every operation of the document, with the route each names. */
export function operations(doc: Json): Operation[] {
  const found: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const named = operation['x-route'];
      if (Array.isArray(named)) {
        // One operation for several literal routes (/apps and /apps/): each is its own template.
        for (const pattern of named as string[]) found.push({ template: pattern, method, operation, route: `${method.toUpperCase()} ${pattern}` });
        continue;
      }
      const pattern = named ?? template.replace(/\{([^}]+)\}/g, ':$1');
      found.push({ template, method, operation, route: `${method.toUpperCase()} ${pattern}` });
    }
  }
  return found;
}

/** A regex for a path template; a wildcard route's last parameter spans segments. */
function templateRegex(op: Operation): RegExp {
  const wildcard = op.route.endsWith('*');
  const params = [...op.template.matchAll(/\{[^}]+\}/g)];
  let source = '';
  let last = 0;
  params.forEach((match, index) => {
    source += op.template.slice(last, match.index).replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    source += wildcard && index === params.length - 1 ? '(.+)' : '([^/]+?)';
    last = match.index! + match[0].length;
  });
  source += op.template.slice(last).replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${source}$`);
}

/** The operation a request to `path` hits: of the templates that match, the one with the most literal characters. */
export function findOperation(doc: Json, method: string, path: string): Operation | undefined {
  const candidates = operations(doc).filter((op) => op.method === method.toLowerCase() && templateRegex(op).test(path));
  const literal = (op: Operation) => op.template.replace(/\{[^}]+\}/g, '').length;
  return candidates.sort((a, b) => literal(b) - literal(a))[0];
}

/**
 * The problems of an answer against the document: its status must be listed for
 * the operation, its media type among that status's, and a JSON body must match
 * the schema.
 */
export function answerProblems(doc: Json, method: string, path: string, status: number, contentType: string | null, body: string): string[] {
  const where = `${method} ${path} -> ${status}`;
  const op = findOperation(doc, method, path.split('?')[0]!);
  if (!op) return [`${where}: no operation in the document`];
  const response = op.operation.responses[String(status)];
  if (!response) return [`${where}: status not documented for ${op.method.toUpperCase()} ${op.template}`];
  if (!response.content) return body.length === 0 || status >= 300 ? [] : [`${where}: undocumented body`];
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const types = Object.keys(response.content);
  const mediaType = types.find((candidate) => candidate === type || candidate === '*/*');
  if (!mediaType) return [`${where}: content type ${type} is not one of ${types.join(', ')}`];
  const schema = response.content[mediaType].schema;
  if (!schema || mediaType !== 'application/json') return [];
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [`${where}: body is not JSON`];
  }
  return validate(doc, schema, value).map((problem) => `${where}: ${problem}`);
}

/** Throws with every problem of the answer, for test clients that check each answer they get. */
export function assertDocumented(doc: Json, method: string, path: string, status: number, contentType: string | null, body: string): void {
  const problems = answerProblems(doc, method, path, status, contentType, body);
  if (problems.length > 0) throw new Error(`answer differs from /openapi.json:\n  ${problems.join('\n  ')}`);
}
