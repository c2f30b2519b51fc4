-- A merchant suspended or reinstated, or its live mode switched, is announced on
-- `merchant_access_changed` (payload: the merchant id) to every process, which drops that merchant's
-- keys from its key cache at once (src/accounts/key-cache.ts): a suspended account is refused on
-- its next request in every process, not within the cache time. Other changes of the row (names,
-- settings, key use) announce nothing.
create function merchant_access_changed() returns trigger language plpgsql as $$
begin
  if old.status is distinct from new.status or old.live_enabled is distinct from new.live_enabled then
    perform pg_notify('merchant_access_changed', new.id);
  end if;
  return null;
end $$;

create trigger merchants_access_changed after update of status, live_enabled on merchants
  for each row execute function merchant_access_changed();
