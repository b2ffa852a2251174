/** Types of test/skips.js, which jest's reporter loads as CommonJS. */
export interface SkipGroup {
  readonly id: string;
  /** What the group's tests need, as the closing line says it. */
  readonly needs: string;
  /** What enables them. */
  readonly enable: string;
  /** CI has what the group needs: under CI=true a skip in it fails the run. */
  readonly ci: boolean;
  readonly patterns: readonly RegExp[];
}
export declare const groups: readonly SkipGroup[];
export declare function groupOf(fullTitle: string): SkipGroup | undefined;
