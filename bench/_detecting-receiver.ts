// The webhook receiver of the latency benches (P6 on anvil, the mempool bench on litecoind): it
// notes when each payment's first payment.detecting arrives, and times one payment from the moment
// its coins are sent to that arrival.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DetectingReceiver {
  hookUrl: string;
  /**
   * Waits a random moment of the poll interval, calls `send` (which pays payment `id` on chain) and
   * answers the milliseconds from its return to the webhook's arrival; fails after 15 s.
   */
  time(id: string, pollMs: number, send: () => Promise<unknown>): Promise<number>;
  close(): void;
}

export async function startDetectingReceiver(): Promise<DetectingReceiver> {
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const at = performance.now();
      const e = JSON.parse(body) as { type: string; data: { id?: string; object?: { id?: string } } };
      const id = e.data.id ?? e.data.object?.id;
      if (e.type === 'payment.detecting' && id && !arrivals.has(id)) {
        arrivals.set(id, at);
        waiters.get(id)?.();
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    hookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async time(id, pollMs, send) {
      // paid at a random moment of the poll interval, as customers pay
      await new Promise((r) => setTimeout(r, Math.random() * pollMs));
      const arrived = new Promise<void>((resolve, reject) => {
        waiters.set(id, resolve);
        setTimeout(() => reject(new Error(`no payment.detecting for ${id} within 15 s`)), 15_000).unref();
      });
      await send();
      const sent = performance.now();
      await arrived;
      return arrivals.get(id)! - sent;
    },
    close: () => server.close(),
  };
}

/** The `q` quantile of ascending `sorted` (nearest rank). */
export const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)];
