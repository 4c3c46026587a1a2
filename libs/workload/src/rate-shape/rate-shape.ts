/**
 * A workload's arrival rate over time, applied by a change of time. The generator draws every
 * client's arrivals as it does for a constant rate, at the mean rate, in *operational* time u;
 * each arrival is then sent at the workload time t = Λ⁻¹(u), where Λ(t) = ∫₀ᵗ rate(s) / mean ds.
 * A renewal process run through Λ⁻¹ keeps its shape (Poisson stays Poisson, with intensity
 * rate(t); a gamma or Weibull process keeps its cv in operational time) and its random draws are
 * exactly the stationary workload's: the same variates in the same order, only the send times
 * move. Λ is continuous and non-decreasing, so the arrival order (and the merge of the clients)
 * is unchanged; where the rate is 0, Λ is flat and no arrival falls there.
 */
export interface RateShape {
  /** The rate operational time runs at (requests/s): the generator draws its arrivals at this rate. */
  readonly meanRate: number;
  /** The offered rate at workload time `tMs` (ms since the start), in requests/s. */
  rateAt(tMs: number): number;
  /** Λ(t): the operational time (ms) of workload time `tMs`. */
  operationalMs(tMs: number): number;
  /**
   * Λ⁻¹(u) taken as inf{t : Λ(t) > u}: the workload time (ms) of operational time `uMs`, so a
   * stage [start, end) receives exactly the operational times [Λ(start), Λ(end)) and a stage of
   * rate 0 none. Infinity when no workload time reaches past `uMs` (after the last stage).
   */
  workloadMs(uMs: number): number;
}
