import { expect, test } from 'vitest';
import { turnEndRevision } from '../../../src/common/turn-end-revision.js';

test('a turn end\'s revision is a UUID made from the turn id alone: the same on every side, another for another turn', () => {
  const revision = turnEndRevision('01a244f8-f606-707b-a69d-7529326ae503');
  expect(revision).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(turnEndRevision('01a244f8-f606-707b-a69d-7529326ae503')).toBe(revision);
  expect(turnEndRevision('01a244f8-f606-707b-a69d-7529326ae504')).not.toBe(revision);
});
