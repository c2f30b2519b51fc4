// Values the payments fuzz test mixes into random bodies.
export { TOKENS as TOKENS_FOR_TESTS } from '../../src/tokens/index.ts';
export { SIMULATION_OUTCOMES } from '../../src/payments/index.ts';
