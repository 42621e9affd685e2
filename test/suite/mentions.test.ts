// The `@` list's host side in the real extension host, on a workspace with 50,000 generated files:
// VS Code's file search lists them, and a query answers with a generated file among its items.
// (Its speed is measured in `npm run bench -- --attachments`; here only that it answers.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';

const FILES = 50_000;

suite('the @ list', () => {
  let folder: string;

  suiteSetup(function () {
    this.timeout(300_000);
    folder = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'generated');
    for (let d = 0; d < 100; d++) {
      const dir = path.join(folder, `module${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < FILES / 100; f++) fs.writeFileSync(path.join(dir, `part${d}x${f}.ts`), '');
    }
  });

  suiteTeardown(function () {
    this.timeout(300_000);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  test('answers on a 50,000-file workspace with a file matching the query', async function () {
    this.timeout(300_000);
    const a = await api();
    await a.ready;
    assert.ok(a.mentionItemsForTests, 'the extension runs in test mode');
    const items = await waitFor('a generated file in the @ list', async () => {
      const found = await a.mentionItemsForTests!('part99x499');
      return found.some((i) => i.ref.path === 'generated/module99/part99x499.ts') ? found : undefined;
    }, 240_000);
    assert.deepEqual(items.find((i) => i.ref.path === 'generated/module99/part99x499.ts')?.ref, { kind: 'file', path: 'generated/module99/part99x499.ts' });
    const folders = await a.mentionItemsForTests!('module42');
    assert.ok(folders.some((i) => i.ref.kind === 'folder' && i.ref.path === 'generated/module42'), JSON.stringify(folders.slice(0, 3)));
  });
});
