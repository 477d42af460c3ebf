/** Database-clock bounds, ms: when an operation's effect happens (a hold expires) is known only within them. */
export interface ClockBounds {
  from: number;
  to: number;
}
