import { useMemo } from 'react';
import { useQuery } from 'urql';
import { DataTable, useCursorPager, type Column } from '../components/DataTable';
import { Empty, QueryState } from '../components/States';
import { DatasetRowsDocument, WeaveObjectVersionsDocument, type DatasetRowsQuery } from '../graphql/generated';
import type { PageProps } from '../routes';
import { asText } from './evaluations/scores';
import { ObjectsPage, type ObjectDetailProps } from './weave-objects/ObjectsPage';
import { VersionList, type ObjectVersion } from './weave-objects/VersionList';
import { EditRow } from './datasets/EditRow';
import { Evaluate } from './datasets/Evaluate';
import { FineTune } from './datasets/FineTune';

/** Weave's dataset class (the SDKs publish `weave.Dataset` with `_class_name: "Dataset"`). */
const DATASET_CLASSES = ['Dataset'];
const ROWS_PAGE = 50;
/** Columns beyond these many keys are left out of the rows table (the row's object page has them all). */
const MAX_COLUMNS = 12;

type Row = NonNullable<DatasetRowsQuery['project']>['traceTableRows']['edges'][number]['node'];

/** `weave:///entity/project/table/<digest>` (a dataset version's `rows`) → the table digest. */
export function tableDigestOf(val: unknown): string | null {
  const rows = val !== null && typeof val === 'object' ? (val as Record<string, unknown>).rows : null;
  return typeof rows === 'string' ? (/\/table\/([^/]+)$/.exec(rows)?.[1] ?? null) : null;
}

/**
 * Datasets: the Weave `Dataset` objects a project's SDKs published (`weave.publish(new weave.Dataset(…))`), each with
 * its versions and the rows of the chosen one, read from the table its value names.
 */
export default function Datasets(_props: PageProps) {
  return (
    <ObjectsPage
      title="Datasets"
      description="Datasets published with the Weave SDKs, their versions and rows."
      classes={DATASET_CLASSES}
      noun={['dataset', 'datasets']}
      headingId="datasets-heading"
      empty={
        <Empty title="No datasets in this project yet.">
          Publish one with the Weave SDK: <code>await client.publish(new weave.Dataset(&#123; name: 'my-dataset', rows &#125;))</code> (TypeScript) or{' '}
          <code>weave.publish(weave.Dataset(name="my-dataset", rows=rows))</code> (Python).
        </Empty>
      }
      detail={(detail) => <DatasetDetail {...detail} />}
    />
  );
}

function DatasetDetail({ entity, project, name, version, onVersion }: ObjectDetailProps) {
  const [result, reexecute] = useQuery({ query: WeaveObjectVersionsDocument, variables: { entity, project, objectId: name, first: 100 } });
  return (
    <section className="section card" aria-labelledby="dataset-heading" data-testid="dataset-detail">
      <div className="card-header">
        <h2 id="dataset-heading">{name}</h2>
      </div>
      <QueryState result={result} loadingLabel="Loading its versions…">
        {(data) => {
          const versions = data.project?.traceObjects.nodes ?? [];
          const shown = versions.find((candidate) => candidate.digest === version) ?? versions[0];
          if (!shown) return <Empty title={`No dataset ${name} in ${entity}/${project}.`} />;
          return (
            <>
              <h3 className="weave-subheading">Versions</h3>
              <VersionList entity={entity} project={project} versions={versions} selected={shown} onSelect={onVersion} />
              <h3 className="weave-subheading">
                Rows of v{shown.versionIndex}
              </h3>
              <DatasetRows key={shown.digest} entity={entity} project={project} version={shown} />
              <EditRow
                key={`edit-${shown.digest}`}
                entity={entity}
                project={project}
                dataset={name}
                version={shown.versionIndex}
                onSaved={(digest) => {
                  // The new version joins the list and is shown.
                  reexecute({ requestPolicy: 'network-only' });
                  onVersion(digest);
                }}
              />
              <FineTune key={`fine-tune-${shown.digest}`} entity={entity} project={project} dataset={name} version={shown.versionIndex} />
              <Evaluate key={`evaluate-${shown.digest}`} entity={entity} project={project} dataset={name} version={shown.versionIndex} tableDigest={tableDigestOf(shown.val)} />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}

function DatasetRows({ entity, project, version }: { entity: string; project: string; version: ObjectVersion }) {
  const digest = tableDigestOf(version.val);
  const pager = useCursorPager();
  const [result] = useQuery({ query: DatasetRowsDocument, variables: { entity, project, digest: digest ?? '', first: ROWS_PAGE, after: pager.after }, pause: !digest });
  if (!digest) return <Empty title="This version names no rows table.">Its value is on its object page.</Empty>;
  return (
    <QueryState result={result} loadingLabel="Loading rows…">
      {(data) => {
        const connection = data.project?.traceTableRows;
        if (!connection) return <Empty title="Its rows table was not found." />;
        return <RowsTable connection={connection} pager={pager} />;
      }}
    </QueryState>
  );
}

function RowsTable({ connection, pager }: { connection: NonNullable<DatasetRowsQuery['project']>['traceTableRows']; pager: ReturnType<typeof useCursorPager> }) {
  // One column per key the rows of this page have, in the order they first appear.
  const keys = useMemo(() => {
    const seen = new Set<string>();
    for (const { node } of connection.edges) if (node.val && typeof node.val === 'object' && !Array.isArray(node.val)) for (const key of Object.keys(node.val)) seen.add(key);
    return [...seen].slice(0, MAX_COLUMNS);
  }, [connection]);
  const columns: Column<Row>[] = [
    { key: 'index', header: '#', align: 'right', render: (row) => String(row.originalIndex) },
    ...keys.map(
      (key): Column<Row> => ({
        key: `field-${key}`,
        header: key,
        className: 'weave-row-cell',
        render: (row) => {
          const value = (row.val as Record<string, unknown> | null)?.[key];
          return value === undefined ? <span className="muted">—</span> : asText(value);
        },
      }),
    ),
  ];
  return (
    <div className="weave-rows" data-testid="dataset-rows">
      <DataTable caption="The version's rows, in their original order" columns={columns} connection={connection} pager={pager} rowKey={(row) => `${row.originalIndex}`} empty="This version has no rows." />
    </div>
  );
}
