// The changes this process's own statements made, as the database reports them to the session
// that made them (migrations/0660_change_reports.sql: a NOTICE 'change reported' per changed row).
// A connection's reports are held until the pool takes it back, which is after its transaction
// committed (or rolled back: forgetting a view for nothing is harmless), and before the caller of
// the transaction or statement goes on: a view kept by this process is never older than a change
// this process has finished making, with no wait for that change's NOTIFY to come round.
import type pg from 'pg';

/** The NOTICE's message; its detail is `<channel>:<payload>`. */
export const CHANGE_REPORTED = 'change reported';

export type ChangeReportListener = (channel: string, payload: string) => void;

/**
 * Each connection of the pool sends the reports (prepare(), the pool's onConnect hook), which are
 * held per connection and handed over as the pool takes it back (follow()).
 */
export class ChangeReports {
  readonly #deliver: ChangeReportListener;
  readonly #held = new WeakMap<pg.ClientBase, string[]>();

  constructor(deliver: ChangeReportListener) {
    this.#deliver = deliver;
  }

  /** Before a new connection is used: the reports are notices, which a server or role set to send fewer (client_min_messages) would drop. */
  async prepare(client: pg.ClientBase): Promise<void> {
    client.on('notice', (n) => {
      if (n.message !== CHANGE_REPORTED || !n.detail) return;
      const list = this.#held.get(client);
      if (list) list.push(n.detail);
      else this.#held.set(client, [n.detail]);
    });
    await client.query('set client_min_messages to notice');
  }

  follow(pool: pg.Pool): void {
    pool.on('release', (_err, client) => {
      const list = this.#held.get(client);
      if (!list) return;
      this.#held.delete(client);
      for (const detail of list) {
        const colon = detail.indexOf(':');
        if (colon > 0) this.#deliver(detail.slice(0, colon), detail.slice(colon + 1));
      }
    });
  }
}
