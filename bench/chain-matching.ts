// Matching a chain's block against the watched addresses, excluding the fetch (issue "Live chains
// III"): a Tron block of 5,000 TRC-20 transfers (block transactions and transaction infos as
// java-tron answers them, as the HTTP client parsed them: the fetch and its JSON parsing are not
// counted) and an XRP ledger of 1,000 payments (rippled's API v2 `ledger` answer), each turned into
// transfers by the family's code and looked up in an index
// of 10,000 watched addresses (XRP: service address + destination tag). Targets: < 10 ms each.
// Run: node bench/chain-matching.ts
import crypto from 'node:crypto';
import { blockTransfers, TRANSFER_TOPIC, tronBase58 } from '../src/chains/tron/index.ts';
import { paymentsOfLedger } from '../src/chains/xrp/index.ts';
import { encodeXrpBase58Check } from '../src/chains/addresses/encoding.ts';
import type { TokenSymbol } from '../src/tokens/index.ts';

const RUNS = 30;
const hex = (n: number) => crypto.randomBytes(n).toString('hex');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function time(fn: () => number): { ms: number; matched: number } {
  const samples: number[] = [];
  let matched = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    matched = fn();
    samples.push(performance.now() - t0);
  }
  return { ms: median(samples), matched };
}

function tron(): { ms: number; matched: number } {
  const contract = hex(20);
  const watched = Array.from({ length: 10_000 }, () => hex(20));
  const index = new Set(watched.map((a) => tronBase58(a)));
  const txs: unknown[] = [];
  const infos: unknown[] = [];
  for (let i = 0; i < 5_000; i++) {
    const id = hex(32);
    // one in ten pays a watched address
    const to = i % 10 === 0 ? watched[i % watched.length] : hex(20);
    txs.push({ txID: id, ret: [{ contractRet: 'SUCCESS' }], raw_data: { contract: [{ type: 'TriggerSmartContract', parameter: { value: { owner_address: `41${hex(20)}`, contract_address: `41${contract}`, data: '' } } }] } });
    infos.push({ id, blockNumber: 1, receipt: { result: 'SUCCESS', energy_usage_total: 31_895 }, log: [{ address: contract, topics: [TRANSFER_TOPIC, hex(20).padStart(64, '0'), to.padStart(64, '0')], data: (1_000_000 + i).toString(16).padStart(64, '0') }] });
  }
  const contracts = new Map<string, TokenSymbol>([[contract, 'USDT_TRC20']]);
  return time(() => {
    const transfers = blockTransfers(txs, infos, contracts);
    return transfers.filter((t) => index.has(t.to)).length;
  });
}

function xrp(): { ms: number; matched: number } {
  const service = encodeXrpBase58Check(0, crypto.randomBytes(20));
  const index = new Set(Array.from({ length: 10_000 }, (_, i) => `${service}:${i}`));
  const txs = Array.from({ length: 1_000 }, (_, i) => ({
    tx_json: { TransactionType: 'Payment', Account: encodeXrpBase58Check(0, crypto.randomBytes(20)), Destination: i % 2 ? service : encodeXrpBase58Check(0, crypto.randomBytes(20)), DeliverMax: String(1_000_000 + i), DestinationTag: i, Fee: '12', Sequence: i },
    meta: { TransactionIndex: i, TransactionResult: 'tesSUCCESS', delivered_amount: String(1_000_000 + i), AffectedNodes: [] },
    hash: hex(32).toUpperCase(), validated: true,
  }));
  return time(() => {
    const transfers = paymentsOfLedger(txs);
    return transfers.filter((t) => index.has(`${t.to}:${t.tag}`)).length;
  });
}

const t = tron();
const x = xrp();
console.log(JSON.stringify({
  tron_block_5000_trc20: { median_ms: Number(t.ms.toFixed(2)), matched: t.matched, target_ms: 10 },
  xrp_ledger_1000_payments: { median_ms: Number(x.ms.toFixed(2)), matched: x.matched, target_ms: 10 },
}, null, 2));
