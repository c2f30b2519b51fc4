// Door of the e-mail room (README "E-mail"): notifications e-mailed to the team, and invitations to
// the invited address, over SMTP_URL.
export { MailService } from './service.ts';
export { registerMailRoutes } from './routes.ts';
export { registerMailAdminRoutes } from './admin-routes.ts';
export { MAIL_NOT_FAILED, MAIL_NOT_FOUND, MAIL_RETRIED, MAIL_STATUS_INVALID } from './operator.ts';
export { mailQueue, mailPreferences, MAIL_KINDS, MAIL_STATUSES, type MailKind, type MailRow, type MailStatus } from './schema.ts';
export { MAIL_MAX_ATTEMPTS, MAIL_RETRY_DELAYS_S } from './queue.ts';
export { PAYOUT_REQUESTED_MESSAGE, CATEGORIES_MESSAGE, DEFAULT_PREFERENCES } from './preferences.ts';
export { MAIL_SENT_KEPT_DAYS, MAIL_FAILED_KEPT_DAYS, MAIL_PRUNE_WORK } from './retention.ts';
