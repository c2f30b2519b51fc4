import { describe, expect, it } from 'vitest';
import { AppError, conflict } from '../../platform/errors.ts';
import { createLogger } from '../../platform/logger.ts';
import { failsAs } from './errors.ts';

describe('failsAs', () => {
  const log = createLogger('silent');

  it('answers the spec\'s 500 message for an error that is not one of the answers', async () => {
    const err = await failsAs('could not list the payouts', log, async () => { throw new Error('connection reset'); }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 500, message: 'could not list the payouts' });
  });

  it('passes the spec\'s answers and results through', async () => {
    await expect(failsAs('x', log, async () => { throw conflict('payout is not in a state that allows this'); }))
      .rejects.toMatchObject({ status: 409, message: 'payout is not in a state that allows this' });
    expect(await failsAs('x', log, async () => 42)).toBe(42);
  });
});
