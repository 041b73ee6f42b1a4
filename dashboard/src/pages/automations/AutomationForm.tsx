import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery } from 'urql';
import { FieldError, formErrors, invalidProps, NO_ERRORS, type FormErrors } from '../../components/FieldErrors';
import { formatError } from '../../client';
import {
  AutomationCreateDocument,
  AutomationScopesDocument,
  AutomationUpdateDocument,
  AutomationWebhooksDocument,
  type AutomationEventInput,
  type AutomationEventType,
  type AutomationFieldsFragment,
  type AutomationScopeKind,
  type CreateAutomationInput,
  type MetricAggregation,
  type MetricChangeDirection,
  type MetricChangeKind,
  type MetricComparison,
  type WatchedRunState,
} from '../../graphql/generated';
import { WEBHOOK_CONTEXT } from './Webhooks';

export const EVENT_TYPES: { value: AutomationEventType; label: string; registry: boolean }[] = [
  { value: 'CREATE_ARTIFACT', label: 'An artifact version is created', registry: false },
  { value: 'LINK_ARTIFACT', label: 'An artifact version is linked', registry: true },
  { value: 'ADD_ARTIFACT_ALIAS', label: 'An alias is added to a version', registry: true },
  { value: 'ADD_ARTIFACT_TAG', label: 'A tag is added to a version', registry: false },
  { value: 'RUN_METRIC', label: 'A run metric crosses a threshold', registry: false },
  { value: 'RUN_METRIC_CHANGE', label: 'A run metric changes by an amount', registry: false },
  { value: 'RUN_STATE', label: 'A run changes state', registry: false },
];
const RUN_EVENTS: AutomationEventType[] = ['RUN_METRIC', 'RUN_METRIC_CHANGE', 'RUN_STATE'];
const RUN_STATES: WatchedRunState[] = ['RUNNING', 'FINISHED', 'FAILED', 'KILLED'];

export const DEFAULT_TEMPLATE = `{
  "event_type": "\${event_type}",
  "project": "\${project_name}",
  "version": "\${artifact_version_string}",
  "author": "\${event_author}"
}`;

/** Every field a server message can point at (paths under `input`). */
const FIELDS = [
  'name',
  'description',
  'scopeKind',
  'scopeName',
  'webhookId',
  'payload',
  'enabled',
  'event',
  'event.type',
  'event.aliasRegex',
  'event.tagRegex',
  'event.metricName',
  'event.window',
  'event.aggregation',
  'event.comparison',
  'event.threshold',
  'event.priorWindow',
  'event.changeKind',
  'event.changeDirection',
  'event.changeAmount',
  'event.runStates',
  'runFilter',
  'runFilter.user',
  'runFilter.runNameRegex',
];

interface Draft {
  name: string;
  description: string;
  scopeKind: AutomationScopeKind;
  scopeName: string;
  eventType: AutomationEventType;
  aliasRegex: string;
  tagRegex: string;
  metricName: string;
  window: string;
  aggregation: MetricAggregation | '';
  comparison: MetricComparison | '';
  threshold: string;
  priorWindow: string;
  changeKind: MetricChangeKind | '';
  changeDirection: MetricChangeDirection | '';
  changeAmount: string;
  runStates: WatchedRunState[];
  runUser: string;
  runNameRegex: string;
  webhookId: string;
  payload: string;
  enabled: boolean;
}

const EMPTY: Draft = {
  name: '',
  description: '',
  scopeKind: 'PROJECT',
  scopeName: '',
  eventType: 'CREATE_ARTIFACT',
  aliasRegex: '',
  tagRegex: '',
  metricName: '',
  window: '',
  aggregation: '',
  comparison: '',
  threshold: '',
  priorWindow: '',
  changeKind: '',
  changeDirection: '',
  changeAmount: '',
  runStates: [],
  runUser: '',
  runNameRegex: '',
  webhookId: '',
  payload: DEFAULT_TEMPLATE,
  enabled: true,
};

const str = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));

