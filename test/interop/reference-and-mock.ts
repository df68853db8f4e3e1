// What every interop file starts with: the reference installed (on demand) and a mock model,
// closed after the file's tests.
import { afterAll, beforeAll } from 'vitest';
import { ensureReference } from '../../bench/lib/reference-install.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';

/** Registers the hooks; the returned getters are valid inside tests. */
export function referenceAndMock(): { readonly codex: string; readonly mock: MockModel } {
  const state: { codex?: string; mock?: MockModel } = {};
  beforeAll(async () => {
    state.codex = ensureReference();
    state.mock = await startMockModel();
  });
  afterAll(() => state.mock?.close());
  return {
    get codex() {
      return state.codex!;
    },
    get mock() {
      return state.mock!;
    },
  };
}
