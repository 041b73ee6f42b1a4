// Reads Dataset versions back with the published Weave TypeScript SDK (ref(...).get(), which reads /obj/read and
// then the rows' table with /table/query) against WF_TRACE_SERVER_URL, in its own process. Arguments: the project,
// then `name:version` pairs. Prints one JSON line: per ref, the class, name and rows the SDK loaded.
import * as weave from 'weave';

const [project, ...refs] = process.argv.slice(2);
await weave.init(project);
const read = [];
for (const ref of refs) {
  const [name, version] = ref.split(':');
  const dataset = await new weave.ObjectRef(project, name, version).get();
  read.push({
    ref,
    isDataset: dataset instanceof weave.Dataset,
    name: dataset.name,
    rows: dataset.rows.rows.map(({ __savedRef, ...row }) => row),
  });
}
console.log(JSON.stringify(read));
