// Small builders for the OpenAPI documents of both services (src/services/site/openapi,
// src/services/imghost/openapi), so each document reads as a table of routes rather than
// repeated boilerplate. They make plain data; nothing here runs per request.

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
export const isoDate: Schema = { type: 'string', format: 'date-time' };

/** A JSON answer whose body follows `schema`. */
export function json(description: string, schema: Schema, headers?: Record<string, unknown>): Schema {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** A text/plain answer (the image host's /img and /SF errors). */
export function text(description: string): Schema {
  return { description, content: { 'text/plain': { schema: { type: 'string' } } } };
}

/** An answer of another media type (pages, images, icons). */
export function media(description: string, ...types: string[]): Schema {
  return { description, content: Object.fromEntries(types.map((type) => [type, {}])) };
}

/** A path parameter. */
export function pathParam(name: string, description: string, schema: Schema = { type: 'string' }): Schema {
  return { name, in: 'path', required: true, description, schema };
}

/** A query parameter. */
export function queryParam(name: string, description: string, schema: Schema = { type: 'string' }): Schema {
  return { name, in: 'query', required: false, description, schema };
}

/** A JSON request body. */
export function jsonBody(schema: Schema, required = true): Schema {
  return { required, content: { 'application/json': { schema } } };
}

/** The body of /healthz and /readyz (src/http/health.ts). */
export function probe(status: string): Schema {
  return { type: 'object', required: ['status'], properties: { status: { const: status } } };
}

/** The body of GET /openapi.json: an OpenAPI document. */
export const openApiDocument: Schema = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
};
