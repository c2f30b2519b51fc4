// Baseline of P5's rebuild (bench/chain-watch-index.ts), run in a process of its own: the narrowest
// read of the same rows with bare `pg`, one query of the addresses. Prints the milliseconds.
import pg from 'pg';

const client = new pg.Client({ connectionString: process.argv[2] });
await client.connect();
const t0 = performance.now();
const { rows } = await client.query<{ deposit_address: string }>(
  "select deposit_address from payments where chain = 'ethereum' and livemode and deposit_address <> ''",
);
const ms = performance.now() - t0;
if (rows.length === 0) throw new Error('no rows');
await client.end();
console.log(ms.toFixed(1));
