// Blocks of the three coins' nodes as they write them, recorded from their documentation
// (test/fixtures/utxo): Bitcoin Core 25's `address` and verbosity 3's `prevout`, Litecoin 0.21's
// `addresses` arrays, `ismweb` flags and MWEB HogEx transaction, and Dogecoin 1.14's boolean
// getblock with getrawtransaction for each transaction (served by a replaying node, so the reader
// takes the same path as against a real one).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UTXO_NETWORKS, liveNetwork, setLiveNetwork } from '../addresses/index.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { startReplayNode, type ReplayNode } from '../../../test/harness/rpc-replay.ts';
import { blockTransfers, transfersOfTx, type NodeBlock, type NodeTx } from './node-shapes.ts';
import { UtxoReader, WrongNetworkError } from './reader.ts';
import { UtxoRpc } from './rpc.ts';
import { coinsToBaseUnits, parseNodeJson, type CoinAmount } from './coins.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`../../../test/fixtures/utxo/${name}`, import.meta.url), 'utf8'));
const same = (a: string) => a;

describe('Bitcoin Core 25 blocks', () => {
  it('sums outputs per transaction and address, decodes every standard type and skips OP_RETURN and the coinbase', () => {
    const block = fixture('bitcoin-core-getblock-2.json').block as NodeBlock;
    const all = (block.tx as NodeTx[]).flatMap((tx) => transfersOfTx(tx, UTXO_NETWORKS.bitcoin.main, 'BTC', same));
    // block.tx[0], the coinbase, pays bc1qw508… 6.4 BTC: unspendable for 100 blocks, not a deposit
    expect(all).toEqual([
      { txId: (block.tx[1] as NodeTx).txid, to: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', token: 'BTC', amount: 200_000n },
      { txId: (block.tx[1] as NodeTx).txid, to: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', token: 'BTC', amount: 12_345_678n },
      { txId: (block.tx[1] as NodeTx).txid, to: '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', token: 'BTC', amount: 2_100_000_000n },
    ]);
  });

  it('names the sender from verbosity 3\'s prevout', () => {
    const block = fixture('bitcoin-core-getblock-3.json').block as NodeBlock;
    const [first] = transfersOfTx(block.tx[1] as NodeTx, UTXO_NETWORKS.bitcoin.main, 'BTC', same);
    expect(first.from).toBe('bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3');
  });

  it('falls back on the node\'s address field when a script has no hex', () => {
    const tx: NodeTx = { txid: 'aa', vin: [], vout: [{ n: 0, value: 0.5, scriptPubKey: { address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' } }] };
    expect(transfersOfTx(tx, UTXO_NETWORKS.bitcoin.main, 'BTC', same)[0].amount).toBe(50_000_000n);
  });
});

describe('the block scan', () => {
  const a = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
  const b = '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH';
  const out = (n: number, address: string, value: number) => ({ n, value, scriptPubKey: { address } });

  it('sums outputs to one address per transaction, however many outputs it has, and keeps transactions apart', () => {
    // 20 outputs: past the linear merge, the Map path
    const many: NodeTx = { txid: 'm', vin: [], vout: Array.from({ length: 20 }, (_, n) => out(n, n % 2 ? b : a, 0.0001)) };
    const few: NodeTx = { txid: 'f', vin: [], vout: [out(0, a, 0.5), out(1, b, 0.25), out(2, a, 0.5)] };
    expect(blockTransfers([many, few], UTXO_NETWORKS.bitcoin.main, 'BTC', same)).toEqual([
      { txId: 'm', to: a, token: 'BTC', amount: 100_000n }, { txId: 'm', to: b, token: 'BTC', amount: 100_000n },
      { txId: 'f', to: a, token: 'BTC', amount: 100_000_000n }, { txId: 'f', to: b, token: 'BTC', amount: 25_000_000n },
    ]);
  });

  it('credits no one for a bare multisig output (several addresses), nor for an MWEB output whatever it writes', () => {
    const tx: NodeTx = { txid: 'x', vin: [], vout: [
      { n: 0, value: 0.5, scriptPubKey: { addresses: [a, b], type: 'multisig' } },
      { n: 1, value: 0.25, ismweb: true, scriptPubKey: { address: a } },
      out(2, b, 0.125),
    ] };
    expect(transfersOfTx(tx, UTXO_NETWORKS.bitcoin.main, 'BTC', same)).toEqual([{ txId: 'x', to: b, token: 'BTC', amount: 12_500_000n }]);
  });

  it('credits no one for a bare pubkey or a 1-of-1 bare multisig, whose key Dogecoin and Litecoin write as a P2PKH address', () => {
    const tx: NodeTx = { txid: 'k', vin: [], vout: [
      { n: 0, value: 0.5, scriptPubKey: { addresses: [b], type: 'pubkey' } },
      { n: 1, value: 0.25, scriptPubKey: { addresses: [b], type: 'multisig' } },
      { n: 2, value: 0.125, scriptPubKey: { addresses: [b], type: 'pubkeyhash' } },
    ] };
    expect(transfersOfTx(tx, UTXO_NETWORKS.bitcoin.main, 'BTC', same)).toEqual([{ txId: 'k', to: b, token: 'BTC', amount: 12_500_000n }]);
  });

  it('normalises a bech32 address written in capitals and leaves base58 as it is', () => {
    const reader = new UtxoReader('bitcoin', new UtxoRpc(new NodeEndpoints(['http://127.0.0.1:1'])));
    expect(reader.normalizeAddress(a.toUpperCase())).toBe(a);
    expect(reader.normalizeAddress(a)).toBe(a);
    expect(reader.normalizeAddress(b)).toBe(b);
  });
});

describe('Litecoin 0.21 blocks with MWEB', () => {
  it('reads the addresses array form and leaves the HogEx output and the MWEB part out', () => {
    const block = fixture('litecoin-0.21-getblock-2-mweb.json').block as NodeBlock;
    const all = (block.tx as NodeTx[]).flatMap((tx) => transfersOfTx(tx, UTXO_NETWORKS.litecoin.main, 'LTC', same));
    expect(all.map((t) => [t.to, t.amount])).toEqual([
      ['ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt', 150_000_000n],
      ['LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh', 75_000_000n],
    ]);
  });
});

describe('coin amounts', () => {
  it('turns the node\'s decimal numbers into exact base units', () => {
    expect(coinsToBaseUnits(0.1)).toBe(10_000_000n);
    expect(coinsToBaseUnits(0.00000001)).toBe(1n);
    expect(coinsToBaseUnits(20999999.97690000)).toBe(2_099_999_997_690_000n);
    expect(coinsToBaseUnits(9874.2)).toBe(987_420_000_000n);
    expect(() => coinsToBaseUnits(-1)).toThrow();
  });

  it('agrees with the decimal text for every amount of 8 decimals, on both sides of the fast path', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 1_000_000_000_000_000n }), (units) => {
      const text = `${units / 100_000_000n}.${String(units % 100_000_000n).padStart(8, '0')}`;
      expect(coinsToBaseUnits(JSON.parse(text))).toBe(units);
    }), { numRuns: 5000 });
    fc.assert(fc.property(fc.bigInt({ min: 1_000_000_000_000_000n, max: 2n ** 25n * 100_000_000n - 1n }), (units) => {
      const text = `${units / 100_000_000n}.${String(units % 100_000_000n).padStart(8, '0')}`;
      expect(coinsToBaseUnits(JSON.parse(text))).toBe(units);
    }), { numRuns: 5000 });
  });
});

describe('Dogecoin 1.14 through a replaying node', () => {
  let node: ReplayNode;
  let reader: UtxoReader;
  const doge = fixture('dogecoin-1.14.json').replies as Record<string, unknown>;
  beforeAll(async () => {
    node = await startReplayNode(doge);
    reader = new UtxoReader('dogecoin', new UtxoRpc(new NodeEndpoints([node.url])));
  });
  afterAll(async () => { await node?.close(); setLiveNetwork('dogecoin', 'main'); });

  it('knows the node by its genesis block and reports its chain', async () => {
    setLiveNetwork('dogecoin', 'regtest');
    expect(await reader.network()).toBe('main');
    expect(liveNetwork('dogecoin')).toBe('main');
  });

  it('reads the head and a header with its parent', async () => {
    const head = await reader.head();
    expect(head).toMatchObject({ height: 5_000_000n, parentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(head.time.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(await reader.header(5_000_003n)).toBeNull();
  });

  it('reads a block with getblock true and getrawtransaction for each transaction, never verbosity 2', async () => {
    const block = (await reader.block(5_000_000n))!;
    // the address the recording's addresses field gives (bitcoinjs-lib's P2PKH of that key hash)
    const other = 'D7iQksQRxcZK1h7WCGxe4528YwLc1KNVFB';
    // the block's coinbase (10,000 DOGE to `other`) is not a deposit
    expect(block.transfers.map((t) => [t.to, t.amount])).toEqual([
      ['DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', 12_575_000_000n],
      [other, 987_420_000_000n],
      [other, 4_200_000_000n],
    ]);
    expect([...node.calls.keys()].some((k) => k.startsWith('getblock ') && k.endsWith(', 2]'))).toBe(false);
    expect(await reader.block(5_000_003n)).toBeNull();
  });

  it('lists the mempool\'s transfers and reads each transaction once', async () => {
    const first = await reader.pending!();
    expect(first.map((t) => [t.to, t.amount])).toEqual([['DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', 700_000_000n]]);
    await reader.pending!();
    const key = [...node.calls.keys()].find((k) => k.startsWith('getrawtransaction') && first[0].txId && k.includes(first[0].txId))!;
    expect(node.calls.get(key)).toBe(1);
  });

  it('refuses a node of another coin with a message naming it', async () => {
    const other = new UtxoReader('litecoin', new UtxoRpc(new NodeEndpoints([node.url])));
    await expect(other.network()).rejects.toThrow(WrongNetworkError);
    await expect(other.network()).rejects.toThrow(/is not a litecoin node \(its genesis block is 1a91e3da.*, chain "main"\)/);
  });
});

describe('Dogecoin amounts a double cannot hold', () => {
  // Dogecoin has no supply cap (MAX_MONEY, the largest output, is 10 billion DOGE): an output of a
  // billion DOGE and more is ordinary for an exchange. The node prints it with 8 decimals; parsed
  // into a double, 1,000,000,000.00000001 becomes 1,000,000,000 and 9,876,543,210.12345678
  // becomes …12345695.
  const txid = 'b'.repeat(64);
  const paid = 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC';
  const tx = `{"txid":"${txid}","hash":"${txid}","version":1,"size":226,"locktime":0,"vin":[{"txid":"${'c'.repeat(64)}","vout":0,"scriptSig":{"asm":"","hex":""},"sequence":4294967295}],`
    + `"vout":[{"value":9876543210.12345678,"n":0,"scriptPubKey":{"asm":"","hex":"76a9144a483568665dcdfa68dd58a1f62893448a64333988ac","reqSigs":1,"type":"pubkeyhash","addresses":["${paid}"]}},`
    + `{"value":1000000000.00000001,"n":1,"scriptPubKey":{"asm":"","hex":"76a9141c3d2f7a2ef0b6c1b4f4d5f3a6e3c2e4b5a6978b88ac","reqSigs":1,"type":"pubkeyhash","addresses":["D7iQksQRxcZK1h7WCGxe4528YwLc1KNVFB"]}}]}`;
  // the node's answers as text, byte for byte (the replaying node re-serialises its fixtures, which would round them already)
  const results: Record<string, string> = {
    getblockhash: '"1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691"',
    getblockchaininfo: '{"chain":"main","blocks":5000000,"difficulty":12345678.87654321}',
    getrawmempool: `["${txid}"]`,
    getrawtransaction: tx,
  };
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        const one = (r: { id: number; method: string }) => `{"result":${results[r.method] ?? 'null'},"error":null,"id":${r.id}}`;
        const parsed = JSON.parse(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Array.isArray(parsed) ? `[${parsed.map(one).join(',')}]` : one(parsed));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((resolve) => server?.close(resolve)); setLiveNetwork('dogecoin', 'main'); });

  it('reads an output of billions of DOGE to the koinu, as the node wrote it', async () => {
    const reader = new UtxoReader('dogecoin', new UtxoRpc(new NodeEndpoints([url])));
    const transfers = await reader.pending!();
    expect(transfers.map((t) => [t.to, t.amount])).toEqual([
      [paid, 987_654_321_012_345_678n],
      ['D7iQksQRxcZK1h7WCGxe4528YwLc1KNVFB', 100_000_000_000_000_001n],
    ]);
  });

  it('turns the decimal text of any amount up to MAX_MONEY into exact base units', () => {
    expect(coinsToBaseUnits('9876543210.12345678')).toBe(987_654_321_012_345_678n);
    expect(coinsToBaseUnits('10000000000.00000000')).toBe(1_000_000_000_000_000_000n);
    expect(coinsToBaseUnits('33554432.5')).toBe(3_355_443_250_000_000n);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 1_000_000_000_000_000_000n }), (units) => {
      const text = `${units / 100_000_000n}.${String(units % 100_000_000n).padStart(8, '0')}`;
      expect(coinsToBaseUnits((parseNodeJson(`{"value":${text}}`) as { value: CoinAmount }).value)).toBe(units);
    }), { numRuns: 3000 });
  });
});
