/** One benchmark figure. Ratios are measured against a baseline run in the same process/run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
  /** a 95% interval (paired bootstrap over seeds) for a difference row */
  ci?: [number, number];
  /** what the figure is beside (a previous figure, a what-if): printed and saved, not a target */
  note?: string;
}
