import { useQuery } from 'urql';
import { DataTable, useCursorPager, type Column } from '../../components/DataTable';
import { Time } from '../../components/Format';
import { Empty, QueryState } from '../../components/States';
import { WeaveObjectListDocument, type WeaveObjectListQuery } from '../../graphql/generated';
import type { ReactNode } from 'react';

type Latest = NonNullable<WeaveObjectListQuery['project']>['traceObjects']['edges'][number]['node'];

const PAGE = 50;

/**
 * The published objects of some Weave classes in a project (one row per name: its newest version), newest first;
 * choosing one shows it below the list (the page keeps the choice in the URL).
 */
export function ObjectList({
  entity,
  project,
  classes,
  noun,
  selected,
  onSelect,
  empty,
}: {
  entity: string;
  project: string;
  classes: string[];
  /** What the objects are, singular and plural: ['dataset', 'datasets']. */
  noun: [string, string];
  selected: string | null;
  onSelect: (objectId: string) => void;
  empty: ReactNode;
}) {
  const pager = useCursorPager();
  const [result] = useQuery({ query: WeaveObjectListDocument, variables: { entity, project, classes, first: PAGE, after: pager.after }, requestPolicy: 'cache-and-network' });
  const columns: Column<Latest>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (object) => (
        <button
          type="button"
          className="link-button weave-object-name"
          aria-pressed={object.objectId === selected}
          onClick={() => onSelect(object.objectId)}
          aria-label={`Show ${noun[0]} ${object.objectId}`}
        >
          {object.objectId}
        </button>
      ),
    },
    { key: 'class', header: 'Class', render: (object) => object.baseObjectClass ?? '—' },
    { key: 'versions', header: 'Versions', align: 'right', render: (object) => String(object.versionIndex + 1) },
    { key: 'updated', header: 'Latest version', render: (object) => <Time value={object.createdAt} /> },
  ];
  return (
    <QueryState result={result} loadingLabel={`Loading ${noun[1]}…`}>
      {(data) => {
        const connection = data.project?.traceObjects;
        if (!data.project || !connection) return <Empty title={`No project ${entity}/${project}.`} />;
        if (connection.edges.length === 0 && pager.page === 1) return <>{empty}</>;
        return (
          <div data-testid="weave-object-list">
            <DataTable
              caption={`Published ${noun[1]}, newest first`}
              columns={columns}
              connection={connection}
              pager={pager}
              rowKey={(object) => object.objectId}
              rowClassName={(object) => (object.objectId === selected ? 'selected' : undefined)}
            />
          </div>
        );
      }}
    </QueryState>
  );
}
