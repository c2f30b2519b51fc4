// Small builders for the JSON Schema (2020-12, as OpenAPI 3.1 uses) of the document. Plain objects:
// the schemas describe the routes; validation stays in each route's hand-written checks, which
// carry the spec's exact messages.
import type { ListRule } from '../platform/list-params.ts';

export type Schema = Record<string, unknown>;

export const str = (description?: string, extra: Schema = {}): Schema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
export const int = (description?: string, extra: Schema = {}): Schema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
/** A list's `limit` query parameter, its bounds read from the rule its handler applies (list-params.ts). */
export const listLimit = (rule: ListRule): Schema => int(`1 to ${rule.max}, default ${rule.dflt}`);
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
/** A decimal amount as a string (money is never a float in answers). */
export const dec = (description?: string): Schema => str(description, { pattern: '^-?\\d+(\\.\\d+)?$' });
export const time = (description?: string): Schema => str(description, { format: 'date-time' });
export const oneOf = (values: readonly string[], description?: string): Schema => str(description, { enum: [...values] });
export const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
export const anyObject = (description?: string): Schema => ({ type: 'object', ...(description ? { description } : {}) });

/**
 * An object with these properties; `required` lists those always present. Other properties are
 * allowed: the spec adds fields without a new version, and clients must ignore unknown ones.
 */
export function obj(properties: Record<string, Schema>, required: readonly string[] = [], description?: string): Schema {
  return { type: 'object', properties, ...(required.length ? { required: [...required] } : {}), ...(description ? { description } : {}) };
}

/** `{ <key>: <schema> }`, the wrapper most answers use. */
export const wrap = (key: string, s: Schema): Schema => obj({ [key]: s }, [key]);

/** A page of a list: the items under `key` with `total`, `limit` and `offset`. */
export const page = (key: string, item: Schema): Schema =>
  obj({ [key]: arr(item), total: int(), limit: int(), offset: int() }, [key, 'limit', 'offset']);

export const message = (text?: string): Schema => obj({ message: text ? str(undefined, { const: text }) : str() }, ['message']);
