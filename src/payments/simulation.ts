// Simulated outcomes of test payments (spec 3 Simulation state, 7; CONTRACT.md: each outcome plays
// the statuses and events a real payment would, a step apart). A simulation is a chain of durable
// timers, one per step, each running through the same deposit intake chain watchers use.
import { eq } from 'drizzle-orm';
import type { Executor, Tx } from '../platform/db/index.ts';
import { badRequest, conflict } from '../platform/errors.ts';
import { randomHex } from '../platform/ids.ts';
import type { Timers, TimerRow } from '../platform/timers.ts';
import { dec, quotientUnitsRoundedUp, unitsRoundedUp } from '../money/index.ts';
import { tokenDef, tokensOnChain, type TokenSymbol } from '../tokens/index.ts';
import type { MarketSource } from '../market/index.ts';
import { canSimulate, type PaymentStatus, type TokenInfo } from './pure.ts';
import { isOutcome, OUTCOME_UNKNOWN, type SimulationOutcome } from './create-input.ts';
import { payments, type PaymentRow } from './schema.ts';
import { lockPayment } from './repository.ts';
import type { DepositIntake, OptionsOf } from './intake.ts';
import { emitPaymentEvent, SOCKET_EVENTS } from './payment-events.ts';
import { depositsOf } from './repository.ts';

export const OUTCOME_REQUIRED = 'outcome is required';
export const ONLY_TEST = 'only test payments can be simulated: use a test key';
export const CHOOSE_COIN_FIRST = "choose the payment's coin first";
export const SIMULATION_RUNNING = 'a simulation is already running for this payment';
export const notSimulatable = (status: string): string => `this payment is ${status}: only a pending or partially paid payment can be simulated`;
export const noOtherAsset = (t: TokenSymbol): string => `a ${t} address only receives ${t}: wrong_asset needs a coin on Tron, Ethereum or BNB Smart Chain`;

export const SIMULATION_TIMER = 'payment.simulation';

type Step = 'pay_full' | 'pay_over' | 'pay_half' | 'pay_other' | 'final' | 'fail' | 'deadline';

/** The steps each outcome plays, a SIMULATION_STEP_MS apart. */
export const OUTCOME_STEPS: Readonly<Record<SimulationOutcome, readonly Step[]>> = {
  confirmed: ['pay_full', 'final'],
  overpaid: ['pay_over', 'final'],
  partially_paid: ['pay_half', 'final'],
  underpaid: ['pay_half', 'final', 'deadline'],
  expired: ['deadline'],
  failed: ['pay_full', 'fail'],
  wrong_asset: ['pay_other', 'final'],
  paid_late: ['deadline', 'pay_full', 'final'],
};

/** Another coin on the payment's chain, when there is one. */
export const otherCoinOf = (token: TokenSymbol): TokenSymbol | undefined =>
  tokensOnChain(tokenDef(token).chain).map((d) => d.token).find((t) => t !== token);

/** The checks of spec 7, in order; returns the outcome. */
export function checkSimulation(p: PaymentRow, input: unknown, field = 'outcome'): SimulationOutcome {
  if (input === undefined || input === null || input === '') throw badRequest(field === 'outcome' ? OUTCOME_REQUIRED : `${field} is required`);
  if (!isOutcome(input)) throw badRequest(OUTCOME_UNKNOWN);
  if (p.livemode) throw badRequest(ONLY_TEST);
  if (!canSimulate(p.status as PaymentStatus)) throw badRequest(notSimulatable(p.status));
  if (p.simulation?.state === 'running') throw conflict(SIMULATION_RUNNING);
  if (p.token === '' && input !== 'expired') throw badRequest(CHOOSE_COIN_FIRST);
  if (input === 'wrong_asset' && !otherCoinOf(p.token as TokenSymbol)) throw badRequest(noOtherAsset(p.token as TokenSymbol));
  return input;
}

export class Simulator {
  readonly #timers: Timers;
  readonly #intake: DepositIntake;
  readonly #market: MarketSource;
  readonly #stepMs: number;
  readonly #optionsOf: OptionsOf;

