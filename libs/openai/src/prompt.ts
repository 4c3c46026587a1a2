import type { ChatMessage } from '@sluice/contracts';
import { tokenIdOf } from './tokenizer.js';

/** Renders chat messages into one prompt, in the spirit of a chat template, so it can be tokenized. */
export function renderChat(messages: readonly ChatMessage[]): string {
  let out = '';
  for (const message of messages) {
    const content =
      typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => part.text).join('');
    out += `<|${message.role}|>\n${content}\n`;
  }
  return `${out}<|assistant|>\n`;
}

/** Synthetic output: the synthetic model "says" these words in turn. */
const WORDS = ['the', 'quick', 'sluice', 'gate', 'opens', 'for', 'each', 'token', 'in', 'turn'];

export function tokenText(index: number): string {
  return ` ${WORDS[index % WORDS.length]}`;
}

/**
 * The token ids of the first `count` output tokens: what a migrated request appends to its prompt,
 * so the instance that continues it prefills the prompt and the output so far (prefix-cache hits
 * on the prompt's blocks included), as Dynamo's migration does. One id per output token, as the
 * worker counts them: the re-submission's `inputTokens` is the prompt's plus `count`, and its block
 * ids may not outnumber its full blocks (tokenizing the words' text gave up to two ids a token,
 * and the stages refused the re-submission).
 */
export function outputTokenIds(count: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(tokenIdOf(tokenText(i)));
  return ids;
}
