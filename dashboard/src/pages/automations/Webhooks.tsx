import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { FieldError, formErrors, invalidProps, NO_ERRORS, type FormErrors } from '../../components/FieldErrors';
import { formatDuration } from '../../components/Format';
import { Empty, InlineError, QueryState } from '../../components/States';
import {
  AutomationCreateWebhookDocument,
  AutomationDeleteWebhookDocument,
  AutomationEnableWebhookDocument,
  AutomationSecretsDocument,
  AutomationTestWebhookDocument,
  AutomationWebhooksDocument,
  type AutomationTestWebhookMutation,
  type AutomationWebhookFieldsFragment,
} from '../../graphql/generated';
import { HttpStatus } from './Status';

export const WEBHOOK_CONTEXT = { additionalTypenames: ['Webhook'] };
const SECRET_CONTEXT = { additionalTypenames: ['TeamSecret'] };

/** The team's webhooks, a form to define one, and a Test button that shows what the receiver answered. */
export function WebhooksSection({ team, canAdmin }: { team: string; canAdmin: boolean }) {
  const [result, refetch] = useQuery({ query: AutomationWebhooksDocument, variables: { team }, context: WEBHOOK_CONTEXT });
  const [deleted, deleteWebhook] = useMutation(AutomationDeleteWebhookDocument);
  const [, enableWebhook] = useMutation(AutomationEnableWebhookDocument);
  const refresh = () => refetch({ requestPolicy: 'network-only' });

  return (
    <section className="card section" aria-labelledby="webhooks-heading" data-testid="webhooks">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="hint">Endpoints automations POST to, signed with the webhook's signing secret.</p>
      <QueryState result={result} loadingLabel="Loading webhooks…">
        {(data) =>
          data.webhooks.length === 0 ? (
            <Empty title="No webhooks yet.">Define one below; automations need a webhook to call.</Empty>
          ) : (
            <ul className="plain-list">
              {data.webhooks.map((webhook) => (
                <WebhookRow
                  key={webhook.id}
                  webhook={webhook}
                  canAdmin={canAdmin}
                  onDelete={async () => {
                    const response = await deleteWebhook({ id: webhook.id });
                    if (!response.error) refresh();
                  }}
                  onEnable={async () => {
                    await enableWebhook({ id: webhook.id });
                    refresh();
                  }}
                />
              ))}
            </ul>
          )
        }
      </QueryState>
      {deleted.error ? <InlineError error={deleted.error} /> : null}
      {canAdmin ? <NewWebhookForm team={team} onCreated={refresh} /> : null}
    </section>
  );
}

function WebhookRow({
  webhook,
  canAdmin,
  onDelete,
  onEnable,
}: {
  webhook: AutomationWebhookFieldsFragment;
  canAdmin: boolean;
  onDelete: () => Promise<void>;
  onEnable: () => Promise<void>;
}) {
  const [test, runTest] = useMutation(AutomationTestWebhookDocument);
  const [answer, setAnswer] = useState<AutomationTestWebhookMutation['testWebhook'] | null>(null);
  const onTest = async () => {
    setAnswer(null);
    const response = await runTest({ id: webhook.id, payload: JSON.stringify({ test: true, webhook: webhook.name }) });
    setAnswer(response.data?.testWebhook ?? null);
  };
  return (
    <li className="webhook" data-webhook={webhook.name}>
      <div className="plain-row">
        <div className="webhook-text">
          <strong>{webhook.name}</strong>
          {webhook.disabled ? <span className="status status-error">disabled</span> : null}
          <div className="mono small muted webhook-url" title={webhook.endpointUrl}>
            {webhook.endpointUrl}
          </div>
          {webhook.accessTokenSecret || webhook.signingSecret ? (
            <div className="small muted">
              {webhook.accessTokenSecret ? (
                <>
                  token <code>{webhook.accessTokenSecret}</code>{' '}
                </>
              ) : null}
              {webhook.signingSecret ? (
                <>
                  signing <code>{webhook.signingSecret}</code>
                </>
              ) : null}
            </div>
          ) : null}
          {webhook.disabledReason ? <div className="small error-text">{webhook.disabledReason}</div> : null}
        </div>
        {canAdmin ? (
          <div className="row-actions">
            <button type="button" className="button button-small" onClick={() => void onTest()} disabled={test.fetching} aria-label={`Test webhook ${webhook.name}`}>
              {test.fetching ? 'Testing…' : 'Test'}
            </button>
            {webhook.disabled ? (
              <button type="button" className="button button-small" onClick={() => void onEnable()}>
                Enable
              </button>
            ) : null}
            <button type="button" className="button button-danger button-small" onClick={() => void onDelete()} aria-label={`Delete webhook ${webhook.name}`}>
              Delete
            </button>
          </div>
        ) : null}
      </div>
      {test.error ? <InlineError error={test.error} /> : null}
      {answer ? (
        <div className={`test-result ${answer.ok ? 'test-ok' : 'test-failed'}`} role="status" data-testid="webhook-test-result">
          <div>
            Receiver answered <HttpStatus status={answer.status} /> in {formatDuration(answer.durationMs)}
            {answer.error ? <span className="error-text"> — {answer.error}</span> : null}
          </div>
          {answer.body ? <pre className="response-body">{answer.body}</pre> : <div className="muted small">(empty body)</div>}
        </div>
      ) : null}
    </li>
  );
}