  constructor(timers: Timers, intake: DepositIntake, market: MarketSource, stepMs: number, optionsOf: OptionsOf = async () => []) {
    this.#timers = timers;
    this.#intake = intake;
    this.#market = market;
    this.#stepMs = stepMs;
    this.#optionsOf = optionsOf;
    timers.handle(SIMULATION_TIMER, (tx, t, now) => this.#step(tx, t, now));
  }

  /** Marks the simulation running (event payment.simulation) and schedules its first step; `p` is locked by the caller. */
  async start(tx: Executor, p: PaymentRow, outcome: SimulationOutcome, now: Date): Promise<PaymentRow> {
    const [row] = await tx.update(payments).set({ simulation: { outcome, state: 'running' }, updatedAt: now }).where(eq(payments.id, p.id)).returning();
    const deps = (await depositsOf(tx, [p.id])).get(p.id) ?? [];
    await emitPaymentEvent(tx, SOCKET_EVENTS.simulation, row, deps, now, await this.#options(tx, row, now));
    await this.#timers.schedule(tx, { kind: SIMULATION_TIMER, key: p.id, runAt: new Date(now.getTime() + this.#stepMs), payload: { outcome, step: 0 } });
    return row;
  }

  async #step(tx: Tx, t: TimerRow, now: Date): Promise<void> {
    const outcome = t.payload.outcome as SimulationOutcome;
    const index = Number(t.payload.step);
    const p = await lockPayment(tx, t.key);
    if (!p || p.simulation?.state !== 'running' || p.simulation.outcome !== outcome) return;
    const step = OUTCOME_STEPS[outcome][index];
    const next = index + 1;
    const last = next >= OUTCOME_STEPS[outcome].length;
    // Done before the last step plays: the status events it raises carry the payment as it is once
    // this transaction commits (simulation done), not a running state no reader ever saw.
    if (last) await tx.update(payments).set({ simulation: { outcome, state: 'done' }, updatedAt: now }).where(eq(payments.id, p.id));
    if (step) await this.#play(tx, p, step, now);
    if (!last) {
      await this.#timers.schedule(tx, { kind: SIMULATION_TIMER, key: p.id, runAt: new Date(now.getTime() + this.#stepMs), payload: { outcome, step: next } });
      return;
    }
    const done = (await lockPayment(tx, p.id))!;
    const deps = (await depositsOf(tx, [p.id])).get(p.id) ?? [];
    await emitPaymentEvent(tx, SOCKET_EVENTS.simulation, done, deps, now, await this.#options(tx, done, now));
  }

  /**
   * A payment with no coin (an `expired` simulation) lists its coins in GET /checkout/{token}: its
   * payment.simulation carries them too, or the page, rendering the socket's payment, lost its coin
   * list while the simulation ran. Priced through this transaction.
   */
  async #options(tx: Executor, p: PaymentRow, now: Date): Promise<TokenInfo[] | undefined> {
    return p.token === '' ? this.#optionsOf(p, now, tx) : undefined;
  }

  async #play(tx: Tx, p: PaymentRow, step: Step, now: Date): Promise<void> {
    const ref = { paymentId: p.id };
    const token = p.token as TokenSymbol;
    const due = p.cryptoAmount ?? 0n;
    const rest = due > p.receivedAmount ? due - p.receivedAmount : 1n;
    const seen = (tok: TokenSymbol, amount: bigint) => this.#intake.recordDeposit(ref, {
      txId: randomHex(32), token: tok, amount: amount > 0n ? amount : 1n, confirmations: 0, simulated: true, at: now,
    }, tx);
    const lastPending = async () => {
      const deps = (await depositsOf(tx, [p.id])).get(p.id) ?? [];
      return [...deps].reverse().find((d) => d.status === 'pending');
    };
    switch (step) {
      case 'pay_full': await seen(token, rest); return;
      case 'pay_over': await seen(token, rest + due / 10n); return;
      case 'pay_half': await seen(token, rest / 2n); return;
      case 'pay_other': {
        const other = otherCoinOf(token)!;
        const usdLeft = dec(p.amountDueUsd).minus(dec(p.receivedUsd));
        const def = tokenDef(other);
        const amount = usdLeft.gt(0) ? quotientUnitsRoundedUp(usdLeft, this.#market.snapshot(false)[other].rate, def.precision, def.decimals) : unitsRoundedUp(dec(1), def.precision, def.decimals);
        await seen(other, amount);
        return;
      }
      case 'final': {
        const d = await lastPending();
        if (d) await this.#intake.markFinal(ref, d.txId, now, tx);
        return;
      }
      case 'fail': {
        const d = await lastPending();
        if (d) await this.#intake.markFailed(ref, d.txId, now, tx);
        return;
      }
      case 'deadline': {
        // The simulated deadline comes now rather than at expires_at.
        if (p.expiresAt.getTime() > now.getTime()) await tx.update(payments).set({ expiresAt: now }).where(eq(payments.id, p.id));
        await this.#intake.deadline(p.id, now, tx);
        return;
      }
    }
  }
}
