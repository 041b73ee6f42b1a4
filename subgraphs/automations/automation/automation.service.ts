import { ConflictError, NotFoundError, ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import {
  CreateAutomationSchema,
  REGISTRY_SCOPE_EVENTS,
  type AutomationEvent,
  type CreateAutomation,
  type RunFilter,
} from '../automations.schemas.js';
import type { AutomationDefinition, AutomationRow, AutomationsStore } from '../store.js';
import type { GraphCaller } from '../../../platform/graphql/platform-graph.js';
import type { AutomationScopes } from './automation-scope.js';
import { ACCESS_TOKEN_VARIABLE, validateTemplate } from './payload-template.js';
import { compileUserRegex, InvalidUserRegexError } from './user-regex.js';

const RUN_EVENTS = ['RUN_METRIC', 'RUN_METRIC_CHANGE', 'RUN_STATE'];

/** Automation definitions: what to watch, where, and which webhook to call with which payload. */
export class AutomationService {
  constructor(
    private readonly store: AutomationsStore,
    private readonly scopes: AutomationScopes,
  ) {}

  /** Stores an active automation; its project or registry must exist for `caller` (NOT_FOUND otherwise, nothing stored). */
  async create(input: CreateAutomation, caller: GraphCaller): Promise<AutomationRow> {
    const checked = await this.checked(input, caller);
    return this.store.transaction(async (store) => {
      const row = await store.insertAutomation({ ...(await definition(store, input, checked)), created_by: caller.principal.username });
      if (!row) throw new ConflictError(`Automation "${input.name}" already exists in team "${input.entity}"`);
      return row;
    });
  }

  /**
   * Replaces an automation's definition with `input` (checked exactly as createAutomation checks it, in the same
   * team); its id, creator, creation time and delivery history stay.
   */
  async update(automation: AutomationRow, input: CreateAutomation, caller: GraphCaller): Promise<AutomationRow> {
    if (input.entity !== automation.team) {
      throw new ValidationFailedError(
        [{ loc: ['input', 'entity'], msg: `An automation stays in its team ("${automation.team}")`, type: 'value_error' }],
        `An automation stays in its team ("${automation.team}")`,
      );
    }
    const checked = await this.checked(input, caller);
    return this.store.transaction(async (store) => {
      const values = await definition(store, input, checked);
      const clash = await store.automationNamed(automation.team, input.name);
      if (clash && clash.id !== automation.id) throw new ConflictError(`Automation "${input.name}" already exists in team "${input.entity}"`);
      return (await store.updateAutomation(automation.id, values))!;
    });
  }

  /**
   * The input's own checks first (a bad value is BAD_USER_INPUT whatever the scope), then the scope's existence,
   * asked of its owner through the graph before any transaction is open. The webhook and template are checked
   * against what is stored, in the writing transaction.
   */
  private async checked(input: CreateAutomation, caller: GraphCaller): Promise<CheckedInput> {
    const checked = checkedInput(input);
    await this.scopes.requireVisible(input, caller);
    return checked;
  }

  get(id: string): Promise<AutomationRow | undefined> {
    return /^[0-9a-f-]{36}$/i.test(id) ? this.store.automation(id) : Promise.resolve(undefined);
  }

  /** A team's automations by name: `limit` of them after the name `afterName`. */
  list(team: string, limit: number, afterName: string | null): Promise<AutomationRow[]> {
    return this.store.automationsOf(team, limit, afterName);
  }

  async setEnabled(automation: AutomationRow, enabled: boolean): Promise<AutomationRow> {
    return (await this.store.setAutomationEnabled(automation.id, enabled))!;
  }

  async delete(automation: AutomationRow): Promise<boolean> {
    await this.store.deleteAutomation(automation.id);
    return true;
  }
}

/** An automation's event and run filter once checked, with the documented defaults filled in. */
interface CheckedInput {
  event: AutomationEvent;
  runFilter: RunFilter;
}

/** The checks of an automation's input that need nothing stored (schema, event, run filter). */
function checkedInput(input: CreateAutomation): CheckedInput {
  validateOrThrow(CreateAutomationSchema, input, 'input');
  const event = normalizeEvent(input.event);
  const runFilter: RunFilter = { user: input.runFilter?.user ?? null, runNameRegex: input.runFilter?.runNameRegex ?? null };
  const issues = checkEvent(input.scopeKind, event, runFilter);
  if (issues.length) throw new ValidationFailedError(issues, issues[0]!.msg);
  return { event, runFilter };
}

/** The stored form of an automation definition, after the checks against what is stored (webhook, template). */
async function definition(store: AutomationsStore, input: CreateAutomation, checked: CheckedInput): Promise<AutomationDefinition> {
  const { event, runFilter } = checked;
  const webhook = await store.webhook(input.webhookId);
  if (!webhook || webhook.team !== input.entity) throw new NotFoundError(`Webhook ${input.webhookId} not found in team "${input.entity}"`);
  const secretNames = new Set<string>();
  if (webhook.access_token_secret_id) {
    secretNames.add(ACCESS_TOKEN_VARIABLE);
    secretNames.add((await store.secretById(webhook.access_token_secret_id))!.name);
  }
  if (webhook.signing_secret_id) secretNames.add((await store.secretById(webhook.signing_secret_id))!.name);
  validateTemplate(input.payload, secretNames, ['input', 'payload']);

  return {
    team: input.entity,
    name: input.name,
    description: input.description ?? null,
    scope_kind: input.scopeKind,
    scope_name: input.scopeName,
    event_type: event.type,
    event_filter: event as unknown as Record<string, unknown>,
    run_filter: runFilter as unknown as Record<string, unknown>,
    webhook_id: webhook.id,
    payload_template: input.payload,
    enabled: input.enabled ?? true,
  };
}

/** Fills the documented defaults, so stored filters are explicit. */
function normalizeEvent(event: AutomationEvent): AutomationEvent {
  switch (event.type) {
    case 'RUN_METRIC':
      return { ...event, window: event.window ?? 5, aggregation: event.aggregation ?? 'AVG' };
    case 'RUN_METRIC_CHANGE':
      return {
        ...event,
        window: event.window ?? 10,
        priorWindow: event.priorWindow ?? 50,
        aggregation: event.aggregation ?? 'AVG',
        changeKind: event.changeKind ?? 'ABSOLUTE',
        changeDirection: event.changeDirection ?? 'ANY',
      };
    case 'RUN_STATE':
      return { ...event, runStates: event.runStates ?? ['FINISHED', 'FAILED'] };
    default:
      return event;
  }
}

function checkEvent(scopeKind: 'PROJECT' | 'REGISTRY', event: AutomationEvent, runFilter: RunFilter): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string) => issues.push({ loc: ['input', 'event', field], msg, type: 'value_error' });
  if (scopeKind === 'REGISTRY' && !REGISTRY_SCOPE_EVENTS.includes(event.type)) {
    issue('type', `Event ${event.type} cannot be watched in a registry; registry automations watch ${REGISTRY_SCOPE_EVENTS.join(', ')}`);
  }
  for (const field of ['aliasRegex', 'tagRegex'] as const) {
    const source = event[field];
    if (source) {
      const problem = regexProblem(source);
      if (problem) issue(field, problem);
    }
  }
  if (event.type === 'ADD_ARTIFACT_ALIAS' && !event.aliasRegex) issue('aliasRegex', 'ADD_ARTIFACT_ALIAS needs an alias regular expression');
  if (event.type === 'RUN_METRIC' || event.type === 'RUN_METRIC_CHANGE') {
    if (!event.metricName) issue('metricName', `${event.type} needs a metric name`);
  }
  if (event.type === 'RUN_METRIC') {
    if (!event.comparison) issue('comparison', 'RUN_METRIC needs a comparison');
    if (event.threshold === undefined || event.threshold === null) issue('threshold', 'RUN_METRIC needs a threshold');
  }
  if (event.type === 'RUN_METRIC_CHANGE' && !event.changeAmount) issue('changeAmount', 'RUN_METRIC_CHANGE needs a positive change amount');
  if (runFilter.runNameRegex) {
    const problem = regexProblem(runFilter.runNameRegex);
    if (problem) issues.push({ loc: ['input', 'runFilter', 'runNameRegex'], msg: problem, type: 'value_error' });
  }
  if ((runFilter.user || runFilter.runNameRegex) && !RUN_EVENTS.includes(event.type)) {
    issues.push({ loc: ['input', 'runFilter'], msg: 'Run filters apply only to run events (RUN_METRIC, RUN_METRIC_CHANGE, RUN_STATE)', type: 'value_error' });
  }
  return issues;
}

function regexProblem(source: string): string | undefined {
  try {
    compileUserRegex(source);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidUserRegexError) return `Invalid regular expression: ${error.message}`;
    throw error;
  }
}
