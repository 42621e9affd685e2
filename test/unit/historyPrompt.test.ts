// The one rule by which a chat's history is quoted in a prompt (src/runtime/agents/historyPrompt.ts),
// for every agent that hands it over in text (Claude, Codex).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { MAX_HISTORY_PROMPT_CHARS, historyTranscript, promptWithHistory } from '../../src/runtime/agents/historyPrompt';
import type { HistoryEntry } from '../../src/runtime/agent';
import { STOPPED_NOTE, historyFrom } from '../../src/runtime/turns';

describe('history quoted in a prompt', () => {
  const history: HistoryEntry[] = [{ role: 'user', text: 'one' }, { role: 'assistant', text: 'First.' }];

  it('quotes each entry as a User/Assistant paragraph inside the framing, then the prompt', () => {
    assert.equal(historyTranscript(history), 'User: one\n\nAssistant: First.');
    assert.equal(
      promptWithHistory(history, 'two', { before: 'Before:', after: 'After:' }),
      'Before:\n\nUser: one\n\nAssistant: First.\n\nAfter:\n\ntwo',
    );
    assert.equal(promptWithHistory([], 'two'), 'two');
  });

  it('keeps only the last MAX_HISTORY_PROMPT_CHARS characters of a long history, after an ellipsis', () => {
    const long: HistoryEntry[] = [{ role: 'user', text: 'a'.repeat(MAX_HISTORY_PROMPT_CHARS) }, { role: 'assistant', text: 'the latest reply' }];
    const text = historyTranscript(long);
    assert.equal(text.length, MAX_HISTORY_PROMPT_CHARS + 1);
    assert.ok(text.startsWith('…a'));
    assert.ok(text.endsWith('\n\nAssistant: the latest reply'));
    const codexLike = promptWithHistory(long, 'next', { before: 'Earlier in this conversation:', after: 'Now:' });
    assert.equal(codexLike, `Earlier in this conversation:\n\n${text}\n\nNow:\n\nnext`);
  });
});

describe('history of stopped turns', () => {
  it('says where the user stopped a request: after its reply so far, or after its prompt when there was none', () => {
    assert.deepEqual(historyFrom([
      { prompt: 'one', reply: 'First.', stopped: false },
      { prompt: 'two', reply: 'Half', stopped: true },
      { prompt: 'three', reply: '', stopped: true },
      { prompt: 'four', reply: '', stopped: false },
    ]), [
      { role: 'user', text: 'one' }, { role: 'assistant', text: 'First.' },
      { role: 'user', text: 'two' }, { role: 'assistant', text: `Half\n\n${STOPPED_NOTE}` },
      { role: 'user', text: `three\n\n${STOPPED_NOTE}` },
      { role: 'user', text: 'four' },
    ]);
  });
});
