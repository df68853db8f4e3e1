import { describe, expect, test } from 'vitest';
import { Mailbox } from '../../../src/common/mailbox.js';

/** A promise the test settles by hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Mailbox', () => {
  test('jobs run strictly one after another, in posting order, even when later ones would finish first', async () => {
    const mailbox = new Mailbox();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const results = gates.map((gate, index) =>
      mailbox.post(async () => {
        log.push(`start ${index}`);
        await gate.promise;
        log.push(`end ${index}`);
        return index;
      }),
    );
    await flush();
    expect(log).toEqual(['start 0']);
    // Releasing the later gates first must not let their jobs start early.
    gates[2]!.resolve();
    gates[1]!.resolve();
    await flush();
    expect(log).toEqual(['start 0']);
    gates[0]!.resolve();
    expect(await Promise.all(results)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  test('a synchronous job does not run inside post, only after earlier jobs', async () => {
    const mailbox = new Mailbox();
    const log: string[] = [];
    const result = mailbox.post(() => {
      log.push('ran');
      return 'value';
    });
    log.push('posted');
    expect(await result).toEqual('value');
    expect(log).toEqual(['posted', 'ran']);
  });

  test('a job that throws or rejects fails its own promise and later jobs still run', async () => {
    const mailbox = new Mailbox();
    const log: string[] = [];
    const first = mailbox.post(() => {
      log.push('throws');
      throw new Error('sync failure');
    });
    const second = mailbox.post(async () => {
      log.push('rejects');
      throw new Error('async failure');
    });
    const third = mailbox.post(async () => {
      log.push('runs');
      return 3;
    });
    const outcomes = await Promise.allSettled([first, second, third]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message))).toEqual([
      'sync failure',
      'async failure',
      3,
    ]);
    expect(log).toEqual(['throws', 'rejects', 'runs']);
  });

  test('depth counts queued and running jobs and drops as each one settles, failures included', async () => {
    const mailbox = new Mailbox();
    expect(mailbox.depth).toEqual(0);
    const gates = [deferred(), deferred(), deferred()];
    const first = mailbox.post(() => gates[0]!.promise);
    const second = mailbox.post(() => gates[1]!.promise);
    const third = mailbox.post(() => gates[2]!.promise);
    const settled = [first, second, third].map((job) => job.then(() => 'ok', () => 'failed'));
    expect(mailbox.depth).toEqual(3);
    await flush();
    expect(mailbox.depth).toEqual(3);
    gates[0]!.resolve();
    expect(await settled[0]).toEqual('ok');
    expect(mailbox.depth).toEqual(2);
    gates[1]!.reject(new Error('boom'));
    expect(await settled[1]).toEqual('failed');
    expect(mailbox.depth).toEqual(1);
    gates[2]!.resolve();
    expect(await settled[2]).toEqual('ok');
    expect(mailbox.depth).toEqual(0);
  });

  test('a job posted after the queue drained runs', async () => {
    const mailbox = new Mailbox();
    expect(await mailbox.post(() => 1)).toEqual(1);
    expect(await mailbox.post(async () => 2)).toEqual(2);
    expect(mailbox.depth).toEqual(0);
  });

  test('two mailboxes do not wait for each other', async () => {
    const a = new Mailbox();
    const b = new Mailbox();
    const gate = deferred();
    const blocked = a.post(() => gate.promise);
    expect(await b.post(() => 'b ran')).toEqual('b ran');
    expect(a.depth).toEqual(1);
    gate.resolve();
    await blocked;
  });
  test('settled() waits for every job posted so far, a failed one included, and never rejects', async () => {
    const mailbox = new Mailbox();
    const gate = deferred();
    const failing = mailbox.post(async () => {
      await gate.promise;
      throw new Error('boom');
    });
    const log: string[] = [];
    const settled = mailbox.settled().then(() => log.push('settled'));
    await flush();
    expect(log).toEqual([]);
    gate.resolve();
    await expect(failing).rejects.toThrow('boom');
    await settled;
    expect(log).toEqual(['settled']);
  });
});
