// What a node's answer to a broadcast means: known already (accepted), its nonce used, no funds,
// refused, or no clear answer (it may be out there: never given up).
import { describe, expect, it } from 'vitest';
import { RpcError, TransportError } from '../../rpc/json-rpc.ts';
import { NoNodeAnswered } from '../../rpc/endpoints.ts';
import { broadcastOutcome } from './broadcast-outcome.ts';

describe('broadcastOutcome', () => {
  it.each([
    ['already known', 'accepted'], ['transaction already imported', 'accepted'], ['known transaction: 0xab', 'accepted'],
    ['already in the txpool', 'accepted'], ['already in pool', 'accepted'], ['AlreadyKnown', 'accepted'],
    ['nonce too low', 'nonce_used'], ['nonce too low: next nonce 5, tx nonce 4', 'nonce_used'],
    // read as a refusal, these would give back a nonce a mined transaction used and sign the transfer again
    ['nonce has already been used', 'nonce_used'], ['transaction already been mined', 'nonce_used'],
    ['Insufficient funds for gas * price + value', 'no_funds'], ['insufficient funds for transfer', 'no_funds'],
    ['replacement transaction underpriced', 'refused'], ['intrinsic gas too low', 'refused'], ['invalid sender', 'refused'],
  ])('node error "%s" → %s', (message, kind) => {
    expect(broadcastOutcome(new RpcError(-32000, message)).kind).toBe(kind);
  });

  it('no answer, or an answer that is not JSON-RPC, is uncertain', () => {
    expect(broadcastOutcome(new NoNodeAnswered('no node answered: timeout'))).toEqual({ kind: 'uncertain', why: 'no node answered: timeout' });
    expect(broadcastOutcome(new TransportError('http://node: HTTP 502, not JSON')).kind).toBe('uncertain');
  });

  it('a refusal keeps the node\'s words', () => {
    expect(broadcastOutcome(new RpcError(-32000, 'intrinsic gas too low'))).toEqual({ kind: 'refused', why: 'the node refused it: intrinsic gas too low' });
  });
});
