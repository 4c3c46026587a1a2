export * from './exchange.js';
export * from './http-io.js';
export * from './parse-request.js';
export * from './prompt.js';
export * from './sse-writer.js';
export * from './tokenizer.js';
