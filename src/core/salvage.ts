/**
 * Salvage of a moved-aside journal (`journal.sqlite.unreadable-<ms>`): the shapes of what could be
 * read from it, of the plan a dry run shows, and of one chat to import. Pure types and the rules
 * that need no database (which chats to import, the plan's counts). The reading is
 * src/journal/salvage/, the import `importRecoveredChat` (src/journal/operations/recovered.ts), the
 * dry run and the apply src/runtime/salvage.ts.
 */

/** The tables a salvage reads and imports, in the order a chat's rows are imported. */
export const SALVAGED_TABLES = ['sessions', 'turns', 'runs', 'invocations', 'boundary_requests', 'events', 'queued_prompts'] as const;
/** A table of `SALVAGED_TABLES`. */
export type SalvagedTable = (typeof SALVAGED_TABLES)[number];

/** A column value as read from a journal (the journal stores no blobs: one read as a blob is dropped with its row). */
export type SalvageValue = string | number | null;
/** A row by column name, as it was in the moved-aside journal (its schema's columns). */
export type SalvageRow = Readonly<Record<string, SalvageValue>>;
/** A chat's rows, by table. */
export type SalvageRows = Readonly<Record<SalvagedTable, readonly SalvageRow[]>>;

/** One chat as salvage could read it. */
export interface SalvagedChat {
  readonly sessionId: string;
  readonly title: string;
  readonly provider: string;
  /** ms since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Prompts (turns) and events read. */
  readonly turns: number;
  readonly events: number;
  /** True when nothing shows that any part of it is missing (see `problems`). */
  readonly whole: boolean;
  /** What is missing and why, one sentence each (empty when whole). */
  readonly problems: readonly string[];
  readonly rows: SalvageRows;
}

/** What reading one table of the moved-aside snapshot found. */
export interface SalvageTableRead {
  readonly table: SalvagedTable;
  /** Rows read. */
  readonly rows: number;
  /** Rowid ranges that could not be read (each may hold any number of rows, or none), inclusive. */
  readonly lost: readonly { readonly from: number; readonly to: number }[];
  /** Rows known to exist (from an index) that could not be read and could not be matched to a chat. */
  readonly unattributed: number;
  /**
   * True when every row in the lost ranges was counted through an index and matched to its chat, so
   * a chat not named as missing rows of this table misses none; false when the table has no index
   * by chat or its index was damaged too.
   */
  readonly lostCounted: boolean;
  /** Why the table could not be read at all (null: read, perhaps with `lost` ranges). */
  readonly error: string | null;
}

/** What reading one log generation of the moved-aside journal found. */
export interface SalvageLogRead {
  readonly generation: number;
  readonly name: string;
  /** Valid records read before the end or the first bad frame. */
  readonly records: number;
  /** Of those, applied; already in the snapshot (skipped); that failed to apply (rolled back). */
  readonly applied: number;
  readonly skipped: number;
  readonly failed: number;
  /** Where reading stopped before the log's explicit end, or null. */
  readonly damage: { readonly offset: number; readonly why: string } | null;
  /** Valid records found after the damage (or after an earlier damaged generation), not applied. */
  readonly notApplied: number;
}

/** Everything a salvage read of one moved-aside journal found (the dry run's evidence). */
export interface SalvageRead {
  /** The moved-aside snapshot's file name, path, size (bytes) and the time it was moved aside (ms). */
  readonly source: { readonly name: string; readonly path: string; readonly bytes: number; readonly movedAt: number };
  /** Why nothing could be read from the snapshot at all (null: it opened). */
  readonly openError: string | null;
  /** Its schema version (`user_version`), or null when unknown. */
  readonly schemaVersion: number | null;
  /** True when a newer build wrote it: nothing is imported (columns this build does not know would be lost). */
  readonly newer: boolean;
  readonly tables: readonly SalvageTableRead[];
  readonly logs: readonly SalvageLogRead[];
  /** Problems of the read as a whole (a checkpoint that could not be read, a damaged log header…). */
  readonly notes: readonly string[];
  readonly chats: readonly SalvagedChat[];
}

/** A chat's state in the current journal, as the plan needs it. */
export interface CurrentCopy {
  /** The chat exists in the current journal (last active at `updatedAt`, ms). */
  readonly present: { readonly updatedAt: number } | null;
  /** A salvage imported it before (from `source`, at `at`), even if it was deleted since. */
  readonly recovered: { readonly source: string; readonly at: number } | null;
}

/** Why a chat is not imported. */
export type SalvageSkip = 'present' | 'recovered_before' | 'newer_schema';

/** One item of a salvage plan: a chat of the moved-aside journal and what applying does with it. */
export interface SalvagePlanItem {
  readonly kind: 'salvage_chat';
  readonly source: string;
  readonly sessionId: string;
  readonly title: string;
  /** `import` (whole or partial), or `skip` with why. */
  readonly action: 'import' | 'skip';
  readonly skip: SalvageSkip | null;
  readonly whole: boolean;
  readonly turns: number;
  readonly events: number;
  readonly problems: readonly string[];
  /** When skipped for `present` / `recovered_before`: what is there. */
  readonly current: CurrentCopy | null;
}

/** A salvage plan: the read's evidence and one item per chat found. */
export interface SalvagePlan {
  readonly read: Omit<SalvageRead, 'chats'>;
  readonly items: readonly SalvagePlanItem[];
}

/**
 * The plan for `read` given what the current journal holds of each chat (`current`, by session id;
 * missing: not there). A chat already there or imported before is skipped, never overwritten; a
 * journal of a newer schema imports nothing. Items: chats to import first (whole, then partial),
 * each group newest first, then the skipped ones.
 */
export function salvagePlan(read: SalvageRead, current: ReadonlyMap<string, CurrentCopy>): SalvagePlan {
  const { chats, ...evidence } = read;
  const items = chats.map((chat): SalvagePlanItem => {
    const copy = current.get(chat.sessionId) ?? null;
    const skip: SalvageSkip | null = read.newer ? 'newer_schema' : copy?.recovered ? 'recovered_before' : copy?.present ? 'present' : null;
    return {
      kind: 'salvage_chat', source: read.source.name, sessionId: chat.sessionId, title: chat.title,
      action: skip ? 'skip' : 'import', skip, whole: chat.whole, turns: chat.turns, events: chat.events,
      problems: chat.problems, current: copy && (copy.present || copy.recovered) ? copy : null,
    };
  });
  const rank = (i: SalvagePlanItem) => (i.action === 'skip' ? 2 : i.whole ? 0 : 1);
  const updated = new Map(chats.map((c) => [c.sessionId, c.updatedAt]));
  items.sort((a, b) => rank(a) - rank(b) || (updated.get(b.sessionId) ?? 0) - (updated.get(a.sessionId) ?? 0) || a.sessionId.localeCompare(b.sessionId));
  return { read: evidence, items };
}

/** The plan's counts: chats to import whole and partial, skipped, and found in all. */
export function salvageCounts(plan: SalvagePlan): { whole: number; partial: number; skipped: number; found: number } {
  const imported = plan.items.filter((i) => i.action === 'import');
  return {
    whole: imported.filter((i) => i.whole).length,
    partial: imported.filter((i) => !i.whole).length,
    skipped: plan.items.length - imported.length,
    found: plan.items.length,
  };
}
