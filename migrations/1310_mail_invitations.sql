-- Invitation mails (README "E-mail", "Invitations"): with SMTP configured, an invitation is mailed
-- to the invited address, queued in the invitation's own transaction. The invitee is not a member,
-- so such a row has no notification and no user: `kind` says which a row is, and an invitation
-- mail names its invitation (one mail per invitation). Its body carries the accept link, so it is
-- stored sealed (AES-GCM under the webhook secrets' key, a purpose of its own) and erased once the
-- mail is sent or skipped.
alter table mail_queue alter column notification_id drop not null;
alter table mail_queue alter column user_id drop not null;
alter table mail_queue add column kind text not null default 'notification';
alter table mail_queue add column invitation_id text references invitations(id);
alter table mail_queue add constraint mail_queue_kind check (
  (kind = 'notification' and notification_id is not null and user_id is not null and invitation_id is null)
  or (kind = 'invitation' and invitation_id is not null and notification_id is null and user_id is null));
create unique index mail_queue_by_invitation on mail_queue (invitation_id) where invitation_id is not null;
