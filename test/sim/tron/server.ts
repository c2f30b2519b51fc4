// A local TRON full node for the Tron tests: the simulated chain behind java-tron's HTTP API
// (`POST /wallet/*` and `/walletsolidity/*`, JSON bodies, addresses in hex 41… unless the request
// says `visible: true`), answering in java-tron's shapes: blocks with `blockID`, `block_header` and
// `transactions` (absent when empty), TransactionInfo with `fee`, `receipt` and `log`, broadcast
// answers `{result: true, txid}` or `{code, txid, message: <hex>}`, `{}` for what does not exist.
// Test hooks (plain methods): fund, deployToken, mint, mine, reorg, garbage, stop/start. Started
// with `control: true` (its own process, test/sim/tron/main.ts) it also answers the test over HTTP
// at `POST /sim/*` (no java-tron path): fund, deploy, mint, mine, txs (see #control).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BroadcastRefused, TronChain, base58Address, hexAddress, type TronBlock, type TronTx } from './chain.ts';

export { TronChain, base58Address, hexAddress } from './chain.ts';

type Body = Record<string, any>;

export class TronSim {
  readonly chain: TronChain;
  garbage = false;
  readonly calls: string[] = [];
  readonly #server: http.Server;
  #port = 0;

  readonly #control: boolean;

  constructor(clock?: () => number, opts: { port?: number; control?: boolean } = {}) {
    this.chain = new TronChain(clock);
    this.#port = opts.port ?? 0;
    this.#control = opts.control === true;
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
      this.calls.push(path);
      if (this.garbage) return void res.writeHead(503, { 'content-type': 'text/html' }).end('<html>503 Service Unavailable</html>');
      let body: Body = {};
      try {
        body = raw.trim() ? JSON.parse(raw) : {};
        // java-tron's servlets also answer GET, their parameters in the query (tronweb reads
        // wallet/getcontract so); `visible` arrives as text there
        if (req.method === 'GET') {
          const query = Object.fromEntries(new URL(req.url ?? '/', 'http://sim').searchParams);
          body = { ...query, ...(query.visible !== undefined ? { visible: query.visible === 'true' } : {}) };
        }
      } catch {
        return void json(res, { Error: 'class com.google.gson.stream.MalformedJsonException : Unterminated object' });
      }
      try {
        const answer = this.#control && path.startsWith('/sim/') ? this.#controlRoute(path.slice(5), body) : this.#route(path, body);
        if (answer === undefined) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html>404 Not Found</html>');
        json(res, answer);
      } catch (err) {
        json(res, { Error: `class java.lang.IllegalArgumentException : ${(err as Error).message}` });
      }
    });
  }

  #route(path: string, b: Body): unknown {
    const c = this.chain;
    const visible = b.visible === true;
    const solidity = path.startsWith('/walletsolidity/');
    const name = path.replace(/^\/wallet(solidity)?\//, '');
    const view = (blk: TronBlock | undefined, detail = true) => (blk ? blockJson(blk, visible, detail) : {});
    switch (name) {
      case 'getnowblock':
        return view(solidity ? c.solid : c.head);
      case 'getblockbynum': {
        const blk = c.block(Number(b.num));
        return blk && (!solidity || blk.number <= c.solid.number) ? view(blk) : {};
      }
      case 'getblock': {
        const id = b.id_or_num;
        const blk = id === undefined ? c.head : /^\d+$/.test(String(id)) ? c.block(Number(id)) : c.blocks.find((x) => x.blockID === id);
        return view(blk, b.detail === true);
      }
      case 'getblockbyid':
        return view(c.blocks.find((x) => x.blockID === b.value));
      case 'getblockbylimitnext': {
        const from = Number(b.startNum);
        const to = Math.min(Number(b.endNum), from + 100);
        const block = c.blocks.slice(from, to).map((blk) => blockJson(blk, visible, true));
        return block.length ? { block } : {};
      }
      case 'gettransactioninfobyblocknum': {
        const blk = c.block(Number(b.num));
        return blk && (!solidity || blk.number <= c.solid.number) ? blk.infos : [];
      }
      case 'gettransactioninfobyid': {
        const found = c.findTx(String(b.value));
        return found && (!solidity || found.block.number <= c.solid.number) ? found.info : {};
      }
      case 'gettransactionbyid': {
        const found = c.findTx(String(b.value));
        if (found && (!solidity || found.block.number <= c.solid.number)) return txJson(found.tx, visible);
        const queued = !solidity && c.pending.find((t) => t.txID === b.value);
        return queued ? txJson(queued, visible) : {};
      }
      case 'getaccount': {
        const hex = hexAddress(String(b.address));
        const a = c.account(hex, solidity ? c.solid : null);
        if (!a) return {};
        return { address: visible ? base58Address(hex) : hex, balance: Number(a.balance), create_time: a.createTime, free_net_usage: a.freeNetUsed };
      }
      case 'getcontract': {
        // java-tron answers the stored SmartContract (its address, name, bytecode, ABI…), or {} for an
        // address holding no contract; the simulated tokens have no real bytecode, so a marker stands in
        const hex = hexAddress(String(b.value));
        if (solidity || !c.tokens.has(hex)) return solidity ? undefined : {};
        return { contract_address: visible ? base58Address(hex) : hex, name: 'SimToken', bytecode: '6080604052', origin_energy_limit: 10_000_000 };
      }
      case 'getaccountresource': {
        const a = c.account(String(b.address));
        return a ? { freeNetUsed: a.freeNetUsed, freeNetLimit: 600, TotalNetLimit: 43_200_000_000, TotalEnergyLimit: 180_000_000_000 } : {};
      }
      case 'getchainparameters':
        return {
          chainParameter: [
            { key: 'getTransactionFee', value: Number(c.bandwidthPrice) }, { key: 'getEnergyFee', value: Number(c.energyPrice) },
            { key: 'getCreateAccountFee', value: 100_000 }, { key: 'getCreateNewAccountFeeInSystemContract', value: 1_000_000 },
            { key: 'getFreeNetLimit', value: 600 },
          ],
        };
      case 'broadcasttransaction':
        try {
          c.broadcast(b as TronTx);
          return { result: true, txid: b.txID };
        } catch (err) {
          if (!(err instanceof BroadcastRefused)) throw err;
          return { code: err.code, txid: b.txID, message: Buffer.from(err.message).toString('hex') };
        }
      case 'triggerconstantcontract':
        return this.#constant(b, solidity);
      default:
        return undefined;
    }
  }

  /**
   * The test's hooks over HTTP (addresses base58 or hex, amounts as decimal strings):
   * `fund {address, sun}` gives TRX out of thin air; `deploy {decimals}` creates a TRC-20 contract
   * (answers its base58 `contract`); `mint {contract, address, amount}`; `mine {n}` produces blocks
   * (answers the head's `number` and `timestamp`); `txs` lists every mined transaction with its
   * block and TransactionInfo, oldest first.
   */
  #controlRoute(name: string, b: Body): unknown {
    const c = this.chain;
    switch (name) {
      case 'fund':
        c.fund(String(b.address), BigInt(b.sun));
        return {};
      case 'deploy':
        return { contract: base58Address(c.deployToken(Number(b.decimals ?? 6))) };
      case 'mint':
        c.mint(String(b.contract), String(b.address), BigInt(b.amount));
        return {};
      case 'mine':
        c.mine(Number(b.n ?? 1));
        return { number: c.head.number, timestamp: c.head.timestamp };
      case 'txs':
        return c.blocks.flatMap((blk) => blk.txs.map((tx, i) => ({ block: blk.number, tx: txJson(tx, false), info: blk.infos[i] })));
      default:
        return undefined;
    }
  }

  /** Read-only calls of a token: balanceOf(address), decimals(). */
  #constant(b: Body, solidity: boolean): unknown {
    const c = this.chain;
    const contract = hexAddress(String(b.contract_address));
    if (!c.tokens.has(contract)) return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('No contract or not a valid smart contract').toString('hex') } };
    const selector = String(b.function_selector ?? '').replace(/\s/g, '');
    const data = String(b.data ?? '');
    let out: bigint;
    if (selector === 'balanceOf(address)' || data.startsWith('70a08231')) {
      const arg = selector ? String(b.parameter) : data.slice(8);
      out = c.tokenBalance(contract, `41${arg.slice(24, 64)}`, solidity ? c.solid : null);
    } else if (selector === 'decimals()' || data === '313ce567') {
      out = BigInt(c.decimals.get(contract) ?? 0);
    } else {
      return { result: { code: 'CONTRACT_EXE_ERROR', message: Buffer.from('REVERT opcode executed').toString('hex') } };
    }
    return { result: { result: true }, energy_used: 900, constant_result: [out.toString(16).padStart(64, '0')] };
  }
}

