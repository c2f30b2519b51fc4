// PostgreSQL's refusals of a new connection that a later attempt may get past: 53300 (too many
// clients, or too many connections for the role or database) and 57P03 (cannot connect now). In a
// module of their own, without pg, so the HTTP error mapper can tell them apart on PGlite too.
const REFUSED_CODES = new Set(['53300', '57P03']);

export const isRefusedConnection = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && REFUSED_CODES.has(String((err as { code?: unknown }).code));
