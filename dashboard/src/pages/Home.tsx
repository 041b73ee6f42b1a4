import { useEffect, useState, type ReactNode } from 'react';
import { useClient, useSubscription, type CombinedError } from 'urql';
import { formatCost } from '../components/Cost';
import { DataTable, type Column } from '../components/DataTable';
import { formatCompactNumber, formatDuration, formatNumber, relativeTime, StatusBadge, Time } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { Empty, ErrorState, Loading } from '../components/States';
import { HomeLiveEventsDocument, HomeTeamCostsDocument, HomeTeamDocument, type HomeLiveEventsSubscription, type HomeTeamCostsQuery, type HomeTeamQuery } from '../graphql/generated';
import { href, Link } from '../router';
import { useSession } from '../viewer';
import './Home.css';

type Team = NonNullable<HomeTeamQuery['team']>;
type Project = Team['projects'][number];
type RecentCall = Project['recentCalls']['nodes'][number] & { project: string };

interface TeamResult {
  name: string;
  role: string;
  team: Team | null;
  error: CombinedError | null;
}

/** The viewer's teams (one HomeTeam query each, in parallel), re-read when the viewer changes. */
function useTeams(): { teams: TeamResult[] | null; generation: number; refresh: () => void } {
  const client = useClient();
  const { viewer } = useSession();
  const [teams, setTeams] = useState<TeamResult[] | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let cancelled = false;
    void Promise.all(
      viewer.teams.map(async (membership) => {
        const result = await client.query(HomeTeamDocument, { team: membership.team }, { requestPolicy: 'network-only' }).toPromise();
        return { name: membership.team, role: membership.role, team: result.data?.team ?? null, error: result.error ?? null };
      }),
    ).then((results) => {
      if (!cancelled) setTeams(results);
    });
    return () => {
      cancelled = true;
    };
  }, [client, viewer, generation]);
  return { teams, generation, refresh: () => setGeneration((value) => value + 1) };
}

type ProjectUsage = NonNullable<HomeTeamCostsQuery['team']>['projects'][number]['recentUsage'];

/**
 * Each project's traced tokens and cost over the last COST_DAYS days, by full name; null until they arrive (a query of
 * their own, after the teams: summing a busy project's window takes longer than the rest of the page).
 */
function useProjectCosts(generation: number): Map<string, ProjectUsage> | null {
  const client = useClient();
  const { viewer } = useSession();
  const [costs, setCosts] = useState<Map<string, ProjectUsage> | null>(null);
  useEffect(() => {
    let cancelled = false;
    const since = costSince();
    void Promise.all(
      viewer.teams.map((membership) => client.query(HomeTeamCostsDocument, { team: membership.team, since }, { requestPolicy: 'network-only' }).toPromise()),
    ).then((results) => {
      if (cancelled) return;
      setCosts(new Map(results.flatMap((result) => result.data?.team?.projects.map((project) => [project.fullName, project.recentUsage] as const) ?? [])));
    });
    return () => {
      cancelled = true;
    };
  }, [client, viewer, generation]);
  return costs;
}

/** Cost figures on Home cover the last 30 days of traced calls (Project.tokenUsage), from the start of this hour. */
const COST_DAYS = 30;
const costSince = () => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - COST_DAYS * 86_400_000).toISOString();

type ProjectRow = Project & { recentUsage: ProjectUsage | undefined };

const projectColumns: Column<ProjectRow>[] = [
  {
    key: 'project',
    header: 'Project',
    render: (project) => <Link to={href('/traces', { project: project.fullName })}>{project.name}</Link>,
    sortValue: (project) => project.name,
  },
  { key: 'calls', header: 'Calls', align: 'right', render: (project) => formatNumber(project.callCount), sortValue: (project) => project.callCount },
  { key: 'traces', header: 'Traces', align: 'right', render: (project) => formatNumber(project.traceCount), sortValue: (project) => project.traceCount },
  {
    key: 'evaluations',
    header: 'Evaluations',
    align: 'right',
    render: (project) => formatNumber(project.evaluationRunCount),
    sortValue: (project) => project.evaluationRunCount,
  },
  {
    key: 'inference',
    header: 'Inference',
    align: 'right',
    render: (project) => formatNumber(project.inferenceRequestCount),
    sortValue: (project) => project.inferenceRequestCount,
  },
  {
    key: 'models',
    header: 'Models',
    align: 'right',
    render: (project) => formatNumber(project.trainingModelCount),
    sortValue: (project) => project.trainingModelCount,
  },
  {
    key: 'jobs',
    header: 'Jobs',
    align: 'right',
    render: (project) => formatNumber(project.trainingJobCount),
    sortValue: (project) => project.trainingJobCount,
  },
  { key: 'runs', header: 'Runs', align: 'right', render: (project) => formatNumber(project.runCount), sortValue: (project) => project.runCount },
  {
    key: 'cost',
    header: `Cost, ${COST_DAYS} days`,
    align: 'right',
    render: (project) =>
      project.recentUsage ? (
        <span data-cost={project.recentUsage.cost ?? ''}>{formatCost(project.recentUsage.cost)}</span>
      ) : (
        <span className="muted">…</span>
      ),
    sortValue: (project) => project.recentUsage?.cost ?? -1,
  },
  { key: 'created', header: 'Created', render: (project) => <Time value={project.createdAt} />, sortValue: (project) => project.createdAt },
];

