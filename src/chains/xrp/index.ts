// Door of chains/xrp: the XRP Ledger over rippled's JSON-RPC or WebSocket API, read for the watcher
// (validated ledgers, delivered amounts, destination tags) and written by the transfer machinery.
export { XrpRpc, XrpNodeError, XRP_RPC_TIMEOUT_MS } from './rpc.ts';
export { XrpReader } from './reader.ts';
export { XrpFamily, LEDGER_WINDOW, submitOutcome } from './family.ts';
export { paymentOf, paymentsOfLedger, rippleTime, RIPPLE_EPOCH_S } from './ledger-payments.ts';
export { signPayment, lastLedgerOf } from './sign.ts';
