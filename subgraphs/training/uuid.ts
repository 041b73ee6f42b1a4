const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids come from URLs and cursors: anything that is not a uuid cannot name a row (and must not reach Postgres as one). */
export const isUuid = (value: string): boolean => UUID.test(value);