const WEBHOOK_FIELDS = ['name', 'endpointUrl', 'accessTokenSecret', 'signingSecret'];

function NewWebhookForm({ team, onCreated }: { team: string; onCreated: () => void }) {
  const [secrets] = useQuery({ query: AutomationSecretsDocument, variables: { team }, context: SECRET_CONTEXT });
  const [created, createWebhook] = useMutation(AutomationCreateWebhookDocument);
  const [name, setName] = useState('');
  const [endpointUrl, setEndpointUrl] = useState('');
  const [accessTokenSecret, setAccessTokenSecret] = useState('');
  const [signingSecret, setSigningSecret] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const names = secrets.data?.secrets.map((secret) => secret.name) ?? [];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const response = await createWebhook({
      input: { team, name: name.trim(), endpointUrl: endpointUrl.trim(), accessTokenSecret: accessTokenSecret || null, signingSecret: signingSecret || null },
    });
    if (response.error) {
      setErrors(formErrors(response.error, WEBHOOK_FIELDS));
      return;
    }
    setErrors(NO_ERRORS);
    setName('');
    setEndpointUrl('');
    setAccessTokenSecret('');
    setSigningSecret('');
    onCreated();
  };

  const secretSelect = (id: string, label: string, value: string, onChange: (value: string) => void, field: string) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} {...invalidProps(id, errors.byField[field])}>
        <option value="">None</option>
        {names.map((secret) => (
          <option key={secret} value={secret}>
            {secret}
          </option>
        ))}
      </select>
      <FieldError id={id} messages={errors.byField[field]} />
    </div>
  );

  return (
    <form className="stacked-form" onSubmit={(event) => void submit(event)} aria-label="New webhook">
      <h3>New webhook</h3>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="webhook-name">Webhook name</label>
          <input id="webhook-name" value={name} onChange={(event) => setName(event.target.value)} autoComplete="off" {...invalidProps('webhook-name', errors.byField.name)} />
          <FieldError id="webhook-name" messages={errors.byField.name} />
        </div>
        <div className="field">
          <label htmlFor="webhook-url">Endpoint URL</label>
          <input
            id="webhook-url"
            type="url"
            value={endpointUrl}
            onChange={(event) => setEndpointUrl(event.target.value)}
            placeholder="https://ci.example.com/hook"
            {...invalidProps('webhook-url', errors.byField.endpointUrl)}
          />
          <FieldError id="webhook-url" messages={errors.byField.endpointUrl} />
        </div>
        {secretSelect('webhook-token', 'Access token secret', accessTokenSecret, setAccessTokenSecret, 'accessTokenSecret')}
        {secretSelect('webhook-signing', 'Signing secret', signingSecret, setSigningSecret, 'signingSecret')}
      </div>
      {errors.general.length ? <InlineError error={created.error} /> : null}
      <button type="submit" className="button button-primary" disabled={created.fetching || !name.trim() || !endpointUrl.trim()}>
        Add webhook
      </button>
    </form>
  );
}
