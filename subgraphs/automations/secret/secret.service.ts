import { ConflictError, NotFoundError, ValidationFailedError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { ACCESS_TOKEN_VARIABLE, EVENT_VARIABLES } from '../automation/payload-template.js';
import { SecretNameSchema, SecretValueSchema } from '../automations.schemas.js';
import type { AutomationsStore, SecretRow, WebhookRow } from '../store.js';
import type { SecretBox } from './secret-box.js';
import { SecretRedactor } from './redaction.js';
import { signingSecretProblem, signingSecretTexts } from './signing-secret.js';

export interface NamedSecret {
  name: string;
  value: string;
}

/** What a webhook sends with: its access token and its signing secret, decrypted, each with its name. */
export interface WebhookCredentials {
  accessToken?: NamedSecret;
  signingSecret?: NamedSecret;
}

/**
 * Team secrets: stored sealed (secret-box.ts), opened only to send a webhook. No API returns a value; the
 * service returns rows whose ciphertext the GraphQL type does not expose.
 */
export class SecretService {
  constructor(
    private readonly store: AutomationsStore,
    private readonly box: SecretBox,
  ) {}

  async create(team: string, name: string, value: string): Promise<SecretRow> {
    this.validate(name, value);
    const row = await this.store.insertSecret(team, name, this.box.seal(value, owner(team, name)));
    if (!row) throw new ConflictError(`Secret "${name}" already exists in team "${team}"`);
    return row;
  }

  async rotate(team: string, name: string, value: string): Promise<SecretRow> {
    this.validate(name, value);
    const row = await this.store.updateSecret(team, name, this.box.seal(value, owner(team, name)));
    if (!row) throw new NotFoundError(`Secret "${name}" does not exist in team "${team}"`);
    return row;
  }

  delete(team: string, name: string): Promise<boolean> {
    return this.store.transaction(async (store) => {
      const row = await store.secret(team, name);
      if (!row) throw new NotFoundError(`Secret "${name}" does not exist in team "${team}"`);
      const users = await store.webhooksUsingSecret(row.id);
      if (users.length) throw new ConflictError(`Secret "${name}" is used by webhook(s) ${users.map((w) => `"${w.name}"`).join(', ')}`);
      await store.deleteSecret(row.id);
      return true;
    });
  }

  list(team: string): Promise<SecretRow[]> {
    return this.store.secretsOf(team);
  }

  async credentialsFor(webhook: WebhookRow, store: AutomationsStore = this.store): Promise<WebhookCredentials> {
    const open = async (id: string | null): Promise<NamedSecret | undefined> => {
      if (!id) return undefined;
      const row = await store.secretById(id);
      return row ? { name: row.name, value: this.box.open(row.ciphertext, owner(row.team, row.name)) } : undefined;
    };
    return { accessToken: await open(webhook.access_token_secret_id), signingSecret: await open(webhook.signing_secret_id) };
  }

  private validate(name: string, value: string): void {
    validateOrThrow(SecretNameSchema, name, 'name');
    validateOrThrow(SecretValueSchema, value, 'value');
    if (name === ACCESS_TOKEN_VARIABLE || (EVENT_VARIABLES as readonly string[]).includes(name)) {
      throw new ValidationFailedError([{ loc: ['name'], msg: `"${name}" is a payload variable name; choose another secret name`, type: 'value_error' }]);
    }
    const problem = signingSecretProblem(value);
    if (problem) throw new ValidationFailedError([{ loc: ['value'], msg: problem, type: 'value_error' }], problem);
  }
}

function owner(team: string, name: string): string {
  return `${team}/${name}`;
}

/** Names a template may use for a webhook's credentials (`${ACCESS_TOKEN}`, `${NAME}`, `$NAME`). */
export function credentialVariables(credentials: WebhookCredentials): Record<string, string> {
  const variables: Record<string, string> = {};
  if (credentials.accessToken) {
    variables[ACCESS_TOKEN_VARIABLE] = credentials.accessToken.value;
    variables[credentials.accessToken.name] = credentials.accessToken.value;
  }
  if (credentials.signingSecret) variables[credentials.signingSecret.name] = credentials.signingSecret.value;
  return variables;
}

/**
 * The redactor for a webhook's credentials (redaction.ts: every form a receiver may echo them in). Cached per
 * credentials object: a batch of deliveries to one webhook shares it.
 */
export function redactorFor(credentials: WebhookCredentials): SecretRedactor {
  let redactor = redactors.get(credentials);
  if (!redactor) {
    const signing = credentials.signingSecret ? signingSecretTexts(credentials.signingSecret.value) : [];
    redactor = new SecretRedactor([credentials.accessToken?.value, ...signing].filter((value): value is string => !!value));
    redactors.set(credentials, redactor);
  }
  return redactor;
}
const redactors = new WeakMap<WebhookCredentials, SecretRedactor>();

/** Replaces every occurrence of a credential value, in any form redaction.ts knows, in text that will be stored or returned. */
export function redact(text: string | null, credentials: WebhookCredentials): string | null {
  return text === null ? null : redactorFor(credentials).redact(text);
}
