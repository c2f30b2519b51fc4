// The outcomes a test payment's simulation can take (spec 4.1 `simulate`). A module of its own so
// the CLI (`gateway trigger`) can name them without loading the payments service.
export const SIMULATION_OUTCOMES = ['confirmed', 'overpaid', 'partially_paid', 'underpaid', 'expired', 'failed', 'wrong_asset', 'paid_late'] as const;
export type SimulationOutcome = (typeof SIMULATION_OUTCOMES)[number];
