// The state of a simulated TRON chain: accounts (TRX in sun), TRC-20 token balances, blocks every
// `mine()`, transactions validated at broadcast and applied in the next block, and the resources
// they burn. Validation is java-tron's for what the gateway sends (TransferContract and
// TriggerSmartContract calling a token's transfer): the transaction id is the SHA-256 of raw_data,
// raw_data must match raw_data_hex (checked with tronweb's own protobuf code), the signature must
// recover the owner, the reference block (TAPoS) must be recent and the expiration ahead. Fees:
// bandwidth is free up to 600 a day per account and otherwise burnt at 1,000 sun a byte; creating
// an account burns 1.1 TRX; a token transfer burns energy × energy price up to its fee_limit,
// OUT_OF_ENERGY beyond it; a transfer from an account that does not exist is refused.
import crypto from 'node:crypto';
import { utils } from 'tronweb';

export const TRANSFER_SELECTOR = 'a9059cbb';
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const FREE_BANDWIDTH = 600;
export const BANDWIDTH_PRICE_SUN = 1000n;
export const CREATE_ACCOUNT_FEE_SUN = 1_100_000n;
/** Energy of a USDT transfer to an address that holds some already, and to one that holds none. */
export const ENERGY_TRANSFER_EXISTING = 31_895n;
export const ENERGY_TRANSFER_NEW = 64_895n;
export const ENERGY_REVERT = 1_500n;

export interface TronAccount {
  balance: bigint;
  createTime: number;
  freeNetUsed: number;
}

export interface TronTx {
  txID: string;
  raw_data: Record<string, any>;
  raw_data_hex: string;
  signature: string[];
  visible?: boolean;
  ret?: Array<Record<string, unknown>>;
}

export interface TronBlock {
  number: number;
  blockID: string;
  parentHash: string;
  timestamp: number;
  txs: TronTx[];
  infos: Record<string, unknown>[];
  /** Balances after this block (for the solidity node's view and for reorganisations). */
  accounts: Map<string, TronAccount>;
  tokens: Map<string, Map<string, bigint>>;
}

export class BroadcastRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** Hex address (41…) of a base58 or hex address; throws on anything else. */
export function hexAddress(a: string): string {
  if (/^41[0-9a-fA-F]{40}$/.test(a)) return a.toLowerCase();
  const bytes = utils.crypto.decodeBase58Address(a);
  if (!bytes) throw new Error(`invalid address ${a}`);
  return Buffer.from(bytes).toString('hex');
}

export const base58Address = (hex: string): string => utils.crypto.getBase58CheckAddress([...Buffer.from(hex, 'hex')]);

const cloneAccounts = (m: Map<string, TronAccount>) => new Map([...m].map(([k, v]) => [k, { ...v }]));
const cloneTokens = (m: Map<string, Map<string, bigint>>) => new Map([...m].map(([k, v]) => [k, new Map(v)]));

export class TronChain {
  accounts = new Map<string, TronAccount>();
  /** contract (hex 41…) → holder (hex 41…) → base units. */
  tokens = new Map<string, Map<string, bigint>>();
  readonly decimals = new Map<string, number>();
  readonly blocks: TronBlock[] = [];
  pending: TronTx[] = [];
  /** Sun burnt per unit of energy (chain parameter getEnergyFee). */
  energyPrice = 100n;
  /** Sun burnt per byte beyond the free bandwidth (chain parameter getTransactionFee). */
  bandwidthPrice = BANDWIDTH_PRICE_SUN;
  /** How far the solidified block trails the head. */
  solidityLag = 19;
  readonly #clock: () => number;
  /** Counts reorganisations, so replacement blocks get ids of their own. */
  #forks = 0;

  constructor(clock: () => number = () => Date.now()) {
    this.#clock = clock;
    this.#seal([]);
  }

  get head(): TronBlock {
    return this.blocks.at(-1)!;
  }

  get solid(): TronBlock {
    return this.blocks[Math.max(0, this.blocks.length - 1 - this.solidityLag)];
  }

  block(n: number): TronBlock | undefined {
    return this.blocks[n];
  }

  findTx(txID: string): { tx: TronTx; block: TronBlock; info: Record<string, unknown> } | undefined {
    for (const b of this.blocks) {
      const i = b.txs.findIndex((t) => t.txID === txID);
      if (i >= 0) return { tx: b.txs[i], block: b, info: b.infos[i] };
    }
    return undefined;
  }

  /** Gives an address TRX out of thin air (the test's faucet); creates the account. */
  fund(address: string, sun: bigint): void {
    const a = this.#account(hexAddress(address), true)!;
    a.balance += sun;
  }

  /** Creates a TRC-20 contract the chain knows how to run; returns its hex address. */
  deployToken(decimals: number, address?: string): string {
    const hex = address ? hexAddress(address) : `41${crypto.randomBytes(20).toString('hex')}`;
    this.tokens.set(hex, new Map());
    this.decimals.set(hex, decimals);
    return hex;
  }

  mint(contract: string, to: string, amount: bigint): void {
    const t = this.tokens.get(hexAddress(contract))!;
    t.set(hexAddress(to), (t.get(hexAddress(to)) ?? 0n) + amount);
  }