/** The form's fields for an existing automation (editing). */
function fromAutomation(automation: AutomationFieldsFragment): Draft {
  const event = automation.event;
  return {
    name: automation.name,
    description: automation.description ?? '',
    scopeKind: automation.scopeKind,
    scopeName: automation.scopeName,
    eventType: automation.eventType,
    aliasRegex: event.aliasRegex ?? '',
    tagRegex: event.tagRegex ?? '',
    metricName: event.metricName ?? '',
    window: str(event.window),
    aggregation: event.aggregation ?? '',
    comparison: event.comparison ?? '',
    threshold: str(event.threshold),
    priorWindow: str(event.priorWindow),
    changeKind: event.changeKind ?? '',
    changeDirection: event.changeDirection ?? '',
    changeAmount: str(event.changeAmount),
    runStates: event.runStates ?? [],
    runUser: automation.runFilter.user ?? '',
    runNameRegex: automation.runFilter.runNameRegex ?? '',
    webhookId: automation.webhookId,
    payload: automation.payload,
    enabled: automation.enabled,
  };
}

const text = (value: string): string | null => (value.trim() ? value.trim() : null);
const number = (value: string): number | null => (value.trim() === '' ? null : Number(value));

function toInput(team: string, draft: Draft): CreateAutomationInput {
  const type = draft.eventType;
  const event: AutomationEventInput = { type };
  if (type === 'ADD_ARTIFACT_ALIAS') event.aliasRegex = text(draft.aliasRegex);
  if (type === 'ADD_ARTIFACT_TAG') event.tagRegex = text(draft.tagRegex);
  if (type === 'RUN_METRIC' || type === 'RUN_METRIC_CHANGE') {
    event.metricName = text(draft.metricName);
    event.window = number(draft.window);
    event.aggregation = draft.aggregation || null;
  }
  if (type === 'RUN_METRIC') {
    event.comparison = draft.comparison || null;
    event.threshold = number(draft.threshold);
  }
  if (type === 'RUN_METRIC_CHANGE') {
    event.priorWindow = number(draft.priorWindow);
    event.changeKind = draft.changeKind || null;
    event.changeDirection = draft.changeDirection || null;
    event.changeAmount = number(draft.changeAmount);
  }
  if (type === 'RUN_STATE' && draft.runStates.length) event.runStates = draft.runStates;
  const runFilter = RUN_EVENTS.includes(type) && (text(draft.runUser) || text(draft.runNameRegex)) ? { user: text(draft.runUser), runNameRegex: text(draft.runNameRegex) } : null;
  return {
    entity: team,
    name: draft.name.trim(),
    description: text(draft.description),
    scopeKind: draft.scopeKind,
    scopeName: draft.scopeName.trim(),
    event,
    runFilter,
    webhookId: draft.webhookId,
    payload: draft.payload,
    enabled: draft.enabled,
  };
}

/**
 * Create an automation, or edit one (`automation`: updateAutomation, the same input and checks). Nothing is checked
 * here that the server checks: its messages (regexes that do not compile, unknown `${variables}`, a template that is
 * not JSON, a missing webhook) appear next to the fields they name.
 */
