import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Small TypeBox helpers shared by the tracing request schemas. `Nullable` uses Ajv's `nullable` keyword rather
 * than a union with null, so a wrong value yields one issue about the value, not one per union branch.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
export const OptionalNullable = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
/** A free-form JSON object. */
export const FreeObject = (options: { description?: string } = {}) => Type.Object({}, { additionalProperties: true, ...options });
/** "entity/project". */
export const ProjectId = Type.String({ pattern: '^[^/]+/[^/]+$', description: 'The project, as `<entity>/<project>`' });
/**
 * ISO 8601 date-time. Python clients send microseconds and sometimes no zone (read as UTC); a strict RFC 3339
 * check would answer them with a 422, which the SDKs treat as fatal after retries.
 */
export const IsoDateTime = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|z|[+-]\\d{2}(:?\\d{2})?)?$',
  description: 'ISO 8601 date-time (UTC when no offset is given)',
});

/** What `Date.prototype.toISOString` writes (the JavaScript SDK's timestamps): nothing to adjust before parsing. */
const DATE_ISO_STRING = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function parseIsoDateTime(value: string): Date {
  if (DATE_ISO_STRING.test(value)) return new Date(value);
  const zoned = /(Z|z|[+-]\d{2}(:?\d{2})?)$/.test(value.slice(10)) ? value : `${value}Z`;
  // JavaScript dates keep milliseconds; extra fractional digits are dropped.
  return new Date(zoned.replace(' ', 'T').replace(/(\.\d{3})\d+/, '$1'));
}

/** A string enum as one JSON-schema `enum` (a union of literals would report one issue per member). */
export const StringEnum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