  tokenBalance(contract: string, holder: string, at: TronBlock | null = null): bigint {
    const tokens = at ? at.tokens : this.tokens;
    return tokens.get(hexAddress(contract))?.get(hexAddress(holder)) ?? 0n;
  }

  account(address: string, at: TronBlock | null = null): TronAccount | undefined {
    return (at ? at.accounts : this.accounts).get(hexAddress(address));
  }

  /** Checks a signed transaction as java-tron does at broadcast; queues it for the next block. */
  broadcast(tx: TronTx): void {
    if (typeof tx?.raw_data_hex !== 'string' || typeof tx.txID !== 'string' || typeof tx.raw_data !== 'object') {
      throw new BroadcastRefused('OTHER_ERROR', 'Transaction is not in the expected format');
    }
    let consistent = false;
    try {
      consistent = utils.transaction.txCheck(tx) as boolean;
    } catch { /* not decodable */ }
    if (!consistent) throw new BroadcastRefused('OTHER_ERROR', 'raw_data does not match raw_data_hex or txID');
    const id = crypto.createHash('sha256').update(Buffer.from(tx.raw_data_hex, 'hex')).digest('hex');
    if (id !== tx.txID) throw new BroadcastRefused('OTHER_ERROR', 'txID is not the hash of raw_data');
    if (this.pending.some((t) => t.txID === id) || this.findTx(id)) throw new BroadcastRefused('DUP_TRANSACTION_ERROR', 'dup transaction');
    const contract = tx.raw_data.contract?.[0];
    const value = contract?.parameter?.value ?? {};
    const owner = hexAddress(String(value.owner_address ?? ''));
    let signer = '';
    try {
      signer = hexAddress(utils.crypto.ecRecover(id, String(tx.signature?.[0] ?? '')));
    } catch { /* bad signature */ }
    if (signer !== owner) throw new BroadcastRefused('SIGERROR', 'Validate signature error: signature does not match the owner address');
    const ref = this.blocks.find((b) => b.blockID.slice(12, 16) === tx.raw_data.ref_block_bytes);
    if (!ref || ref.blockID.slice(16, 32) !== tx.raw_data.ref_block_hash || this.head.number - ref.number > 65_535) {
      throw new BroadcastRefused('TAPOS_ERROR', 'Tapos check error');
    }
    const exp = Number(tx.raw_data.expiration);
    if (!(exp > this.head.timestamp) || exp > this.head.timestamp + 86_400_000) {
      throw new BroadcastRefused('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    }
    const from = this.accounts.get(owner);
    if (!from) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', `Contract validate error : Validate ${contract.type} error, no OwnerAccount.`);
    if (contract.type === 'TransferContract') {
      const to = hexAddress(String(value.to_address));
      const amount = BigInt(value.amount);
      if (amount <= 0n) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Amount must be greater than 0.');
      if (to === owner) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Cannot transfer TRX to yourself.');
      const createFee = this.accounts.has(to) ? 0n : CREATE_ACCOUNT_FEE_SUN;
      if (from.balance < amount + createFee) {
        throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', `Contract validate error : Validate TransferContract error, balance is not sufficient.`);
      }
    } else if (contract.type === 'TriggerSmartContract') {
      if (!this.tokens.has(hexAddress(String(value.contract_address)))) {
        throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Contract validate error : No contract or not a smart contract');
      }
    } else {
      throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${contract?.type} is not supported here`);
    }
    const size = this.#size(tx);
    if (from.freeNetUsed + size > FREE_BANDWIDTH && from.balance < BigInt(size) * this.bandwidthPrice) {
      throw new BroadcastRefused('BANDWITH_ERROR', 'Account resource insufficient error.');
    }
    this.pending.push(tx);
  }

  /** Produces `n` blocks; the first takes every pending transaction. */
  mine(n = 1): TronBlock[] {
    const out: TronBlock[] = [];
    for (let i = 0; i < n; i++) {
      const txs = this.pending;
      this.pending = [];
      out.push(this.#seal(txs));
    }
    return out;
  }

  /** Drops the newest `depth` blocks (never a solidified one) and mines as many again; their transactions return to the pool. */
  reorg(depth: number, keepTxs = true): void {
    const keep = this.blocks.length - depth;
    if (depth <= 0 || keep <= this.blocks.length - 1 - this.solidityLag) throw new Error('cannot reorganise solidified blocks');
    const dropped = this.blocks.splice(keep);
    const base = this.blocks.at(-1)!;
    this.accounts = cloneAccounts(base.accounts);
    this.tokens = cloneTokens(base.tokens);
    this.pending = keepTxs ? dropped.flatMap((b) => b.txs.map(({ ret: _r, ...t }) => t as TronTx)) : [];
    this.#forks++;
    this.mine(depth);
  }

  #size(tx: TronTx): number {
    return tx.raw_data_hex.length / 2 + 67 * (tx.signature?.length ?? 0) + 64;
  }

  #account(hex: string, create: boolean): TronAccount | undefined {
    let a = this.accounts.get(hex);
    if (!a && create) {
      a = { balance: 0n, createTime: this.head?.timestamp ?? this.#clock(), freeNetUsed: 0 };
      this.accounts.set(hex, a);
    }
    return a;
  }

  #seal(txs: TronTx[]): TronBlock {
    const parent = this.blocks.at(-1);
    const number = parent ? parent.number + 1 : 0;
    const timestamp = Math.max(this.#clock(), (parent?.timestamp ?? 0) + 3000);
    const infos = txs.map((tx) => this.#apply(tx, number, timestamp));
    const digest = crypto.createHash('sha256').update(`${this.#forks}:${number}:${parent?.blockID ?? ''}:${timestamp}:${txs.map((t) => t.txID).join(',')}`).digest('hex');
    const block: TronBlock = {
      number, blockID: number.toString(16).padStart(16, '0') + digest.slice(16), parentHash: parent?.blockID ?? '0'.repeat(64), timestamp,
      txs, infos, accounts: cloneAccounts(this.accounts), tokens: cloneTokens(this.tokens),
    };
    this.blocks.push(block);
    return block;
  }

  /** Applies a queued transaction in block `number`: its ret in the block and its TransactionInfo. */
  #apply(tx: TronTx, number: number, timestamp: number): Record<string, unknown> {
    const contract = tx.raw_data.contract[0];
    const value = contract.parameter.value;
    const owner = hexAddress(String(value.owner_address));
    const from = this.accounts.get(owner);
    const info: Record<string, any> = { id: tx.txID, blockNumber: number, blockTimeStamp: timestamp, contractResult: [''], receipt: {} };
    if (!from) {
      tx.ret = [{ contractRet: 'REVERT' }];
      return { ...info, result: 'FAILED', resMessage: Buffer.from('no OwnerAccount').toString('hex') };
    }
    let fee = 0n;
    const size = this.#size(tx);
    if (from.freeNetUsed + size <= FREE_BANDWIDTH) {
      from.freeNetUsed += size;
      info.receipt.net_usage = size;
    } else {
      const netFee = BigInt(size) * this.bandwidthPrice;
      from.balance -= netFee;
      fee += netFee;
      info.receipt.net_fee = Number(netFee);
    }
    let contractRet = 'SUCCESS';
    if (contract.type === 'TransferContract') {
      const to = hexAddress(String(value.to_address));
      const amount = BigInt(value.amount);
      const createFee = this.accounts.has(to) ? 0n : CREATE_ACCOUNT_FEE_SUN;
      if (from.balance < amount + createFee) {
        contractRet = 'REVERT';
      } else {
        from.balance -= amount + createFee;
        fee += createFee;
        this.#account(to, true)!.balance += amount;
      }
    } else {
      const tokenAddress = hexAddress(String(value.contract_address));
      const balances = this.tokens.get(tokenAddress)!;
      const data = String(value.data ?? '');
      const feeLimit = BigInt(tx.raw_data.fee_limit ?? 0);
      const selector = data.slice(0, 8);
      const to = `41${data.slice(8 + 24, 8 + 64)}`;
      const amount = data.length >= 136 ? BigInt(`0x${data.slice(72, 136)}`) : -1n;
      const ok = selector === TRANSFER_SELECTOR && amount >= 0n && (balances.get(owner) ?? 0n) >= amount;
      const energy = !ok ? ENERGY_REVERT : (balances.get(to) ?? 0n) > 0n ? ENERGY_TRANSFER_EXISTING : ENERGY_TRANSFER_NEW;
      const cost = energy * this.energyPrice;
      const affordable = feeLimit < from.balance ? feeLimit : from.balance;
      info.contract_address = tokenAddress;
      if (cost > affordable) {
        contractRet = 'OUT_OF_ENERGY';
        from.balance -= affordable;
        fee += affordable;
        info.receipt.energy_fee = Number(affordable);
        info.receipt.energy_usage_total = Number(affordable / this.energyPrice);
      } else {
        from.balance -= cost;
        fee += cost;
        info.receipt.energy_fee = Number(cost);
        info.receipt.energy_usage_total = Number(energy);
        if (!ok) {
          contractRet = 'REVERT';
        } else {
          balances.set(owner, balances.get(owner)! - amount);
          balances.set(to, (balances.get(to) ?? 0n) + amount);
          info.contractResult = ['0'.repeat(63) + '1'];
          info.log = [{
            address: tokenAddress.slice(2),
            topics: [TRANSFER_TOPIC, owner.slice(2).padStart(64, '0'), to.slice(2).padStart(64, '0')],
            data: amount.toString(16).padStart(64, '0'),
          }];
        }
      }
      info.receipt.result = contractRet;
    }
    if (fee > 0n) info.fee = Number(fee);
    if (contractRet !== 'SUCCESS') {
      info.result = 'FAILED';
      info.resMessage = Buffer.from(contractRet === 'REVERT' ? 'REVERT opcode executed' : 'Not enough energy').toString('hex');
    }
    tx.ret = [{ contractRet, ...(fee > 0n ? { fee: Number(fee) } : {}) }];
    return info;
  }
}
