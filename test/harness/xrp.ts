// XRP fixtures: payments from the simulator's genesis account signed by the official SDK (xrpl.js
// Wallet), submitted to the simulated rippled, and partial payments injected as a network would
// show them (a cross-currency payment delivering less XRP than its Amount).
import crypto from 'node:crypto';
import { Wallet } from 'xrpl';
import { GENESIS, type XrpSim } from '../sim/xrp/server.ts';

const genesis = Wallet.fromSeed(GENESIS.seed);

/** Genesis pays `drops` to `to` (with a tag when given); the next ledger close applies it. Returns the hash. */
export function payXrp(sim: XrpSim, to: string, drops: bigint, tag?: number, from: Wallet = genesis): string {
  const r = submitXrpPayment(sim, to, drops, tag, from);
  if (r.engine_result !== 'tesSUCCESS') throw new Error(`payment refused: ${r.engine_result}`);
  return r.hash;
}

/** The same payment submitted, whatever rippled answers (`tec` results are applied: fee taken, nothing delivered). */
export function submitXrpPayment(sim: XrpSim, to: string, drops: bigint, tag?: number, from: Wallet = genesis): { engine_result: string; hash: string } {
  const acct = sim.ledger.accounts.get(from.address);
  if (!acct) throw new Error(`${from.address} has no account`);
  const signed = from.sign({
    TransactionType: 'Payment', Account: from.address, Destination: to, Amount: drops.toString(), Fee: '12',
    Sequence: acct.sequence, LastLedgerSequence: sim.ledger.currentIndex + 20, Flags: 0, ...(tag !== undefined ? { DestinationTag: tag } : {}),
  });
  const r = sim.ledger.submit(signed.tx_blob);
  return { engine_result: String(r.engine_result), hash: String(r.hash) };
}

/**
 * A partial payment (tfPartialPayment) that asked for `amount` drops and delivered `delivered`, as a
 * cross-currency payment from an issued currency shows in a validated ledger.
 */
export function injectPartialPayment(sim: XrpSim, to: string, tag: number | undefined, amount: bigint, delivered: bigint): string {
  const hash = crypto.randomBytes(32).toString('hex').toUpperCase();
  sim.ledger.open.push({
    hash, blob: '',
    tx: {
      TransactionType: 'Payment', Account: genesis.address, Destination: to, Amount: amount.toString(), Flags: 0x00020000, Fee: '12', Sequence: 1,
      SendMax: { currency: 'USD', issuer: genesis.address, value: '1000' }, ...(tag !== undefined ? { DestinationTag: tag } : {}),
    },
    meta: { TransactionIndex: sim.ledger.open.length, TransactionResult: 'tesSUCCESS', AffectedNodes: [], delivered_amount: delivered.toString() },
  });
  return hash;
}

/** A transaction that failed on the ledger (its fee taken), e.g. tecUNFUNDED_PAYMENT, with no delivered_amount. */
export function injectFailedPayment(sim: XrpSim, to: string, tag: number, amount: bigint): string {
  return sim.ledger.inject(
    { TransactionType: 'Payment', Account: genesis.address, Destination: to, Amount: amount.toString(), Fee: '12', Sequence: 1, Flags: 0, DestinationTag: tag },
    { TransactionResult: 'tecUNFUNDED_PAYMENT', AffectedNodes: [] },
  );
}
