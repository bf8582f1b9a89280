// Small pieces shared by the bench processes.

/** What selects the bytes of an answer: the key of the baseline server's one Map. */
export function routeKey(authorization: string | undefined, url: string, acceptEncoding: string | undefined, ifNoneMatch: string | undefined): string {
  return `${authorization ?? ''}\n${url}\n${acceptEncoding ?? ''}\n${ifNoneMatch ?? ''}`;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