function json(res: http.ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A contract's addresses in base58 when the caller asked for visible addresses. */
function txJson(tx: TronTx, visible: boolean): Record<string, unknown> {
  const shown = JSON.parse(JSON.stringify(tx)) as TronTx;
  const wantsBase58 = visible && tx.visible !== true;
  const wantsHex = !visible && tx.visible === true;
  if (wantsBase58 || wantsHex) {
    for (const ct of shown.raw_data.contract ?? []) {
      const v = ct.parameter.value;
      for (const k of ['owner_address', 'to_address', 'contract_address']) {
        if (typeof v[k] === 'string') v[k] = wantsBase58 ? base58Address(hexAddress(v[k])) : hexAddress(v[k]);
      }
    }
  }
  return { ...(tx.ret ? { ret: tx.ret } : {}), signature: shown.signature, txID: shown.txID, raw_data: shown.raw_data, raw_data_hex: shown.raw_data_hex, ...(visible ? { visible: true } : {}) };
}

function blockJson(b: TronBlock, visible: boolean, detail: boolean): Record<string, unknown> {
  const witness = '41' + '1'.repeat(40);
  const header = {
    raw_data: {
      number: b.number, txTrieRoot: '0'.repeat(64), witness_address: visible ? base58Address(witness) : witness,
      parentHash: b.parentHash, version: 31, timestamp: b.timestamp,
    },
    witness_signature: '0'.repeat(130),
  };
  const out: Record<string, unknown> = { blockID: b.blockID, block_header: header };
  if (detail && b.txs.length > 0) out.transactions = b.txs.map((t) => txJson(t, visible));
  return out;
}

export async function startTronSim(clock?: () => number, opts: { port?: number; control?: boolean } = {}): Promise<TronSim> {
  const sim = new TronSim(clock, opts);
  await sim.start();
  return sim;
}
