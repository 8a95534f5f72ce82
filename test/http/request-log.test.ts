// The request log's line, built from pieces kept for the last method and path, the
// last length and the last address (http/request-log.ts): a request in a row must
// never carry a field of the one before it.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/lib/log.js';
import { CLIENT_CLOSED_REQUEST, requestLog, writeDecimal, type LoggedRequest } from '../../src/http/request-log.js';

interface Case {
  what: string;
  method: string;
  path: string;
  status: number;
  bytes?: number;
  ip: string;
  /** The connection ended before the answer was finished. */
  aborted?: boolean;
}

const long = '/SF/' + 'a'.repeat(300);
const cases: Case[] = [
  { what: 'a first request', method: 'GET', path: '/api/info', status: 200, bytes: 2786, ip: '127.0.0.1' },
  { what: 'the same again', method: 'GET', path: '/api/info', status: 200, bytes: 2786, ip: '127.0.0.1' },
  { what: 'the same path, revalidated: no bytes', method: 'GET', path: '/api/info', status: 304, ip: '127.0.0.1' },
  { what: 'the same path, another method', method: 'HEAD', path: '/api/info', status: 200, bytes: 2786, ip: '127.0.0.1' },
  { what: 'another path, another length', method: 'GET', path: '/SF/home', status: 200, bytes: 485, ip: '127.0.0.1' },
  { what: 'another address', method: 'GET', path: '/SF/home', status: 200, bytes: 485, ip: '::1' },
  { what: 'a method without kept fields', method: 'PROPFIND', path: '/SF/home', status: 405, bytes: 60, ip: '::1' },
  { what: 'the path again after it', method: 'GET', path: '/SF/home', status: 200, bytes: 485, ip: '::1' },
  { what: 'a path to escape', method: 'POST', path: '/a"b\\c', status: 404, bytes: 60, ip: '10.0.0.1' },
  { what: 'a path cut short', method: 'GET', path: long, status: 404, bytes: 60, ip: '10.0.0.1' },
  { what: 'an ended connection', method: 'GET', path: '/hang', status: CLIENT_CLOSED_REQUEST, ip: '10.0.0.1', aborted: true },
  { what: 'an answer after it', method: 'GET', path: '/hang', status: 200, bytes: 2, ip: '10.0.0.1' },
];

test('request log: each line carries its own request\'s fields, whatever came before', () => {
  const lines: string[] = [];
  const start = requestLog(createLogger({}, { write: (line) => void lines.push(line) }), false);
  for (const [index, c] of cases.entries()) {
    const res = Object.assign(new EventEmitter(), {
      writableFinished: !c.aborted,
      headersSent: !c.aborted,
      statusCode: c.status,
    }) as unknown as ServerResponse;
    const request: LoggedRequest = {
      id: 'id-' + index,
      method: c.method,
      path: c.path,
      ip: c.ip,
      res,
      contentLength: c.bytes,
      clientErrorStatus: undefined,
      meter: undefined,
      logStartedAt: 0,
      logIp: '',
    };
    start(request);
    res.emit('close');
    assert.is(lines.length, index + 1, c.what);
    const entry = JSON.parse(lines[index]!) as Record<string, unknown>;
    const { time, ms, ...rest } = entry;
    assert.type(time, 'string', c.what);
    assert.type(ms, 'number', c.what);
    assert.equal(
      rest,
      {
        level: 'info',
        msg: 'request',
        requestId: 'id-' + index,
        method: c.method,
        path: c.path === long ? long.slice(0, 256) + '…' : c.path,
        status: c.status,
        ...(c.bytes ? { bytes: c.bytes } : {}),
        ip: c.ip,
        ...(c.aborted ? { aborted: true } : {}),
      },
      c.what,
    );
  }
});

test('request log: the duration\'s digits are those JSON writes for the number', () => {
  const samples = [0, 1, 5, 7, 10, 50, 99, 100, 101, 110, 157, 1000, 12345, 99999, 100000, 123456789, 2 ** 40 + 3];
  for (let i = 0; i < 200; i++) samples.push(Math.floor(Math.random() * 10 ** (1 + (i % 12))));
  const target = Buffer.alloc(32, 0x78);
  for (const hundredths of samples) {
    target.fill(0x78);
    const end = writeDecimal(target, 3, hundredths);
    assert.is(target.toString('latin1', 3, end), JSON.stringify(hundredths / 100), String(hundredths));
    assert.is(target[end], 0x78, `nothing written past the end for ${hundredths}`);
  }
});

test.run();
