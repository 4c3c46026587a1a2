import { describe, expect, it } from 'vitest';
import { isJsonContentType } from './http-io.js';

describe('isJsonContentType', () => {
  it('takes application/json with any parameters and case, and nothing else', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', ' application/json ;x=y']) expect(isJsonContentType(type), type).toBe(true);
    for (const type of [undefined, '', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json-seq', 'text/json']) expect(isJsonContentType(type), String(type)).toBe(false);
  });
});
