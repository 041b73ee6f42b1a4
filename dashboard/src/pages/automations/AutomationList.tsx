import { useMutation, useQuery } from 'urql';
import { DataTable, type Column } from '../../components/DataTable';
import { Time } from '../../components/Format';
import { Empty, InlineError, QueryState } from '../../components/States';
import { AutomationDeleteDocument, AutomationListDocument, AutomationSetEnabledDocument, type AutomationFieldsFragment } from '../../graphql/generated';

const CONTEXT = { additionalTypenames: ['Automation'] };

/** The team's automations: what each watches, where it posts, and whether it is active. */
export function AutomationList({
  team,
  onShowDeliveries,
  onEdit,
  selected,
}: {
  team: string;
  onShowDeliveries: (automation: AutomationFieldsFragment) => void;
  onEdit: (automation: AutomationFieldsFragment) => void;
  selected: string | null;
}) {
  const [result, refetch] = useQuery({ query: AutomationListDocument, variables: { team }, context: CONTEXT });
  const [toggled, setEnabled] = useMutation(AutomationSetEnabledDocument);
  const [deleted, remove] = useMutation(AutomationDeleteDocument);

  const columns: Column<AutomationFieldsFragment>[] = [
    {
      key: 'name',
      header: 'Automation',
      sortValue: (row) => row.name,
      render: (row) => (
        <div>
          <strong>{row.name}</strong>
          {row.description ? <div className="small muted">{row.description}</div> : null}
        </div>
      ),
    },
    {
      key: 'watch',
      header: 'Watches',
      render: (row) => (
        <div>
          <code>{row.eventType}</code>
          <div className="small muted">
            {row.scopeKind.toLowerCase()} <span className="mono">{row.scopeName}</span>
            {describeFilters(row)}
          </div>
        </div>
      ),
    },
    { key: 'webhook', header: 'Webhook', render: (row) => row.webhook?.name ?? <span className="muted">deleted</span> },
    {
      key: 'state',
      header: 'State',
      sortValue: (row) => row.state,
      render: (row) => <span className={`status ${row.enabled ? 'status-ok' : 'status-neutral'}`}>{row.enabled ? 'active' : 'paused'}</span>,
    },
    { key: 'created', header: 'Created', sortValue: (row) => row.createdAt, render: (row) => <Time value={row.createdAt} /> },
    {
      key: 'actions',
      header: 'Actions',
      render: (row) => (
        <div className="row-actions">
          <button type="button" className="button button-small" onClick={() => onShowDeliveries(row)} aria-label={`Show deliveries of ${row.name}`}>
            Deliveries
          </button>
          <button type="button" className="button button-small" onClick={() => onEdit(row)} aria-label={`Edit ${row.name}`}>
            Edit
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={toggled.fetching}
            onClick={() => void setEnabled({ id: row.id, enabled: !row.enabled })}
            aria-label={`${row.enabled ? 'Pause' : 'Resume'} ${row.name}`}
          >
            {row.enabled ? 'Pause' : 'Resume'}
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            onClick={() => {
              if (window.confirm(`Delete automation ${row.name} and its delivery history?`)) void remove({ id: row.id }).then(() => refetch({ requestPolicy: 'network-only' }));
            }}
            aria-label={`Delete ${row.name}`}
          >
            Delete
          </button>
        </div>
      ),
    },
  ];

  return (
    <>
      <QueryState result={result} loadingLabel="Loading automations…">
        {(data) =>
          data.automations.nodes.length === 0 ? (
            <Empty title="No automations yet.">Create one to call a webhook when an artifact, alias, tag or run changes.</Empty>
          ) : (
            <DataTable
              caption={`Automations of team ${team}`}
              columns={columns}
              rows={data.automations.nodes}
              rowKey={(row) => row.id}
              rowClassName={(row) => (row.id === selected ? 'selected' : undefined)}
            />
          )
        }
      </QueryState>
      {toggled.error ? <InlineError error={toggled.error} /> : null}
      {deleted.error ? <InlineError error={deleted.error} /> : null}
    </>
  );
}

function describeFilters(row: AutomationFieldsFragment): string {
  const parts: string[] = [];
  const event = row.event;
  for (const key of ['aliasRegex', 'tagRegex', 'metricName', 'comparison', 'threshold', 'changeDirection', 'changeAmount'] as const) {
    const value = event[key];
    if (value !== null && value !== undefined && value !== '') parts.push(`${key} ${String(value)}`);
  }
  if (event.runStates?.length) parts.push(`states ${event.runStates.join(', ')}`);
  const filter = row.runFilter;
  if (filter.user) parts.push(`user ${filter.user}`);
  if (filter.runNameRegex) parts.push(`run ~ ${filter.runNameRegex}`);
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}
