// The race tests of the transfer worker against an operator's action or the conversion step
// (PostgreSQL: PGlite has one connection): the service on a manual clock, the chain room's transfer
// port on a scripted chain sending from HOT, the worker's stepper, and what they log at warn and
// above (one JSON line each), where a deadlock shows as a transaction tried again.
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase } from './databases.ts';
import { startTestApp, type TestApp } from './app.ts';
import { ScriptedChain } from './scripted-chain.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import type { Database } from '../../src/platform/db/index.ts';
import type { WalletKeys } from '../../src/chains/wallets/keys.ts';
import { ChainTransferPort } from '../../src/chains/transfers/index.ts';
import { ChainStepper } from '../../src/chains/transfers/stepper.ts';
import { settlementOutcomes } from '../../src/chains/transfers/outcomes.ts';
import type { TransferOutcomes } from '../../src/chains/transfers/types.ts';
import type { TransferPort } from '../../src/settlement/index.ts';

export const HOT = '0x00000000000000000000000000000000000000a1';
/** Why the scripted chain refuses a transfer for good. */
export const GIVEN_UP = 'the node refuses it for good';
/** A log line of a transaction aborted and tried again. */
export const ABORTED = /tried again on the next pass|deadlock/;

export interface TransferRace {
  readonly db: Database;
  readonly t: TestApp;
  readonly clock: ManualClock;
  readonly log: Logger;
  readonly logged: string[];
  readonly port: ChainTransferPort;
  readonly chain: ScriptedChain;
  readonly stepper: ChainStepper;
}

export interface TransferRaceOptions {
  /** The port the settlement room is given, built on the real one (with a test's hooks); default the real one. */
  seen?: (port: ChainTransferPort) => TransferPort;
  /** Run in the worker's transaction that gives a transfer up, before it reports that to its settlement or payout. */
  inWorker?: () => (() => Promise<void>) | null;
}

/** Registers the block's set-up and tear-down; the fields are there once its tests run. */
export function transferRace(opts: TransferRaceOptions = {}): TransferRace {
  const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'));
  const logged: string[] = [];
  const log = createLogger('warn', { write: (line: string) => { logged.push(line); } });
  const keys = { hotAddress: () => HOT } as unknown as WalletKeys;
  const port = new ChainTransferPort(keys, () => new Set(['ethereum']), () => clock.now(), () => {});
  const chain = new ScriptedChain(HOT, 60_000);
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let t: TestApp | undefined;
  let stepper: ChainStepper | undefined;
  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    t = await startTestApp(opened.db, { clock });
    t.services.settlement.useTransfers(opts.seen ? opts.seen(port) : port);
    const reported = settlementOutcomes(log);
    const failed: TransferOutcomes['failed'] = async (tx, tr, note, now) => {
      await opts.inWorker?.()?.();
      await reported.failed(tx, tr, note, now);
    };
    stepper = new ChainStepper(opened.db, chain, { ...reported, failed }, clock, log, { confirmations: 3, retryDelaysMs: [1_000], maxReplacements: 1, concurrency: 1 }, () => {});
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });
  return {
    get db() { return opened!.db; }, get t() { return t!; }, get stepper() { return stepper!; },
    clock, log, logged, port, chain,
  };
}

/** The real port with some of its calls replaced (a test's hooks around them). */
export function portWith(port: ChainTransferPort, over: Partial<TransferPort>): TransferPort {
  return {
    send: (tx, req) => port.send(tx, req),
    supports: (chain) => port.supports(chain),
    retry: (tx, reference) => port.retry(tx, reference),
    state: (tx, id) => port.state(tx, id),
    lock: (tx, id) => port.lock(tx, id),
    lockReference: (tx, reference) => port.lockReference(tx, reference),
    cancel: (tx, reference, only) => port.cancel(tx, reference, only),
    ...over,
  };
}
