import { useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { DataTable, type Column } from '../../components/DataTable';
import { formatDuration, relativeTime, ShortId, Time } from '../../components/Format';
import { JsonViewer } from '../../components/JsonViewer';
import { Empty, InlineError, QueryState } from '../../components/States';
import {
  AutomationDeliveriesDocument,
  AutomationDeliveryUpdatesDocument,
  AutomationRedeliverDocument,
  type AutomationDeliveryFieldsFragment,
  type DeliveryStatus,
} from '../../graphql/generated';
import { DeliveryStatusBadge, HttpStatus } from './Status';

type Delivery = AutomationDeliveryFieldsFragment;
const PER_AUTOMATION = 50;
const STATUSES: DeliveryStatus[] = ['PENDING', 'SUCCEEDED', 'FAILED'];

/** Newer of two snapshots of one delivery (more attempts, or finished). */
function newer(a: Delivery, b: Delivery): Delivery {
  if (a.attempts.length !== b.attempts.length) return a.attempts.length > b.attempts.length ? a : b;
  if (a.attemptCount !== b.attemptCount) return a.attemptCount > b.attemptCount ? a : b;
  return (a.finishedAt ?? '') >= (b.finishedAt ?? '') ? a : b;
}

/**
 * The team's delivery log, newest first: status, attempts (status codes, errors), payload; live through the
 * `deliveryUpdates` subscription; Redeliver sends a finished delivery again (same id, a new attempt).
 */
export function DeliveryLog({ team, automationId, onAutomationChange }: { team: string; automationId: string | null; onAutomationChange: (id: string | null) => void }) {
  const [result, refetch] = useQuery({ query: AutomationDeliveriesDocument, variables: { team, limit: PER_AUTOMATION }, context: useMemo(() => ({ additionalTypenames: ['Delivery'] }), []) });
  const [live, setLive] = useState<Record<string, Delivery>>({});
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const refetchTimer = useRef<ReturnType<typeof setTimeout>>();

  useEffect(() => setLive({}), [team]);
  const [subscription] = useSubscription({ query: AutomationDeliveryUpdatesDocument, variables: { team } }, (_previous, data) => {
    const update = data.deliveryUpdates;
    setLive((current) => ({ ...current, [update.id]: current[update.id] ? newer(update, current[update.id]!) : update }));
    // A new automation's first delivery, or attempts the update raced: re-read the log shortly after.
    clearTimeout(refetchTimer.current);
    refetchTimer.current = setTimeout(() => refetch({ requestPolicy: 'network-only' }), 400);
    return data;
  });
  const connected = subscription.fetching && !subscription.error;
  useEffect(() => () => clearTimeout(refetchTimer.current), []);

  const names = useMemo(() => new Map((result.data?.automations ?? []).map((automation) => [automation.id, automation.name])), [result.data]);
  const all = useMemo(() => {
    const byId = new Map<string, Delivery>();
    for (const automation of result.data?.automations ?? []) for (const delivery of automation.deliveries) byId.set(delivery.id, delivery);
    for (const delivery of Object.values(live)) {
      const known = byId.get(delivery.id);
      byId.set(delivery.id, known ? newer(delivery, known) : delivery);
    }
    return [...byId.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }, [result.data, live]);
  const shown = all.filter((delivery) => (!automationId || delivery.automationId === automationId) && (!status || delivery.status === status));
  const selected = all.find((delivery) => delivery.id === selectedId) ?? null;

  const columns: Column<Delivery>[] = [
    { key: 'created', header: 'Event at', render: (row) => <span title={row.createdAt}>{relativeTime(row.createdAt)}</span> },
    { key: 'automation', header: 'Automation', render: (row) => names.get(row.automationId) ?? <ShortId id={row.automationId} /> },
    { key: 'event', header: 'Event', render: (row) => <code>{row.eventType}</code> },
    { key: 'status', header: 'Status', render: (row) => <DeliveryStatusBadge status={row.status} /> },
    { key: 'code', header: 'HTTP', render: (row) => (row.attemptCount === 0 ? <span className="muted">—</span> : <HttpStatus status={row.lastStatus} />) },
    { key: 'attempts', header: 'Attempts', align: 'right', render: (row) => row.attemptCount },
    {
      key: 'open',
      header: 'Details',
      render: (row) => (
        <button
          type="button"
          className="button button-small"
          aria-expanded={row.id === selectedId}
          aria-controls="delivery-detail"
          onClick={() => setSelectedId(row.id === selectedId ? null : row.id)}
          aria-label={`${row.id === selectedId ? 'Hide' : 'Details'} (delivery ${row.id})`}
        >
          {row.id === selectedId ? 'Hide' : 'Details'}
        </button>
      ),
    },
  ];

  return (
    <section className="card section" aria-labelledby="deliveries-heading" data-testid="delivery-log">
      <div className="card-header">
        <h2 id="deliveries-heading">Delivery log</h2>
        <span className={`live-dot ${connected ? 'live-on' : ''}`} data-testid="live-indicator">
          {connected ? 'Live' : subscription.error ? 'Live updates unavailable' : 'Connecting…'}
        </span>
        <button type="button" className="button button-small" onClick={() => refetch({ requestPolicy: 'network-only' })}>
          Refresh
        </button>
      </div>
      {subscription.error ? <InlineError error={subscription.error} /> : null}
      <div className="filters">
        <div className="field field-inline">
          <label htmlFor="delivery-automation">Automation</label>
          <select id="delivery-automation" value={automationId ?? ''} onChange={(event) => onAutomationChange(event.target.value || null)}>
            <option value="">All automations</option>
            {[...names].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-inline">
          <label htmlFor="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(event) => setStatus(event.target.value as DeliveryStatus | '')}>
            <option value="">Any</option>
            {STATUSES.map((item) => (
              <option key={item} value={item}>
                {item.toLowerCase()}
              </option>
            ))}
          </select>
        </div>
      </div>
      <QueryState result={result} loadingLabel="Loading deliveries…">
        {() =>
          all.length === 0 ? (
            <Empty title="No deliveries yet.">They appear here, live, as soon as an automation matches an event.</Empty>
          ) : (
            <DataTable
              caption={`Deliveries of team ${team}`}
              columns={columns}
              rows={shown}
              rowKey={(row) => row.id}
              rowClassName={(row) => (row.id === selectedId ? 'selected' : undefined)}
              empty="No deliveries match these filters."
            />
          )
        }
      </QueryState>
      {selected ? <DeliveryDetail delivery={selected} automationName={names.get(selected.automationId) ?? null} onUpdate={(delivery) => setLive((current) => ({ ...current, [delivery.id]: delivery }))} /> : null}
    </section>
  );
}

function DeliveryDetail({ delivery, automationName, onUpdate }: { delivery: Delivery; automationName: string | null; onUpdate: (delivery: Delivery) => void }) {
  const [redelivered, redeliver] = useMutation(AutomationRedeliverDocument);
  const payload = useMemo(() => {
    try {
      return { json: JSON.parse(delivery.payload) as unknown };
    } catch {
      return { text: delivery.payload };
    }
  }, [delivery.payload]);
  const finished = delivery.status !== 'PENDING';
  const onRedeliver = async () => {
    const response = await redeliver({ deliveryId: delivery.id });
    if (response.data) onUpdate(response.data.redeliver);
  };
  return (
    <div id="delivery-detail" className="delivery-detail" role="region" aria-label={`Delivery ${delivery.id}`} data-testid="delivery-detail">
      <div className="card-header">
        <h3>
          Delivery <code>{delivery.id}</code>
        </h3>
        <DeliveryStatusBadge status={delivery.status} />
        <button type="button" className="button button-primary button-small" onClick={() => void onRedeliver()} disabled={!finished || redelivered.fetching} title={finished ? undefined : 'Still being delivered'}>
          {redelivered.fetching ? 'Redelivering…' : 'Redeliver'}
        </button>
      </div>
      <dl className="detail-grid">
        <dt>Automation</dt>
        <dd>{automationName ?? delivery.automationId}</dd>
        <dt>Event</dt>
        <dd>
          <code>{delivery.eventType}</code> <span className="muted small mono">{delivery.eventId}</span>
        </dd>
        <dt>Matched</dt>
        <dd>
          <Time value={delivery.createdAt} />
        </dd>
        <dt>{finished ? 'Finished' : 'Next attempt'}</dt>
        <dd>
          <Time value={finished ? delivery.finishedAt : delivery.nextAttemptAt} />
        </dd>
      </dl>
      {redelivered.error ? <InlineError error={redelivered.error} /> : null}
      <h4>Attempts</h4>
      {delivery.attempts.length === 0 ? (
        <p className="muted">No attempt yet.</p>
      ) : (
        <table className="attempts" data-testid="delivery-attempts">
          <caption className="visually-hidden">Attempts of delivery {delivery.id}</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Sent</th>
              <th scope="col">Status</th>
              <th scope="col" className="align-right">
                Took
              </th>
              <th scope="col">Response or error</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((attempt) => (
              <tr key={attempt.attempt} data-testid="delivery-attempt">
                <td>{attempt.attempt}</td>
                <td>
                  <Time value={attempt.startedAt} />
                </td>
                <td>
                  <HttpStatus status={attempt.responseStatus} />
                </td>
                <td className="align-right">{formatDuration(new Date(attempt.finishedAt).getTime() - new Date(attempt.startedAt).getTime())}</td>
                <td>
                  {attempt.error ? <span className="error-text">{attempt.error}</span> : null}
                  {attempt.responseBody ? <code className="response-snippet">{attempt.responseBody}</code> : attempt.error ? null : <span className="muted">(empty body)</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Payload sent</h4>
      {'json' in payload ? <JsonViewer value={payload.json} openDepth={3} /> : <pre className="response-body">{payload.text}</pre>}
    </div>
  );
}
