import { PageHeader } from '../components/PageHeader';
import { ProjectPicker, splitProject, useProjectParam } from '../components/ProjectPicker';
import { Empty, Loading } from '../components/States';
import { useSearchParams } from '../router';
import type { PageProps } from '../routes';
import { ComparisonSection } from './evaluations/ComparisonSection';
import { FeedbackSection } from './evaluations/FeedbackSection';
import { MAX_COMPARED_RUNS, RunsSection } from './evaluations/RunsSection';
import './evaluations/evaluations.css';

/**
 * Evaluations: a project's evaluation runs (SDK and evaluation API alike) with their means per scorer, two to four of
 * them compared example by example against a baseline, and scorer feedback over time. Everything chosen lives in
 * the URL: ?project=, ?runs=<baseline>,<other>,… and the feedback filters.
 */
export default function Evaluations(_props: PageProps) {
  const [project, setProject] = useProjectParam();
  const [search, setSearch] = useSearchParams();
  const names = splitProject(project);

  /** Changes some query parameters, keeping the others (the project, the selection, the filters). */
  const update = (changes: Record<string, string | null>, push = false) => {
    const next: Record<string, string | null> = Object.fromEntries(search.entries());
    if (project) next.project = project;
    Object.assign(next, changes);
    setSearch(next, { push });
  };

  const selected = selectedRuns(search);
  const select = (ids: string[]) => update({ runs: ids.length > 0 ? ids.join(',') : null, a: null, b: null }, true);

  return (
    <>
      <PageHeader
        title="Evaluations"
        description="Evaluation runs of a project with their scores per scorer, up to four runs compared example by example against a baseline, and scorer feedback over time."
        actions={<ProjectPicker value={project} onChange={setProject} />}
      />
      {!names ? (
        project === null ? (
          <Loading label="Finding your projects…" />
        ) : (
          <Empty title="Choose a project.">Pick one of your teams’ projects above.</Empty>
        )
      ) : (
        <>
          <RunsSection key={`runs-${project}`} entity={names.entity} project={names.project} selected={selected} onSelect={select} />
          {selected.length >= 2 ? (
            <ComparisonSection
              entity={names.entity}
              project={names.project}
              runs={selected}
              onBaseline={(id) => select([id, ...selected.filter((other) => other !== id)])}
              onClear={() => select([])}
            />
          ) : null}
          <FeedbackSection key={`feedback-${project}`} entity={names.entity} project={names.project} search={search} onApply={(filters) => update(filters)} />
        </>
      )}
    </>
  );
}

/** The runs to compare, baseline first: `?runs=` (or the two-run links of before, `?a=&b=`), at most four. */
function selectedRuns(search: URLSearchParams): string[] {
  const listed = (search.get('runs') ?? '').split(',').filter(Boolean);
  const ids = listed.length > 0 ? listed : [search.get('a'), search.get('b')].filter((id): id is string => Boolean(id));
  return [...new Set(ids)].slice(0, MAX_COMPARED_RUNS);
}
