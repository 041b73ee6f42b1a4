import { ValidationFailedError } from '../../../platform/errors.js';

/**
 * Payload templates: the JSON body an automation POSTs, with `${variable}` placeholders (and `$SECRET` for the
 * webhook's secrets). Substitution is JSON-aware: the template is scanned once, remembering for every
 * placeholder whether it sits inside a JSON string literal, so
 *  - inside a string a value is inserted escaped (a quote in a project name cannot end the string or inject keys);
 *  - a string literal that is exactly one placeholder of an object value (`"${artifact_version}"`) becomes the
 *    object itself;
 *  - outside strings a value is inserted as a JSON value (strings quoted, numbers bare, null for missing).
 */
export const EVENT_VARIABLES = [
  'project_name',
  'entity_name',
  'event_type',
  'event_author',
  'alias',
  'tag',
  'artifact_collection_name',
  'artifact_version',
  'artifact_version_string',
  // Run events (beyond the spec's table): which run, and for metric events which value.
  'run_id',
  'run_name',
  'run_state',
  'metric_name',
  'metric_value',
] as const;
export type EventVariable = (typeof EVENT_VARIABLES)[number];
export const METADATA_PREFIX = 'artifact_metadata.';
export const ACCESS_TOKEN_VARIABLE = 'ACCESS_TOKEN';

export type TemplateValue = string | number | boolean | null | Record<string, unknown> | unknown[];
/** Values of the event variables; `artifact_metadata` holds the version's metadata object. */
export type EventVariables = Partial<Record<EventVariable, TemplateValue>> & { artifact_metadata?: Record<string, unknown> };

interface Placeholder {
  name: string;
  inString: boolean;
  /** The placeholder is the whole string literal, quotes included in [start, end). */
  wholeString: boolean;
  start: number;
  end: number;
}

export interface ParsedTemplate {
  source: string;
  placeholders: Placeholder[];
}

const BRACED = /^\$\{([A-Za-z_][A-Za-z0-9_]*(?:\.[^}]+)?)\}/;
const BARE = /^\$([A-Za-z_][A-Za-z0-9_]*)/;

/**
 * Finds the placeholders. `bareNames` are the names `$NAME` may refer to (the webhook's secrets); any other
 * `$word` is literal text.
 */
export function parseTemplate(source: string, bareNames: ReadonlySet<string>): ParsedTemplate {
  const placeholders: Placeholder[] = [];
  let inString = false;
  let stringStart = -1;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (inString && char === '\\') {
      i++;
      continue;
    }
    if (char === '"') {
      inString = !inString;
      if (inString) stringStart = i;
      continue;
    }
    if (char !== '$') continue;
    const rest = source.slice(i);
    const braced = BRACED.exec(rest);
    const bare = braced ? null : BARE.exec(rest);
    const match = braced ?? (bare && bareNames.has(bare[1]!) ? bare : null);
    if (!match) continue;
    const end = i + match[0].length;
    const wholeString = inString && stringStart === i - 1 && source[end] === '"';
    placeholders.push({
      name: match[1]!,
      inString,
      wholeString,
      start: wholeString ? i - 1 : i,
      end: wholeString ? end + 1 : end,
    });
    i = end - 1;
  }
  return { source, placeholders };
}

export interface TemplateIssue {
  message: string;
}

/**
 * Creation-time checks: every `${...}` must be a known variable (an event variable, `artifact_metadata.KEY`,
 * ACCESS_TOKEN when the webhook has one, or the name of the webhook's secret), and the template must be valid
 * JSON once substituted.
 */
export function validateTemplate(source: string, secretNames: ReadonlySet<string>, loc: (string | number)[]): ParsedTemplate {
  const parsed = parseTemplate(source, secretNames);
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  for (const placeholder of parsed.placeholders) {
    if (!isKnownVariable(placeholder.name, secretNames)) {
      issues.push({
        loc,
        msg: `Unknown payload variable \${${placeholder.name}}; known: ${[...EVENT_VARIABLES, `${METADATA_PREFIX}<KEY>`, ...secretNames].map((name) => `\${${name}}`).join(', ')}`,
        type: 'value_error',
      });
    }
  }
  if (!issues.length) {
    const sample: EventVariables = { artifact_version: { id: 'sample' }, artifact_metadata: {}, metric_value: 1 };
    const secrets = Object.fromEntries([...secretNames].map((name) => [name, 'sample']));
    try {
      JSON.parse(renderTemplate(parsed, sample, secrets));
    } catch (error) {
      issues.push({ loc, msg: `Payload template is not valid JSON once variables are substituted: ${(error as Error).message}`, type: 'value_error' });
    }
  }
  if (issues.length) throw new ValidationFailedError(issues, issues[0]!.msg);
  return parsed;
}

function isKnownVariable(name: string, secretNames: ReadonlySet<string>): boolean {
  return (
    (EVENT_VARIABLES as readonly string[]).includes(name) ||
    (name.startsWith(METADATA_PREFIX) && name.length > METADATA_PREFIX.length && !name.slice(METADATA_PREFIX.length).includes('.')) ||
    secretNames.has(name)
  );
}

/** Substitutes every placeholder. `secrets` maps secret names (and ACCESS_TOKEN) to their values. */
export function renderTemplate(parsed: ParsedTemplate, variables: EventVariables, secrets: Record<string, string>): string {
  let output = '';
  let position = 0;
  for (const placeholder of parsed.placeholders) {
    output += parsed.source.slice(position, placeholder.start);
    position = placeholder.end;
    const value = lookup(placeholder.name, variables, secrets);
    if (placeholder.wholeString) {
      output += value !== null && typeof value === 'object' ? JSON.stringify(value) : JSON.stringify(asText(value));
    } else if (placeholder.inString) {
      output += JSON.stringify(asText(value)).slice(1, -1);
    } else {
      output += JSON.stringify(value ?? null);
    }
  }
  return output + parsed.source.slice(position);
}

function lookup(name: string, variables: EventVariables, secrets: Record<string, string>): TemplateValue | undefined {
  if (Object.hasOwn(secrets, name)) return secrets[name]!;
  if (name.startsWith(METADATA_PREFIX)) {
    const value = variables.artifact_metadata?.[name.slice(METADATA_PREFIX.length)];
    return value === undefined ? undefined : (value as TemplateValue);
  }
  return variables[name as EventVariable];
}

function asText(value: TemplateValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
