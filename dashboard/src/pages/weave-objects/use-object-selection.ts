import { useProjectParam, splitProject } from '../../components/ProjectPicker';
import { useSearchParams } from '../../router';

/**
 * The project, object and version a Datasets or Prompts page shows, all in the URL (?project=&name=&version=):
 * choosing an object clears the version (its newest is shown), choosing a project clears both.
 */
export function useObjectSelection() {
  const [project, setProject] = useProjectParam();
  const [search, setSearch] = useSearchParams();
  const name = search.get('name');
  const version = search.get('version');
  return {
    project,
    names: splitProject(project),
    setProject,
    name,
    version,
    selectObject: (objectId: string) => setSearch({ project, name: objectId }, { push: true }),
    selectVersion: (digest: string) => setSearch({ project, name, version: digest }, { push: true }),
  };
}
