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
});
