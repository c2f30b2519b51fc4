export { recordAudit, requestOrigin, auditEntryJson, scrub, type Actor, type ActorKind, type AuditInput } from './audit.ts';
export { listAudit, parseDay, dateMessage } from './query.ts';
