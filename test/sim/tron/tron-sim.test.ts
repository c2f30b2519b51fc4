// The TRON simulator checked with the official SDK (tronweb 6): TRX and TRC-20 transfers built,
// signed and broadcast by tronweb are accepted and applied with java-tron's answers, tampered or
// unfunded ones refused, fees burnt as resources run out, and the solidity node trailing the head.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronWeb, utils } from 'tronweb';
import { base58Address, startTronSim, type TronSim } from './server.ts';
import { CREATE_ACCOUNT_FEE_SUN, ENERGY_TRANSFER_NEW, TRANSFER_TOPIC } from './chain.ts';

let sim: TronSim;
let tw: TronWeb;
let owner: { address: { base58: string; hex: string }; privateKey: string };
let token: string;

const newAccount = async () => (await TronWeb.createAccount()) as unknown as { address: { base58: string; hex: string }; privateKey: string };

async function sendToken(from: { address: { base58: string }; privateKey: string }, to: string, amount: number, feeLimit = 100_000_000) {
  const built = await tw.transactionBuilder.triggerSmartContract(
    token, 'transfer(address,uint256)', { feeLimit, txLocal: true }, [{ type: 'address', value: to }, { type: 'uint256', value: amount }], from.address.base58,
  );
  const signed = await tw.trx.sign(built.transaction, from.privateKey);
  return tw.trx.sendRawTransaction(signed);
}

beforeAll(async () => {
  sim = await startTronSim();
  owner = await newAccount();
  sim.chain.fund(owner.address.base58, 1_000_000_000n);
  token = base58Address(sim.chain.deployToken(6));
  sim.chain.mint(token, owner.address.base58, 1_000_000_000n);
  sim.chain.mine(1);
  tw = new TronWeb({ fullHost: sim.url, privateKey: owner.privateKey });
});
afterAll(async () => { await sim?.stop(); });

