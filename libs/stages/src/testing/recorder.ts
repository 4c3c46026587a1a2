import type { Micros } from '@sluice/contracts';

/** One call a core made on its effects port: the method and its arguments. */
export interface Call {
  readonly name: string;
  readonly args: readonly unknown[];
}

/**
 * The specs' implementation of a stage's effects port: it records each call, in order, so a spec
 * reads what the core did to the world (the output of a pure core) and asserts on it. Methods a
 * spec needs to answer (none of the ports' methods return anything) are plain recordings.
 */
export class Recorder {
  readonly calls: Call[] = [];

  /**
   * An object whose every method records its call under its own name, then runs the override of
   * that name if one is given (a wake-up the spec wants to schedule, say).
   */
  port<T extends object>(overrides: Partial<Record<keyof T, (...args: never[]) => void>> = {}): T {
    return new Proxy({} as T, {
      get: (_target, name) => (...args: unknown[]) => {
        this.calls.push({ name: String(name), args });
        (overrides as Record<string | symbol, ((...a: unknown[]) => void) | undefined>)[name]?.(...args);
      },
    });
  }

  names(): string[] {
    return this.calls.map((c) => c.name);
  }

  /** The calls of one method, their arguments only. */
  of(name: string): (readonly unknown[])[] {
    return this.calls.filter((c) => c.name === name).map((c) => c.args);
  }

  clear(): void {
    this.calls.length = 0;
  }
}

/**
 * Wake-ups a core asked for, kept in time order so a spec can run them as a driver would (the
 * service's timers, the twin's agenda): `runUntil(t)` calls each one due by `t`, earliest first,
 * including those the calls themselves ask for.
 */
export class Agenda<K extends string> {
  private pending: { kind: K; atUs: Micros; run: () => void; seq: number }[] = [];
  private seq = 0;

  /** A `WakeUps` port whose wake-ups call `wake(kind, atUs)` when they come due. */
  wakeUps(wake: (kind: K, atUs: Micros) => void): { wakeAt(kind: K, atUs: Micros): void } {
    return { wakeAt: (kind, atUs) => this.add(kind, atUs, () => wake(kind, atUs)) };
  }

  add(kind: K, atUs: Micros, run: () => void): void {
    this.pending.push({ kind, atUs, run, seq: this.seq++ });
  }

  /** When each pending wake-up is due, by kind, in time order. */
  due(kind?: K): Micros[] {
    return this.sorted()
      .filter((p) => kind === undefined || p.kind === kind)
      .map((p) => p.atUs);
  }

  /** Runs every wake-up due at or before `untilUs`, in time order; returns how many ran. */
  runUntil(untilUs: number): number {
    let ran = 0;
    for (;;) {
      const next = this.sorted()[0];
      if (!next || next.atUs > untilUs) return ran;
      this.pending = this.pending.filter((p) => p !== next);
      next.run();
      ran++;
    }
  }

  private sorted() {
    return [...this.pending].sort((a, b) => a.atUs - b.atUs || a.seq - b.seq);
  }
}
