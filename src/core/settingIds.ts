/**
 * What a setting id of this extension looks like (`nativeAgentChats.claude.executablePath`), shared
 * by the webview (which turns such names in messages into links to the Settings editor) and the
 * protocol (which checks the id a link sends back). Pure.
 */

/** The prefix of every setting this extension contributes. */
export const SETTING_PREFIX = 'nativeAgentChats';

/**
 * A whole string that is shaped like one of this extension's setting ids: the prefix, then one or
 * more dot-separated words starting with a letter (a sentence's final period is not part of it).
 */
export const SETTING_ID_SHAPE = /^nativeAgentChats(?:\.[A-Za-z][A-Za-z0-9]*)+$/;

/** Finds setting ids in running text (global; use with `matchAll` or `split`). */
export const SETTING_ID_IN_TEXT = /\bnativeAgentChats(?:\.[A-Za-z][A-Za-z0-9]*)+/g;
