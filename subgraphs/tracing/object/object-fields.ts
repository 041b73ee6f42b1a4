import { sql } from 'kysely';
import type { FieldCatalog } from '../query/query-sql.js';

/** What /objs/query may sort by: Weave documents `object_id` and `created_at` (then version order). */
export const objectSortFields: FieldCatalog = {
  resolve(field) {
    if (field === 'object_id') return { kind: 'text', sql: sql.ref('object_id') };
    if (field === 'created_at') return { kind: 'timestamp', sql: sql.ref('created_at') };
    return { error: `Objects can be sorted by object_id or created_at, not "${field}"` };
  },
};
