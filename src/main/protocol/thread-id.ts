// Thread ids arrive as strings and are checked at the edge with the reference's texts:
// "invalid thread id: …" for most methods, "invalid session id: …" for thread/resume.
import { invalidRequest } from '../../common/errors.js';
import { parseUuid } from './uuid.js';

export function requireThreadId(raw: string, label: 'thread id' | 'session id' = 'thread id'): string {
  const parsed = parseUuid(raw);
  if (!parsed.ok) throw invalidRequest(`invalid ${label}: ${parsed.error}`);
  return parsed.value;
}
