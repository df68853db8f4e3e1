// The bare Node echo the bench reads its floors against: what it answers, line for line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, test } from 'vitest';
import { BARE_ECHO_COMMAND } from '../../../bench/lib/bare-echo.js';

const THREAD = '0198c7a2-3b4c-7d5e-8f90-123456789abc';

test('answers a request with the empty list (or as many ids as floorIds asks for), and an unsubscribe with its reply then the close', async () => {
  const [command, ...args] = BARE_ECHO_COMMAND.argv;
  const echo = spawn(command!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  echo.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  echo.stdin.write('{"id":1,"method":"thread/loaded/list","params":{}}\n{"method":"initialized"}\n');
  echo.stdin.write('{"id":2,"method":"thread/loaded/list","params":{"floorIds":3}}\n{"id":3,"method":"thread/loaded/list","params":{"floorIds":0}}\n');
  echo.stdin.end(`{"id":"u","method":"thread/unsubscribe","params":{"threadId":"${THREAD}"}}\n`);
  // 'close', not 'exit': stdout may still hold the last lines when the process has exited.
  const [code] = await once(echo, 'close');
  expect(code).toBe(0);
  expect(output.split('\n')).toEqual([
    '{"id":1,"result":{"data":[],"nextCursor":null,"userAgent":"bare-node-echo"}}',
    '{"id":2,"result":{"data":["00000000-0000-7000-8000-000000000000","00000000-0000-7000-8000-000000000001","00000000-0000-7000-8000-000000000002"],"nextCursor":null}}',
    '{"id":3,"result":{"data":[],"nextCursor":null}}',
    '{"id":"u","result":{"status":"unsubscribed"}}',
    `{"method":"thread/status/changed","params":{"threadId":"${THREAD}","status":{"type":"notLoaded"}}}`,
    `{"method":"thread/closed","params":{"threadId":"${THREAD}"}}`,
    '',
  ]);
});
