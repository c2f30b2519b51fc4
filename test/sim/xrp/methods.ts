// rippled's public methods over the simulated ledger, answering in rippled's shapes for API
// versions 1 and 2 (rippled's default is 1; xrpl.js asks for 2): server_info, server_state, fee,
// ledger, ledger_current, ledger_closed, account_info, deposit_authorized, account_tx, tx, submit, and the standalone
// admin method ledger_accept. Shapes follow rippled's own JSON writers (LedgerToJson, the tx and
// account_tx handlers): in v2 a transaction is `{tx_json, meta, hash, …}` and a Payment's `Amount`
// is shown as `DeliverMax`; in v1 its fields are flat, with `metaData`/`meta` beside them.
import {
  BASE_FEE_DROPS, LSF_DEPOSIT_AUTH, RESERVE_BASE_DROPS, RESERVE_INC_DROPS, RIPPLE_EPOCH, type ClosedLedger, type LedgerTx, type XrpLedger,
} from './ledger.ts';

export class RpcFailure extends Error {
  readonly error: string;
  readonly code: number;
  constructor(error: string, code: number, message: string) {
    super(message);
    this.error = error;
    this.code = code;
  }
}

const fail = {
  account: () => new RpcFailure('actNotFound', 19, 'Account not found.'),
  ledger: () => new RpcFailure('lgrNotFound', 21, 'ledgerNotFound'),
  tx: () => new RpcFailure('txnNotFound', 29, 'Transaction not found.'),
  params: (why = 'Invalid parameters.') => new RpcFailure('invalidParams', 31, why),
  method: () => new RpcFailure('unknownCmd', 32, 'Unknown method.'),
};

type Params = Record<string, unknown>;
const iso = (closeTime: number) => new Date((closeTime + RIPPLE_EPOCH) * 1000).toISOString().replace('.000Z', 'Z');
const human = (closeTime: number) => {
  const d = new Date((closeTime + RIPPLE_EPOCH) * 1000);
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  return `${d.getUTCFullYear()}-${mon}-${String(d.getUTCDate()).padStart(2, '0')} ${d.toISOString().slice(11, 19)}.000000000 UTC`;
};
const drops = (xrp: bigint) => Number(xrp) / 1_000_000;

/** A transaction's own fields as rippled shows them: v2 renames a Payment's Amount to DeliverMax, v1 adds it. */
function txFields(t: LedgerTx, api: number): Record<string, unknown> {
  const fields = { ...t.tx };
  if (fields.TransactionType === 'Payment' && 'Amount' in fields) {
    fields.DeliverMax = fields.Amount;
    if (api > 1) delete fields.Amount;
  }
  return fields;
}

/** A transaction in a closed ledger, in the shape of `tx`, `account_tx` entries and the transaction stream. */
export function txView(t: LedgerTx, l: ClosedLedger, api: number, validated: boolean): Record<string, unknown> {
  if (api > 1) {
    return { tx_json: txFields(t, api), meta: t.meta, hash: t.hash, ledger_index: l.index, ledger_hash: l.hash, close_time_iso: iso(l.closeTime), validated };
  }
  return { ...txFields(t, api), hash: t.hash, ledger_index: l.index, date: l.closeTime, inLedger: l.index, meta: t.meta, validated };
}

function ledgerHeader(l: ClosedLedger, api: number): Record<string, unknown> {
  return {
    account_hash: l.hash.split('').reverse().join(''), close_flags: 0, close_time: l.closeTime, close_time_human: human(l.closeTime),
    close_time_iso: iso(l.closeTime), close_time_resolution: 10, closed: true, ledger_hash: l.hash,
    ledger_index: api > 1 ? l.index : String(l.index), parent_close_time: l.closeTime - 1, parent_hash: l.parentHash,
    total_coins: l.totalCoins.toString(), transaction_hash: l.txs.length ? l.hash.slice(8) + l.hash.slice(0, 8) : '0'.repeat(64),
  };
}

/** An expanded transaction inside `ledger`: v2 `{tx_json, meta, hash, …}`, v1 flat with `metaData`. */
function ledgerTx(t: LedgerTx, l: ClosedLedger, api: number, validated: boolean): Record<string, unknown> {
  if (api > 1) {
    return { tx_json: txFields(t, api), meta: t.meta, hash: t.hash, ledger_hash: l.hash, validated, ...(validated ? { ledger_index: l.index, close_time_iso: iso(l.closeTime) } : {}) };
  }
  return { ...txFields(t, api), hash: t.hash, metaData: t.meta };
}

