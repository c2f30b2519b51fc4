// The outside baseline of bench/payments.ts, in a Node process of its own: bare Fastify 5 and a pg
// Pool of 20 against the same PostgreSQL, one 5-column row by primary key (GET /row/:id: one SELECT;
// POST /row: one INSERT). Prints `listening <url>` when ready. Argument: the database URL.
import crypto from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const url = process.argv[2];
const pool = new pg.Pool({ connectionString: url, max: 20 });
await pool.query('create table if not exists bench_bare_rows (id text primary key, order_id text not null, amount numeric not null, status text not null, created_at timestamptz not null)');
await pool.query(`insert into bench_bare_rows select 'r' || g, 'order-' || g, 25, 'pending', now() from generate_series(1, 2000) g on conflict do nothing`);

const app = Fastify();
app.get('/row/:id', async (req, reply) => {
  const r = await pool.query('select id, order_id, amount, status, created_at from bench_bare_rows where id = $1', [(req.params as { id: string }).id]);
  return r.rows[0] ?? reply.code(404).send({ error: 'not found' });
});
app.post('/row', async (req, reply) => {
  const b = req.body as { order_id: string; amount_usd: string };
  const r = await pool.query('insert into bench_bare_rows (id, order_id, amount, status, created_at) values ($1, $2, $3, $4, now()) returning *',
    [crypto.randomBytes(12).toString('hex'), b.order_id, b.amount_usd, 'pending']);
  return reply.code(201).send(r.rows[0]);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening ${address}`);
process.on('SIGTERM', async () => { await app.close(); await pool.end(); process.exit(0); });
