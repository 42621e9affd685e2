/**
 * Opens the Settings editor at one of this extension's settings, for a setting name the user clicked
 * in a chat message. Only ids this extension contributes (its manifest's `contributes.configuration`)
 * are opened: the id comes from a webview, which is untrusted input.
 */
import * as vscode from 'vscode';

/**
 * The setting ids a manifest (`package.json` as parsed) contributes, from `contributes.configuration`
 * (one object or an array of them). An unexpected shape gives an empty set.
 */
export function contributedSettingIds(manifest: unknown): ReadonlySet<string> {
  const configuration = (manifest as { contributes?: { configuration?: unknown } } | undefined)?.contributes?.configuration;
  const sections = Array.isArray(configuration) ? configuration : [configuration];
  const ids = new Set<string>();
  for (const section of sections) {
    const properties = (section as { properties?: unknown } | undefined)?.properties;
    if (properties && typeof properties === 'object') for (const id of Object.keys(properties)) ids.add(id);
  }
  return ids;
}

/**
 * Runs `workbench.action.openSettings` with `id` when the extension at `extensionUri` contributes
 * that setting. Returns false (and opens nothing) for any other id.
 */
export async function openOwnSetting(id: string, extensionUri: vscode.Uri): Promise<boolean> {
  const self = vscode.extensions.all.find((e) => e.extensionUri.toString() === extensionUri.toString());
  if (!contributedSettingIds(self?.packageJSON).has(id)) return false;
  await vscode.commands.executeCommand('workbench.action.openSettings', id);
  return true;
}