function pickLedger(x: XrpLedger, p: Params): ClosedLedger | 'current' {
  const which = p.ledger_index ?? (p.ledger_hash ? undefined : 'current');
  if (p.ledger_hash !== undefined) {
    const l = x.closed.find((c) => c.hash === String(p.ledger_hash).toUpperCase());
    if (!l) throw fail.ledger();
    return l;
  }
  if (which === 'current') return 'current';
  if (which === 'validated') return x.ledger(x.validatedIndex)!;
  if (which === 'closed') return x.closed.at(-1)!;
  const n = typeof which === 'string' && /^\d+$/.test(which) ? Number(which) : which;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw fail.params('Invalid field \'ledger_index\'.');
  const l = x.ledger(n);
  if (!l) throw fail.ledger();
  return l;
}

export function handle(x: XrpLedger, method: string, p: Params, api: number): Record<string, unknown> {
  switch (method) {
    case 'server_info':
    case 'server_state': {
      const v = x.ledger(x.validatedIndex)!;
      const state = method === 'server_state';
      const validated = state
        ? { seq: v.index, hash: v.hash, base_fee: Number(BASE_FEE_DROPS), reserve_base: Number(RESERVE_BASE_DROPS), reserve_inc: Number(RESERVE_INC_DROPS), close_time: v.closeTime }
        : { seq: v.index, hash: v.hash, base_fee_xrp: drops(BASE_FEE_DROPS), reserve_base_xrp: drops(RESERVE_BASE_DROPS), reserve_inc_xrp: drops(RESERVE_INC_DROPS), age: 0 };
      return {
        [state ? 'state' : 'info']: {
          build_version: '2.4.0-sim', complete_ledgers: `1-${x.validatedIndex}`, server_state: 'full', load_factor: 1,
          network_id: 0, validated_ledger: validated, validation_quorum: 1, peers: 0, uptime: 1,
        },
      };
    }
    case 'fee':
      return {
        current_ledger_size: String(x.open.length), current_queue_size: '0', expected_ledger_size: '1000', ledger_current_index: x.currentIndex,
        max_queue_size: '2000',
        drops: { base_fee: String(BASE_FEE_DROPS), median_fee: '5000', minimum_fee: String(BASE_FEE_DROPS), open_ledger_fee: String(BASE_FEE_DROPS) },
        levels: { median_level: '128000', minimum_level: '256', open_ledger_level: '256', reference_level: '256' },
      };
    case 'ledger_current':
      return { ledger_current_index: x.currentIndex };
    case 'ledger_closed': {
      const l = x.closed.at(-1)!;
      return { ledger_hash: l.hash, ledger_index: l.index };
    }
    case 'ledger': {
      const l = pickLedger(x, p);
      if (l === 'current') return { ledger: { closed: false, ledger_index: api > 1 ? x.currentIndex : String(x.currentIndex), parent_hash: x.closed.at(-1)!.hash }, ledger_current_index: x.currentIndex, validated: false };
      const validated = l.index <= x.validatedIndex;
      const ledger: Record<string, unknown> = ledgerHeader(l, api);
      if (p.transactions === true) ledger.transactions = p.expand === true ? l.txs.map((t) => ledgerTx(t, l, api, validated)) : l.txs.map((t) => t.hash);
      return { ledger, ledger_hash: l.hash, ledger_index: l.index, validated };
    }
    case 'account_info': {
      if (typeof p.account !== 'string') throw fail.params('Missing field \'account\'.');
      const l = pickLedger(x, p);
      const a = x.accounts.get(p.account);
      if (!a) throw fail.account();
      const data = {
        Account: p.account, Balance: a.balance.toString(), Flags: a.flags, LedgerEntryType: 'AccountRoot', OwnerCount: 0,
        PreviousTxnID: a.previousTxnId, PreviousTxnLgrSeq: a.previousTxnLgrSeq, Sequence: a.sequence, index: '0'.repeat(64),
      };
      return l === 'current'
        ? { account_data: data, ledger_current_index: x.currentIndex, validated: false }
        : { account_data: data, ledger_hash: l.hash, ledger_index: l.index, validated: l.index <= x.validatedIndex };
    }
    case 'deposit_authorized': {
      // no DepositPreauth objects in the simulator: authorized unless the destination has DepositAuth
      if (typeof p.source_account !== 'string' || typeof p.destination_account !== 'string') throw fail.params();
      const l = pickLedger(x, p);
      if (!x.accounts.has(p.source_account)) throw new RpcFailure('srcActNotFound', 45, 'Source account not found.');
      const dst = x.accounts.get(p.destination_account);
      if (!dst) throw new RpcFailure('dstActNotFound', 46, 'Destination account not found.');
      const where = l === 'current' ? { ledger_current_index: x.currentIndex, validated: false } : { ledger_hash: l.hash, ledger_index: l.index, validated: l.index <= x.validatedIndex };
      return { deposit_authorized: (dst.flags & LSF_DEPOSIT_AUTH) === 0, source_account: p.source_account, destination_account: p.destination_account, ...where };
    }
    case 'account_tx':
      return accountTx(x, p, api);
    case 'tx': {
      if (typeof p.transaction !== 'string') throw fail.params('Missing field \'transaction\'.');
      const found = x.findTx(p.transaction);
      if (!found) throw fail.tx();
      return txView(found.tx, x.ledger(found.ledger)!, api, found.ledger <= x.validatedIndex);
    }
    case 'submit': {
      if (typeof p.tx_blob !== 'string' || !/^[0-9A-Fa-f]+$/.test(p.tx_blob)) throw fail.params('Missing field \'tx_blob\'.');
      let r;
      try {
        r = x.submit(p.tx_blob.toUpperCase());
      } catch {
        throw new RpcFailure('invalidTransaction', 31, 'fails local checks: Invalid transaction blob.');
      }
      const acct = x.accounts.get(String(r.tx_json.Account));
      return {
        accepted: r.applied, account_sequence_available: acct?.sequence ?? 0, account_sequence_next: acct?.sequence ?? 0, applied: r.applied,
        broadcast: r.applied, engine_result: r.engine_result, engine_result_code: r.engine_result_code, engine_result_message: r.engine_result_message,
        kept: r.applied, open_ledger_cost: String(BASE_FEE_DROPS), queued: false, tx_blob: p.tx_blob, tx_json: r.tx_json,
        validated_ledger_index: x.validatedIndex,
      };
    }
    case 'ledger_accept':
      x.close();
      return { ledger_current_index: x.currentIndex };
    default:
      throw fail.method();
  }
}

