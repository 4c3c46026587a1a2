import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { completedAnswerAttributes, serverAddressOf, serverSpanAttributes } from './span-conventions.js';

const request = (host: string | undefined, socket: Partial<Socket> = { localAddress: '127.0.0.1', localPort: 18600 }) => ({ headers: host === undefined ? {} : { host }, socket: socket as Socket });

describe('the gateway span’s server.address and server.port', () => {
  it('come from the Host header, as the client addressed the server', () => {
    expect(serverAddressOf(request('gateway.example:8080'))).toEqual({ 'server.address': 'gateway.example', 'server.port': 8080 });
    expect(serverAddressOf(request('[::1]:18601'))).toEqual({ 'server.address': '::1', 'server.port': 18601 });
  });

  it('take http’s default port when the Host header names none', () => {
    expect(serverAddressOf(request('gateway.example'))).toEqual({ 'server.address': 'gateway.example', 'server.port': 80 });
  });

  it('fall back to the socket’s local address when the Host header is absent or malformed', () => {
    expect(serverAddressOf(request(undefined))).toEqual({ 'server.address': '127.0.0.1', 'server.port': 18600 });
    expect(serverAddressOf(request('a:b:c'))).toEqual({ 'server.address': '127.0.0.1', 'server.port': 18600 });
  });
});

describe('the gateway span’s conventions', () => {
  it('carries the HTTP server’s required attributes and the GenAI operation and provider', () => {
    expect(serverSpanAttributes('chat', '/v1/chat/completions', request('localhost:18600'))).toEqual({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'url.path': '/v1/chat/completions',
      'http.route': '/v1/chat/completions',
      'server.address': 'localhost',
      'server.port': 18600,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'sluice',
    });
    expect(serverSpanAttributes('completion', '/v1/completions', request('localhost:18600'))['gen_ai.operation.name']).toBe('text_completion');
  });

  it('says of a completed answer its id, model and finish reason as the answer writes it', () => {
    expect(completedAnswerAttributes('cmpl-1', 'qwen3-14b', 16, 16)).toEqual({ 'gen_ai.response.id': 'cmpl-1', 'gen_ai.response.model': 'qwen3-14b', 'gen_ai.response.finish_reasons': ['length'] });
    expect(completedAnswerAttributes('cmpl-2', 'qwen3-14b', 3, 16)['gen_ai.response.finish_reasons']).toEqual(['stop']);
  });
});
