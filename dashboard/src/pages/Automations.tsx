import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Automations() {
  return (
    <>
      <PageHeader title="Automations" description="Team secrets, webhooks, automations and deliveries." />
      <Empty title="This page is not built yet." />
    </>
  );
}
