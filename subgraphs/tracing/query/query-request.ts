import type { RawBuilder, SqlBool } from 'kysely';
import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import { parseQuery } from './query-expression.js';
import { compileCondition, orderTermsOf, resolveFieldOrThrow, type FieldCatalog, type OrderTerm, type SortDirection } from './query-sql.js';

/** A `sort_by` item as clients send it (GraphQL and REST). */
export interface SortByInput {
  field: string;
  direction: string;
}

export interface CompiledQueryRequest {
  /** The `query` expression as one SQL condition; null when the request has none. */
  condition: RawBuilder<SqlBool> | null;
  /** The validated `sort_by`, in order (each field is known to the catalog; `orderByFields` turns it into SQL). */
  sort: { field: string; direction: SortDirection }[];
}

/**
 * The one place the `query` and `sort_by` of a read request are validated and compiled against a table's fields,
 * for GraphQL and REST alike. Problems are reported together, at their place in the REST body
 * (`["body","query","$expr",…]`, `["body","sort_by",i,"field"]`), so both kinds of client see the same 422.
 */
export function compileQueryRequest(fields: FieldCatalog, query: unknown, sortBy: SortByInput[] | null | undefined): CompiledQueryRequest {
  const issues: ValidationIssue[] = [];
  let condition: RawBuilder<SqlBool> | null = null;
  try {
    const root = parseQuery(query, ['body', 'query']);
    condition = root && compileCondition(root, fields);
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    issues.push(...(error.issues ?? []));
  }
  const sort: CompiledQueryRequest['sort'] = [];
  (sortBy ?? []).forEach(({ field, direction }, index) => {
    const at = ['body', 'sort_by', index];
    if (direction !== 'asc' && direction !== 'desc') {
      issues.push({ loc: [...at, 'direction'], msg: "Input should be 'asc' or 'desc'", type: 'enum' });
      return;
    }
    const resolved = fields.resolve(field);
    if ('error' in resolved) {
      issues.push({ loc: [...at, 'field'], msg: resolved.error, type: 'value_error' });
      return;
    }
    sort.push({ field, direction });
  });
  if (issues.length > 0) throw new ValidationFailedError(issues);
  return { condition, sort };
}

/** The ORDER BY terms of validated sort fields (a JSON field sorts by presence, then as a number, then as text). */
export function orderByFields(fields: FieldCatalog, sort: { field: string; direction: SortDirection }[]): OrderTerm[] {
  return sort.flatMap(({ field, direction }, index) => orderTermsOf(resolveFieldOrThrow(fields, field, ['body', 'sort_by', index, 'field']), direction));
}
