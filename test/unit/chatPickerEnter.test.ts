/**
 * Enter in the Open Chat… picker while the chat list loads (src/host/chatPicker.ts), on a fake quick
 * pick (test/unit/fakeQuickPick.ts): with a large journal the picker showed empty and busy, and
 * Enter then closed it and opened nothing. Enter with no row to take is kept until rows arrive that
 * are sure to be first, then opens the first one, once; Escape before then opens nothing.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { quickPicks, type FakeQuickPick } from './fakeQuickPick';
import { gate, settle } from './helpers';
import type { ChatListEntry } from '../../src/core/chatList';
import type { ChatListSource } from '../../src/host/chatPicker';
// After the fake `vscode` is installed (fakeQuickPick.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pickChat } = require('../../src/host/chatPicker') as typeof import('../../src/host/chatPicker');

const entry = (id: string, title: string, updatedAt: number, workspace: string | null): ChatListEntry =>
  ({ id, title, provider: 'local', workspace, updatedAt, activity: updatedAt, state: 'idle' });

/** This workspace's newest chat is `mine-new`; the newest of all is another folder's. */
const ALL = [
  entry('other-new', 'Other folder, newest of all', 900, '/other'),
  entry('mine-new', 'Fix the login form', 800, '/here'),
  entry('mine-old', 'Write release notes', 100, '/here'),
  entry('billing', 'Migrate the billing cron job', 1, '/other'),
];
/** The newest chats of all and of this workspace: what `firstEntries` reads. */
const FIRST_PAGE = ALL.slice(0, 2);

/** A source whose list is not loaded; the test answers the first page and the whole list. */
function loadingSource() {
  const firstPage = gate<readonly ChatListEntry[]>();
  const whole = gate<readonly ChatListEntry[]>();
  const source: ChatListSource = {
    workspace: '/here',
    listLoaded: false,
    chatEntries: () => whole.promise,
    firstEntries: () => firstPage.promise,
    onDidChangeList: () => ({ dispose: () => undefined }),
  };
  return { source, firstPage, whole };
}

/** Opens the picker and returns it (shown, busy, empty) with what `pickChat` resolves. */
async function openLoading(source: ChatListSource): Promise<{ picker: FakeQuickPick; picked: Promise<string | undefined> }> {
  const picked = pickChat(source, 'Open a chat');
  await settle();
  const picker = quickPicks.at(-1)!;
  assert.deepEqual({ visible: picker.visible, busy: picker.busy, items: picker.items.length }, { visible: true, busy: true, items: 0 });
  return { picker, picked };
}

describe('Enter in Open Chat… while the list loads', () => {
  it('Enter on the empty busy picker opens the first chat once the first page arrives', async () => {
    const { source, firstPage, whole } = loadingSource();
    const { picker, picked } = await openLoading(source);
    picker.accept();
    await settle();
    assert.equal(picker.visible, true, 'still open: Enter is kept, not a dismissal');
    firstPage.resolve(FIRST_PAGE);
    // Not waiting for the whole list: with nothing typed the first page's first row is the list's.
    assert.equal(await picked, 'mine-new');
    assert.equal(picker.hides, 1);
    assert.equal(picker.disposed, true);
    assert.equal(picker.listeners, 0, 'every listener removed');
    whole.resolve(ALL);
    await settle();
    assert.equal(picker.hides, 1, 'nothing more happens when the whole list arrives');
  });

  it('Enter after typing opens the first match of the whole list, not of the first page', async () => {
    const { source, firstPage, whole } = loadingSource();
    const { picker, picked } = await openLoading(source);
    picker.type('billing');
    picker.accept();
    firstPage.resolve(FIRST_PAGE);
    await settle();
    assert.equal(picker.visible, true, 'the first page holds no match: Enter waits for the whole list');
    whole.resolve(ALL);
    assert.equal(await picked, 'billing');
    assert.equal(picker.hides, 1);
  });

  it('Enter when the first page never shows (the whole list came first) opens the first chat of the list', async () => {
    const { source, firstPage, whole } = loadingSource();
    const { picker, picked } = await openLoading(source);
    picker.accept();
    whole.resolve(ALL);
    await settle();
    firstPage.resolve(FIRST_PAGE);
    assert.equal(await picked, 'mine-new');
    assert.equal(picker.hides, 1);
  });

  it('Escape before the list arrives opens nothing, and the list arriving changes nothing', async () => {
    const { source, firstPage, whole } = loadingSource();
    const { picker, picked } = await openLoading(source);
    picker.accept();
    picker.hide();
    assert.equal(await picked, undefined);
    firstPage.resolve(FIRST_PAGE);
    whole.resolve(ALL);
    await settle();
    assert.equal(picker.hides, 1);
    assert.equal(picker.listeners, 0);
  });

  it('Enter whose text matches no chat leaves the picker open; Escape then opens nothing', async () => {
    const { source, firstPage, whole } = loadingSource();
    const { picker, picked } = await openLoading(source);
    picker.type('no such chat');
    picker.accept();
    firstPage.resolve(FIRST_PAGE);
    whole.resolve(ALL);
    await settle();
    assert.deepEqual({ visible: picker.visible, busy: picker.busy, items: picker.items.length }, { visible: true, busy: false, items: 0 });
    picker.hide();
    assert.equal(await picked, undefined);
  });

  it('a row picked from the first page opens without waiting for the whole list', async () => {
    const { source, firstPage } = loadingSource();
    const { picker, picked } = await openLoading(source);
    firstPage.resolve(FIRST_PAGE);
    await settle();
    assert.equal(picker.busy, true);
    picker.activeItems = [picker.items.find((i) => i.id === 'other-new')!];
    picker.accept();
    assert.equal(await picked, 'other-new');
  });
});
