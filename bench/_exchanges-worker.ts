// The price API stand-ins of bench/market.ts, on a thread of their own: their work is not the
// service's, so it stays out of the main thread's CPU per request.
import { parentPort } from 'node:worker_threads';
import { FakeExchanges } from '../test/harness/exchanges.ts';

const fx = await FakeExchanges.start();
parentPort!.postMessage(fx.env());
