import { PGlite } from '@electric-sql/pglite';
const rss = () => Math.round(process.memoryUsage().rss / 1e6);
const variant = process.argv[3];
const opts: any = variant === 'a' ? { startParams: ["--single","-F","-O","-j","-c","search_path=public","-c","exit_on_error=false","-c","log_checkpoints=false","-c","max_worker_processes=0","-c","max_parallel_workers=0","-c","max_parallel_workers_per_gather=0","-c","io_method=sync","-c","max_parallel_maintenance_workers=0","-c","shared_buffers=16MB","-c","wal_buffers=1MB"] } : variant === 'c' ? { initialMemory: 64 * 1024 * 1024 } : {};
const t0 = Date.now();
try {
const db = await PGlite.create(process.argv[2], opts);
await db.query('select 1');
const sb = await db.query('show shared_buffers');
console.log(variant, 'rss', rss(), 'ms', Date.now() - t0, sb.rows);
} catch (e) { console.log('err', e); }
