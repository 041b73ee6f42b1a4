import { useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { DataTable, useCursorPager, type Column } from '../../components/DataTable';
import { formatDuration, relativeTime, ShortId, Time } from '../../components/Format';
import { JsonViewer } from '../../components/JsonViewer';
import { Empty, ErrorState, InlineError, Loading } from '../../components/States';
import {
  AutomationDeliveriesDocument,
  AutomationDeliveryUpdatesDocument,
  AutomationNamesDocument,
  AutomationRedeliverDocument,
  type AutomationDeliveryFieldsFragment,
  type DeliveryStatus,
} from '../../graphql/generated';
import { DeliveryStatusBadge, HttpStatus } from './Status';

type Delivery = AutomationDeliveryFieldsFragment;
const PAGE_SIZE = 20;
const STATUSES: DeliveryStatus[] = ['PENDING', 'SUCCEEDED', 'FAILED'];

/** Newer of two snapshots of one delivery (more attempts, or finished). */
function newer(a: Delivery, b: Delivery): Delivery {
  if (a.attempts.length !== b.attempts.length) return a.attempts.length > b.attempts.length ? a : b;
  if (a.attemptCount !== b.attemptCount) return a.attemptCount > b.attemptCount ? a : b;
  return (a.finishedAt ?? '') >= (b.finishedAt ?? '') ? a : b;
}

/**
 * The team's delivery log (`Query.deliveries`, newest first, filtered and paged by the server): status, attempts
 * (status codes, errors), payload; live through the `deliveryUpdates` subscription (updates merge into the page,
 * new deliveries join the first page); Redeliver sends a finished delivery again (same id, a new attempt).
 */
export function DeliveryLog({ team, automationId, onAutomationChange }: { team: string; automationId: string | null; onAutomationChange: (id: string | null) => void }) {
  const pager = useCursorPager();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const context = useMemo(() => ({ additionalTypenames: ['Delivery', 'Automation'] }), []);
  const [result, refetch] = useQuery({
    query: AutomationDeliveriesDocument,
    variables: { team, first: PAGE_SIZE, after: pager.after, automationId, status: status || null },
    context,
  });
  const [namesResult] = useQuery({ query: AutomationNamesDocument, variables: { team }, context });
  const [live, setLive] = useState<Record<string, Delivery>>({});
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const refetchTimer = useRef<ReturnType<typeof setTimeout>>();
  const { reset } = pager;

  useEffect(() => {
    setLive({});
    reset();
  }, [team, automationId, status, reset]);
  const [subscription] = useSubscription({ query: AutomationDeliveryUpdatesDocument, variables: { team } }, (_previous, data) => {
    const update = data.deliveryUpdates;
    setLive((current) => ({ ...current, [update.id]: current[update.id] ? newer(update, current[update.id]!) : update }));
    // Re-read the page shortly after, so paging and the server's order stay right.
    clearTimeout(refetchTimer.current);
    refetchTimer.current = setTimeout(() => refetch({ requestPolicy: 'network-only' }), 500);
    return data;
  });
  // Listening from the start (fetching) and after each update (data); an error ends it.
  const connected = !subscription.error && (subscription.fetching || subscription.data !== undefined);
  useEffect(() => () => clearTimeout(refetchTimer.current), []);

  const names = useMemo(() => new Map((namesResult.data?.automations.nodes ?? []).map((automation) => [automation.id, automation.name])), [namesResult.data]);
  const connection = useMemo(() => {
    const page = result.data?.deliveries;
    if (!page) return null;
    const onPage = new Set(page.edges.map((edge) => edge.node.id));
    const edges = page.edges.map((edge) => ({ ...edge, node: live[edge.node.id] ? newer(live[edge.node.id]!, edge.node) : edge.node }));
    // Deliveries the subscription announced that the page does not hold yet (first page only, same filters).
    const fresh =
      pager.page === 1
        ? Object.values(live)
            .filter((delivery) => !onPage.has(delivery.id) && (!automationId || delivery.automationId === automationId) && (!status || delivery.status === status))
            .filter((delivery) => !page.edges.length || delivery.createdAt >= page.edges[page.edges.length - 1]!.node.createdAt)
            .map((delivery) => ({ cursor: '', node: delivery }))
        : [];
    const all = [...fresh, ...edges].sort((a, b) => b.node.createdAt.localeCompare(a.node.createdAt) || b.node.id.localeCompare(a.node.id));
    return { edges: all, pageInfo: page.pageInfo };
  }, [result.data, live, pager.page, automationId, status]);
  const selected = connection?.edges.find((edge) => edge.node.id === selectedId)?.node ?? (selectedId ? (live[selectedId] ?? null) : null);

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
        <span className={`live-indicator ${connected ? 'live-on' : ''}`} data-testid="live-indicator">
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
            {[...names.entries()].map(([id, name]) => (
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
      {result.error && !result.data ? <ErrorState error={result.error} title="Could not load the delivery log" /> : null}
      {!connection && !result.error ? <Loading label="Loading deliveries…" /> : null}
      {connection ? (
        connection.edges.length === 0 && pager.page === 1 && !automationId && !status ? (
          <Empty title="No deliveries yet.">They appear here, live, as soon as an automation matches an event.</Empty>
        ) : (
          <DataTable
            caption={`Deliveries of team ${team}`}
            columns={columns}
            connection={connection}
            pager={pager}
            rowKey={(row) => row.id}
            rowClassName={(row) => (row.id === selectedId ? 'selected' : undefined)}
            empty="No deliveries match these filters."
          />
        )
      ) : null}
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
          <code>{delivery.eventType}</code> <span className="muted small">event id {delivery.eventId}</span>
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
                <td className="align-right">{formatDuration(attempt.durationMs)}</td>
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
