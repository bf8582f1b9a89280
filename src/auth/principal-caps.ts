// Caps on what one principal holds open at once (docs/auth.md "Caps on what
// a principal holds open"): MCP sessions, tool calls in flight, event
// streams. A rate limit bounds how often a principal asks; these bound what
// its asking keeps alive (a socket, a subscription, an SDK server, a running
// call), which a rate limit cannot see. Each cap counts slots per principal
// key; a slot is taken before the work starts, so two requests racing for
// the last one cannot both get it, and given back exactly once when the work
// ends. Every cap refuses with the same answer, built here only: 429
// `rate_limited` (the contract's code for "too much from this caller, come
// back later"), `Retry-After`, and details naming the setting that caps it.
import { ContractError } from '../contract/errors.js';

export interface CapSpec {
  /** The config key that sets `limit`, named in the refusal's details so an operator knows what to raise. */
  setting: string;
  /** Slots one principal may hold; at least 1. */
  limit: number;
  /**
   * Seconds a refused client is told to wait. A slot is freed when work ends,
   * not on a clock, so this is a hint sized to how long such work lasts.
   */
  retryAfterS: number;
  /** What a slot is, in the plural, for the refusal's message ("open event streams"). */
  holds: string;
  /** What the refused client can do, for the message ("close one before opening another"). */
  advice: string;
}

/** A taken slot (or several): `release` gives them back; calling it again does nothing. */
export interface Slot {
  release(): void;
}

export class PrincipalCap {
  private readonly held = new Map<string, number>();
  private all = 0;

  constructor(readonly spec: CapSpec) {}

  /** Slots held in all, over every principal (for a gauge). */
  get total(): number {
    return this.all;
  }

  heldBy(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** `n` slots for `key`, or undefined (nothing taken) when they would put it over the limit. */
  tryTake(key: string, n = 1): Slot | undefined {
    const now = this.heldBy(key);
    if (now + n > this.spec.limit) return undefined;
    this.held.set(key, now + n);
    this.all += n;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.giveBack(key, n);
      },
    };
  }

  /** `n` slots for `key`; throws the refusal when they would put it over the limit. */
  take(key: string, n = 1): Slot {
    const slot = this.tryTake(key, n);
    if (slot === undefined) throw this.refusal(key);
    return slot;
  }

  /** The one answer to a principal over this cap. */
  refusal(key: string): ContractError {
    const { setting, limit, retryAfterS, holds, advice } = this.spec;
    return new ContractError(
      'rate_limited',
      `this principal already has ${this.heldBy(key)} ${holds} (at most ${limit}); ${advice}`,
      { retryAfter: retryAfterS, cap: setting, limit },
      { 'retry-after': String(retryAfterS) },
    );
  }

  private giveBack(key: string, n: number): void {
    const left = this.heldBy(key) - n;
    if (left <= 0) this.held.delete(key);
    else this.held.set(key, left);
    this.all -= n;
  }
}
