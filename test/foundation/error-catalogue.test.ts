import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_REASONS, PUBLIC_ERROR_CODES, isPublicErrorCode, type ErrorReason } from '../../platform/error-catalogue.js';
import { TrellisError, trellisErrorFromGraphQL } from '../../platform/errors.js';
import { toPublicError, variableFieldPath } from '../../platform/graphql/public-errors.js';
import { createLogger } from '../../platform/logger.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * The catalogue of error codes (platform/error-catalogue.ts) and its documentation (docs/architecture.md, "Errors")
 * say the same, row for row, like Fastify's errors test; and each reason survives the trip over the GraphQL wire
 * as the REST adapter needs it.
 */
const architecture = readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8');

/** The cells of the table between `<!-- name:start -->` and `<!-- name:end -->`, without header and separator. */
function documentedRows(name: string): string[][] {
  const start = architecture.indexOf(`<!-- ${name}:start -->`);
  const end = architecture.indexOf(`<!-- ${name}:end -->`);
  expect(start, `docs/architecture.md has a ${name} table`).toBeGreaterThan(-1);
  return architecture
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) => line.slice(1, -1).split(' | ').map((cell) => cell.trim().replace(/^`(.*)`$/, '$1')));
}

describe('error catalogue', () => {
  it('documents every public code, with its HTTP status and meaning, and nothing else', () => {
    const documented = documentedRows('error-codes');
    const catalogued = Object.entries(PUBLIC_ERROR_CODES).map(([code, { status, meaning }]) => [code, String(status), meaning]);
    expect(documented).toEqual(catalogued);
  });

  it('documents every reason, with its public code, HTTP status and meaning, and nothing else', () => {
    const documented = documentedRows('error-reasons');
    const catalogued = Object.entries(ERROR_REASONS).map(([reason, { code, status, meaning }]) => [reason, code, String(status), meaning]);
    expect(documented).toEqual(catalogued);
  });

  it('gives every reason a public code and carries it over the GraphQL wire, back to what the REST adapter renders', () => {
    const logger = createLogger({ level: 'silent' });
    for (const reason of Object.keys(ERROR_REASONS) as ErrorReason[]) {
      const status = ERROR_REASONS[reason].status;
      const thrown = new TrellisError(status, reason, 'what happened', {
        issues: [{ loc: ['body', 'x'], msg: 'Field required', type: 'missing' }],
        param: 'x',
        retryAfterSeconds: 2,
      });
      const onTheWire = toPublicError(thrown.toGraphQLError().toJSON(), thrown, logger);
      const code = onTheWire.extensions!.code;
      expect(isPublicErrorCode(code)).toBe(true);
      expect(code).toBe(ERROR_REASONS[reason].code);
      expect(onTheWire.extensions!.reason).toBe(reason === code ? undefined : reason);
      if (reason === 'INTERNAL') continue; // masked: nothing to render but a 500
      const rebuilt = trellisErrorFromGraphQL(onTheWire as { message: string; extensions: Record<string, unknown> });
      expect({ code: rebuilt.code, status: rebuilt.status, message: rebuilt.message, issues: rebuilt.issues, param: rebuilt.param, retry: rebuilt.retryAfterSeconds }).toEqual({
        code: reason,
        status,
        message: 'what happened',
        issues: thrown.issues,
        param: 'x',
        retry: 2,
      });
    }
  });

  it('reads the variable path out of graphql-js coercion messages', () => {
    expect(variableFieldPath('Variable "$id" of required type "ID!" was not provided.')).toEqual(['$id']);
    expect(variableFieldPath('Variable "$input" got invalid value 7 at "input.items[2].name"; String cannot represent a non string value: 7')).toEqual([
      '$input',
      'items',
      2,
      'name',
    ]);
    expect(variableFieldPath('Variable "$n" got invalid value "x"; Int cannot represent non-integer value: "x"')).toEqual(['$n']);
    expect(variableFieldPath('Cannot query field "x" on type "Query".')).toBeUndefined();
  });
});
