export { Database, queryRows, queryText, type Executor, type Orm, type Tx, type EngineKind } from './database.ts';
export { openDatabase, openPglite, openPostgres } from './connect.ts';
export { migrate, splitStatements, MIGRATIONS_DIR } from './migrate.ts';
export { baseUnits, at } from './columns.ts';
export { withTotal } from './with-total.ts';
