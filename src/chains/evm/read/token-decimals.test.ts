import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeFunctionResult, erc20Abi, type PublicClient } from 'viem';
import { checkTokenDecimals } from './token-decimals.ts';
import { loadConfig } from '../../../config.ts';
import { Catalog } from '../../../payments/catalog.ts';
import { noContract } from '../../../payments/coin.ts';
import type { MarketSource } from '../../../market/index.ts';

const MAINNET_USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const LOCAL_USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/** A node on which only `deployed` has code, a 6-decimal ERC-20. */
function nodeWith(deployed: string): PublicClient {
  return {
    getCode: async ({ address }: { address: string }) => (address.toLowerCase() === deployed.toLowerCase() ? '0x6080' : undefined),
    call: async () => ({ data: encodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', result: 6 }) }),
  } as unknown as PublicClient;
}

describe('checkTokenDecimals', () => {
  it('a contract with no code on the node makes its token unavailable in live mode, and says which (CONTRACT.md TOKEN_CONTRACTS)', async () => {
    const config = loadConfig({
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-decimals-')), ETHEREUM_RPC_URL: 'http://127.0.0.1:1', TOKEN_CONTRACTS: `USDC_ERC20=${LOCAL_USDC}`,
    });
    const catalog = new Catalog({} as MarketSource, config, async () => []);
    expect(catalog.available('USDT_ERC20', true)).toBe(true);

    // the mainnet USDT contract is not on this test node; the configured USDC one is
    const checked = await checkTokenDecimals(nodeWith(LOCAL_USDC), { USDT_ERC20: MAINNET_USDT, USDC_ERC20: LOCAL_USDC });
    expect([...checked.contracts.values()]).toEqual(['USDC_ERC20']);
    expect(checked.missing).toEqual(['USDT_ERC20']);

    expect(catalog.available('USDT_ERC20', true)).toBe(false);
    expect(catalog.unavailable('USDT_ERC20', true)).toBe(noContract('USDT_ERC20'));
    expect(noContract('USDT_ERC20')).toBe('USDT_ERC20 cannot be paid in live mode right now: its token contract has no code on the ethereum node');
    expect(catalog.offered({ ...catalogSettings(), enabled_tokens: ['USDT_ERC20', 'USDC_ERC20', 'ETH'] }, true)).toEqual(['ETH', 'USDC_ERC20']);
    // test mode never touches a chain
    expect(catalog.available('USDT_ERC20', false)).toBe(true);

    // the contract deployed there later (a node restarted with it): the token is back
    await checkTokenDecimals(nodeWith(MAINNET_USDT), { USDT_ERC20: MAINNET_USDT });
    expect(catalog.available('USDT_ERC20', true)).toBe(true);
  });
});

const catalogSettings = () => ({
  fee_bps: 100, underpaid_tolerance_bps: 50, accept_other_assets: false, settlement: 'direct' as const, payout_schedule: 'daily' as const,
  fees_paid_by_customer: true, convert_into: 'cheapest' as const, hide_below_minimum: false, enabled_tokens: [] as string[],
});
