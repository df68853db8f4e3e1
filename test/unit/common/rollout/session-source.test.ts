// A rollout's `session_meta.source` read as the reference reads it: the wire value and the kind
// `sourceKinds` filters by, or null for a source the reference cannot parse. The table is the
// one observed on codex-cli 0.171.0's `thread/list`.
import { describe, expect, test } from 'vitest';
import { readSessionSource, sourceKindWanted } from '../../../../src/common/rollout/session-source.js';

describe('readSessionSource', () => {
  test('an absent source reads as the reference\'s default, vscode', () => {
    expect(readSessionSource(undefined)).toEqual({ value: 'vscode', kind: 'vscode' });
  });

  test.each([
    ['cli', 'cli'],
    ['vscode', 'vscode'],
    ['exec', 'exec'],
    ['mcp', 'appServer'],
  ])('the named source %j reads as %j', (raw, wire) => {
    expect(readSessionSource(raw)).toEqual({ value: wire, kind: wire });
  });

  test.each(['appServer', 'app_server', 'unknown', 'custom-x', 'VSCODE', ''])('any other string (%j) reads as unknown', (raw) => {
    expect(readSessionSource(raw)).toEqual({ value: 'unknown', kind: 'unknown' });
  });

  test.each([
    ['review', 'subAgentReview'],
    ['compact', 'subAgentCompact'],
    ['memory_consolidation', 'subAgent'],
  ])('the named sub-agent %j reads as { subAgent: %j } of kind %j', (name, kind) => {
    expect(readSessionSource({ subagent: name })).toEqual({ value: { subAgent: name }, kind });
  });

  test('a thread_spawn sub-agent gives its fields, the absent ones as null', () => {
    expect(readSessionSource({ subagent: { thread_spawn: { parent_thread_id: 'P', depth: 1 } } })).toEqual({
      value: { subAgent: { thread_spawn: { parent_thread_id: 'P', depth: 1, agent_path: null, agent_nickname: null, agent_role: null } } },
      kind: 'subAgentThreadSpawn',
    });
  });

  test('a thread_spawn sub-agent takes agent_type, the older name of agent_role, and its nickname', () => {
    expect(readSessionSource({ subagent: { thread_spawn: { parent_thread_id: 'P', depth: 1, agent_type: 'r', agent_nickname: 'n' } } })).toEqual({
      value: { subAgent: { thread_spawn: { parent_thread_id: 'P', depth: 1, agent_path: null, agent_nickname: 'n', agent_role: 'r' } } },
      kind: 'subAgentThreadSpawn',
    });
  });

  test('an other sub-agent with a string reads as itself, of kind subAgentOther', () => {
    expect(readSessionSource({ subagent: { other: 'x' } })).toEqual({ value: { subAgent: { other: 'x' } }, kind: 'subAgentOther' });
  });

  test.each<[string, unknown]>([
    ['null', null],
    ['a number', 42],
    ['a boolean', true],
    ['an array', []],
    ['a custom source', { custom: 'x' }],
    ['an internal source', { internal: 'memory_consolidation' }],
    ['an unknown named sub-agent', { subagent: 'bogus' }],
    ['a sub-agent with an extra key', { subagent: 'review', extra: 1 }],
    ['a thread_spawn without its parent', { subagent: { thread_spawn: { depth: 1 } } }],
    ['a thread_spawn with a fractional depth', { subagent: { thread_spawn: { parent_thread_id: 'P', depth: 1.5 } } }],
    ['a thread_spawn with a string depth', { subagent: { thread_spawn: { parent_thread_id: 'P', depth: '1' } } }],
    ['an other sub-agent that is no string', { subagent: { other: 3 } }],
  ])('%s is unreadable (null)', (_what, raw) => {
    expect(readSessionSource(raw)).toBeNull();
  });
});

describe('sourceKindWanted', () => {
  test.each(['subAgentReview', 'subAgentCompact', 'subAgentThreadSpawn', 'subAgentOther', 'subAgent'])('subAgent in the filter wants %s', (kind) => {
    expect(sourceKindWanted(kind, new Set(['subAgent']))).toBe(true);
  });

  test.each(['cli', 'vscode', 'exec', 'appServer', 'unknown'])('subAgent in the filter does not want %s', (kind) => {
    expect(sourceKindWanted(kind, new Set(['subAgent']))).toBe(false);
  });

  test('subAgentOther in the filter wants subAgentOther only', () => {
    const wanted = new Set(['subAgentOther']);
    const kinds = ['subAgentOther', 'subAgent', 'subAgentReview', 'subAgentCompact', 'subAgentThreadSpawn', 'cli'];
    expect(kinds.map((kind) => sourceKindWanted(kind, wanted))).toEqual([true, false, false, false, false, false]);
  });

  test('a named kind wants itself and no other', () => {
    expect(sourceKindWanted('cli', new Set(['cli']))).toBe(true);
    expect(sourceKindWanted('vscode', new Set(['cli']))).toBe(false);
    expect(sourceKindWanted('vscode', new Set(['cli', 'vscode']))).toBe(true);
    expect(sourceKindWanted('cli', new Set())).toBe(false);
  });
});
