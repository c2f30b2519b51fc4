// What a settlement's row says beside its status: the transaction once sent, why it waits when it
// waits for a changed payout address (spec 1 Settlement 3: `awaits_address.until`, when the new
// address is in use; a pending settlement has neither transaction nor note then), else its note.
import type { Json } from './api.ts';
import { when } from './format.ts';

export function SettlementState({ s }: { s: Json }) {
  if (s.tx_id) return <span class="mono">{s.tx_id}</span>;
  if (s.awaits_address?.until) return <span>Waits for the new payout address, in use from {when(s.awaits_address.until)}</span>;
  return <>{s.note ?? '—'}</>;
}
