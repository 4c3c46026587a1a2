import { chownSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommandLine } from '@sluice/config';
import { BUS_IDENTITIES } from '@sluice/contracts';
import { writeNatsAuth } from '@sluice/launcher';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice credentials --out DIR [--if-missing] [--owner UID:GID]

Writes a fresh set of bus credentials into DIR (docs/security.md): a password per identity
(${BUS_IDENTITIES.join(', ')}) in DIR/<identity>.password, mode 0600, an nkey seed for control
in DIR/control.nk (its login that sends no reusable secret), and DIR/nats.conf, the
nats-server authorization block that grants each identity only its subjects (run NATS with
-c DIR/nats.conf). A service connects with --nats.user=<identity> --nats.passwordFile=DIR/<identity>.password.
\`sluice up\` does this by itself for each run; compose runs this command once, into its volume.

Options:
  --out DIR       where to write (created, mode 0700)
  --if-missing    keep the credentials already in DIR (a restarted stack keeps its passwords)
  --owner UID:GID give DIR and its files to this user (run as root: a container writing for
                  services that run as another user, 1000:1000 in the sluice images)
  -h, --help      this text`;

export const credentialsCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'if-missing'], values: ['out', 'owner'] }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const dir = parsed.values.get('out');
    const ownerText = parsed.values.get('owner');
    const owner = ownerText === undefined ? undefined : /^(\d+):(\d+)$/.exec(ownerText);
    const problems = [
      ...parsed.problems,
      ...(dir === undefined ? ['--out DIR is required'] : []),
      ...(owner === null ? [`--owner: "${ownerText}" is not UID:GID (numbers, e.g. 1000:1000)`] : []),
    ];
    if (problems.length > 0) {
      for (const p of problems) err.line(`sluice credentials: ${p}`);
      err.line('Run `sluice credentials --help` for usage.');
      return EXIT.USAGE;
    }
    const target = resolve(ctx.cwd, dir!);
    if (parsed.flags.has('if-missing') && existsSync(join(target, 'nats.conf'))) {
      out.line(`bus credentials kept: ${target}`);
      return EXIT.OK;
    }
    const auth = writeNatsAuth(target);
    if (owner) {
      const [uid, gid] = [Number(owner[1]), Number(owner[2])];
      for (const path of [auth.dir, auth.configFile, auth.controlNkey.seedFile, ...BUS_IDENTITIES.map(auth.passwordFileOf)]) chownSync(path, uid, gid);
    }
    out.line(`bus credentials written: ${target} (nats.conf, <identity>.password for ${BUS_IDENTITIES.join(', ')})`);
    return EXIT.OK;
  },
};
