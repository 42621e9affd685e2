/** Operations on the extension-host instances that own runs. */
import type { InstanceRecord } from '../records';
import { toInstance } from './rows';
import type { JournalDb } from './database';

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`).
 */
export class InstanceOps {
  constructor(private readonly db: JournalDb) {}

  /** Registers (or refreshes) an extension-host instance. */
  registerInstance(instance: InstanceRecord): void {
    this.db.run(
      `INSERT INTO instances (id, pid, process_start, hostname, started_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET last_seen_at = excluded.last_seen_at`,
      [instance.id, instance.pid, instance.processStart, instance.hostname, instance.startedAt, instance.lastSeenAt],
    );
  }

  /** Removes an instance row (its process is gone and nothing it owned is still in flight). */
  removeInstance(id: string): void {
    this.db.run('DELETE FROM instances WHERE id = ?', [id]);
  }

  /** One instance or undefined. */
  getInstance(id: string): InstanceRecord | undefined {
    const row = this.db.one('SELECT * FROM instances WHERE id = ?', [id]);
    return row && toInstance(row);
  }

  /** Every registered instance, in the order they were registered (rowid). */
  listInstances(): InstanceRecord[] {
    return this.db.all('SELECT * FROM instances ORDER BY rowid').map(toInstance);
  }
}
