import { CombinedError } from 'urql';
import { describeError, type DescribedError } from '../client';

/**
 * A form's server-side validation, split by field: BAD_USER_INPUT errors carry `extensions.field` (a path from the
 * argument: `["input","payload"]`) and/or `extensions.issues` (`{ loc, msg }`, loc likewise). Paths are keyed
 * without the leading argument (`payload`, `event.aliasRegex`); whatever names no known field stays `general`.
 */
export interface FormErrors {
  byField: Record<string, string[]>;
  general: DescribedError[];
}

export const NO_ERRORS: FormErrors = { byField: {}, general: [] };

interface Issue {
  loc?: unknown;
  msg?: unknown;
}

function pathKey(path: unknown, argument: string): string | null {
  if (!Array.isArray(path)) return null;
  const parts = path.map(String);
  if (parts[0] === argument || parts[0] === 'body') parts.shift();
  return parts.length ? parts.join('.') : null;
}

export function formErrors(error: CombinedError | Error | unknown, fields: readonly string[], argument = 'input'): FormErrors {
  const byField: Record<string, string[]> = {};
  const general: DescribedError[] = [];
  const known = (key: string | null): string | null => {
    if (!key) return null;
    // The longest known field the path starts with: `event.runStates.0` → `event.runStates`.
    let best: string | null = null;
    for (const field of fields) if ((key === field || key.startsWith(`${field}.`)) && (!best || field.length > best.length)) best = field;
    return best;
  };
  const add = (field: string, message: string) => {
    const list = (byField[field] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  if (error instanceof CombinedError && error.graphQLErrors.length > 0) {
    error.graphQLErrors.forEach((graphQLError, index) => {
      const extensions = graphQLError.extensions ?? {};
      const issues = Array.isArray(extensions.issues) ? (extensions.issues as Issue[]) : [];
      let placed = false;
      for (const issue of issues) {
        const field = known(pathKey(issue.loc, argument));
        if (field && typeof issue.msg === 'string') {
          add(field, issue.msg);
          placed = true;
        }
      }
      if (!placed) {
        const field = known(pathKey(extensions.field, argument));
        if (field) {
          add(field, graphQLError.message);
          placed = true;
        }
      }
      if (!placed) general.push(describeError(error)[index] ?? { code: null, message: graphQLError.message });
    });
    return { byField, general };
  }
  return error ? { byField, general: describeError(error) } : NO_ERRORS;
}

/** The messages for one field, under it; the input points at them with aria-describedby={fieldErrorId(id)}. */
export function FieldError({ id, messages }: { id: string; messages: readonly string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <ul className="field-error" id={fieldErrorId(id)} data-testid={`field-error-${id}`}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

export function fieldErrorId(id: string): string {
  return `${id}-error`;
}

/** Props for an input with (possibly) an error: aria-invalid and aria-describedby. */
export function invalidProps(id: string, messages: readonly string[] | undefined): { 'aria-invalid'?: true; 'aria-describedby'?: string } {
  return messages?.length ? { 'aria-invalid': true, 'aria-describedby': fieldErrorId(id) } : {};
}
