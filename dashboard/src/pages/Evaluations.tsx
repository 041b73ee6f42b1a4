import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Evaluations() {
  return (
    <>
      <PageHeader title="Evaluations" description="Evaluation runs, scores per scorer and comparisons." />
      <Empty title="This page is not built yet." />
    </>
  );
}
