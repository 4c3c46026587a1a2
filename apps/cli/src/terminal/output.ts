export interface TextStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

/** Plain lines; colour only on a terminal (and never with NO_COLOR or TERM=dumb). */
export class Output {
  readonly color: boolean;

  constructor(
    private readonly stream: TextStream,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.color = stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
  }

  line(text = ''): void {
    this.stream.write(`${text}\n`);
  }

  private paint(code: string, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }

  green(text: string): string {
    return this.paint('32', text);
  }

  red(text: string): string {
    return this.paint('31', text);
  }

  yellow(text: string): string {
    return this.paint('33', text);
  }

  dim(text: string): string {
    return this.paint('2', text);
  }

  bold(text: string): string {
    return this.paint('1', text);
  }
}
