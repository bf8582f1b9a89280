// The fixed choices of the command line's flags, in a module of their own so
// that the command line parses them without loading the host or the logger.
export const FINDING_KINDS = ['source-failed', 'secret-unset', 'glob-unmatched', 'rule-unmatched'] as const;
/** What `toolhost validate` can find beyond a broken file. */
export type FindingKind = (typeof FINDING_KINDS)[number];

export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