export function AutomationForm({
  team,
  automation,
  onSaved,
  onCancel,
}: {
  team: string;
  automation?: AutomationFieldsFragment;
  onSaved: (name: string, created: boolean) => void;
  onCancel: () => void;
}) {
  const [scopes] = useQuery({ query: AutomationScopesDocument, variables: { team } });
  const [webhooks] = useQuery({ query: AutomationWebhooksDocument, variables: { team }, context: WEBHOOK_CONTEXT });
  const [createdResult, create] = useMutation(AutomationCreateDocument);
  const [updatedResult, update] = useMutation(AutomationUpdateDocument);
  const created = automation ? updatedResult : createdResult;
  const [draft, setDraft] = useState<Draft>(() => (automation ? fromAutomation(automation) : EMPTY));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  const scopeOptions = draft.scopeKind === 'PROJECT' ? (scopes.data?.team?.projects ?? []).map((project) => project.name) : (scopes.data?.registries.nodes ?? []).map((registry) => registry.name);
  const eventTypes = EVENT_TYPES.filter((type) => draft.scopeKind === 'PROJECT' || type.registry);
  const type = draft.eventType;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = toInput(team, draft);
    const response = automation ? await update({ id: automation.id, input }) : await create({ input });
    if (response.error) {
      setErrors(formErrors(response.error, FIELDS));
      return;
    }
    setErrors(NO_ERRORS);
    setDraft(EMPTY);
    onSaved(draft.name.trim(), !automation);
  };

  const field = (id: string, key: string, label: string, control: (props: ReturnType<typeof invalidProps> & { id: string }) => ReactNode, hint?: ReactNode) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control({ id, ...invalidProps(id, errors.byField[key]) })}
      {hint ? <span className="field-hint">{hint}</span> : null}
      <FieldError id={id} messages={errors.byField[key]} />
    </div>
  );
  const input = (id: string, key: keyof Draft & string, label: string, options: { type?: string; placeholder?: string; errorKey?: string; hint?: ReactNode } = {}) =>
    field(
      id,
      options.errorKey ?? key,
      label,
      (props) => (
        <input
          {...props}
          type={options.type ?? 'text'}
          step={options.type === 'number' ? 'any' : undefined}
          placeholder={options.placeholder}
          value={String(draft[key])}
          onChange={(event) => set(key, event.target.value as never)}
          autoComplete="off"
        />
      ),
      options.hint,
    );
  const select = <V extends string>(id: string, key: keyof Draft & string, label: string, values: readonly V[], errorKey: string, defaultLabel = 'Default') =>
    field(id, errorKey, label, (props) => (
      <select {...props} value={String(draft[key])} onChange={(event) => set(key, event.target.value as never)}>
        <option value="">{defaultLabel}</option>
        {values.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    ));

  const fieldErrors = Object.keys(errors.byField).length;

  return (
    <form className="stacked-form automation-form" onSubmit={(event) => void submit(event)} aria-labelledby="automation-form-heading" noValidate>
      <h3 id="automation-form-heading">{automation ? `Edit automation ${automation.name}` : 'New automation'}</h3>
      {fieldErrors || errors.general.length ? (
        <div className="inline-error" role="alert" data-testid="automation-form-errors">
          {fieldErrors ? `The server refused this automation: ${Object.values(errors.byField).flat()[0]} ` : null}
          {errors.general.length ? <span>{errors.general.map(formatError).join('; ')}</span> : null}
        </div>
      ) : null}
      <div className="form-grid">
        {input('automation-name', 'name', 'Name', { placeholder: 'deploy-on-production' })}
        {input('automation-description', 'description', 'Description (optional)')}
        {field('automation-scope-kind', 'scopeKind', 'Scope', (props) => (
          <select
            {...props}
            value={draft.scopeKind}
            onChange={(event) => {
              const scopeKind = event.target.value as AutomationScopeKind;
              setDraft((current) => ({
                ...current,
                scopeKind,
                scopeName: '',
                eventType: scopeKind === 'REGISTRY' && !EVENT_TYPES.find((item) => item.value === current.eventType)?.registry ? 'LINK_ARTIFACT' : current.eventType,
              }));
            }}
          >
            <option value="PROJECT">Project</option>
            <option value="REGISTRY">Registry</option>
          </select>
        ))}
        {field('automation-scope-name', 'scopeName', draft.scopeKind === 'PROJECT' ? 'Project' : 'Registry', (props) => (
          <>
            <input {...props} list="automation-scope-options" value={draft.scopeName} onChange={(event) => set('scopeName', event.target.value)} autoComplete="off" />
            <datalist id="automation-scope-options">
              {scopeOptions.map((option) => (
                <option key={option} value={option} />
              ))}
            </datalist>
          </>
        ))}
        {field('automation-event-type', 'event.type', 'Event', (props) => (
          <select {...props} value={type} onChange={(event) => set('eventType', event.target.value as AutomationEventType)}>
            {eventTypes.map((item) => (
              <option key={item.value} value={item.value}>
                {item.label} ({item.value})
              </option>
            ))}
          </select>
        ))}
        {field('automation-webhook', 'webhookId', 'Webhook', (props) => (
          <select {...props} value={draft.webhookId} onChange={(event) => set('webhookId', event.target.value)}>
            <option value="">Choose a webhook…</option>
            {(webhooks.data?.webhooks ?? []).map((webhook) => (
              <option key={webhook.id} value={webhook.id}>
                {webhook.name}
              </option>
            ))}
          </select>
        ))}
      </div>

      <fieldset className="form-grid event-fields">
        <legend>Filters</legend>
        {type === 'ADD_ARTIFACT_ALIAS' ? input('automation-alias-regex', 'aliasRegex', 'Alias regex (RE2)', { placeholder: '^production$', errorKey: 'event.aliasRegex' }) : null}
        {type === 'ADD_ARTIFACT_TAG' ? input('automation-tag-regex', 'tagRegex', 'Tag regex (RE2, optional)', { errorKey: 'event.tagRegex' }) : null}
        {type === 'RUN_METRIC' || type === 'RUN_METRIC_CHANGE' ? (
          <>
            {input('automation-metric', 'metricName', 'Metric name', { placeholder: 'loss', errorKey: 'event.metricName' })}
            {input('automation-window', 'window', 'Window (values)', { type: 'number', placeholder: type === 'RUN_METRIC' ? '5' : '10', errorKey: 'event.window' })}
            {select('automation-aggregation', 'aggregation', 'Aggregation', ['AVG', 'MIN', 'MAX'] as const, 'event.aggregation', 'Default (AVG)')}
          </>
        ) : null}
        {type === 'RUN_METRIC' ? (
          <>
            {select('automation-comparison', 'comparison', 'Comparison', ['GT', 'GTE', 'LT', 'LTE', 'EQ', 'NE'] as const, 'event.comparison', 'Choose…')}
            {input('automation-threshold', 'threshold', 'Threshold', { type: 'number', errorKey: 'event.threshold' })}
          </>
        ) : null}
        {type === 'RUN_METRIC_CHANGE' ? (
          <>
            {input('automation-prior-window', 'priorWindow', 'Prior window (values)', { type: 'number', placeholder: '50', errorKey: 'event.priorWindow' })}
            {select('automation-change-kind', 'changeKind', 'Change', ['ABSOLUTE', 'RELATIVE'] as const, 'event.changeKind', 'Choose…')}
            {select('automation-change-direction', 'changeDirection', 'Direction', ['INCREASE', 'DECREASE', 'ANY'] as const, 'event.changeDirection', 'Choose…')}
            {input('automation-change-amount', 'changeAmount', 'Amount', { type: 'number', errorKey: 'event.changeAmount' })}
          </>
        ) : null}
        {type === 'RUN_STATE' ? (
          <fieldset className="checkbox-group" aria-describedby={errors.byField['event.runStates'] ? 'automation-run-states-error' : undefined}>
            <legend>Run states (default FINISHED, FAILED)</legend>
            {RUN_STATES.map((state) => (
              <label key={state} className="checkbox">
                <input
                  type="checkbox"
                  checked={draft.runStates.includes(state)}
                  onChange={(event) => set('runStates', event.target.checked ? [...draft.runStates, state] : draft.runStates.filter((item) => item !== state))}
                />
                {state}
              </label>
            ))}
            <FieldError id="automation-run-states" messages={errors.byField['event.runStates']} />
          </fieldset>
        ) : null}
        {RUN_EVENTS.includes(type) ? (
          <>
            {input('automation-run-user', 'runUser', 'Only runs of user (optional)', { errorKey: 'runFilter.user' })}
            {input('automation-run-name', 'runNameRegex', 'Run name regex (optional)', { errorKey: 'runFilter.runNameRegex' })}
          </>
        ) : null}
        {type === 'CREATE_ARTIFACT' || type === 'LINK_ARTIFACT' ? <p className="muted small">Every {type === 'CREATE_ARTIFACT' ? 'new version' : 'link'} in the scope triggers it.</p> : null}
        <FieldError id="automation-run-filter" messages={errors.byField.runFilter} />
        <FieldError id="automation-event" messages={errors.byField.event} />
      </fieldset>

      {field(
        'automation-payload',
        'payload',
        'Payload template (JSON with ${variables})',
        (props) => <textarea {...props} rows={7} className="mono" spellCheck={false} value={draft.payload} onChange={(event) => set('payload', event.target.value)} />,
        <>
          Variables: <code>{'${event_type}'}</code> <code>{'${project_name}'}</code> <code>{'${entity_name}'}</code> <code>{'${event_author}'}</code>{' '}
          <code>{'${alias}'}</code> <code>{'${tag}'}</code> <code>{'${artifact_version_string}'}</code> <code>{'${artifact_collection_name}'}</code>{' '}
          <code>{'${run_name}'}</code> <code>{'${metric_value}'}</code>, and the webhook's secrets by name.
        </>,
      )}
      <label className="checkbox">
        <input type="checkbox" checked={draft.enabled} onChange={(event) => set('enabled', event.target.checked)} />
        {automation ? 'Active' : 'Active once created'}
      </label>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={created.fetching}>
          {created.fetching ? 'Saving…' : automation ? 'Save changes' : 'Create automation'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
