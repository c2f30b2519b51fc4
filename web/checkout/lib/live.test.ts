import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiOf, follow } from './live.ts';
import type { Payment } from './payment.ts';

const noCoin: Payment = {
  id: 'pay_1', status: 'pending', token: '', chain: '', livemode: false, deposit_address: '',
  usd_amount: '25', amount_due_usd: '25', received_amount: '0', deposits: [],
  token_options: [{ token: 'ETH', chain: 'ethereum', amount_due_usd: '25' }],
};
const chosen: Payment = { ...noCoin, token: 'ETH', chain: 'ethereum', deposit_address: '0xabc', crypto_amount: '0.01', token_options: undefined };

/** A socket that never connects: the page follows the payment by polling (every 4 s). */
const socketDown = () => ({ on() {}, emit() {}, close() {} });
const answer = (p: Payment) => new Response(JSON.stringify(p), { status: 200, headers: { 'content-type': 'application/json' } });

describe('following a payment', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('a poll answered after the page\'s own request (coin chosen) does not bring the older payment back', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('window', { io: socketDown });
    const polls: Array<(r: Response) => void> = [];
    const fetchMock = vi.fn(() => new Promise<Response>((resolve) => polls.push(resolve)));
    vi.stubGlobal('fetch', fetchMock);
    let current: Payment = noCoin;
    const shown: Payment[] = [];
    const following = follow(apiOf('', 'tok'), () => current, (p) => { shown.push(p); current = p; }, () => {});

    await vi.advanceTimersByTimeAsync(4_000);
    expect(fetchMock).toHaveBeenCalledTimes(1); // a poll under way, read before the coin was chosen
    following.gave(chosen); // POST /checkout/{token}/token answered: the address is shown
    polls[0](answer(noCoin));
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual([chosen]);

    // A poll sent after that answer is shown as usual.
    await vi.advanceTimersByTimeAsync(4_000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    const detecting = { ...chosen, status: 'detecting' as const };
    polls[1](answer(detecting));
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual([chosen, detecting]);
    following.stop();
  });

  // The gateway answers `internal error` when it could not look the payment up (a database hiccup)
  // and drops the transport; the socket reconnects and subscribes again. The payer is not shown
  // 'payment not found' for it, and the page polls meanwhile as while the socket is down.
  it('a failed subscribe other than payment not found is no error: the page keeps polling every 4 s', async () => {
    vi.useFakeTimers();
    const handlers: Record<string, (...a: unknown[]) => void> = {};
    let answerWith: { ok: boolean; error?: string } = { ok: false, error: 'internal error' };
    const socket = {
      on(event: string, fn: (...a: unknown[]) => void) { handlers[event] = fn; },
      emit(_event: string, _token: unknown, ack: (a: unknown) => void) { ack(answerWith); },
      close() {},
    };
    vi.stubGlobal('window', { io: () => socket });
    const fetchMock = vi.fn(async () => answer(chosen));
    vi.stubGlobal('fetch', fetchMock);
    const errors: unknown[] = [];
    const following = follow(apiOf('', 'tok'), () => chosen, () => {}, (e) => errors.push(e));
    await vi.advanceTimersByTimeAsync(0);
    handlers.connect();
    expect(errors).toEqual([]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);

    // An unknown token still is one.
    answerWith = { ok: false, error: 'payment not found' };
    handlers.connect();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: 'payment not found', status: 404 });
    following.stop();
  });
});
