import { Fragment, type ReactNode } from 'react';
import { PageHeader } from '../../components/PageHeader';
import { ProjectPicker } from '../../components/ProjectPicker';
import { Empty, Loading } from '../../components/States';
import { ObjectList } from './ObjectList';
import { useObjectSelection } from './use-object-selection';
import './weave-objects.css';

/** What the detail of the chosen object is given: where it lives, its name, the chosen version and how to change it. */
export interface ObjectDetailProps {
  entity: string;
  project: string;
  name: string;
  version: string | null;
  onVersion: (digest: string) => void;
}

/**
 * A page of one kind of published Weave object (Datasets, Prompts): the project picker, the list of the project's
 * objects of these classes, and the chosen object's detail. The selection lives in the URL (useObjectSelection).
 */
export function ObjectsPage(props: {
  title: string;
  description: string;
  /** The objects' classes (`_class_name` or a base class). */
  classes: string[];
  /** Singular and plural, for counts. */
  noun: [string, string];
  /** The list card's heading id (its heading is the page title). */
  headingId: string;
  /** What an empty project shows: how to publish one. */
  empty: ReactNode;
  detail: (props: ObjectDetailProps) => ReactNode;
}) {
  const selection = useObjectSelection();
  const { names } = selection;
  return (
    <>
      <PageHeader title={props.title} description={props.description} actions={<ProjectPicker value={selection.project} onChange={selection.setProject} />} />
      {!names ? (
        selection.project === null ? (
          <Loading label="Finding your projects…" />
        ) : (
          <Empty title="Choose a project.">Pick one of your teams’ projects above.</Empty>
        )
      ) : (
        <>
          <section className="section card" aria-labelledby={props.headingId}>
            <div className="card-header">
              <h2 id={props.headingId}>{props.title}</h2>
            </div>
            <ObjectList
              key={selection.project}
              entity={names.entity}
              project={names.project}
              classes={props.classes}
              noun={props.noun}
              selected={selection.name}
              onSelect={selection.selectObject}
              empty={props.empty}
            />
          </section>
          {selection.name ? (
            // Keyed: another object (or project) starts its detail afresh.
            <Fragment key={`${selection.project}/${selection.name}`}>
              {props.detail({ entity: names.entity, project: names.project, name: selection.name, version: selection.version, onVersion: selection.selectVersion })}
            </Fragment>
          ) : null}
        </>
      )}
    </>
  );
}
