import { DataTable, type Column } from '../../components/DataTable';
import { Time } from '../../components/Format';
import { Empty, QueryState } from '../../components/States';
import type { InferenceCatalogQuery } from '../../graphql/generated';
import type { CombinedError } from 'urql';

export type CatalogModel = InferenceCatalogQuery['inferenceModels'][number];
type Deployment = NonNullable<CatalogModel['deployments']>[number];

/** The catalog: what each model is, who may use it, and what answers for it (deployments with health). */
export function Catalog({
  result,
  showDeployments,
  onTry,
}: {
  result: { data?: InferenceCatalogQuery; fetching: boolean; error?: CombinedError };
  showDeployments: boolean;
  onTry: (model: string) => void;
}) {
  const columns: Column<CatalogModel>[] = [
    { key: 'id', header: 'Model', render: (model) => (
        <code className="model-id" title={`Added ${new Date(model.created).toISOString()}`}>
          {model.id}
        </code>
      ),
      sortValue: (model) => model.id, className: 'nowrap' },
    { key: 'backend', header: 'Backend', render: (model) => <span className="badge">{model.backend}</span>, sortValue: (model) => model.backend },
    { key: 'root', header: 'Serves', render: (model) => (model.root === model.id ? <span className="muted">itself</span> : <code>{model.root}</code>) },
    { key: 'owner', header: 'Owner', render: (model) => model.ownedBy, sortValue: (model) => model.ownedBy },
    {
      key: 'source',
      header: 'Source',
      render: (model) => (
        <span className="nowrap" title={model.source === 'config' ? 'TRELLIS_MODELS_FILE or the shipped catalog' : 'registerInferenceModel'}>
          {model.source === 'config' ? 'models file' : model.source === 'api' ? 'API' : model.source}
        </span>
      ),
      sortValue: (model) => model.source,
    },
    { key: 'teams', header: 'Available to', render: (model) => (model.teams ? model.teams.join(', ') : <span className="muted">everyone</span>) },
    { key: 'health', header: 'Deployments · health', render: (model) => <Health model={model} showDeployments={showDeployments} /> },
    {
      key: 'try',
      header: 'Playground',
      render: (model) => (
        <button type="button" className="link-button" onClick={() => onTry(model.id)} aria-label={`Try ${model.id} in the playground`}>
          Try
        </button>
      ),
    },
  ];
  return (
    <QueryState result={result} loadingLabel="Loading the model catalog…">
      {(data) =>
        data.inferenceModels.length === 0 ? (
          <Empty title="No models you may use.">
            An administrator adds models in <code>TRELLIS_MODELS_FILE</code> or with <code>registerInferenceModel</code>; models reserved for teams
            you are not in are not listed.
          </Empty>
        ) : (
          <DataTable caption="Models you may use" columns={columns} rows={data.inferenceModels} rowKey={(model) => model.id} />
        )
      }
    </QueryState>
  );
}

function Health({ model, showDeployments }: { model: CatalogModel; showDeployments: boolean }) {
  if (model.backend === 'embedded') {
    return (
      <span className="status status-ok" title="Answered by the platform's in-process runtime: no upstream server">
        in-process
      </span>
    );
  }
  if (!showDeployments || !model.deployments) return <span className="muted">shown to platform administrators</span>;
  if (model.deployments.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="deployment-list" aria-label={`Deployments of ${model.id}`}>
      {model.deployments.map((deployment) => (
        <DeploymentItem key={deployment.label} deployment={deployment} />
      ))}
    </ul>
  );
}

function DeploymentItem({ deployment }: { deployment: Deployment }) {
  const healthy = deployment.health === 'HEALTHY';
  return (
    <li data-health={deployment.health}>
      <span className={`status ${healthy ? 'status-ok' : 'status-warning'}`}>{healthy ? 'healthy' : 'cooling down'}</span>{' '}
      <span className="mono" title={`${deployment.baseUrl} (model ${deployment.model})`}>
        {deployment.label}
      </span>
      {deployment.inFlight > 0 ? <span className="muted"> · {deployment.inFlight} in flight</span> : null}
      {!healthy && deployment.coolingUntil ? (
        <span className="muted">
          {' '}
          · until <Time value={deployment.coolingUntil} />
        </span>
      ) : null}
    </li>
  );
}
