-- A revoked API key is announced on `api_key_revoked` (payload: its secret hash) to every process,
-- which drops it from its key cache at once (src/accounts/key-cache.ts) rather than serving it until
-- the cache time runs out; the process that revoked it has already dropped it.
create function api_key_revoked() returns trigger language plpgsql as $$
begin
  if old.revoked_at is null and new.revoked_at is not null then
    perform pg_notify('api_key_revoked', new.secret_hash);
  end if;
  return null;
end $$;

create trigger api_keys_revoked after update of revoked_at on api_keys
  for each row execute function api_key_revoked();
