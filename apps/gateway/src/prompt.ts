import type { ChatMessage } from '@sluice/contracts';

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
