// A home records which writer-lock backend its hosts use, so two hosts configured differently
// can never both write one thread (a flock and a lock directory do not see each other). The
// marker is `<home>/writer-lock-backend`, one word, created once and never rewritten; a host
// configured for the other backend refuses to start.
//
// Created atomically even against a host starting at the same moment on another machine: the
// word is written to a private temporary file, then hard-linked to the marker's name. link(2)
// fails with EEXIST when the name exists (on NFS too, unlike an O_EXCL create on old clients,
// and unlike rename, which would replace the other host's marker), so exactly one host's word
// wins and every host then reads that word. Startup only: synchronous I/O is fine here.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../config/config-document.js';
import type { WriterLockBackendKind } from '../../../config/lock-backend-config.js';

/** The marker's name under the home. */
export const HOME_MARKER_FILE = 'writer-lock-backend';

/** How the check went: this host created the marker, or found its own backend already there. */
export type HomeMarkerResult = 'created' | 'matched';

/** Records `backend` in `home` if nothing is recorded yet; throws ConfigError on a mismatch. */
export function ensureHomeBackend(home: string, backend: WriterLockBackendKind): HomeMarkerResult {
  const marker = join(home, HOME_MARKER_FILE);
  const recorded = readMarker(marker);
  if (recorded !== null) return compare(marker, recorded, backend);
  mkdirSync(home, { recursive: true });
  // The suffix only has to differ from another host's (on another machine, pid may repeat);
  // Math.random does that without loading node:crypto before a fresh home's first reply.
  const suffix = Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, '0');
  const temporary = `${marker}.${process.pid}.${suffix}.tmp`;
  writeFileSync(temporary, `${backend}\n`, { mode: 0o644 });
  try {
    linkSync(temporary, marker);
    return 'created';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another host created it first: its word is the home's.
    return compare(marker, readMarker(marker) ?? '', backend);
  } finally {
    unlinkSync(temporary);
  }
}

function readMarker(marker: string): string | null {
  try {
    return readFileSync(marker, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function compare(marker: string, recorded: string, backend: WriterLockBackendKind): HomeMarkerResult {
  if (recorded === backend) return 'matched';
  throw new ConfigError(
    `this home's writer locks use the \`${recorded}\` backend (recorded in ${marker}), but this host is configured with ` +
      `writer_lock_backend = "${backend}"; hosts with different backends cannot exclude each other, so every host on a ` +
      `home must use the same one (set writer_lock_backend = "${recorded}", or use another home)`,
  );
}
