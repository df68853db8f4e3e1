import { describe, expect, test } from 'vitest';
import { EncodedJson, stringifyWithEncoded } from '../../../../src/main/protocol/encoded-json.js';

const encoded = (value: unknown) => new EncodedJson(Buffer.from(JSON.stringify(value)));

describe('stringifyWithEncoded', () => {
  test('a value without EncodedJson is plain JSON text', () => {
    expect(stringifyWithEncoded({ method: 'm', params: { text: 'é"\n' } })).toBe(JSON.stringify({ method: 'm', params: { text: 'é"\n' } }));
  });

  test('each EncodedJson is spliced in as its bytes, the pieces in order giving the bytes of the plain serialization', () => {
    const content = [{ type: 'text', text: 'ü "quoted"\n'.repeat(3), text_elements: [] }];
    const value = { method: 'item/started', params: { item: { type: 'userMessage', content: encoded(content) }, other: encoded({ a: [1, null] }) }, emittedAtMs: 7 };
    const plain = { method: 'item/started', params: { item: { type: 'userMessage', content }, other: { a: [1, null] } }, emittedAtMs: 7 };

    const out = stringifyWithEncoded(value) as Buffer[];

    // Text, content's own bytes (the same Buffer, not a copy), text, other's bytes, text.
    expect(out.map((piece) => piece.toString())).toEqual([
      '{"method":"item/started","params":{"item":{"type":"userMessage","content":',
      JSON.stringify(content),
      '},"other":',
      '{"a":[1,null]}',
      '},"emittedAtMs":7}',
    ]);
    expect(out[1]).toBe(value.params.item.content.bytes);
    expect(Buffer.concat(out).toString()).toBe(JSON.stringify(plain));
  });

  test('an EncodedJson kept in pieces goes out as those pieces, in order, none joined or copied (empty ones left out)', () => {
    const pieces = [Buffer.from('[{"a":1}'), Buffer.alloc(0), Buffer.from(','), Buffer.from('{"b":"ü"}]')];
    const value = { data: new EncodedJson(pieces) };

    const out = stringifyWithEncoded(value) as Buffer[];

    expect(out.map((piece) => piece.toString())).toEqual(['{"data":', '[{"a":1}', ',', '{"b":"ü"}]', '}']);
    expect([out[1], out[2], out[3]]).toEqual([pieces[0], pieces[2], pieces[3]]);
    expect([out[1] === pieces[0], out[3] === pieces[3]]).toEqual([true, true]);
    expect(JSON.parse(Buffer.concat(out).toString())).toEqual({ data: [{ a: 1 }, { b: 'ü' }] });
    expect(value.data.bytes.toString()).toBe('[{"a":1},{"b":"ü"}]');
  });

  test('a client string that equals the marker cannot misplace the bytes: the message is serialized plainly', () => {
    const marker = new EncodedJson(Buffer.from('0')).toJSON();
    stringifyWithEncoded(null); // drops the toJSON call above
    const value = { a: marker, b: encoded({ x: 'y' }), c: [marker] };

    const out = stringifyWithEncoded(value);

    expect(out).toBe(JSON.stringify({ a: marker, b: { x: 'y' }, c: [marker] }));
    expect(stringifyWithEncoded({ d: encoded(1) })).toEqual([Buffer.from('{"d":'), Buffer.from('1'), Buffer.from('}')]);
  });
});
