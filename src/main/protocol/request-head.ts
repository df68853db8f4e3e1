// Finds the id and method of a request from the first bytes of a line too long to read whole,
// so the client gets the overload error for that request instead of waiting for a reply that
// will never come. Only a head that plainly starts a request object counts: `{"id":…,
// "method":"…"` in either order, before any other key's value runs past the head.
import { requestId, type RequestId } from './envelope.js';
import { JsonNumber } from '../../common/json-text.js';

const STRING = /"(?:[^"\\\u0000-\u001f]|\\.)*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?=[\s,}])/y;
const WHITESPACE = /[ \t\r\n]*/y;

/** The request a line's head announces, or null when the head does not show both id and method. */
export function requestInHead(head: string): { id: RequestId; method: string } | null {
  let pos = 0;
  const skip = () => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.test(head);
    pos = WHITESPACE.lastIndex;
  };
  const token = (pattern: RegExp): string | null => {
    pattern.lastIndex = pos;
    const match = pattern.exec(head);
    if (match === null) return null;
    pos = pattern.lastIndex;
    return match[0];
  };
  let id: RequestId | null = null;
  let method: string | null = null;
  skip();
  if (head[pos++] !== '{') return null;
  for (;;) {
    skip();
    const key = token(STRING);
    if (key === null) return null;
    skip();
    if (head[pos++] !== ':') return null;
    skip();
    const name = JSON.parse(key) as string;
    if (name === 'id' || name === 'method') {
      const value = token(STRING) ?? token(NUMBER);
      if (value === null) return null;
      if (name === 'method') method = value.startsWith('"') ? (JSON.parse(value) as string) : null;
      else id = requestId(value.startsWith('"') ? (JSON.parse(value) as string) : new JsonNumber(value));
      if (id !== null && method !== null) return { id, method };
    } else if (token(STRING) === null && token(NUMBER) === null) {
      return null; // an object, array or literal before the id: give up rather than parse it
    }
    skip();
    if (head[pos++] !== ',') return null;
  }
}