/** account_tx: the account's transactions in validated ledgers, oldest first with `forward`, paged by `marker`. */
function accountTx(x: XrpLedger, p: Params, api: number): Record<string, unknown> {
  if (typeof p.account !== 'string') throw fail.params('Missing field \'account\'.');
  const min = typeof p.ledger_index_min === 'number' && p.ledger_index_min > 0 ? p.ledger_index_min : 1;
  const max = typeof p.ledger_index_max === 'number' && p.ledger_index_max > 0 ? Math.min(p.ledger_index_max, x.validatedIndex) : x.validatedIndex;
  const limit = typeof p.limit === 'number' && p.limit > 0 ? Math.min(p.limit, 400) : 200;
  const all: Array<{ t: LedgerTx; l: ClosedLedger; seq: number }> = [];
  for (let i = min; i <= max; i++) {
    const l = x.ledger(i)!;
    l.txs.forEach((t, seq) => {
      const affected = JSON.stringify(t.meta.AffectedNodes ?? []).includes(`"${p.account}"`) || t.tx.Account === p.account || t.tx.Destination === p.account;
      if (affected) all.push({ t, l, seq });
    });
  }
  if (p.forward !== true) all.reverse();
  const marker = p.marker as { ledger: number; seq: number } | undefined;
  let start = 0;
  if (marker) {
    start = all.findIndex((e) => e.l.index === marker.ledger && e.seq === marker.seq);
    if (start < 0) throw fail.params('Invalid field \'marker\'.');
  }
  const page = all.slice(start, start + limit);
  const next = all[start + limit];
  return {
    account: p.account, ledger_index_min: min, ledger_index_max: max, limit,
    transactions: page.map(({ t, l }) => (api > 1
      ? txView(t, l, api, true)
      : { meta: t.meta, tx: { ...txFields(t, api), hash: t.hash, ledger_index: l.index, date: l.closeTime }, validated: true })),
    ...(next ? { marker: { ledger: next.l.index, seq: next.seq } } : {}),
    validated: true,
  };
}
