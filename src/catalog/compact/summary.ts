// PLACEHOLDER owned by the compact-view work (issue 4): the model-facing
// one-line description of the compact view.
export const MAX_SUMMARY_LENGTH = 160;

export function summarizeDescription(description: string): string {
  return description.slice(0, MAX_SUMMARY_LENGTH);
}
