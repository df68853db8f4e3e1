// `serverRequest/resolved`: sent after a client's answer only for requests that ask for it
// (approvals, as the reference sends it), to each recipient under the id it knows the request
// by, before what the answer leads to; never for a tool call, nor for a cancelled request.
import { expect, test } from 'vitest';
import { systemClock } from '../../../../src/common/clock.js';
import { ConnectionTable } from '../../../../src/main/connections.js';
import { ServerRequests } from '../../../../src/main/server-requests/server-requests.js';

function setup() {
  const connections = new ConnectionTable();
  const events: string[] = [];
  const open = (name: string) => {
    const connection = connections.open((message) => (events.push(`${name} ${String(message)}`), true));
    connection.initialized = true;
    return connection.id;
  };
  const requests = new ServerRequests({
    connections,
    log: () => undefined,
    clock: systemClock,
    graceMs: 60_000,
    notify: (connection, method, params) => events.push(`notify ${connection} ${method} ${JSON.stringify(params)}`),
  });
  return { requests, events, open };
}

test('an approval answered is announced to every recipient, then settled', () => {
  const { requests, events, open } = setup();
  const a = open('a');
  const b = open('b');
  requests.send([b], 'item/tool/call', {}, { threadId: 't', turnId: 'u' }, () => events.push('tool settled'));
  requests.send([a, b], 'item/commandExecution/requestApproval', { x: 1 }, { threadId: 't', turnId: 'u' }, (answer) => events.push(`approval ${answer.kind}`), { announceResolved: true });
  requests.answer(b, { id: 0, result: {} });
  requests.answer(a, { id: 0, result: { decision: 'accept' } });
  expect(events.filter((e) => !e.startsWith('a {') && !e.startsWith('b {'))).toEqual([
    'tool settled',
    `notify ${a} serverRequest/resolved {"threadId":"t","requestId":0}`,
    `notify ${b} serverRequest/resolved {"threadId":"t","requestId":1}`,
    'approval result',
  ]);
});

test('a cancelled approval is not announced', () => {
  const { requests, events, open } = setup();
  const a = open('a');
  requests.send([a], 'item/commandExecution/requestApproval', {}, { threadId: 't', turnId: 'u' }, (answer) => events.push(`approval ${answer.kind}`), { announceResolved: true });
  requests.cancelTurn('t', 'u');
  expect(events.filter((e) => !e.startsWith('a {'))).toEqual(['approval cancelled']);
});
