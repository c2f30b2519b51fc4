// Small pieces every settlement route uses: the query, the `:id` path parameter, the mode of a
// dashboard request and the team member as an audit actor.
export { idOf, queryOf, type Query } from '../../platform/http/index.ts';

/** Dashboard routes read live data unless `?mode=test`. */
export { livemodeOf } from '../../platform/http/index.ts';

export { memberActor } from '../../accounts/index.ts';

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
