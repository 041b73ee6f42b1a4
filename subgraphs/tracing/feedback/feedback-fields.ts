import { sql } from 'kysely';
import { jsonAt, type FieldCatalog } from '../query/query-sql.js';

/**
 * The fields of a feedback row that `$getField` and `sort_by` of /feedback/query may name (Weave's Feedback
 * schema): its columns and dotted paths into `payload` (`payload.emoji`, `payload.output.score`).
 */
const TEXT_COLUMNS = ['project_id', 'weave_ref', 'feedback_type', 'creator', 'runnable_ref', 'call_ref', 'trigger_ref', 'annotation_ref', 'wb_user_id'];

export const feedbackFields: FieldCatalog = {
  resolve(field) {
    if (field === 'id') return { kind: 'text', sql: sql`(${sql.ref('id')})::text` };
    if (TEXT_COLUMNS.includes(field)) return { kind: 'text', sql: sql.ref(field) };
    if (field === 'created_at') return { kind: 'timestamp', sql: sql.ref('created_at') };
    const [head, ...path] = field.split('.');
    if (head === 'payload' && !path.some((part) => part === '')) return jsonAt(sql.ref('payload'), path);
    return { error: `Unknown feedback field "${field}"; fields are id, ${TEXT_COLUMNS.join(', ')}, created_at, payload.*` };
  },
};
