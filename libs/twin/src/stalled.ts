/** The twin found requests that nothing on its agenda could ever end (an invariant broken). */
export class TwinStalledError extends Error {
  override readonly name = 'TwinStalledError';
  constructor(outstanding: number, atUs: number) {
    super(`${outstanding} requests can never end: nothing left on the agenda at ${(atUs / 1e6).toFixed(3)} s of virtual time`);
  }
}
