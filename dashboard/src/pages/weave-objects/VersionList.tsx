import { Time } from '../../components/Format';
import { href, Link } from '../../router';
import type { WeaveObjectVersionsQuery } from '../../graphql/generated';

export type ObjectVersion = NonNullable<WeaveObjectVersionsQuery['project']>['traceObjects']['nodes'][number];

/** An object's versions, newest first: choosing one shows it; each links to its object page (the SDKs' links). */
export function VersionList({
  entity,
  project,
  versions,
  selected,
  onSelect,
  describe,
}: {
  entity: string;
  project: string;
  versions: readonly ObjectVersion[];
  selected: ObjectVersion;
  onSelect: (digest: string) => void;
  /** A short summary of a version's value (its row count, its first words). */
  describe?: (version: ObjectVersion) => string;
}) {
  const objectPath = (version: ObjectVersion) =>
    `/objects/${encodeURIComponent(entity)}/${encodeURIComponent(project)}/${encodeURIComponent(version.objectId)}/${encodeURIComponent(version.digest)}`;
  return (
    <div className="table-scroll">
      <table data-testid="weave-object-versions">
        <caption className="visually-hidden">Versions of {selected.objectId}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Published</th>
            {describe ? <th scope="col">Content</th> : null}
            <th scope="col">Digest</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={version.digest} className={version.digest === selected.digest ? 'selected' : undefined} aria-current={version.digest === selected.digest ? 'true' : undefined}>
              <th scope="row">
                <button type="button" className="link-button" aria-pressed={version.digest === selected.digest} onClick={() => onSelect(version.digest)} aria-label={`Show v${version.versionIndex}`}>
                  v{version.versionIndex}
                </button>
                {version.isLatest ? <span className="badge weave-latest">latest</span> : null}
              </th>
              <td>
                <Time value={version.createdAt} />
              </td>
              {describe ? <td>{describe(version)}</td> : null}
              <td>
                <Link to={href(objectPath(version))} className="mono">
                  {version.digest.slice(0, 12)}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
