import { useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';
import { DashboardTeamProjectsDocument as TeamProjects, InferenceCatalogDocument } from '../graphql/generated';
import { useSearchParams } from '../router';
import { useSession } from '../viewer';
import { Catalog } from './inference/Catalog';
import { Playground } from './inference/Playground';
import { Usage, USAGE_WINDOWS, type UsageWindowId } from './inference/Usage';
import './inference/inference.css';

/**
 * Inference: the model catalog (backends, who may use each, deployments with health), usage over time per project
 * and model (requests, tokens, errors), and a playground that streams a completion over graphql-ws. The team,
 * project filter and window live in the URL (?team=&project=&window=).
 */
export default function Inference() {
  const { viewer } = useSession();
  const [search, setSearch] = useSearchParams();
  const [refreshed, setRefreshed] = useState(0);
  const [catalog, refetchCatalog] = useQuery({ query: InferenceCatalogDocument, variables: { withDeployments: viewer.isAdmin } });
  const models = catalog.data?.inferenceModels ?? [];
  const [model, setModel] = useState('');
  useEffect(() => {
    // A functional update: the playground may have picked a model in the same commit (a handed-over conversation).
    if (models.length > 0) setModel((current) => (models.some((candidate) => candidate.id === current) ? current : models[0]!.id));
  }, [models, model]);
  // "Open in playground" from a traced call lands on /inference#playground once the playground is there.
  useEffect(() => {
    if (models.length > 0 && window.location.hash === '#playground') document.getElementById('playground')?.scrollIntoView();
  }, [models.length > 0]);

  // The viewer's default entity when it is one of their teams (SDK requests without a project are recorded there).
  const team = search.get('team') ?? viewer.teams.find((membership) => membership.team === viewer.defaultEntity?.name)?.team ?? viewer.teams[0]?.team ?? null;
  const project = search.get('project') || null;
  const windowId = (USAGE_WINDOWS.find((candidate) => candidate.id === search.get('window'))?.id ?? '1h') as UsageWindowId;
  const setParams = (changes: Record<string, string | null>) =>
    setSearch({ team: search.get('team'), project: search.get('project'), window: search.get('window'), ...changes });

  const refresh = () => {
    setRefreshed((value) => value + 1);
    refetchCatalog({ requestPolicy: 'network-only' });
  };

  function tryModel(id: string) {
    setModel(id);
    document.getElementById('playground-prompt')?.focus();
  }

  return (
    <>
      <PageHeader
        title="Inference"
        description="The models you may call at /inference/v1 and through the graph, what they are used for, and a playground."
        actions={
          <button type="button" className="button" onClick={refresh}>
            Refresh
          </button>
        }
      />

      <section aria-labelledby="catalog-heading" className="section card" data-testid="inference-catalog">
        <div className="card-header">
          <h2 id="catalog-heading">Model catalog</h2>
          {catalog.data ? <span className="muted">{models.length === 1 ? '1 model' : `${models.length} models`}</span> : null}
        </div>
        <Catalog result={catalog} showDeployments={viewer.isAdmin} onTry={tryModel} />
      </section>

      <section aria-labelledby="usage-heading" className="section card">
        <div className="card-header">
          <h2 id="usage-heading">Usage</h2>
        </div>
        {team ? (
          <>
            <div className="filters" role="group" aria-label="Usage filters">
              {viewer.teams.length > 1 ? (
                <div className="field field-inline">
                  <label htmlFor="usage-team">Team</label>
                  <select id="usage-team" value={team} onChange={(event) => setParams({ team: event.target.value, project: null })}>
                    {viewer.teams.map((membership) => (
                      <option key={membership.team} value={membership.team}>
                        {membership.team}
                      </option>
                    ))}
                  </select>
                </div>
              ) : null}
              <ProjectFilter team={team} value={project} onChange={(value) => setParams({ project: value })} />
              <div className="field field-inline">
                <label htmlFor="usage-window">Window</label>
                <select id="usage-window" value={windowId} onChange={(event) => setParams({ window: event.target.value })}>
                  {USAGE_WINDOWS.map((window) => (
                    <option key={window.id} value={window.id}>
                      {window.label} ({window.bucketLabel})
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <Usage team={team} project={project} windowId={windowId} refreshed={refreshed} />
          </>
        ) : (
          <Empty title="You are not a member of any team yet.">Usage is shown per team; a team admin can add you.</Empty>
        )}
      </section>

      <section aria-labelledby="playground-heading" className="section card" data-testid="inference-playground">
        <div className="card-header">
          <h2 id="playground-heading">Playground</h2>
        </div>
        {models.length > 0 ? (
          <Playground models={models} model={model} onModelChange={setModel} team={team} refreshed={refreshed} />
        ) : (
          <Empty title={catalog.fetching ? 'Loading models…' : 'No model to try.'} />
        )}
      </section>
    </>
  );
}

/** Projects of the team that have or may have usage; "All projects" shows one series per project and model. */
function ProjectFilter({ team, value, onChange }: { team: string; value: string | null; onChange: (project: string | null) => void }) {
  const [result] = useQuery({ query: TeamProjects, variables: { team } });
  const projects = result.data?.team?.projects.map((project) => project.name) ?? [];
  return (
    <div className="field field-inline">
      <label htmlFor="usage-project">Project</label>
      <select id="usage-project" value={value ?? ''} onChange={(event) => onChange(event.target.value || null)}>
        <option value="">All projects</option>
        {value && !projects.includes(value) ? <option value={value}>{value}</option> : null}
        {projects.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}
