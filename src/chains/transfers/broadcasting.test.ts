// A broadcast's outcome when the call moved on from a node that failed to answer: that node may
// have taken the transaction, so a later node's refusal is only uncertain; its acceptance stands.
import { describe, expect, it } from 'vitest';
import { RpcError, TransportError } from '../rpc/json-rpc.ts';
import { afterFailover, broadcastVia } from './broadcasting.ts';

const FAILED = 'http://a: no answer within 10000 ms';

describe('broadcastVia', () => {
  it('a refusal the node states is final when no node failed before it', async () => {
    expect(await broadcastVia('rippled', async () => { throw new RpcError(-1, 'tefPAST_SEQ'); })).toEqual({ kind: 'refused', why: 'rippled refused it: tefPAST_SEQ' });
    expect(await broadcastVia('rippled', async () => ({ kind: 'no_funds', why: 'unfunded' }))).toEqual({ kind: 'no_funds', why: 'unfunded' });
  });

  it('a refusal, thrown or answered, after a node that failed to answer is uncertain, naming both', async () => {
    const thrown = await broadcastVia('the Tron node', async (failures) => { failures.push(FAILED); throw new RpcError(-1, 'SIGERROR'); });
    expect(thrown).toEqual({ kind: 'uncertain', why: `the Tron node refused it: SIGERROR, after ${FAILED}` });
    const answered = await broadcastVia('rippled', async (failures) => { failures.push(FAILED); return { kind: 'nonce_used', why: 'tefPAST_SEQ' }; });
    expect(answered).toEqual({ kind: 'uncertain', why: `tefPAST_SEQ, after ${FAILED}` });
  });

  it('an acceptance after a failed node stands; no answer at all is uncertain', async () => {
    expect(await broadcastVia('rippled', async (failures) => { failures.push(FAILED); return { kind: 'accepted' }; })).toEqual({ kind: 'accepted' });
    expect(await broadcastVia('rippled', async () => { throw new TransportError('socket hang up'); })).toEqual({ kind: 'uncertain', why: 'socket hang up' });
  });
});

describe('afterFailover', () => {
  it('leaves every outcome alone when no node failed, and makes refusals uncertain when one did', () => {
    const refusals = [{ kind: 'refused', why: 'r' }, { kind: 'no_funds', why: 'f' }, { kind: 'nonce_used', why: 'n' }] as const;
    for (const out of refusals) {
      expect(afterFailover(out, [])).toEqual(out);
      expect(afterFailover(out, [FAILED, 'http://b: refused'])).toEqual({ kind: 'uncertain', why: `${out.why}, after ${FAILED}; http://b: refused` });
    }
    expect(afterFailover({ kind: 'uncertain', why: 'u' }, [FAILED])).toEqual({ kind: 'uncertain', why: 'u' });
  });
});
