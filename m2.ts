import { PGlite } from '@electric-sql/pglite';
const rss = () => Math.round(process.memoryUsage().rss / 1e6);
const variant = process.argv[3];
const opts: any = variant === 'a' ? { postgresqlconf: ['shared_buffers=16MB', 'wal_buffers=1MB'] } : variant === 'b' ? { startParams: undefined } : {};
const t0 = Date.now();
const db = await PGlite.create(process.argv[2], opts);
await db.query('select 1');
const sb = await db.query('show shared_buffers');
console.log(variant, 'rss', rss(), 'ms', Date.now() - t0, sb.rows, db.waitReady ? '' : '');
