/** Types of test/tiers.js, which jest.config.js loads as CommonJS. */
export interface Tier {
  readonly name: string;
  /** Globs from the repository's root. */
  readonly paths: readonly string[];
  readonly what: string;
}
export declare const tiers: readonly Tier[];
export declare function selection(tierName: string | undefined): {
  testMatch: string[];
  testPathIgnorePatterns?: string[];
};
