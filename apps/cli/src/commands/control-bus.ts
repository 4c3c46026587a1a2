import { readFileSync } from 'node:fs';
import { Bus, type ControlAnswer } from '@sluice/bus';
import { ConfigError, loadConfig, natsCredentialsOf, natsTlsOf, type NatsCredentials, type NatsTlsFiles } from '@sluice/config';
import { inboxPrefixOf } from '@sluice/contracts';
import { isLoopbackHost, parseNatsServers } from '@sluice/launcher';
import { inspectClusterState, staleStateMessage } from './cluster-state.js';
import { EXIT, type CliContext } from './command.js';

/** Why a control command could not talk to the cluster, already worded for the user. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * Connects to the cluster's NATS, runs `fn`, and closes the connection. The URL is nats.url from
 * the same config sources as the services (file, NATS_URL / SLUICE_* env, --nats.url flag), else
 * the one a running `sluice up` of this checkout recorded.
 *
 * Credentials go only where they cannot be taken (docs/security.md, "The CLI's credentials"):
 * to a `sluice up` run's NATS the CLI logs in with the run's nkey, signing the server's nonce, so
 * a listener at a URL that cluster.json names wrongly receives nothing it could log in with; and
 * no credential of any kind goes to a server off this machine over plain TCP (no TLS CA given).
 */
export async function withControlBus<T>(configArgs: readonly string[], ctx: CliContext, fn: (bus: Bus) => Promise<T>): Promise<T> {
  let configured: string | undefined;
  let credentials: NatsCredentials | undefined;
  let nkeySeed: string | undefined;
  let tls: NatsTlsFiles | undefined;
  const status = inspectClusterState(ctx.rootDir);
  const state = status.kind === 'running' ? status.state : undefined;
  try {
    const { nats } = loadConfig({ argv: configArgs, env: ctx.env });
    configured = nats.url;
    // TLS as the config says, else as the `sluice up` of this checkout started its NATS.
    tls = natsTlsOf(nats) ?? (configured === undefined && state?.natsTlsCaFile !== undefined ? natsTlsOf({ ...nats, tls: { caFile: state.natsTlsCaFile } }) : undefined);
    // Asked as the control identity (docs/security.md): the config's, else the nkey of the `sluice up` run.
    credentials = natsCredentialsOf(nats);
    if (credentials === undefined && configured === undefined && state?.natsControl) nkeySeed = readNkeySeed(state.natsControl.nkeySeedFile);
  } catch (error) {
    if (error instanceof ConfigError) throw new ControlError(error.message, EXIT.USAGE);
    throw error;
  }
  // A stale state's URL may be anyone's by now: refused, with how to clean up.
  if (configured === undefined && status.kind === 'stale') throw new ControlError(staleStateMessage(ctx.rootDir, status.state), EXIT.FAILURE);
  const url = configured ?? state?.natsUrl;
  if (url === undefined) {
    throw new ControlError('no cluster to talk to: start one with `sluice up`, or point at one with --nats.url=URL (or NATS_URL)', EXIT.FAILURE);
  }
  if ((credentials !== undefined || nkeySeed !== undefined) && tls === undefined) {
    const remote = remoteHostsOf(url);
    if (remote.length > 0) {
      throw new ControlError(
        `refusing to send NATS credentials in clear to ${remote.join(', ')} (${url}): that is not this machine. ` +
          'Give the CA that signs its certificate (--nats.tls.caFile=FILE), or reach it through a tunnel on 127.0.0.1.',
        EXIT.USAGE,
      );
    }
  }
  let bus: Bus;
  try {
    // answerFaultControl: false, so `sluice bus faults` does not count the CLI among the processes it faults.
    bus = await Bus.connect({
      url,
      name: 'sluice-cli',
      ackTimeoutMs: 2_000,
      waitForServer: false,
      answerFaultControl: false,
      log: (line) => ctx.stderr.line(line),
      ...(credentials ? { credentials, inboxPrefix: inboxPrefixOf('control') } : {}),
      ...(nkeySeed ? { nkeySeed, inboxPrefix: inboxPrefixOf('control') } : {}),
      ...(tls ? { tls } : {}),
    });
  } catch (error) {
    if ((error as Error).name === 'AuthorizationError') {
      const as = credentials ? `as user "${credentials.user}"` : nkeySeed ? "with the control nkey of this checkout's `sluice up`" : 'without credentials';
      throw new ControlError(`NATS at ${url} refused to connect ${as}: give the control identity with --nats.user=control --nats.passwordFile=FILE (sluice up writes .sluice/nats/control.password)`, EXIT.FAILURE);
    }
    throw new ControlError(`cannot reach NATS at ${url} (${(error as Error).message}): is the cluster up? Set nats.url, NATS_URL or --nats.url`, EXIT.FAILURE);
  }
  try {
    return await fn(bus);
  } finally {
    await bus.drain();
  }
}

/** The results of every process that answered, or a ControlError naming what went wrong. */
export function resultsOf(answers: readonly ControlAnswer[], what: string, hint = 'is the cluster up?'): unknown[] {
  if (answers.length === 0) throw new ControlError(`no ${what} answered: ${hint}`, EXIT.FAILURE);
  const refused = answers.filter((a) => !a.ok);
  if (refused.length > 0) throw new ControlError(`${what} refused: ${refused.map((a) => a.message).join('; ')}`, EXIT.USAGE);
  return answers.map((a) => (a as Extract<ControlAnswer, { ok: true }>).result);
}

/** The seed in a `sluice up` run's control.nk (its first line). */
function readNkeySeed(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ControlError(`cannot read the control nkey of this checkout's \`sluice up\` (${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, EXIT.FAILURE);
  }
  return text.split('\n')[0]!.trim();
}

/** The hosts of a NATS URL list that are not this machine's loopback. */
export function remoteHostsOf(url: string): string[] {
  try {
    return parseNatsServers(url)
      .map((s) => s.host)
      .filter((host) => !isLoopbackHost(host));
  } catch {
    // An unparsable URL fails at connect, with its own message.
    return [];
  }
}
