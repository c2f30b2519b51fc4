export { recordAudit, requestOrigin, auditEntryJson, auditRow, scrub, AUDIT_EVENT, type Actor, type RequestOrigin, type ActorKind, type AuditInput } from './audit.ts';
export { listAudit, parseDay, dateMessage } from './query.ts';
