import { expect, test } from 'vitest';
import { KeyedMailbox } from '../../../src/common/keyed-mailbox.js';

/** A job that records its start and end, and finishes when its gate is opened. */
function gated(log: string[], name: string, outcome: 'ok' | 'fail' = 'ok') {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const job = async () => {
    log.push(`${name} start`);
    await gate;
    log.push(`${name} end`);
    if (outcome === 'fail') throw new Error(name);
    return name;
  };
  return { job, open };
}

test('jobs of one key run one after another, a failing one included; other keys do not wait', async () => {
  const log: string[] = [];
  const mailbox = new KeyedMailbox<string>();
  const a1 = gated(log, 'a1', 'fail');
  const a2 = gated(log, 'a2');
  const b1 = gated(log, 'b1');
  const first = mailbox.post('a', a1.job);
  const second = mailbox.post('a', a2.job);
  const other = mailbox.post('b', b1.job);
  await Promise.resolve();
  b1.open();
  expect(await other).toBe('b1');
  a1.open();
  await expect(first).rejects.toThrow('a1');
  a2.open();
  expect(await second).toBe('a2');
  expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
});

test('a key is forgotten once its last job settled, and not before', async () => {
  const mailbox = new KeyedMailbox<string>();
  const log: string[] = [];
  const job = gated(log, 'x');
  const done = mailbox.post('x', job.job);
  expect(mailbox.size).toBe(1);
  job.open();
  await done;
  await Promise.resolve();
  await Promise.resolve();
  expect(mailbox.size).toBe(0);
});
