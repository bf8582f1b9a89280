// PLACEHOLDER owned by the compact-view work (issue 4).
export function runCompactCommand(file: string): { output: string; exitCode: number } {
  return { output: `not implemented: ${file}\n`, exitCode: 1 };
}
