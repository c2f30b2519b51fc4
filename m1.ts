import { PGlite } from '@electric-sql/pglite';
const rss = () => Math.round(process.memoryUsage().rss / 1e6);
console.log('start', rss());
const db = await PGlite.create(process.argv[2]);
console.log('pglite open', rss());
await db.query('select 1');
await new Promise(r => setTimeout(r, 1000));
console.log('after', rss(), process.memoryUsage());
