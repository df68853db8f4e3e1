// "Another live host writes this thread", as the PostgreSQL store answers an acquisition, with
// where that host is. A client sees the reference's "already has an active writer" unless its
// host forwards the request there (forwarder.ts); a peer link (which is never forwarded again)
// gets the owner as a hint in the error's `data`, so the host that forwarded can retry there.
import { activeWriter, RpcError } from '../../common/errors.js';

/** The `data` of an error that names the thread's owner. */
export interface OwnerHint {
  reason: 'ownedElsewhere';
  ownerEndpoint: string;
}

export class OwnedElsewhere extends RpcError {
  constructor(
    readonly threadId: string,
    /** The owner's advertised `ws://` URL. */
    readonly ownerEndpoint: string,
  ) {
    const plain = activeWriter(threadId);
    super(plain.code, plain.message);
  }
}

/** `error` as answered over a peer link: the same code and text, the owner in `data`. */
export function withOwnerHint(error: RpcError, ownerEndpoint: string): RpcError {
  const hint: OwnerHint = { reason: 'ownedElsewhere', ownerEndpoint };
  return new RpcError(error.code, error.message, hint);
}

/** The owner an error's `data` names, or null. */
export function ownerHintOf(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const { reason, ownerEndpoint } = data as Partial<OwnerHint>;
  return reason === 'ownedElsewhere' && typeof ownerEndpoint === 'string' && ownerEndpoint !== '' ? ownerEndpoint : null;
}
