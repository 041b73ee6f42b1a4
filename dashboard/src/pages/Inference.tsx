import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Inference() {
  return (
    <>
      <PageHeader title="Inference" description="Model catalog, usage over time and a playground." />
      <Empty title="This page is not built yet." />
    </>
  );
}
