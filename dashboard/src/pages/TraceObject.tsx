import { useQuery } from 'urql';
import { Time } from '../components/Format';
import { JsonViewer } from '../components/JsonViewer';
import { PageHeader } from '../components/PageHeader';
import { Empty, ErrorState, Loading } from '../components/States';
import { TraceObjectVersionDocument } from '../graphql/generated';
import type { PageProps } from '../routes';
import { href, Link } from '../router';

/**
 * One version of a published Weave object or op (where the SDKs' object and op links land): its value and the
 * object's other versions.
 */
export default function TraceObject({ params }: PageProps) {
  const entity = params.entity ?? '';
  const project = params.project ?? '';
  const objectId = params.name ?? '';
  const digest = params.digest ?? '';
  const [result] = useQuery({ query: TraceObjectVersionDocument, variables: { entity, project, objectId, digest } });

  if (result.error) return <ErrorState error={result.error} />;
  if (result.fetching && !result.data) return <Loading />;
  const object = result.data?.project?.traceObject;
  if (!object) {
    return (
      <>
        <PageHeader title={objectId} />
        <Empty title={`No version ${digest} of ${objectId} in ${entity}/${project}`}>It may not exist, or this key cannot see the project.</Empty>
      </>
    );
  }
  const versions = result.data?.project?.versions.nodes ?? [];
  const path = (version: string) => `/objects/${encodeURIComponent(entity)}/${encodeURIComponent(project)}/${encodeURIComponent(objectId)}/${encodeURIComponent(version)}`;
  return (
    <>
      <PageHeader
        title={`${objectId}:v${object.versionIndex}`}
        description={
          <>
            {object.kind === 'op' ? 'Op' : (object.baseObjectClass ?? 'Object')} in{' '}
            <Link to={href('/traces', { project: `${entity}/${project}` })}>{entity}/{project}</Link> · stored <Time value={object.createdAt} />
            {object.isLatest ? ' · latest' : ''}
          </>
        }
      />
      <section className="card section" aria-labelledby="object-value">
        <h2 id="object-value">Value</h2>
        <p className="muted">
          <code>{`weave:///${entity}/${project}/${object.kind === 'op' ? 'op' : 'object'}/${objectId}:${object.digest}`}</code>
        </p>
        <JsonViewer value={object.val} label="Value" openDepth={2} />
      </section>
      <section className="card section" aria-labelledby="object-versions">
        <h2 id="object-versions">Versions</h2>
        <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Digest</th>
              <th scope="col">Stored</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((version) => (
              <tr key={version.digest} aria-current={version.digest === object.digest ? 'true' : undefined}>
                <td>
                  {version.digest === object.digest ? (
                    `v${version.versionIndex}`
                  ) : (
                    <Link to={href(path(version.digest))}>v{version.versionIndex}</Link>
                  )}
                  {version.isLatest ? ' (latest)' : ''}
                </td>
                <td>
                  <code>{version.digest}</code>
                </td>
                <td>
                  <Time value={version.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      </section>
    </>
  );
}
