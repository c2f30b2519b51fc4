// The state of a simulated XRP Ledger: accounts, closed ledgers with their transactions and metadata,
// and the transactions submitted to the open ledger. Rules are those of rippled for XRP payments
// (what the gateway sends and receives): signature and account checks, sequence numbers,
// LastLedgerSequence, fees burnt, the account reserve, RequireDest, DepositAuth (without
// preauthorizations), and `tec` results that still
// take the fee. Every closed ledger is validated at once unless `validationLag` holds some back.
import crypto from 'node:crypto';
import { decode, encodeForSigning } from 'ripple-binary-codec';
import { deriveAddress, verify } from 'ripple-keypairs';

/** Seconds from the Unix epoch to the Ripple epoch (2000-01-01T00:00:00Z). */
export const RIPPLE_EPOCH = 946_684_800;
export const BASE_FEE_DROPS = 10n;
export const RESERVE_BASE_DROPS = 1_000_000n;
export const RESERVE_INC_DROPS = 200_000n;
/** rippled's standalone genesis account (the `masterpassphrase` seed), holding every XRP at start. */
export const GENESIS = { address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', seed: 'snoPBrXtMeMyMHUVTgbuqAfg1SUTb' };
const TOTAL_DROPS = 100_000_000_000_000_000n;
export const LSF_REQUIRE_DEST_TAG = 0x00020000;
export const LSF_DEPOSIT_AUTH = 0x01000000;
const ASF_REQUIRE_DEST = 1;
const ASF_DEPOSIT_AUTH = 9;
const TF_PARTIAL_PAYMENT = 0x00020000;

export interface Account {
  balance: bigint;
  sequence: number;
  flags: number;
  previousTxnId: string;
  previousTxnLgrSeq: number;
}

/** A transaction as it sits in a ledger: its JSON (as decoded), metadata, hash and blob. */
export interface LedgerTx {
  tx: Record<string, unknown>;
  meta: Record<string, unknown>;
  hash: string;
  blob: string;
}

export interface ClosedLedger {
  index: number;
  hash: string;
  parentHash: string;
  /** Seconds since the Ripple epoch. */
  closeTime: number;
  txs: LedgerTx[];
  totalCoins: bigint;
}

export interface SubmitResult {
  engine_result: string;
  engine_result_code: number;
  engine_result_message: string;
  applied: boolean;
  tx_json: Record<string, unknown>;
  hash: string;
}

const RESULTS: Record<string, [number, string]> = {
  tesSUCCESS: [0, 'The transaction was applied. Only final in a validated ledger.'],
  tecUNFUNDED_PAYMENT: [104, 'Insufficient XRP balance to send.'],
  tecNO_DST_INSUF_XRP: [125, 'Destination does not exist. Too little XRP sent to create it.'],
  tecNO_PERMISSION: [139, 'No permission to perform requested operation.'],
  tecDST_TAG_NEEDED: [143, 'A destination tag is required.'],
  tefPAST_SEQ: [-190, 'This sequence number has already passed.'],
  tefMAX_LEDGER: [-186, 'Ledger sequence too high.'],
  terPRE_SEQ: [-92, 'Missing/inapplicable prior transaction.'],
  terNO_ACCOUNT: [-96, 'The source account does not exist.'],
  temBAD_SIGNATURE: [-281, 'Malformed: Bad signature.'],
  temBAD_SRC_ACCOUNT: [-280, 'Malformed: Bad source account.'],
  temBAD_FEE: [-299, 'Invalid fee, negative or not XRP.'],
  temBAD_AMOUNT: [-298, 'Can only send positive amounts.'],
  temBAD_SEND_XRP_PARTIAL: [-277, 'Partial payment specified for XRP to XRP.'],
  temREDUNDANT: [-275, 'Sends same currency to self.'],
  temDISABLED: [-273, 'The transaction requires logic that is currently disabled.'],
  telINSUF_FEE_P: [-394, 'Fee insufficient.'],
};

export const resultCode = (r: string): number => RESULTS[r][0];
export const resultMessage = (r: string): string => RESULTS[r][1];

/** SHA-512Half: the first 32 bytes of SHA-512, upper-case hex (rippled's hashes). */
export function sha512Half(hex: string): string {
  return crypto.createHash('sha512').update(Buffer.from(hex, 'hex')).digest().subarray(0, 32).toString('hex').toUpperCase();
}

/** A signed transaction's id: SHA-512Half of the prefix `TXN\0` and its blob. */
export const transactionHash = (blob: string): string => sha512Half(`54584E00${blob}`);

export class XrpLedger {
  readonly accounts = new Map<string, Account>();
  readonly closed: ClosedLedger[] = [];
  /** Applied to the open ledger, in order; closing moves them into the next closed ledger. */
  open: LedgerTx[] = [];
  /** How many of the newest closed ledgers are not validated yet. */
  validationLag = 0;
  readonly #byHash = new Map<string, { tx: LedgerTx; ledger: number }>();
  #clock: () => number;

  constructor(clock: () => number = () => Date.now()) {
    this.#clock = clock;
    this.accounts.set(GENESIS.address, { balance: TOTAL_DROPS, sequence: 1, flags: 0, previousTxnId: '0'.repeat(64), previousTxnLgrSeq: 0 });
    this.#close();
  }

  get currentIndex(): number {
    return this.closed.length + 1;
  }

  get validatedIndex(): number {
    return this.closed.length - this.validationLag;
  }

  ledger(index: number): ClosedLedger | undefined {
    return this.closed[index - 1];
  }

  findTx(hash: string): { tx: LedgerTx; ledger: number } | undefined {
    return this.#byHash.get(hash.toUpperCase());
  }

  /** Checks and applies a signed blob to the open ledger, as rippled's `submit` does. */
  submit(blob: string): SubmitResult {
    let json: Record<string, unknown>;
    try {
      json = decode(blob) as Record<string, unknown>;
    } catch {
      throw new Error('invalidTransaction');
    }
    const hash = transactionHash(blob);
    const r = this.#check(json);
    const out = (engine: string, applied: boolean) => ({
      engine_result: engine, engine_result_code: resultCode(engine), engine_result_message: resultMessage(engine), applied, tx_json: { ...json, hash }, hash,
    });
    if (r !== 'ok') return out(r, false);
    const engine = this.#apply(json, blob, hash);
    return out(engine, true);
  }

  /** Adds a transaction with the given result and metadata straight into the open ledger (test hook). */
  inject(tx: Record<string, unknown>, meta: Record<string, unknown>): string {
    const hash = crypto.randomBytes(32).toString('hex').toUpperCase();
    this.open.push({ tx, meta: { TransactionIndex: this.open.length, ...meta }, hash, blob: '' });
    return hash;
  }

  /** Closes the open ledger (rippled standalone's `ledger_accept`); returns the new closed ledger. */
  close(): ClosedLedger {
    return this.#close();
  }

  #close(): ClosedLedger {
    const parent = this.closed.at(-1);
    const index = this.closed.length + 1;
    const closeTime = Math.max(Math.floor(this.#clock() / 1000) - RIPPLE_EPOCH, (parent?.closeTime ?? 0) + 1);
    const txs = this.open;
    this.open = [];
    const hash = sha512Half(crypto.createHash('sha256').update(`${index}:${parent?.hash ?? ''}:${txs.map((t) => t.hash).join(',')}:${closeTime}`).digest('hex'));
    let burnt = 0n;
    for (const t of txs) burnt += BigInt(String(t.tx.Fee ?? '0'));
    const ledger: ClosedLedger = { index, hash, parentHash: parent?.hash ?? '0'.repeat(64), closeTime, txs, totalCoins: (parent?.totalCoins ?? TOTAL_DROPS) - burnt };
    this.closed.push(ledger);
    for (const t of txs) this.#byHash.set(t.hash, { tx: t, ledger: index });
    return ledger;
  }

  #check(tx: Record<string, unknown>): string {
    const pub = String(tx.SigningPubKey ?? '');
    const sig = String(tx.TxnSignature ?? '');
    const { TxnSignature: _s, ...unsigned } = tx;
    try {
      if (!sig || !verify(encodeForSigning(unsigned as never), sig, pub)) return 'temBAD_SIGNATURE';
    } catch {
      return 'temBAD_SIGNATURE';
    }
    if (deriveAddress(pub) !== tx.Account) return 'temBAD_SRC_ACCOUNT';
    const fee = typeof tx.Fee === 'string' && /^\d+$/.test(tx.Fee) ? BigInt(tx.Fee) : -1n;
    if (fee < 0n) return 'temBAD_FEE';
    if (fee < BASE_FEE_DROPS) return 'telINSUF_FEE_P';
    if (tx.TransactionType !== 'Payment' && tx.TransactionType !== 'AccountSet') return 'temDISABLED';
    const acct = this.accounts.get(String(tx.Account));
    if (!acct) return 'terNO_ACCOUNT';
    const seq = Number(tx.Sequence);
    if (seq < acct.sequence) return 'tefPAST_SEQ';
    if (seq > acct.sequence) return 'terPRE_SEQ';
    if (typeof tx.LastLedgerSequence === 'number' && tx.LastLedgerSequence < this.currentIndex) return 'tefMAX_LEDGER';
    if (tx.TransactionType === 'Payment') {
      if (typeof tx.Amount !== 'string' || !/^\d+$/.test(tx.Amount) || BigInt(tx.Amount) <= 0n) return 'temBAD_AMOUNT';
      if ((Number(tx.Flags ?? 0) & TF_PARTIAL_PAYMENT) !== 0) return 'temBAD_SEND_XRP_PARTIAL';
      if (tx.Destination === tx.Account) return 'temREDUNDANT';
    }
    return 'ok';
  }

  /** Applies a checked transaction: the fee is taken and the sequence used whatever the tec result. */
  #apply(tx: Record<string, unknown>, blob: string, hash: string): string {
    const src = this.accounts.get(String(tx.Account))!;
    const fee = BigInt(String(tx.Fee));
    const before = { ...src };
    src.balance -= fee;
    src.sequence += 1;
    let result = 'tesSUCCESS';
    const nodes: Record<string, unknown>[] = [];
    let delivered: string | undefined;
    if (tx.TransactionType === 'Payment') {
      const amount = BigInt(String(tx.Amount));
      const dest = String(tx.Destination);
      const target = this.accounts.get(dest);
      if (src.balance - amount < RESERVE_BASE_DROPS) result = 'tecUNFUNDED_PAYMENT';
      else if (!target && amount < RESERVE_BASE_DROPS) result = 'tecNO_DST_INSUF_XRP';
      else if (target && (target.flags & LSF_REQUIRE_DEST_TAG) !== 0 && tx.DestinationTag === undefined) result = 'tecDST_TAG_NEEDED';
      // DepositAuth (no preauthorizations here): rippled still lets a payment of at most the base
      // reserve reach an account holding at most the base reserve, so it can never be stuck.
      else if (target && (target.flags & LSF_DEPOSIT_AUTH) !== 0 && (amount > RESERVE_BASE_DROPS || target.balance > RESERVE_BASE_DROPS)) result = 'tecNO_PERMISSION';
      else {
        src.balance -= amount;
        delivered = amount.toString();
        if (target) {
          nodes.push(modified(dest, { ...target }, { ...target, balance: target.balance + amount }));
          target.balance += amount;
          target.previousTxnId = hash;
          target.previousTxnLgrSeq = this.currentIndex;
        } else {
          const created: Account = { balance: amount, sequence: this.currentIndex, flags: 0, previousTxnId: hash, previousTxnLgrSeq: this.currentIndex };
          this.accounts.set(dest, created);
          nodes.push({ CreatedNode: { LedgerEntryType: 'AccountRoot', LedgerIndex: sha512Half(Buffer.from(dest).toString('hex')), NewFields: { Account: dest, Balance: amount.toString(), Sequence: created.sequence } } });
        }
      }
    } else if (Number(tx.SetFlag) === ASF_REQUIRE_DEST) {
      src.flags |= LSF_REQUIRE_DEST_TAG;
    } else if (Number(tx.SetFlag) === ASF_DEPOSIT_AUTH) {
      src.flags |= LSF_DEPOSIT_AUTH;
    }
    nodes.unshift(modified(String(tx.Account), before, src));
    src.previousTxnId = hash;
    src.previousTxnLgrSeq = this.currentIndex;
    const meta: Record<string, unknown> = { AffectedNodes: nodes, TransactionIndex: this.open.length, TransactionResult: result };
    // rippled shows delivered_amount only for a successful payment.
    if (delivered !== undefined) meta.delivered_amount = delivered;
    this.open.push({ tx, meta, hash, blob });
    return result;
  }
}

function modified(address: string, before: Account, after: Account): Record<string, unknown> {
  const prev: Record<string, unknown> = {};
  if (before.balance !== after.balance) prev.Balance = before.balance.toString();
  if (before.sequence !== after.sequence) prev.Sequence = before.sequence;
  return {
    ModifiedNode: {
      LedgerEntryType: 'AccountRoot',
      LedgerIndex: sha512Half(Buffer.from(address).toString('hex')),
      FinalFields: { Account: address, Balance: after.balance.toString(), Flags: after.flags, OwnerCount: 0, Sequence: after.sequence },
      PreviousFields: prev,
      PreviousTxnID: before.previousTxnId,
      PreviousTxnLgrSeq: before.previousTxnLgrSeq,
    },
  };
}
