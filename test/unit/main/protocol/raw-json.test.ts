import { expect, test } from 'vitest';
import { RawJson, resultJson } from '../../../../src/main/protocol/raw-json.js';

test('a RawJson result is placed verbatim; any other result is serialized, an absent one as null', () => {
  expect(resultJson(new RawJson('{"data":["x"],"nextCursor":null}'))).toBe('{"data":["x"],"nextCursor":null}');
  expect(resultJson({ data: [], nextCursor: null })).toBe('{"data":[],"nextCursor":null}');
  expect(resultJson(undefined)).toBe('null');
});