describe('TRON simulator, driven by tronweb', () => {
  it('takes a TRX transfer built and signed by tronweb, applies it in the next block, with its account creation fee', async () => {
    const to = await newAccount();
    const sent = await tw.trx.sendTransaction(to.address.base58, 1_500_000);
    expect(sent.result).toBe(true);
    const block = sim.chain.mine(1)[0];
    const info = await tw.trx.getUnconfirmedTransactionInfo(sent.transaction.txID);
    expect(info.blockNumber).toBe(block.number);
    expect(info.fee).toBe(Number(CREATE_ACCOUNT_FEE_SUN));
    expect(await tw.trx.getUnconfirmedBalance(to.address.base58)).toBe(1_500_000);
    const b = await tw.trx.getBlock(block.number);
    expect(b.transactions?.[0].txID).toBe(sent.transaction.txID);
    expect(b.transactions?.[0].ret[0].contractRet).toBe('SUCCESS');
    expect(b.block_header.raw_data.number).toBe(block.number);
  });

  it('a TRC-20 transfer burns energy and emits a Transfer log; balanceOf reads the new balance', async () => {
    const to = await newAccount();
    const sent = await sendToken(owner, to.address.base58, 25_500_000);
    expect(sent.result).toBe(true);
    sim.chain.mine(1);
    const info = await tw.trx.getUnconfirmedTransactionInfo(sent.transaction.txID);
    expect(info.receipt.result).toBe('SUCCESS');
    expect(info.receipt.energy_usage_total).toBe(Number(ENERGY_TRANSFER_NEW));
    expect(info.receipt.energy_fee).toBe(Number(ENERGY_TRANSFER_NEW * sim.chain.energyPrice));
    // The owner used its 600 free bandwidth earlier: this one also burns its bytes.
    expect(info.fee).toBe(info.receipt.energy_fee + (info.receipt.net_fee ?? 0));
    expect(info.log[0].topics[0]).toBe(TRANSFER_TOPIC);
    expect(info.log[0].topics[2]).toBe(to.address.hex.slice(2).toLowerCase().padStart(64, '0'));
    expect(BigInt(`0x${info.log[0].data}`)).toBe(25_500_000n);
    const call = await tw.transactionBuilder.triggerConstantContract(token, 'balanceOf(address)', {}, [{ type: 'address', value: to.address.base58 }], owner.address.base58);
    expect(BigInt(`0x${call.constant_result[0]}`)).toBe(25_500_000n);
  });

  it('answers DUP_TRANSACTION_ERROR to a transaction id it has, in its pool or in a block, as java-tron does', async () => {
    const to = await newAccount();
    const built = await tw.transactionBuilder.sendTrx(to.address.base58, 2_000_000, owner.address.base58);
    const signed = await tw.trx.sign(built, owner.privateKey);
    expect((await tw.trx.sendRawTransaction(signed)).result).toBe(true);
    const again = await tw.trx.sendRawTransaction(signed) as unknown as { result?: boolean; code?: string };
    expect(again.result).not.toBe(true);
    expect(again.code).toBe('DUP_TRANSACTION_ERROR');
    sim.chain.mine(1);
    expect((await tw.trx.sendRawTransaction(signed) as unknown as { code?: string }).code).toBe('DUP_TRANSACTION_ERROR');
    // applied once
    expect(await tw.trx.getUnconfirmedBalance(to.address.base58)).toBe(2_000_000);
  });

  it('refuses a tampered transaction and a transfer from an account that does not exist yet', async () => {
    const to = await newAccount();
    const built = await tw.transactionBuilder.sendTrx(to.address.base58, 1_000_000, owner.address.base58);
    const signed = await tw.trx.sign(built, owner.privateKey);
    const tampered = { ...signed, raw_data: { ...signed.raw_data, expiration: signed.raw_data.expiration + 1 } };
    expect(await tw.trx.sendRawTransaction(tampered as typeof signed)).toMatchObject({ code: 'OTHER_ERROR' });
    const stranger = await newAccount();
    const forged = { ...signed, signature: [utils.crypto.ECKeySign(Buffer.from(signed.txID, 'hex'), Buffer.from(stranger.privateKey, 'hex'))] };
    expect(await tw.trx.sendRawTransaction(forged)).toMatchObject({ code: 'SIGERROR' });

    // A deposit address that only received tokens has no TRON account: it cannot pay for its own sweep.
    const deposit = await newAccount();
    sim.chain.mint(token, deposit.address.base58, 5_000_000n);
    const sweep = await sendToken(deposit, owner.address.base58, 5_000_000);
    expect(sweep).toMatchObject({ code: 'CONTRACT_VALIDATE_ERROR' });
    expect(Buffer.from((sweep as unknown as { message: string }).message, 'hex').toString()).toMatch(/no OwnerAccount/);
  });

  it('a fee_limit below the energy cost ends OUT_OF_ENERGY: the fee_limit is burnt, the tokens stay', async () => {
    const to = await newAccount();
    const sent = await sendToken(owner, to.address.base58, 1_000_000, 1_000_000);
    expect(sent.result).toBe(true);
    sim.chain.mine(1);
    const info = await tw.trx.getUnconfirmedTransactionInfo(sent.transaction.txID);
    expect(info.receipt.result).toBe('OUT_OF_ENERGY');
    expect(info.result).toBe('FAILED');
    expect(info.receipt.energy_fee).toBe(1_000_000);
    expect(info.fee).toBe(1_000_000 + (info.receipt.net_fee ?? 0));
    expect(sim.chain.tokenBalance(token, to.address.base58)).toBe(0n);
  });

  it('the solidity node trails the head by 19 blocks (tronweb reads confirmed state from it)', async () => {
    const to = await newAccount();
    const sent = await tw.trx.sendTransaction(to.address.base58, 2_000_000);
    sim.chain.mine(1);
    expect((await tw.trx.getTransactionInfo(sent.transaction.txID)).blockNumber).toBeUndefined();
    expect(await tw.trx.getUnconfirmedBalance(to.address.base58)).toBe(2_000_000);
    expect(await tw.trx.getBalance(to.address.base58)).toBe(0);
    sim.chain.mine(19);
    expect(await tw.trx.getBalance(to.address.base58)).toBe(2_000_000);
    expect((await tw.trx.getTransactionInfo(sent.transaction.txID)).blockNumber).toBe(sim.chain.head.number - 19);
    const solid = await tw.trx.getConfirmedCurrentBlock();
    expect(solid.block_header.raw_data.number).toBe(sim.chain.head.number - 19);
  });

  it('a reorganisation replaces recent blocks with new ids and re-includes their transactions', async () => {
    const to = await newAccount();
    const sent = await tw.trx.sendTransaction(to.address.base58, 3_000_000);
    const [first] = sim.chain.mine(2);
    sim.chain.reorg(2);
    expect(sim.chain.block(first.number)!.blockID).not.toBe(first.blockID);
    const info = await tw.trx.getUnconfirmedTransactionInfo(sent.transaction.txID);
    expect(info.blockNumber).toBe(first.number);
    expect(await tw.trx.getUnconfirmedBalance(to.address.base58)).toBe(3_000_000);
  });

  it('answers wallet/getcontract with the contract, or {} for an address without one (as java-tron)', async () => {
    const ask = async (value: string, visible = false) => (await fetch(`${sim.url}/wallet/getcontract`, { method: 'POST', body: JSON.stringify({ value, visible }) })).json();
    const hex = utils.address.toHex(token).toLowerCase();
    expect(await ask(hex)).toMatchObject({ contract_address: hex });
    expect(await ask(token, true)).toMatchObject({ contract_address: token });
    expect(await ask(owner.address.hex)).toEqual({});
    expect((await tw.trx.getContract(token)).contract_address).toBe(hex);
  });

  it('answers {} for what does not exist and an HTML error page when broken', async () => {
    const res = await fetch(`${sim.url}/wallet/getblockbynum`, { method: 'POST', body: JSON.stringify({ num: 99_999 }) });
    expect(await res.json()).toEqual({});
    sim.garbage = true;
    expect((await fetch(`${sim.url}/wallet/getnowblock`, { method: 'POST' })).status).toBe(503);
    sim.garbage = false;
  });
});
