// `initialize`: marks the connection initialized and answers who we are. It must be the
// first line the server writes to a new client; a `configWarning` about ignored
// configuration keys may follow it.
import { arch, platform, release } from 'node:os';
import type { Connection } from '../connections.js';
import { alreadyInitialized } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { initializeParams } from '../protocol/method-params.js';
import { warnClientOfIgnoredSettings } from '../threads/ignored-settings-notices.js';
import { HOST_VERSION, PROTOCOL_VERSION } from '../protocol/thread-view.js';

type Params = ReturnType<typeof initializeParams>;

export function initialize(ctx: HostContext, connection: Connection, params: Params, afterReply: (effect: () => void) => void): unknown {
  if (connection.initialized) throw alreadyInitialized();
  connection.initialized = true;
  connection.clientName = params.clientInfo.name;
  connection.clientVersion = params.clientInfo.version;
  connection.optOut = new Set(params.capabilities?.optOutNotificationMethods ?? []);
  connection.experimentalApi = params.capabilities?.experimentalApi === true;
  // Like the reference, the first client to initialize names the originator for the process.
  ctx.originator ??= params.clientInfo.name;
  // The reference warns of configuration keys nobody reads once the client has its answer.
  afterReply(() => warnClientOfIgnoredSettings(ctx, connection.id));
  const terminal = ctx.env.TERM_PROGRAM ?? ctx.env.TERM ?? 'unknown';
  return {
    // The reference's form, then thread-host's own product token.
    userAgent:
      `${ctx.originator}/${PROTOCOL_VERSION} (${platform()} ${release()}; ${arch()}) ${terminal} ` +
      `(${params.clientInfo.name}; ${params.clientInfo.version}) thread-host/${HOST_VERSION}`,
    codexHome: ctx.home,
    platformFamily: platform() === 'win32' ? 'windows' : 'unix',
    platformOs: platform() === 'darwin' ? 'macos' : platform(),
  };
}
