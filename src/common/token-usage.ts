// Token counts, converted in one place: the model reports `ModelUsage` per sampling, the actor
// keeps running totals, rollouts store them, and the wire shows `TokenUsageBreakdown` (which
// adds `cacheWriteInputTokens`, always 0 here: no provider we speak to reports it).
import type { ModelUsage, TokenUsageBreakdown } from './wire-types.js';

/** Totals and the last sampling, as a thread reports its usage. */
export interface TokenUsageSnapshot {
  total: ModelUsage;
  last: ModelUsage;
  modelContextWindow: number;
}

export const ZERO_USAGE: ModelUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0, totalTokens: 0 };

export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** Keeps the five counts of anything shaped like usage (a parsed rollout record, say). */
export function usageOf(value: ModelUsage): ModelUsage {
  return {
    inputTokens: value.inputTokens,
    cachedInputTokens: value.cachedInputTokens,
    outputTokens: value.outputTokens,
    reasoningOutputTokens: value.reasoningOutputTokens,
    totalTokens: value.totalTokens,
  };
}

/** The wire's breakdown, in the reference's key order. */
export function toBreakdown(usage: ModelUsage): TokenUsageBreakdown {
  return {
    totalTokens: usage.totalTokens,
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteInputTokens: 0,
    outputTokens: usage.outputTokens,
    reasoningOutputTokens: usage.reasoningOutputTokens,
  };
}

/** `thread/tokenUsage/updated`'s `tokenUsage`. */
export function tokenUsageView(usage: TokenUsageSnapshot) {
  return { total: toBreakdown(usage.total), last: toBreakdown(usage.last), modelContextWindow: usage.modelContextWindow };
}