const recentColumns: Column<RecentCall>[] = [
  {
    key: 'op',
    header: 'Trace',
    render: (call) => {
      const [entity = '', project = ''] = call.project.split('/');
      return <Link to={`/traces/${encodeURIComponent(entity)}/${encodeURIComponent(project)}/${encodeURIComponent(call.traceId ?? call.id)}`}>{callName(call)}</Link>;
    },
  },
  { key: 'project', header: 'Project', render: (call) => call.project },
  { key: 'status', header: 'Status', render: (call) => <StatusBadge status={call.status} /> },
  { key: 'latency', header: 'Latency', align: 'right', render: (call) => formatDuration(call.latencyMs) },
  {
    key: 'started',
    header: 'Started',
    render: (call) => (
      <span title={call.startedAt ?? undefined}>
        {relativeTime(call.startedAt)}
      </span>
    ),
  },
];

export function callName(call: { opName?: string | null; displayName?: string | null; id: string }): string {
  if (call.displayName) return call.displayName;
  if (!call.opName) return call.id;
  // weave:///entity/project/op/name:digest → name
  const match = /\/op\/([^:/]+)(?::[^/]*)?$/.exec(call.opName);
  return match ? match[1]! : call.opName;
}

export default function Home() {
  const { viewer } = useSession();
  const { teams, generation, refresh } = useTeams();
  const costs = useProjectCosts(generation);

  const header = (
    <PageHeader
      title="Home"
      description={`Teams and projects ${viewer.username} can see, with what each holds, and the latest traces.`}
      actions={
        <button type="button" className="button" onClick={refresh}>
          Refresh
        </button>
      }
    />
  );
  if (viewer.teams.length === 0) {
    return (
      <>
        {header}
        <Empty title="You are not a member of any team yet.">A team admin can add you (Settings → Team members), or an operator with <code>npm run cli -- team add-member</code>.</Empty>
      </>
    );
  }
  if (!teams) {
    return (
      <>
        {header}
        <Loading label="Loading your teams…" />
      </>
    );
  }

  const projects = teams.flatMap((result) => result.team?.projects ?? []);
  const recent: RecentCall[] = projects
    .flatMap((project) => project.recentCalls.nodes.map((call) => ({ ...call, project: project.fullName })))
    .sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''))
    .slice(0, 10);
  const totals = {
    teams: teams.length,
    projects: projects.length,
    calls: projects.reduce((sum, project) => sum + project.callCount, 0),
    evaluations: projects.reduce((sum, project) => sum + project.evaluationRunCount, 0),
    jobs: projects.reduce((sum, project) => sum + project.trainingJobCount, 0),
    inference: projects.reduce((sum, project) => sum + project.inferenceRequestCount, 0),
    models: projects.reduce((sum, project) => sum + project.trainingModelCount, 0),
    webhooks: teams.reduce((sum, result) => sum + (result.team?.webhookCount ?? 0), 0),
    cost: [...(costs?.values() ?? [])].reduce((sum, usage) => sum + (usage.cost ?? 0), 0),
    unpriced: [...(costs?.values() ?? [])].filter((usage) => usage.cost === null).length,
  };

  return (
    <>
      {header}
      <section aria-labelledby="totals-heading" className="section">
        <h2 id="totals-heading" className="visually-hidden">
          Totals
        </h2>
        <dl className="stat-grid">
          <Stat label="Teams" value={totals.teams} />
          <Stat label="Projects" value={totals.projects} />
          <Stat label="Calls traced" value={totals.calls}>
            {costs ? (
              <dd className="stat-note" data-testid="home-cost" data-cost={totals.cost} title={totals.unpriced > 0 ? `Without ${totals.unpriced} ${totals.unpriced === 1 ? 'project' : 'projects'} whose models have no price` : undefined}>
                {formatCost(totals.cost)}
                {totals.unpriced > 0 ? '+' : ''} in {COST_DAYS} days
              </dd>
            ) : null}
          </Stat>
          <Stat label="Evaluations" value={totals.evaluations} />
          <Stat label="Inference requests" value={totals.inference} />
          <Stat label="Training models" value={totals.models} />
          <Stat label="Training jobs" value={totals.jobs} />
          <Stat label="Webhooks" value={totals.webhooks} />
        </dl>
      </section>

      <section aria-labelledby="recent-heading" className="section card">
        <h2 id="recent-heading">Recent traces</h2>
        {recent.length === 0 ? (
          <Empty title="No traces yet.">
            Send some with the Weave SDK: <code>WF_TRACE_SERVER_URL={window.location.origin}/traces</code>.
          </Empty>
        ) : (
          <DataTable caption="Recent traces across your projects" columns={recentColumns} rows={recent} rowKey={(call) => `${call.project}/${call.id}`} />
        )}
      </section>

      <LiveEvents />

      {[...teams].sort((a, b) => (b.team?.projects.length ?? 0) - (a.team?.projects.length ?? 0)).map((result) => (
        <section key={result.name} aria-labelledby={`team-${result.name}`} className="section card" data-team={result.name}>
          <div className="card-header">
            <h2 id={`team-${result.name}`}>
              Team <span className="mono">{result.name}</span>
            </h2>
            <span className="badge">{result.role.toLowerCase()}</span>
            {result.team ? (
              <span className="muted">
                {result.team.members.length} {result.team.members.length === 1 ? 'member' : 'members'} · {formatNumber(result.team.webhookCount)}{' '}
                {result.team.webhookCount === 1 ? 'webhook' : 'webhooks'}
              </span>
            ) : null}
          </div>
          {result.error ? <ErrorState error={result.error} title={`Could not load team ${result.name}`} /> : null}
          {result.team ? (
            result.team.projects.length === 0 ? (
              <Empty title="No projects in this team yet.">Projects are created on first use by the SDKs, or with createProject.</Empty>
            ) : (
              <DataTable caption={`Projects of team ${result.name}`} columns={projectColumns} rows={result.team.projects.map((project) => ({ ...project, recentUsage: costs?.get(project.fullName) }))} rowKey={(project) => project.fullName} />
            )
          ) : null}
        </section>
      ))}
    </>
  );
}

