/** One benchmark figure. Ratios are measured against a baseline run in the same process/run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
  /** what the figure is beside (a previous figure, a what-if): printed and saved, not a target */
  note?: string;
}
