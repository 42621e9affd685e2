/**
 * The host's quick picks in plain Node (no VS Code): loading this module installs the `vscode`
 * stand-in (vscodeStub.ts) with `vscode.window.createQuickPick` making a `FakeQuickPick`, recorded
 * in `quickPicks`, so load it before the module under test. The test plays the user: `accept()` is
 * Enter, `hide()` is Escape, `type()` changes the value. Information messages go to the stand-in's
 * `said.notifications`.
 *
 * Like VS Code's extension host, setting `items` leaves `activeItems` empty (VS Code's window reports
 * the active row later); a test sets `activeItems` itself to say the window did.
 */
import { vscodeStub } from './vscodeStub';

/** What a listener registration returns. */
interface Disposable {
  dispose(): void;
}

/** A minimal event: listeners called in registration order, removed by their disposable. */
class Emitter<T> {
  private listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  get count(): number {
    return this.listeners.length;
  }
}

/** An item as the host code makes them (`kind` -1 for a separator). */
export interface FakeItem {
  readonly label: string;
  readonly kind?: number;
  readonly [key: string]: unknown;
}

/** The quick pick the code under test drives; the test plays the user on it. */
export class FakeQuickPick {
  items: readonly FakeItem[] = [];
  activeItems: readonly FakeItem[] = [];
  selectedItems: readonly FakeItem[] = [];
  busy = false;
  placeholder = '';
  title = '';
  matchOnDescription = false;
  matchOnDetail = false;
  /** Whether it is on screen (shown and not hidden). */
  visible = false;
  /** How many times it was hidden while on screen (VS Code fires `onDidHide` once). */
  hides = 0;
  disposed = false;
  private valueNow = '';
  private readonly accepted = new Emitter<void>();
  private readonly hidden = new Emitter<void>();
  private readonly changedValue = new Emitter<string>();
  private readonly changedActive = new Emitter<readonly FakeItem[]>();
  readonly onDidAccept = this.accepted.event;
  readonly onDidHide = this.hidden.event;
  readonly onDidChangeValue = this.changedValue.event;
  readonly onDidChangeActive = this.changedActive.event;

  get value(): string {
    return this.valueNow;
  }
  /** Set by the code: no event, as in VS Code. */
  set value(value: string) {
    this.valueNow = value;
  }

  show(): void {
    this.visible = true;
  }
  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.hides++;
    this.hidden.fire();
  }
  dispose(): void {
    this.hide();
    this.disposed = true;
  }

  /** The user presses Enter. */
  accept(): void {
    if (this.visible) this.accepted.fire();
  }
  /** The user types: the value changes and `onDidChangeValue` fires. */
  type(value: string): void {
    this.valueNow = value;
    this.changedValue.fire(value);
  }
  /** Listeners still registered (all of them go when the code disposes what it registered). */
  get listeners(): number {
    return this.accepted.count + this.hidden.count + this.changedValue.count + this.changedActive.count;
  }
}

/** Every quick pick made since the module loaded, oldest first. */
export const quickPicks: FakeQuickPick[] = [];

vscodeStub.window.createQuickPick = () => {
  const picker = new FakeQuickPick();
  quickPicks.push(picker);
  return picker;
};
