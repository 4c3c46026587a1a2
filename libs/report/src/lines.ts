import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Calls `onLine` with each line of the file (without its newline) until it returns false. */
export function forEachLine(file: string, onLine: (line: string) => boolean): void {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1 << 22);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      const text = pending + (read > 0 ? decoder.write(buffer.subarray(0, read)) : decoder.end());
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        if (!onLine(text.slice(start, newline))) return;
        start = newline + 1;
      }
      pending = text.slice(start);
      if (read === 0) break;
    }
    if (pending !== '') onLine(pending);
  } finally {
    closeSync(fd);
  }
}