/**
 * A total on a small card: large counts are shortened ("102.7K") so they fit, the exact figure in the title; `children`
 * adds a line under it (the traced calls' cost).
 */
function Stat({ label, value, children }: { label: string; value: number; children?: ReactNode }) {
  const exact = formatNumber(value);
  const shown = formatCompactNumber(value);
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd title={shown === exact ? undefined : exact}>{shown}</dd>
      {children}
    </div>
  );
}

type LiveEvent = HomeLiveEventsSubscription['platformEvents'];

/** Platform events as they happen, over graphql-ws (`/graphql/ws`, the key in connection_init). */
function LiveEvents() {
  const [result] = useSubscription<HomeLiveEventsSubscription, LiveEvent[]>({ query: HomeLiveEventsDocument }, (events = [], data) =>
    [data.platformEvents, ...events].slice(0, 8),
  );
  const events = result.data ?? [];
  return (
    <section aria-labelledby="live-heading" className="section card" data-testid="live-events">
      <div className="card-header">
        <h2 id="live-heading">Live events</h2>
        <span className="muted">{result.error ? null : 'since you opened this page'}</span>
      </div>
      {result.error ? (
        <ErrorState error={result.error} title="Live events are unavailable" />
      ) : events.length === 0 ? (
        <p className="muted live-empty">Nothing yet: runs, artifacts, training jobs and deliveries of your teams appear here as they happen.</p>
      ) : (
        <ul className="event-list" aria-live="polite">
          {events.map((event) => (
            <li key={event.id}>
              <code className="event-type">{event.type}</code>
              <span>
                {event.project ? `${event.entity}/${event.project}` : event.entity} · by {event.author}
              </span>
              <span className="muted" title={event.createdAt}>
                {relativeTime(event.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
