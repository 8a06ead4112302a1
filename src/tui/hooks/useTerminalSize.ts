/**
 * The terminal's size, updated on resize. `override` pins it (tests, benchmarks). Sizes below the
 * supported minimum (60×15) are reported as they are; screens degrade rather than crash.
 */
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface TerminalSize {
  columns: number;
  rows: number;
}

export const MIN_SIZE: TerminalSize = { columns: 60, rows: 15 };

function read(stdout: NodeJS.WriteStream | undefined): TerminalSize {
  return { columns: stdout?.columns || 80, rows: stdout?.rows || 24 };
}

export function useTerminalSize(override?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState<TerminalSize>(() => override ?? read(stdout));
  useEffect(() => {
    if (override) {
      setSize(override);
      return;
    }
    const onResize = () => setSize(read(stdout));
    stdout?.on('resize', onResize);
    return () => {
      stdout?.off('resize', onResize);
    };
  }, [stdout, override?.columns, override?.rows]);
  return override ?? size;
}
