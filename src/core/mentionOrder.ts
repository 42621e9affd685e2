/**
 * The order of the `@` list's items (src/host/mentionCompletions.ts builds them): what the user most
 * likely means first. Pure.
 */

/**
 * The `@` list's order: the specials (`problems`, `selection`) whose word `query` starts (not empty) first,
 * then the open editors, then the other specials, then the workspace's files.
 */
export function orderMentionItems<T extends { readonly label: string }>(query: string, specials: readonly T[], open: readonly T[], files: readonly T[]): T[] {
  const q = query.toLowerCase();
  const named = q ? specials.filter((s) => s.label.startsWith(q)) : [];
  return [...named, ...open, ...specials.filter((s) => !named.includes(s)), ...files];
}

