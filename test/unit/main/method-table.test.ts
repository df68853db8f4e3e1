// docs/methods.md cannot drift: its table lists exactly the reference's client methods, in the
// reference's order (the experimental schema's list plus the enum's three v1 methods), and each
// row says what the router does: served or empty (the method table, by kind) or refused (the
// refusal table, with the error's code and message as the client sees them).
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { METHODS } from '../../../src/main/methods.js';
import { REFERENCE_CLIENT_METHODS } from '../../../src/main/protocol/client-methods.js';
import { REFUSED_METHODS } from '../../../src/main/refused-methods.js';

const DOC = readFileSync(new URL('../../../docs/methods.md', import.meta.url), 'utf8');
const SCHEMA_METHODS: string[] = JSON.parse(
  readFileSync(new URL('../../fixtures/schema-experimental/client-request-methods.json', import.meta.url), 'utf8'),
);
// In the reference's ClientRequest enum (and its unknown-variant list) but not in its schema.
const V1_METHODS = ['getConversationSummary', 'gitDiffToRemote', 'getAuthStatus'];

const ROW = /^\| `([^`]+)` \| (served|empty by design|refused) \| (.*) \|$/;
const rows = DOC.split('\n')
  .filter((line) => line.startsWith('| `'))
  .map((line) => {
    const match = ROW.exec(line);
    if (match === null) throw new Error(`not a method row: ${line}`);
    return { method: match[1]!, answer: match[2]!, why: match[3]! };
  });

test('the reference method list is the schema list plus the three v1 methods', () => {
  expect(REFERENCE_CLIENT_METHODS.filter((method) => !V1_METHODS.includes(method))).toEqual(SCHEMA_METHODS);
  expect(REFERENCE_CLIENT_METHODS.length).toBe(SCHEMA_METHODS.length + V1_METHODS.length);
});

test('the table has one row per reference method, in order', () => {
  expect(rows.map((row) => row.method)).toEqual(REFERENCE_CLIENT_METHODS);
});

test('each row says what the router does', () => {
  const fromRouter = REFERENCE_CLIENT_METHODS.map((method) => {
    const spec = METHODS.get(method);
    if (spec !== undefined) return { method, answer: spec.kind === 'served' ? 'served' : 'empty by design' };
    const refusal = REFUSED_METHODS.get(method);
    return { method, answer: refusal === undefined ? 'unknown' : 'refused', why: refusal && `${refusal.code} \`${refusal.message}\`` };
  });
  expect(rows.map(({ method, answer, why }) => (answer === 'refused' ? { method, answer, why } : { method, answer }))).toEqual(fromRouter);
});

test('the router knows no method the reference does not, and none twice', () => {
  expect([...METHODS.keys()].filter((method) => !REFERENCE_CLIENT_METHODS.includes(method))).toEqual([]);
  expect([...REFUSED_METHODS.keys()].filter((method) => !REFERENCE_CLIENT_METHODS.includes(method) || METHODS.has(method))).toEqual([]);
});
